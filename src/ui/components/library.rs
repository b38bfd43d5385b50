//! The scenario library: the article's twelve experiments, checked in this browser after the first render,
//! each one click from the player; the loaded one shows the article's expected result beside the live one.

use crate::ui::i18n::{t, tf, Lang};
use crate::ui::run_soon;
use crate::ui::state::Act;
use crate::ui::Ctx;
use outbox_core::experiments;
use outbox_core::playground::Command;
use yew::prelude::*;

#[derive(Clone, PartialEq)]
struct Line {
    ok: bool,
    detail: String,
}

/// An experiment's title and summary in the page's language (`title_zh`, `summary_zh` in the file). The twelve
/// files are parsed once, not on every render.
pub fn meta_text(lang: Lang, index: usize, key: &str) -> String {
    static META: std::sync::OnceLock<Vec<serde_json::Value>> = std::sync::OnceLock::new();
    let all = META.get_or_init(|| {
        experiments::ALL
            .iter()
            .map(|e| {
                serde_json::from_str::<serde_json::Value>(e.text)
                    .ok()
                    .and_then(|v| v.get("experiment").cloned())
                    .unwrap_or_default()
            })
            .collect()
    });
    let value = all.get(index);
    let pick = |k: &str| {
        value
            .and_then(|v| v.get(k))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    match lang {
        Lang::Zh => pick(&format!("{key}_zh")).or_else(|| pick(key)),
        Lang::En => pick(key),
    }
    .unwrap_or_default()
}

#[component]
pub fn Library() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let lines = use_state(|| None::<Vec<Line>>);
    {
        let lines = lines.clone();
        use_effect_with((), move |_| {
            // After the first paint, so the playground is interactive first, and one experiment per task, so
            // no task blocks input for long (each replays a trace of a few dozen steps).
            run_soon(move || check_from(0, Vec::with_capacity(experiments::ALL.len()), lines));
        });
    }
    let preset = model.preset.clone();
    let total = experiments::ALL.len();
    // While the checks run, the other text is the summary they will end in; once done, the running text.
    let running = t(lang, "experiments.running");
    let (shown, done, other) = match &*lines {
        None => (running, false, summary(lang, total, total)),
        Some(lines) => {
            let passed = lines.iter().filter(|l| l.ok).count();
            (
                summary(lang, passed, lines.len()),
                passed == lines.len(),
                running,
            )
        }
    };
    html! {
        <section class="library" aria-labelledby="lib-h">
            <h2 id="lib-h">{ t(lang, "experiments.title") }</h2>
            // The summary's box holds both of its texts, the one shown and the other (hidden): the line it takes
            // does not change when the checks are done (an embed's frame has its height by then).
            <p class="summary-box">
                <span class={classes!("summary", done.then_some("ok"))} data-testid="experiments-summary">{ shown }</span>
                <span class="summary sizer" aria-hidden="true">{ other }</span>
            </p>
            if let Some(p) = preset {
                <div class={classes!("preset", if p.ok { "ok" } else { "bad" })} data-testid="preset" data-ok={p.ok.to_string()} role="status">
                    <h3>
                        <span class={classes!("mark", if p.ok { "ok" } else { "bad" })} data-testid="preset-mark">{ if p.ok { "✓ " } else { "✗ " } }</span>
                        { format!("{} {} ", p.id, meta_text(lang, p.index, "title")) }
                        <span class="section">{ tf(lang, "preset.section", &[&p.section]) }</span>
                    </h3>
                    <p>{ meta_text(lang, p.index, "summary") }</p>
                    <dl class="compare">
                        <dt>{ t(lang, "preset.expected") }</dt><dd><code translate="no" data-testid="preset-expected">{ &p.expected }</code></dd>
                        <dt>{ t(lang, "preset.got") }</dt><dd><code translate="no" data-testid="preset-got">{ &p.got }</code></dd>
                    </dl>
                    if !p.mismatches.is_empty() {
                        <ul class="mismatches" translate="no">{ for p.mismatches.iter().map(|m| html! { <li>{ m }</li> }) }</ul>
                    }
                </div>
            }
            <ol class="exp-lines">
                { for experiments::ALL.iter().enumerate().map(|(i, e)| {
                    let state = lines.as_ref().and_then(|l| l.get(i).cloned());
                    let load = {
                        let model = model.clone();
                        Callback::from(move |_| {
                            model.act(Command::LoadPreset(i));
                            // The reader loaded it to watch it: the player comes into view (and the list, whose
                            // loaded experiment's box grows above it, is no longer under the pointer).
                            if let Some(player) = web_sys::window()
                                .and_then(|w| w.document())
                                .and_then(|d| d.query_selector(".timeline, .status").ok().flatten())
                            {
                                player.scroll_into_view();
                            }
                        })
                    };
                    let id = e.file.get(..2).unwrap_or("").to_owned();
                    let section = meta_text(Lang::En, i, "section");
                    html! {
                        <li data-testid={format!("experiment-{id}")} data-ok={state.as_ref().map(|s| s.ok.to_string())}>
                            <button class="load" data-testid={format!("preset-{id}")} onclick={load}>{ t(lang, "preset.load") }</button>
                            { match &state {
                                Some(s) => html! { <span class={classes!("mark", if s.ok { "ok" } else { "bad" })}>{ if s.ok { "✓" } else { "✗" } }</span> },
                                None => html! { <span class="mark">{ "…" }</span> },
                            } }
                            <strong>{ format!(" {id} {}", meta_text(lang, i, "title")) }</strong>
                            <span class="detail">{ format!(" — {}", meta_text(lang, i, "summary")) }</span>
                            if let Some(s) = state.filter(|s| !s.ok) { <span class="bad">{ format!(" ({})", s.detail) }</span> }
                            { level_links(lang, &id, &section) }
                        </li>
                    }
                }) }
            </ol>
            { levels_entry(lang) }
        </section>
    }
}

