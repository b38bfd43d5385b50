//! The checker in the page (CHECKER.md): its knobs, *Check* and *Stop*, live progress, the verdict — or the
//! shortest failing history, which opens in the player — a share link, and a gallery of the article's wrong
//! turns, each run beside strict on the same configuration. Every search runs in a worker
//! ([`crate::ui::checker`]); this component only draws and routes messages.

use crate::ui::checker::{link_in_location, start, Message, Running};
use crate::ui::i18n::{t, tf, Lang};
use crate::ui::state::Act;
use crate::ui::state::Action;
use crate::ui::{run_soon, Ctx};
use outbox_core::checker::{self, Config, Finding, Outcome};
use outbox_core::playground::Command;
use outbox_core::protocol::{Ordering, WriteMode};
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// A gallery entry: a wrong turn, the article's section, and the smallest configuration where it breaks.
struct Entry {
    name: &'static str,
    section: &'static str,
    consumer: Ordering,
    producer: WriteMode,
    shape: [u8; 4],
    schema2: &'static str,
}

const GALLERY: [Entry; 5] = [
    Entry {
        name: "unsafe_dual_write",
        section: "§2",
        consumer: Ordering::Strict,
        producer: WriteMode::UnsafeDualWrite,
        shape: [1, 2, 0, 1],
        schema2: "",
    },
    Entry {
        name: "dedupe_only",
        section: "§5",
        consumer: Ordering::DedupeOnly,
        producer: WriteMode::Atomic,
        shape: [1, 2, 0, 0],
        schema2: "",
    },
    Entry {
        name: "greater_than",
        section: "§5",
        consumer: Ordering::GreaterThan,
        producer: WriteMode::Atomic,
        shape: [1, 2, 0, 0],
        schema2: "",
    },
    Entry {
        name: "effect_outside_tx",
        section: "§5",
        consumer: Ordering::EffectOutsideTx,
        producer: WriteMode::Atomic,
        shape: [1, 2, 0, 1],
        schema2: "",
    },
    Entry {
        name: "skip_blocked",
        section: "§6",
        consumer: Ordering::SkipBlocked,
        producer: WriteMode::Atomic,
        shape: [1, 3, 0, 0],
        schema2: "A2",
    },
];

impl Entry {
    fn config(&self) -> Config {
        let [flows, events, resends, crashes] = self.shape;
        Config {
            flows,
            events,
            resends,
            crashes,
            schema2: Config::parse_schema2(self.schema2),
            consumer: self.consumer,
            producer: self.producer,
        }
    }
}

/// One search as the page sees it.
#[derive(Clone, PartialEq)]
enum Run {
    Running {
        counts: checker::Counts,
        elapsed_ms: u64,
    },
    Done(Rc<Outcome>),
    Stopped {
        counts: checker::Counts,
        elapsed_ms: u64,
    },
    Failed(String),
}

#[derive(Clone, PartialEq, Default)]
struct Panel {
    /// The knobs; `schema2` as typed.
    config: Config,
    schema2: String,
    /// Bumped by each Check: messages of an older run are ignored.
    id: u64,
    /// The configuration of the run shown, its result, and strict's on the same configuration (gallery).
    ran: Option<Config>,
    main: Option<Run>,
    strict: Option<Run>,
    gallery: Option<&'static str>,
    /// Each gallery entry's last result (the wrong turn's, strict's).
    shelf: Vec<Shelved>,
    /// What a check link said the result was.
    expect: Option<String>,
    /// Bumped whenever the page, not the reader, sets the knobs.
    generation: u64,
    /// A check link too large to start by itself: its configuration and result, run by *Check*.
    offered: Option<(Config, String)>,
    error: Option<String>,
}

/// A gallery entry's last result: the wrong turn's and strict's on the same configuration.
#[derive(Clone, PartialEq)]
struct Shelved {
    name: &'static str,
    wrong: Rc<Outcome>,
    strict: Rc<Outcome>,
}

