//! Share and import: "Copy link" puts the current trace in the URL fragment; a trace comes back in by file or
//! paste. Anything malformed gets a message that names what is wrong and leaves the session untouched.

use crate::ui::i18n::t;
use crate::ui::state::Action;
use crate::ui::Ctx;
use crate::ui::FileRefusal;
use outbox_core::share;
use outbox_core::trace;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

/// The largest file the importer reads (the trace limit is 1 MiB; the rest would be refused anyway).
const MAX_FILE_BYTES: f64 = 2.0 * 1024.0 * 1024.0;

#[component]
pub fn Share() -> Html {
    let Some(model) = use_context::<Ctx>() else {
        return html! {};
    };
    let lang = model.lang;
    let link = use_state(String::new);
    let embed_code = use_state(|| (String::new(), false));
    // Each click's number: a measurement that ends after a newer click is dropped.
    let clicks = use_mut_ref(|| 0u32);
    let copy_embed = {
        let model = model.clone();
        let embed_code = embed_code.clone();
        Callback::from(move |_| match embed_src(&model) {
            Ok(src) => {
                // Copied within the click (as Safari requires) with the usual height; then the view is measured
                // in a hidden frame of the article's width, and the code shown carries that height, so an
                // article's frame starts as tall as it ends.
                let code = embed_snippet(&model, &src, DEFAULT_HEIGHT);
                if let Some(window) = web_sys::window() {
                    let _ = window.navigator().clipboard().write_text(&code);
                }
                embed_code.set((code, false));
                *clicks.borrow_mut() += 1;
                let click = *clicks.borrow();
                let clicks = clicks.clone();
                let model = model.clone();
                let embed_code = embed_code.clone();
                // The measured code replaces the text shown (the clipboard, written within the click, keeps the
                // first: a later write would replace what the reader copied since, or be refused).
                measure_height(&src.clone(), move |height| {
                    if *clicks.borrow() == click {
                        let code = embed_snippet(&model, &src, height.unwrap_or(DEFAULT_HEIGHT));
                        embed_code.set((code, height.is_some()));
                    }
                });
            }
            Err(e) => model.dispatch(Action::Error(e)),
        })
    };
    let paste = use_node_ref();

    let copy = {
        let model = model.clone();
        let link = link.clone();
        Callback::from(move |_| {
            let fragment = match share::encode(&model.trace()) {
                Ok(fragment) => fragment,
                Err(e) => return model.dispatch(Action::Error(e)),
            };
            let url = page_url(&fragment);
            publish(&url, &link);
            // Within the click, as Safari requires; a refusal leaves the link on the page to copy by hand.
            if let Some(window) = web_sys::window() {
                let _ = window.navigator().clipboard().write_text(&url);
            }
        })
    };
    let load_pasted = {
        let model = model.clone();
        let paste = paste.clone();
        Callback::from(move |_| {
            if let Some(area) = paste.cast::<HtmlTextAreaElement>() {
                import_text(&model, &area.value());
            }
        })
    };
    let on_file = {
        let model = model.clone();
        Callback::from(move |e: Event| {
            let model = model.clone();
            crate::ui::read_chosen_file(&e, MAX_FILE_BYTES, move |read| match read {
                Ok(text) => import_text(&model, &text),
                Err(FileRefusal::TooLarge(size)) => model.dispatch(Action::Error(format!(
                    "the file is {size} bytes; a trace may be at most {} bytes (1 MiB)",
                    trace::MAX_TRACE_BYTES
                ))),
                Err(FileRefusal::Unreadable) => {
                    model.dispatch(Action::Error("the file could not be read as text".into()))
                }
            });
        })
    };
    html! {
        <section class="share" aria-labelledby="share-h">
            <h2 id="share-h">{ t(lang, "share.title") }</h2>
            <div class="buttons">
                <button data-testid="copy-link" onclick={copy}>{ t(lang, "share.copy") }</button>
                <button data-testid="copy-embed" onclick={copy_embed}>{ t(lang, "share.embed") }</button>
                <label class="file">{ t(lang, "share.file") }
                    <input type="file" accept=".json,application/json" data-testid="import-file" onchange={on_file} />
                </label>
            </div>
            if !link.is_empty() {
                <input class="link" readonly=true value={(*link).clone()} data-testid="share-link" aria-label={t(lang, "share.link")} />
            }
            if !embed_code.0.is_empty() {
                <textarea class="link" readonly=true rows="6" value={embed_code.0.clone()} data-testid="embed-code"
                    data-measured={embed_code.1.to_string()}
                    aria-label={t(lang, "share.embed_code")} />
            }
            <label class="paste">{ t(lang, "share.paste") }
                <textarea ref={paste} rows="3" data-testid="import-text" placeholder="{\"format\":\"outbox-playground-trace/1\", …}  /  #t=…" />
            </label>
            <button data-testid="import-load" onclick={load_pasted}>{ t(lang, "share.load") }</button>
        </section>
    }
}

/// A pasted or uploaded text: a trace document, or a share link / fragment.
fn import_text(model: &Ctx, text: &str) {
    let text = text.trim();
    let parsed = match text
        .find("#t=")
        .or_else(|| text.starts_with("t=").then_some(0))
    {
        Some(i) if !text.starts_with('{') => share::decode(&text[i..]),
        _ => trace::parse(text),
    };
    match parsed {
        Ok(trace) => crate::ui::load_trace(model.clone(), trace),
        Err(e) => model.dispatch(Action::Error(e.0)),
    }
}

/// The frame's height until its view is measured, and where the measurement gives up.
pub(crate) const DEFAULT_HEIGHT: u32 = 900;
/// The width an article gives a frame (the snippet's `max-width`), at which its height is measured.
const ARTICLE_WIDTH: u32 = 960;

