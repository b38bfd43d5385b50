//! The article's twelve experiments replayed in this browser after the first render, with their verdicts.

use crate::experiments;
use crate::ui::i18n::{t, tf};
use crate::ui::Ctx;
use yew::prelude::*;

#[derive(Clone, PartialEq)]
struct Line {
    id: String,
    title: String,
    section: String,
    ok: bool,
    detail: String,
}

#[component]
pub fn ExperimentsPanel() -> Html {
    let lang = use_context::<Ctx>().map(|m| m.lang).unwrap_or_default();
    let lines = use_state(|| None::<Vec<Line>>);
    {
        let lines = lines.clone();
        use_effect_with((), move |_| {
            // After the first paint, so the playground is interactive first.
            run_soon(move || {
                let checked = experiments::check_all()
                    .into_iter()
                    .zip(experiments::ALL.iter())
                    .map(|(c, e)| match c {
                        Ok(c) => Line {
                            ok: c.ok(),
                            detail: if c.ok() {
                                c.summary.clone()
                            } else {
                                c.mismatches.join("; ")
                            },
                            id: c.id,
                            title: c.title,
                            section: c.section,
                        },
                        Err(err) => Line {
                            id: e.file.into(),
                            title: String::new(),
                            section: String::new(),
                            ok: false,
                            detail: err,
                        },
                    })
                    .collect();
                lines.set(Some(checked));
            });
        });
    }
    html! {
        <section class="experiments" aria-labelledby="exp-h">
            <h2 id="exp-h">{ t(lang, "experiments.title") }</h2>
            { match &*lines {
                None => html! { <p data-testid="experiments-summary">{ t(lang, "experiments.running") }</p> },
                Some(lines) => {
                    let passed = lines.iter().filter(|l| l.ok).count();
                    html! {
                        <>
                        <p class={classes!("summary", (passed == lines.len()).then_some("ok"))} data-testid="experiments-summary">
                            { tf(lang, "experiments.summary", &[&passed.to_string(), &lines.len().to_string()]) }
                        </p>
                        <ol class="exp-lines">
                            { for lines.iter().map(|l| html! {
                                <li data-testid={format!("experiment-{}", l.id)} data-ok={l.ok.to_string()}>
                                    <span class={classes!("mark", if l.ok { "ok" } else { "bad" })}>{ if l.ok { "✓" } else { "✗" } }</span>
                                    <strong>{ format!("{} {}", l.id, l.title) }</strong>
                                    <span class="section">{ format!(" {} ", l.section) }</span>
                                    <span class="detail">{ &l.detail }</span>
                                </li>
                            }) }
                        </ol>
                        </>
                    }
                }
            } }
        </section>
    }
}

/// Runs `f` once on the next turn of the event loop.
pub fn run_soon(f: impl FnOnce() + 'static) -> Option<i32> {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let window = web_sys::window()?;
    let closure = Closure::once_into_js(f);
    window
        .set_timeout_with_callback_and_timeout_and_arguments_0(closure.unchecked_ref(), 0)
        .ok()
}