enum Msg {
    Knobs(Config, String),
    /// A link's configuration, put in the knobs for the reader to start.
    Offered(Config, String),
    Started {
        id: u64,
        config: Config,
        gallery: Option<&'static str>,
        expect: Option<String>,
    },
    Worker {
        id: u64,
        strict: bool,
        message: Message,
    },
    Stop,
    Error(String),
}

impl Reducible for Panel {
    type Action = Msg;

    fn reduce(self: Rc<Self>, msg: Msg) -> Rc<Self> {
        let mut p = (*self).clone();
        match msg {
            Msg::Knobs(config, schema2) => {
                p.config = config;
                p.schema2 = schema2;
                p.error = None;
            }
            Msg::Offered(config, expect) => {
                p.schema2 = config.schema2.join(",");
                p.config = config.clone();
                p.offered = Some((config, expect));
                p.generation += 1;
                p.error = None;
            }
            Msg::Started {
                id,
                config,
                gallery,
                expect,
            } => {
                p.id = id;
                p.schema2 = config.schema2.join(",");
                p.config = config.clone();
                p.ran = Some(config);
                p.main = Some(Run::Running {
                    counts: Default::default(),
                    elapsed_ms: 0,
                });
                p.strict = gallery.map(|_| Run::Running {
                    counts: Default::default(),
                    elapsed_ms: 0,
                });
                p.gallery = gallery;
                p.expect = expect;
                p.offered = None;
                p.generation += 1;
                p.error = None;
            }
            Msg::Worker {
                id,
                strict,
                message,
            } => {
                if id != p.id {
                    return self;
                }
                let run = match message {
                    Message::Progress { counts, elapsed_ms } => Run::Running { counts, elapsed_ms },
                    Message::Done(o) => Run::Done(Rc::new(*o)),
                    Message::Failed(e) => Run::Failed(e),
                };
                let slot = if strict { &mut p.strict } else { &mut p.main };
                // A failed run keeps its first message (a worker that stops may say so twice).
                if !matches!(slot, Some(Run::Failed(_))) {
                    *slot = Some(run);
                }
                if let (Some(name), Some(Run::Done(wrong)), Some(Run::Done(strict))) =
                    (p.gallery, &p.main, &p.strict)
                {
                    p.shelf.retain(|s| s.name != name);
                    p.shelf.push(Shelved {
                        name,
                        wrong: wrong.clone(),
                        strict: strict.clone(),
                    });
                }
            }
            Msg::Stop => {
                let stop = |run: &mut Option<Run>| {
                    if let Some(Run::Running { counts, elapsed_ms }) = run {
                        *run = Some(Run::Stopped {
                            counts: *counts,
                            elapsed_ms: *elapsed_ms,
                        });
                    }
                };
                stop(&mut p.main);
                stop(&mut p.strict);
            }
            Msg::Error(e) => p.error = Some(e),
        }
        Rc::new(p)
    }
}

/// The workers of the run in progress, by run id and role (strict's companion or not).
type Workers = Rc<RefCell<Vec<(u64, bool, Running)>>>;

/// Starts `config` (and strict on it, for a gallery entry) in workers.
fn launch(
    panel: &UseReducerHandle<Panel>,
    workers: &Workers,
    config: Config,
    gallery: Option<&'static str>,
    expect: Option<String>,
) {
    thread_local! {
        static RUNS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }
    let id = RUNS.with(|r| {
        r.set(r.get() + 1);
        r.get()
    });
    workers.borrow_mut().clear();
    panel.dispatch(Msg::Started {
        id,
        config: config.clone(),
        gallery,
        expect,
    });
    let mut runs = vec![(false, config.clone())];
    if gallery.is_some() {
        runs.push((
            true,
            Config {
                consumer: Ordering::Strict,
                producer: WriteMode::Atomic,
                ..config
            },
        ));
    }
    for (strict, config) in runs {
        let handle = panel.clone();
        let shelf = workers.clone();
        let started = start(&config, move |message| {
            let finished = !matches!(message, Message::Progress { .. });
            handle.dispatch(Msg::Worker {
                id,
                strict,
                message,
            });
            if finished {
                // Not from inside the worker's own handler: terminate it on the next turn.
                let shelf = shelf.clone();
                run_soon(move || {
                    shelf
                        .borrow_mut()
                        .retain(|(i, s, _)| (*i, *s) != (id, strict))
                });
            }
        });
        match started {
            Ok(running) => workers.borrow_mut().push((id, strict, running)),
            Err(e) => panel.dispatch(Msg::Worker {
                id,
                strict,
                message: Message::Failed(e),
            }),
        }
    }
}