/// The embed's address: this page in embed mode, the current view, the session — `preset=N` (at `step=`) while
/// it is exactly experiment N, else its share link — and the language.
fn embed_src(model: &Ctx) -> Result<String, String> {
    let address = crate::ui::address::Address::of_page();
    let mut query = String::from("embed");
    if let Some(view) = address.view_param() {
        query.push_str("&view=");
        query.push_str(&view);
    }
    let whole = outbox_core::trace::Trace::new(
        model.setup.clone(),
        model.entries.iter().map(|e| e.step.clone()).collect(),
    );
    let mut fragment = String::new();
    // The preset while the session is exactly it, at the position shown (`step=`, unless it is the moment the
    // preset opens at anyway).
    let preset = model.preset.as_ref().filter(|p| {
        outbox_core::experiments::ALL
            .get(p.index)
            .and_then(|e| trace::parse(e.text).ok())
            .is_some_and(|t| t.steps == whole.steps && t.consumer == whole.consumer)
    });
    if let Some(p) = preset {
        query.push_str(&format!("&preset={}", p.index + 1));
        if model.pos != p.moment {
            query.push_str(&format!("&step={}", model.pos));
        }
    } else if model.pos > 0 {
        fragment = format!("#{}", share::encode(&model.trace())?);
    }
    query.push_str(if model.lang == crate::ui::i18n::Lang::Zh {
        "&lang=zh"
    } else {
        "&lang=en"
    });
    Ok(format!("{}?{query}{fragment}", page_base()))
}

/// The iframe for an article, `height` tall, and the line of script (`embed.js`, beside the page) that sizes it
/// to its content.
pub(crate) fn embed_snippet(model: &Ctx, src: &str, height: u32) -> String {
    let title = t(model.lang, "title").replace('"', "&quot;");
    let base = page_base();
    let dir = &base[..base.rfind('/').map_or(0, |i| i + 1)];
    format!(
        r#"<iframe data-outbox-playground src="{src}" title="{title}"
        style="width:100%;max-width:{ARTICLE_WIDTH}px;height:{height}px;border:0" loading="lazy"></iframe>
<script src="{dir}embed.js" defer></script>"#
    )
}

/// Opens `src` in a hidden frame of the article's width and calls `done` with the height it reports (`None`
/// after 20 s without one), then removes the frame.
pub(crate) fn measure_height(src: &str, done: impl FnOnce(Option<u32>) + 'static) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return done(None);
    };
    let (Ok(frame), Some(body)) = (document.create_element("iframe"), document.body()) else {
        return done(None);
    };
    let _ = frame.set_attribute(
        "style",
        &format!("position:absolute;left:-20000px;top:0;width:{ARTICLE_WIDTH}px;height:{DEFAULT_HEIGHT}px;border:0;visibility:hidden"),
    );
    let _ = frame.set_attribute("aria-hidden", "true");
    let _ = frame.set_attribute("tabindex", "-1");
    let _ = frame.set_attribute("src", src);
    let _ = body.append_child(&frame);
    type Finish = std::rc::Rc<std::cell::RefCell<Option<Box<dyn FnOnce(Option<u32>)>>>>;
    let finish: Finish = std::rc::Rc::new(std::cell::RefCell::new(None));
    let listener = {
        let frame = frame.clone();
        let finish = finish.clone();
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let window = js_sys::Reflect::get(&frame, &"contentWindow".into()).unwrap_or_default();
            let from_frame = e.source().is_some_and(|s| js_sys::Object::is(&s, &window));
            let data = e.data();
            let kind = js_sys::Reflect::get(&data, &"type".into())
                .ok()
                .and_then(|v| v.as_string());
            if from_frame && kind.as_deref() == Some("outbox-playground:height") {
                let height = js_sys::Reflect::get(&data, &"height".into())
                    .ok()
                    .and_then(|v| v.as_f64());
                if let Some(f) = finish.borrow_mut().take() {
                    f(height.map(|h| h.ceil() as u32));
                }
            }
        })
    };
    // Handed to JavaScript (which frees them once nothing refers to them): a closure must not be dropped from
    // inside its own call.
    let listener: js_sys::Function = listener.into_js_value().unchecked_into();
    let window = web_sys::window();
    if let Some(w) = &window {
        let _ = w.add_event_listener_with_callback("message", &listener);
    }
    let timeout = {
        let finish = finish.clone();
        Closure::once_into_js(move || {
            if let Some(f) = finish.borrow_mut().take() {
                f(None);
            }
        })
    };
    if let Some(w) = &window {
        let _ = w
            .set_timeout_with_callback_and_timeout_and_arguments_0(timeout.unchecked_ref(), 20_000);
    }
    // Whichever comes first, the height or the timeout, removes the frame and the listener.
    *finish.borrow_mut() = Some(Box::new(move |height| {
        frame.remove();
        if let Some(w) = &window {
            let _ = w.remove_event_listener_with_callback("message", &listener);
        }
        done(height);
    }));
}

/// The page's origin and path, without its query or fragment.
pub(crate) fn page_base() -> String {
    web_sys::window()
        .map(|w| w.location())
        .map(|l| {
            format!(
                "{}{}",
                l.origin().unwrap_or_default(),
                l.pathname().unwrap_or_default()
            )
        })
        .unwrap_or_default()
}

/// The page's address with `fragment` (`t=…`) after the `#`.
fn page_url(fragment: &str) -> String {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    format!("{}{search}#{fragment}", page_base())
}

/// Shows the link and puts it in the address bar (without reloading).
fn publish(url: &str, link: &UseStateHandle<String>) {
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url));
    }
    link.set(url.to_owned());
}
