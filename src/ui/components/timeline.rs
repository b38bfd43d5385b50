//! Time travel: back, forward and a scrubber over the session's steps. Going back replays the trace prefix on
//! fresh databases, a short way forward continues the session (`ui::seek`); acting from a past position starts
//! a new branch.

use crate::ui::i18n::{t, tf};
use crate::ui::Ctx;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[component]
pub fn Timeline() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let (pos, len) = (model.pos, model.entries.len());
    let seek = |to: usize| {
        let model = model.clone();
        Callback::from(move |_: MouseEvent| crate::ui::seek(model.clone(), to))
    };
    let on_scrub = {
        let model = model.clone();
        Callback::from(move |e: InputEvent| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            if let Ok(n) = input.value().parse::<usize>() {
                crate::ui::seek(model.clone(), n);
            }
        })
    };
    html! {
        <section class="timeline" aria-label={t(lang, "timeline.label")}>
            <button data-testid="back" onclick={seek(pos.saturating_sub(1))} disabled={pos == 0}
                aria-keyshortcuts="[" title={t(lang, "timeline.back.title")}>{ t(lang, "timeline.back") }</button>
            <input type="range" min="0" max={len.to_string()} value={pos.to_string()} data-testid="timeline"
                aria-label={t(lang, "timeline.scrub")} oninput={on_scrub} disabled={len == 0} />
            <button data-testid="forward" onclick={seek(pos + 1)} disabled={pos >= len}
                aria-keyshortcuts="]" title={t(lang, "timeline.forward.title")}>{ t(lang, "timeline.forward") }</button>
            <span class="where" data-testid="position">{ tf(lang, "timeline.position", &[&pos.to_string(), &len.to_string()]) }</span>
            if pos < len {
                <span class="branch">{ t(lang, "timeline.branch") }</span>
            }
        </section>
    }
}