/// The knobs as a configuration, or what is wrong with them.
fn read_knobs(panel: &Panel) -> Result<Config, String> {
    let config = Config {
        schema2: Config::parse_schema2(&panel.schema2),
        ..panel.config.clone()
    };
    config.validate()?;
    Ok(config)
}

/// What a result is, in the words a link carries: `verdict=violated&property=…&length=…&states=…`.
fn result_query(o: &Outcome) -> String {
    let verdict = match &o.verdict {
        Some(Finding::Holds) => "verdict=holds".to_owned(),
        Some(Finding::Violated {
            property, trace, ..
        }) => {
            format!(
                "verdict=violated&property={}&length={}",
                property.name(),
                trace.steps.len()
            )
        }
        None => return String::new(),
    };
    format!(
        "{verdict}&states={}&transitions={}",
        o.counts.states, o.counts.transitions
    )
}

/// Opens the check link in the address, if there is one: a quick configuration runs at once, a large one is put
/// in the knobs for the reader to start (a link should not set off minutes of work by itself); a bad one gets a
/// message naming what is wrong, and nothing runs.
fn open_link(panel: &UseReducerHandle<Panel>, workers: &Workers, model: &Ctx, section: &NodeRef) {
    let Some(query) = link_in_location() else {
        return;
    };
    match Config::from_query(&query) {
        Ok((config, rest)) => {
            let expect = rest
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join("&");
            if config.is_quick() {
                launch(
                    panel,
                    workers,
                    config,
                    None,
                    Some(expect).filter(|e| !e.is_empty()),
                );
            } else {
                panel.dispatch(Msg::Offered(config, expect));
            }
            if let Some(el) = section.cast::<web_sys::Element>() {
                el.scroll_into_view();
            }
        }
        Err(e) => {
            let message = tf(model.lang, "check.bad_link", &[&e]);
            panel.dispatch(Msg::Error(message.clone()));
            model.dispatch(Action::Error(message));
        }
    }
}

