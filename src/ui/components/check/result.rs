//! A run's line, its counterexample and the words a check link carries.

use crate::ui::i18n::{t, tf, Lang};
use crate::ui::state::Act;
use crate::ui::Ctx;
use outbox_core::checker::{self, Finding, Outcome};
use outbox_core::playground::Command;
use yew::prelude::*;

use super::panel::*;
use super::scroll_to_player;

/// What a result is, in the words a link carries: `verdict=violated&property=…&length=…&states=…`.
pub(super) fn result_query(o: &Outcome) -> String {
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

pub(super) fn rate(n: u64, ms: u64) -> String {
    (n * 1000).checked_div(ms).unwrap_or(0).to_string()
}

/// The run's line (progress, verdict or refusal), the counterexample if any, and strict's line beside a
/// gallery entry: each drawn by one `html!`, with what differs computed first (the page pays per `html!`).
pub(super) fn result(p: &Panel, lang: Lang, model: &Ctx) -> Html {
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
        Some(Run::Failed(e)) => Some(("error", crate::ui::i18n::message(lang, e))),
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
            crate::ui::i18n::message(lang, e)
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
                counterexample = Some((why, trace, results, broken));
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
    // Run with a rule the editor no longer holds.
    let stale = p
        .ran
        .as_ref()
        .and_then(|c| c.rule.as_ref())
        .is_some_and(|r| !model.rule.is(r));
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
    let open = counterexample.map(|(_, trace, _, _)| {
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
                data-property={property} data-length={length} data-stale={stale.then_some("true")} {class}>{ text }</p>
            if stale {
                <p class="note" data-testid="check-stale">{ t(lang, "check.stale") }</p>
            }
            if p.ran.as_ref().is_some_and(|c| c.symmetry) {
                <p class="note" data-testid="check-symmetry-note">{ t(lang, "check.symmetry_note") }</p>
            }
            if let Some((why, trace, results, broken_property)) = counterexample {
                <ol class="counterexample" data-testid="check-steps" translate="no" lang="en">
                    { for trace.steps.iter().zip(results).map(|(step, r)| html! {
                        <li><code>{ checker::describe(step) }</code>{ " → " }<code>{ r }</code></li>
                    }) }
                </ol>
                // One paragraph: the explanation, which names the property; the checker's own sentence (what
                // the CLI prints) only where there is none.
                if let Ok(Some(e)) = outbox_core::explain::explain_property(trace, *broken_property, why, lang) {
                    <p class="explain" data-testid="explain">
                        <code translate="no">{ broken_property.name() }</code>{ ": " }{ e.text }
                    </p>
                } else {
                    <p class="why" data-testid="check-why" lang="en">{ why }</p>
                }
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