/// The levels of an experiment's section of the article, each one click away: the same lesson, to break.
fn level_links(lang: Lang, id: &str, section: &str) -> Html {
    let numbers: Vec<usize> = (1..=crate::LEVELS.len())
        .filter(|n| crate::LEVELS[n - 1].1 == section)
        .collect();
    if numbers.is_empty() {
        return html! {};
    }
    html! {
        <span class="level-links" data-testid={format!("experiment-{id}-levels")}>
            { format!(" {} ", t(lang, "levels.break_it")) }
            { for numbers.iter().map(|n| html! {
                <a href={format!("?level={n}&lang={}", lang.address())} title={crate::LEVELS[n - 1].2[usize::from(lang == Lang::Zh)]}>
                    { tf(lang, "levels.number", &[&n.to_string()]) }
                </a>
            }) }
        </span>
    }
}

/// The levels, where a reader who finished an experiment looks next: one line, and each level's number with
/// whether the reader solved it (the progress kept in this browser).
fn levels_entry(lang: Lang) -> Html {
    let (progress, _) = super::level::store::load();
    let solved = |id: &str| progress.levels.get(id).is_some_and(|r| r.solved);
    let count = crate::LEVELS.iter().filter(|(id, ..)| solved(id)).count();
    html! {
        <nav class="levels-entry" data-testid="levels-entry" aria-labelledby="levels-entry-h"
            data-solved={count.to_string()}>
            <h3 id="levels-entry-h">{ t(lang, "levels.entry.title") }</h3>
            <p>{ t(lang, "levels.entry") }</p>
            <ol>
                { for crate::LEVELS.iter().enumerate().map(|(i, (id, _, title))| {
                    let done = solved(id);
                    html! {
                        <li>
                            <a href={format!("?level={}&lang={}", i + 1, lang.address())} data-solved={done.to_string()}
                                data-testid={format!("levels-entry-{id}")} title={title[usize::from(lang == Lang::Zh)]}>
                                { if done { format!("✓ {}", i + 1) } else { (i + 1).to_string() } }
                                if done { <span class="sr-only">{ format!(" {}", t(lang, "levels.solved")) }</span> }
                            </a>
                        </li>
                    }
                }) }
            </ol>
            <p class="note">{ tf(lang, "levels.entry.solved", &[&count.to_string(), &crate::LEVELS.len().to_string()]) }</p>
        </nav>
    }
}

/// "{passed}/{total} article experiments reproduced in this browser".
fn summary(lang: Lang, passed: usize, total: usize) -> String {
    tf(
        lang,
        "experiments.summary",
        &[&passed.to_string(), &total.to_string()],
    )
}

/// Checks experiment `i`, then yields and goes on with the next; the summary appears once all are done.
fn check_from(i: usize, mut done: Vec<Line>, lines: UseStateHandle<Option<Vec<Line>>>) {
    crate::ui::yield_then(move || {
        let Some(experiment) = experiments::ALL.get(i) else {
            lines.set(Some(done));
            return;
        };
        done.push(match experiments::check(experiment) {
            Ok(c) => Line {
                ok: c.ok(),
                detail: c.mismatches.join("; "),
            },
            Err(err) => Line {
                ok: false,
                detail: err,
            },
        });
        check_from(i + 1, done, lines);
    });
}