#[component]
pub fn Checker() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let panel = use_reducer(Panel::default);
    let workers: Workers = use_mut_ref(Vec::new);
    let section = use_node_ref();
    {
        // A check link runs its configuration once the page is up, and scrolls here to show it.
        let panel = panel.clone();
        let workers = workers.clone();
        let model = model.clone();
        let section = section.clone();
        use_effect_with((), move |_| {
            open_link(&panel, &workers, &model, &section);
            let workers = workers.clone();
            move || workers.borrow_mut().clear()
        });
    }
    let p = &*panel;
    let running = matches!(p.main, Some(Run::Running { .. }))
        || matches!(p.strict, Some(Run::Running { .. }));

    let knob = |key: &'static str| {
        let panel = panel.clone();
        Callback::from(move |e: Event| {
            let value = e
                .target_dyn_into::<HtmlSelectElement>()
                .map(|s| s.value())
                .or_else(|| e.target_dyn_into::<HtmlInputElement>().map(|i| i.value()))
                .unwrap_or_default();
            let mut config = panel.config.clone();
            let mut schema2 = panel.schema2.clone();
            let n = value.parse::<u8>().unwrap_or(0);
            match key {
                "flows" => config.flows = n,
                "events" => config.events = n,
                "resends" => config.resends = n,
                "crashes" => config.crashes = n,
                "consumer" => {
                    config.consumer = Ordering::from_name(&value).unwrap_or(config.consumer)
                }
                "producer" => {
                    config.producer = WriteMode::from_name(&value).unwrap_or(config.producer)
                }
                _ => schema2 = value,
            }
            panel.dispatch(Msg::Knobs(config, schema2));
        })
    };
    let run = {
        let panel = panel.clone();
        let workers = workers.clone();
        Callback::from(move |_| match read_knobs(&panel) {
            Ok(config) => {
                // A large link's configuration, unchanged: its recorded result is compared when the run ends.
                let expect = panel
                    .offered
                    .as_ref()
                    .filter(|(c, _)| *c == config)
                    .map(|(_, e)| e.clone());
                launch(&panel, &workers, config, None, expect)
            }
            Err(e) => panel.dispatch(Msg::Error(e)),
        })
    };
    let stop = {
        let panel = panel.clone();
        let workers = workers.clone();
        Callback::from(move |_| {
            workers.borrow_mut().clear();
            panel.dispatch(Msg::Stop);
        })
    };
    let c = &p.config;
    let numbers = |range: std::ops::RangeInclusive<u8>| {
        range.map(|n| (n.to_string(), n.to_string())).collect()
    };
    let knobs = [
        ("flows", numbers(1..=3), c.flows.to_string()),
        ("events", numbers(1..=3), c.events.to_string()),
        ("resends", numbers(0..=3), c.resends.to_string()),
        ("crashes", numbers(0..=3), c.crashes.to_string()),
        (
            "consumer",
            Ordering::ALL
                .iter()
                .map(|o| (o.name().to_owned(), t(lang, &format!("mode.{}", o.name()))))
                .collect(),
            c.consumer.name().to_owned(),
        ),
        (
            "producer",
            WriteMode::ALL
                .iter()
                .map(|m| {
                    (
                        m.name().to_owned(),
                        t(lang, &format!("check.producer.{}", m.name())),
                    )
                })
                .collect(),
            c.producer.name().to_owned(),
        ),
    ];
    html! {
        <section class="checker" aria-labelledby="checker-h" ref={section}>
            <h2 id="checker-h">{ t(lang, "check.title") }</h2>
            <p class="note">{ t(lang, "check.note") }</p>
            <div class="knobs">
                { for knobs.into_iter().map(|(key, options, value)| select(lang, key, options, &value, knob(key), running, p.generation)) }
                <label>{ t(lang, "check.schema2") }
                    <input type="text" data-testid="check-schema2" value={p.schema2.clone()} placeholder="A2,B1"
                        spellcheck="false" onchange={knob("schema2")} disabled={running} />
                </label>
            </div>
            <div class="buttons">
                <button data-testid="check-run" onclick={run} disabled={running}>{ t(lang, "check.run") }</button>
                <button data-testid="check-stop" onclick={stop} disabled={!running}>{ t(lang, "check.stop") }</button>
            </div>
            if let (Some(_), false) = (&p.offered, running) {
                <p class="note" data-testid="check-offered">{ t(lang, "check.offered") }</p>
            }
            if let Some(e) = &p.error {
                <p class="error" role="alert" data-testid="check-error">{ e }</p>
            }
            { result(p, lang, &model) }
            <h3>{ t(lang, "check.gallery") }</h3>
            <p class="note">{ t(lang, "check.gallery.note") }</p>
            <ul class="gallery">
                { for GALLERY.iter().map(|entry| gallery_entry(entry, p, lang, running, &panel, &workers)) }
            </ul>
        </section>
    }
}

