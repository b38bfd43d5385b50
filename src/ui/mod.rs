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

#[component]
fn App() -> Html {
    let lang = initial_lang();
    match Model::new(Default::default(), lang) {
        Ok(model) => html! { <Playground initial={Rc::new(model)} /> },
        Err(e) => html! {
            <main class="fatal" role="alert">
                <h1>{ "SQLite could not start in this browser" }</h1>
                <p>{ e }</p>
            </main>
        },
    }
}
