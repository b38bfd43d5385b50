//! The browser front end (wasm32 only): a Yew app over the core's trace engine. State lives in one reducer
//! ([`state::Model`]); components read it from a context and dispatch [`state::Action`]s.

pub mod components;
pub mod i18n;
pub mod state;

use components::playground::Playground;
use i18n::Lang;
use state::Model;
use std::rc::Rc;
use yew::prelude::*;

/// The reducer handle every component reads.
pub type Ctx = UseReducerHandle<Model>;

/// Mounts the app on `<body>`.
pub fn start() {
    yew::Renderer::<App>::new().render();
}

/// The language the page starts in: the remembered choice, else the browser's.
pub fn initial_lang() -> Lang {
    let window = web_sys::window();
    let stored = window
        .as_ref()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item("lang").ok().flatten())
        .and_then(|v| Lang::from_tag(&v));
    stored
        .or_else(|| {
            window
                .and_then(|w| w.navigator().language())
                .and_then(|l| Lang::from_tag(&l))
        })
        .unwrap_or_default()
}

/// `?embed` in the address: the compact mode for an iframe in the article.
pub fn is_embed() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_some_and(|s| {
            s.trim_start_matches('?')
                .split('&')
                .any(|p| p == "embed" || p.starts_with("embed="))
        })
}

/// The session a link carries (`#t=…`), or why it could not be opened.
pub fn trace_from_location() -> Option<Result<crate::trace::Trace, String>> {
    let hash = web_sys::window()?.location().hash().ok()?;
    if hash.is_empty() || hash == "#" {
        return None;
    }
    Some(crate::share::decode(&hash).map_err(|e| e.0))
}

#[component]
fn App() -> Html {
    let lang = initial_lang();
    let embed = is_embed();
    if let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = root.class_list().toggle_with_force("embed", embed);
    }
    let model = Model::new(Default::default(), lang).map(|mut model| {
        match trace_from_location() {
            Some(Ok(trace)) => {
                if let Err(e) = model.load(&trace) {
                    model.notice = Some(state::Notice::Error(e));
                }
            }
            // A bad link leaves the page on the default scenario, with a message that names what is wrong.
            Some(Err(e)) => model.notice = Some(state::Notice::Error(e)),
            None => {}
        }
        model
    });
    match model {
        Ok(model) => html! { <Playground initial={Rc::new(model)} {embed} /> },
        Err(e) => html! {
            <main class="fatal" role="alert">
                <h1>{ "SQLite could not start in this browser" }</h1>
                <p>{ e }</p>
            </main>
        },
    }
}

/// Runs `f` once on a later turn of the event loop (after the browser has painted), or never if the browser
/// refuses the timer.
pub fn run_soon(f: impl FnOnce() + 'static) {
    use wasm_bindgen::JsCast;
    let closure = wasm_bindgen::closure::Closure::once_into_js(f);
    if let Some(window) = web_sys::window() {
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(closure.unchecked_ref(), 0);
    }
}

/// Milliseconds since the page started, for progress and rates.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}