/// One knob: a labelled select whose values are CHECKER.md's words (one function for all six keeps the page small).
fn select(
    lang: Lang,
    key: &str,
    options: Vec<(String, String)>,
    value: &str,
    onchange: Callback<Event>,
    disabled: bool,
    generation: u64,
) -> Html {
    html! {
        // Keyed by the knobs' generation: a select the reader has touched ignores a later `selected` attribute,
        // so values set by the page (a gallery entry, a link) rebuild it rather than leave it showing something
        // else; the reader's own changes do not (the select keeps its focus).
        <label key={format!("{key}-{generation}")}>{ t(lang, &format!("check.{key}")) }
            <select data-testid={format!("check-{key}")} {onchange} {disabled}>
                { for options.into_iter().map(|(v, label)| { let selected = v == value; html! { <option {selected} value={v}>{ label }</option> } }) }
            </select>
        </label>
    }
}

fn rate(n: u64, ms: u64) -> String {
    (n * 1000).checked_div(ms).unwrap_or(0).to_string()
}

/// The run's line (progress, verdict or refusal), the counterexample if any, and strict's line beside a
/// gallery entry: each drawn by one `html!`, with what differs computed first (the page pays per `html!`).
fn result(p: &Panel, lang: Lang, model: &Ctx) -> Html {
    let Some(main) = &p.main else { return html! {} };
    let strict = match &p.strict {
        Some(Run::Done(o)) if o.verdict == Some(Finding::Holds) => Some((
            "",
            tf(
                lang,
                "check.strict_holds",
                &[
                    &o.counts.states.to_string(),
                    &o.counts.transitions.to_string(),
                ],
            ),
        )),
        Some(Run::Done(_)) => Some(("error", t(lang, "check.strict_broken"))),
        Some(Run::Failed(e)) => Some(("error", e.clone())),
        Some(Run::Running { .. }) => Some(("", t(lang, "check.strict_running"))),
        _ => None,
    };
    let (mut testid, mut verdict, mut class) = ("check-result", None, "verdict");
    let (counts, ms) = match main {
        Run::Running { counts, elapsed_ms } | Run::Stopped { counts, elapsed_ms } => {
            (*counts, *elapsed_ms)
        }
        Run::Done(o) => (o.counts, o.elapsed_ms),
        Run::Failed(_) => Default::default(),
    };
    let (states, transitions) = (counts.states.to_string(), counts.transitions.to_string());
    let mut property = None;
    let mut length = None;
    let mut counterexample = None;
    let text = match main {
        Run::Running { .. } => {
            (testid, class) = ("check-progress", "progress-line");
            tf(
                lang,
                "check.progress",
                &[
                    &states,
                    &counts.depth.to_string(),
                    &rate(counts.transitions, ms),
                    &ms.to_string(),
                ],
            )
        }
        Run::Stopped { .. } => {
            verdict = Some("stopped");
            tf(
                lang,
                "check.stopped",
                &[&states, &transitions, &ms.to_string()],
            )
        }
        Run::Failed(e) => {
            (testid, class) = ("check-error", "error");
            e.clone()
        }
        Run::Done(o) => match &o.verdict {
            Some(Finding::Violated {
                property: broken,
                why,
                trace,
                results,
            }) => {
                verdict = Some("violated");
                class = "verdict bad";
                property = Some(broken.name());
                length = Some(trace.steps.len().to_string());
                counterexample = Some((why, trace, results));
                tf(
                    lang,
                    "check.violated",
                    &[
                        &t(lang, &format!("property.{}", broken.name())),
                        &trace.steps.len().to_string(),
                        &states,
                        &transitions,
                        &ms.to_string(),
                    ],
                )
            }
            _ => {
                verdict = Some("holds");
                class = "verdict ok";
                tf(
                    lang,
                    "check.holds",
                    &[&states, &transitions, &ms.to_string()],
                )
            }
        },
    };
    let done = matches!(main, Run::Done(_));
    let found = match main {
        Run::Done(o) => result_query(o),
        _ => String::new(),
    };
    let link = p
        .ran
        .as_ref()
        .map(|c| format!("#check?{}&{found}", c.to_query()))
        .unwrap_or_default();
    // A link's own words against this page's: the same search on the same configuration must agree.
    let comparison = p.expect.as_ref().filter(|_| done).map(|expected| {
        // The link's own words (`verdict=holds&states=…`), each of which this page's result must contain.
        let differ: Vec<&str> = expected
            .split('&')
            .filter(|kv| !found.split('&').any(|f| f == *kv))
            .collect();
        let text = if differ.is_empty() {
            t(lang, "check.link_same")
        } else {
            tf(lang, "check.link_differs", &[&differ.join("&"), &found])
        };
        (differ.is_empty(), text)
    });
    let open = counterexample.map(|(_, trace, _)| {
        let model = model.clone();
        let trace = trace.clone();
        Callback::from(move |_| {
            model.act(Command::Load(Box::new(trace.clone())));
            scroll_to_player();
        })
    });
    html! {
        // Announced when a run ends, not at every progress update.
        <div class="check-result" aria-live={(testid != "check-progress").then_some("polite")}
            aria-busy={(testid == "check-progress").then_some("true")}>
            <p data-testid={testid} data-verdict={verdict} data-states={states} data-transitions={transitions} data-elapsed-ms={ms.to_string()}
                data-property={property} data-length={length} {class}>{ text }</p>
            if let Some((why, trace, results)) = counterexample {
                <ol class="counterexample" data-testid="check-steps" translate="no" lang="en">
                    { for trace.steps.iter().zip(results).map(|(step, r)| html! {
                        <li><code>{ checker::describe(step) }</code>{ " → " }<code>{ r }</code></li>
                    }) }
                </ol>
                <p class="why" data-testid="check-why" lang="en">{ why }</p>
            }
            if let Some((same, text)) = comparison {
                <p data-testid="check-link-match" data-match={same.to_string()} class={(!same).then_some("error")}>{ text }</p>
            }
            if done {
                <div class="buttons">
                    if let Some(onclick) = open {
                        <button data-testid="check-open" {onclick}>{ t(lang, "check.open") }</button>
                    }
                    <a href={link} target="_blank" rel="noopener" data-testid="check-share">{ t(lang, "check.share") }</a>
                </div>
            }
            if let Some((class, text)) = strict {
                <p data-testid="check-strict" {class}>{ text }</p>
            }
        </div>
    }
}

