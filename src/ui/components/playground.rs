//! The page: header, controls, the three columns (producer, wire, consumer), the log and SQL panels.

use super::{
    consumer::ConsumerColumn, controls::Controls, experiments::ExperimentsPanel, log::EventLog,
    log::SqlPanel, log::StatusBar, producer::ProducerColumn, wire::Wire,
};
use crate::ui::i18n::t;
use crate::ui::state::{Action, Model};
use crate::ui::Ctx;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct Props {
    pub initial: Rc<Model>,
}

#[component]
pub fn Playground(props: &Props) -> Html {
    let initial = props.initial.clone();
    let model = use_reducer(move || (*initial).clone());
    let lang = model.lang;
    {
        // <html lang> follows the page's language.
        use_effect_with(lang, move |lang| {
            if let Some(root) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.document_element())
            {
                let _ = root.set_attribute("lang", lang.tag());
            }
        });
    }
    let switch_lang = {
        let model = model.clone();
        Callback::from(move |_| {
            let next = model.lang.other();
            if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten())
            {
                let _ = storage.set_item("lang", next.tag());
            }
            model.dispatch(Action::SetLang(next));
        })
    };
    html! {
        <ContextProvider<Ctx> context={model.clone()}>
            <header class="top">
                <div>
                    <h1>{ t(lang, "title") }</h1>
                    <p class="intro">{ t(lang, "intro") }</p>
                </div>
                <button class="lang" data-testid="lang-switch" onclick={switch_lang}
                    aria-label={t(lang, "lang.switch.label")}>{ t(lang, "lang.switch") }</button>
            </header>
            <Controls />
            <StatusBar />
            <main class="columns">
                <ProducerColumn />
                <Wire />
                <ConsumerColumn />
            </main>
            <section class="panels">
                <EventLog />
                <SqlPanel />
            </section>
            <ExperimentsPanel />
        </ContextProvider<Ctx>>
    }
}
