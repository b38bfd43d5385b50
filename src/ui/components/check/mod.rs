//! The checker in the page (CHECKER.md): its knobs, *Check* and *Stop*, live progress, the verdict — or the
//! shortest failing history, which opens in the player — a share link, and a gallery of the article's wrong
//! turns, each run beside strict on the same configuration. Every search runs in a worker
//! ([`crate::ui::checker`]); this component only draws and routes messages.

mod gallery;
mod panel;
mod result;

use crate::ui::checker::{link_in_location, start, Message, Running};
use crate::ui::i18n::{t, tf, Lang};
use crate::ui::state::Action;
use crate::ui::{run_soon, Ctx};
use outbox_core::checker::Config;
use outbox_core::protocol::{Ordering, Synchronous, WriteMode};
use std::cell::RefCell;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

use gallery::*;
use panel::*;
use result::*;

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

/// The knobs as a configuration, with the page's rule for *Your rule*, or what is wrong with them.
fn read_knobs(panel: &Panel, model: &Ctx) -> Result<Config, String> {
    let mut config = Config {
        schema2: Config::parse_schema2(&panel.schema2),
        ..panel.config.clone()
    };
    if config.consumer == Ordering::Rule {
        config.rule = Some(crate::ui::components::rule::checked(model)?);
    }
    config.validate()?;
    Ok(config)
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
            // A link's rule is the page's rule from now on: the editor shows what ran.
            if let Some(rule) = &config.rule {
                model.dispatch(Action::EditRule(rule.sql().to_owned(), rule.effect()));
            }
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
                    config.consumer = Ordering::from_name(&value).unwrap_or(config.consumer);
                    // The page's rule joins the configuration when *Check* starts it.
                    config.rule = None;
                }
                "producer" => {
                    config.producer = WriteMode::from_name(&value).unwrap_or(config.producer)
                }
                "power_cuts" => config.power_cuts = n,
                "synchronous" => {
                    config.synchronous =
                        Synchronous::from_name(&value).unwrap_or(config.synchronous)
                }
                "symmetry" => {
                    config.symmetry = e
                        .target_dyn_into::<HtmlInputElement>()
                        .is_some_and(|i| i.checked())
                }
                _ => schema2 = value,
            }
            panel.dispatch(Msg::Knobs(config, schema2));
        })
    };
    let run = {
        let panel = panel.clone();
        let workers = workers.clone();
        let model = model.clone();
        Callback::from(move |_| match read_knobs(&panel, &model) {
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
        ("power_cuts", numbers(0..=2), c.power_cuts.to_string()),
        (
            "synchronous",
            [Synchronous::Full, Synchronous::Normal]
                .iter()
                .map(|m| {
                    (
                        m.name().to_owned(),
                        t(lang, &format!("check.synchronous.{}", m.name())),
                    )
                })
                .collect(),
            c.synchronous.name().to_owned(),
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
                <label class="toggle">
                    <input type="checkbox" data-testid="check-symmetry" checked={c.symmetry}
                        onchange={knob("symmetry")} disabled={running} />
                    { t(lang, "check.symmetry") }
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
                <p class="error" role="alert" data-testid="check-error">{ crate::ui::i18n::message(lang, e) }</p>
            }
            { result(p, lang, &model) }
            <h3>{ t(lang, "check.gallery") }</h3>
            <p class="note">{ t(lang, "check.gallery.note") }</p>
            <ul class="gallery">
                { for GALLERY.iter().map(|entry| gallery_entry(entry, p, lang, running, &panel, &workers, &model)) }
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

/// After opening a counterexample: the player is at the top of the page.
fn scroll_to_player() {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("[data-testid=timeline]").ok().flatten())
    {
        el.scroll_into_view();
    }
}