/// After opening a counterexample: the player is at the top of the page.
fn scroll_to_player() {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("[data-testid=timeline]").ok().flatten())
    {
        el.scroll_into_view();
    }
}

fn gallery_entry(
    entry: &'static Entry,
    p: &Panel,
    lang: Lang,
    running: bool,
    panel: &UseReducerHandle<Panel>,
    workers: &Workers,
) -> Html {
    let onclick = {
        let panel = panel.clone();
        let workers = workers.clone();
        Callback::from(move |_| launch(&panel, &workers, entry.config(), Some(entry.name), None))
    };
    let shelf = p.shelf.iter().find(|s| s.name == entry.name);
    let summary = shelf.map(|s| {
        let wrong = match &s.wrong.verdict {
            Some(Finding::Violated {
                property, trace, ..
            }) => tf(
                lang,
                "check.gallery.caught",
                &[property.name(), &trace.steps.len().to_string()],
            ),
            _ => t(lang, "check.gallery.missed"),
        };
        let strict = match s.strict.verdict {
            Some(Finding::Holds) => tf(
                lang,
                "check.gallery.strict",
                &[&s.strict.counts.states.to_string()],
            ),
            _ => t(lang, "check.strict_broken"),
        };
        format!("{wrong} {strict}")
    });
    html! {
        <li>
            <button data-testid={format!("gallery-{}", entry.name)} {onclick} disabled={running}>
                { tf(lang, "check.gallery.entry", &[&t(lang, &format!("gallery.{}", entry.name)), entry.section]) }
            </button>
            <span class="note"> { t(lang, &format!("gallery.{}.what", entry.name)) }</span>
            if let Some(s) = summary {
                <span data-testid={format!("gallery-{}-result", entry.name)} class="gallery-result">{ s }</span>
            }
        </li>
    }
}
