//! What leaves a level's panel: the reader's progress as a file (and back in), and the embed code for an article.

use super::{Act, Ctx, Game};
use crate::ui::i18n::{t, Lang};
use crate::ui::FileRefusal;
use outbox_core::levels::Progress;
use yew::prelude::*;

/// Progress out to a file and back in; and, where the browser keeps nothing, that it is kept for this view only.
pub fn progress_file(ctx: &Ctx, kept: bool, said: Option<(bool, String)>) -> Html {
    let export = Callback::from(|_| {
        let (progress, _) = super::store::load();
        crate::ui::download(
            "outbox-playground-progress.json",
            "application/json",
            &progress.to_json(),
        );
    });
    let on_file = {
        let ctx = ctx.clone();
        Callback::from(move |e: Event| {
            let ctx = ctx.clone();
            // As large as a progress file may be: a larger one is refused by its reader anyway.
            crate::ui::read_chosen_file(&e, 256.0 * 1024.0, move |read| {
                let read = read.map_err(|refused| match refused {
                    FileRefusal::TooLarge(size) => {
                        format!("{size} bytes is too large for a progress file")
                    }
                    FileRefusal::Unreadable => "the file could not be read as text".into(),
                });
                let said = match read.and_then(|text| Progress::parse(&text)) {
                    Ok(theirs) => {
                        let n = theirs.levels.len();
                        super::store::update(|p| p.merge(theirs));
                        (true, ctx.tf("progress.imported", &[&n.to_string()]))
                    }
                    Err(e) => (
                        false,
                        ctx.tf(
                            "progress.bad",
                            &[&crate::ui::i18n::message(ctx.model.lang, &e)],
                        ),
                    ),
                };
                ctx.panel.dispatch(Act::Said(said.0, said.1));
            });
        })
    };
    html! {
        <div class="level-progress">
            <p class="note" data-testid="progress-note" data-kept={kept.to_string()}>
                { if kept { ctx.t("progress") } else { ctx.t("progress.unavailable") } }
            </p>
            <div class="buttons">
                <button data-testid="progress-export" onclick={export}>{ ctx.t("progress.export") }</button>
                <label class="file">{ ctx.t("progress.import") }
                    <input type="file" accept=".json,application/json" data-testid="progress-import" onchange={on_file} />
                </label>
            </div>
            if let Some((ok, text)) = &said {
                <p class={(!ok).then_some("error")} role="status" data-testid="progress-message">{ text }</p>
            }
        </div>
    }
}

/// *Copy embed code*: this level in an article's frame (`?embed&level=N`, a challenge's link as it came).
pub fn embed_code(ctx: &Ctx, g: &Game) -> Html {
    use crate::ui::components::share::{embed_snippet, measure_height, page_base, DEFAULT_HEIGHT};
    let onclick = {
        let ctx = ctx.clone();
        let number = g.number;
        Callback::from(move |_| {
            let lang = if ctx.model.lang == Lang::Zh {
                "zh"
            } else {
                "en"
            };
            let src = match number {
                Some(n) => format!("{}?embed&level={n}&lang={lang}", page_base()),
                None => {
                    let hash = web_sys::window()
                        .and_then(|w| w.location().hash().ok())
                        .unwrap_or_default();
                    format!("{}?embed&lang={lang}{hash}", page_base())
                }
            };
            let code = embed_snippet(&ctx.model, &src, DEFAULT_HEIGHT);
            if let Some(window) = web_sys::window() {
                let _ = window.navigator().clipboard().write_text(&code);
            }
            let set = {
                let ctx = ctx.clone();
                move |(code, measured): (String, bool)| {
                    ctx.panel.dispatch(Act::EmbedCode(code, measured))
                }
            };
            set((code, false));
            let model = ctx.model.clone();
            measure_height(&src.clone(), move |height| {
                set((
                    embed_snippet(&model, &src, height.unwrap_or(DEFAULT_HEIGHT)),
                    height.is_some(),
                ));
            });
        })
    };
    let lang = ctx.model.lang;
    html! {
        <div class="level-embed">
            <button data-testid="copy-embed" {onclick}>{ t(lang, "share.embed") }</button>
            if let Some((code, measured)) = &g.embed_code {
                <textarea class="link" readonly=true rows="4" value={code.clone()} data-testid="embed-code"
                    data-measured={measured.to_string()} aria-label={t(lang, "share.embed_code")} />
            }
        </div>
    }
}
