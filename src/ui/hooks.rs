//! The page's hooks, each one concern of the page's start and input, so that `Playground` is a layout: the
//! history an address carries, the document's language, the language switch, the keyboard's shortcuts and a
//! link pasted into an open page.

use crate::ui::i18n::t;
use crate::ui::state::{Act, Action, Model};
use outbox_core::playground::Command;
use outbox_core::trace::Trace;
use std::rc::Rc;
use yew::prelude::*;

/// The session a link carried, or the address's preset at its step, replayed once the page is up.
#[hook]
pub fn use_opening(
    model: &UseReducerHandle<Model>,
    link_trace: Option<Rc<Trace>>,
    preset: Option<usize>,
    step: Option<usize>,
) {
    let model = model.clone();
    use_effect_with((), move |_| {
        if let Some(trace) = link_trace {
            crate::ui::load_trace(model, (*trace).clone());
        } else if let Some(index) = preset {
            model.act(Command::OpenPreset { index, step });
        }
    });
}

/// `<html lang>` and the document's title follow the page's language.
#[hook]
pub fn use_document_lang(lang: crate::ui::i18n::Lang) {
    use_effect_with(lang, move |lang| {
        if let Some(root) = crate::ui::root() {
            let _ = root.set_attribute("lang", lang.tag());
        }
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            doc.set_title(&t(*lang, "title"));
        }
    });
}

/// The language switch (kept for the next visit). Until the page draws its own header (`Part::Header`), the
/// prerendered one's language button is the one a reader sees: `www/page-start.js` hands its clicks to the page
/// here (`outboxSwitchLang`), so that the page and the header switch together.
#[hook]
pub fn use_lang_switch(model: &UseReducerHandle<Model>) -> Callback<()> {
    let switch_lang = {
        let model = model.clone();
        Callback::from(move |()| {
            let next = model.lang.other();
            if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten())
            {
                let _ = storage.set_item("lang", next.tag());
            }
            model.dispatch(Action::SetLang(next));
        })
    };
    {
        let switch_lang = switch_lang.clone();
        use_effect_with(model.lang, move |_| {
            let hook =
                wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || switch_lang.emit(()));
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ = js_sys::Reflect::set(w, &"outboxSwitchLang".into(), hook.as_ref());
            }
            move || {
                if let Some(w) = &window {
                    let _ = js_sys::Reflect::delete_property(w, &"outboxSwitchLang".into());
                }
                drop(hook);
            }
        });
    }
    switch_lang
}

/// Keyboard shortcuts, listed on the page; ignored while typing in a field.
#[hook]
pub fn use_shortcuts(model: &UseReducerHandle<Model>) {
    let model = model.clone();
    use_effect_with((), move |_| {
        let listener = web_sys::window().and_then(|w| w.document()).map(|doc| {
            let cb = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::KeyboardEvent)>::new(
                move |e: web_sys::KeyboardEvent| {
                    // A level's moves are its own: the player's shortcuts would go around them.
                    if e.ctrl_key() || e.meta_key() || e.alt_key() || typing(&e) || model.locked {
                        return;
                    }
                    let action = match e.key().as_str() {
                        "[" | "]" => {
                            e.prevent_default();
                            let to = if e.key() == "[" {
                                model.pos.saturating_sub(1)
                            } else {
                                model.pos + 1
                            };
                            crate::ui::seek(model.clone(), to);
                            None
                        }
                        "n" => Some(Command::DeliverNext),
                        "p" => Some(Command::ProcessAll),
                        _ => None,
                    };
                    if let Some(command) = action {
                        e.prevent_default();
                        model.act(command);
                    }
                },
            );
            use wasm_bindgen::JsCast;
            let _ = doc.add_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
            (doc, cb)
        });
        move || {
            if let Some((doc, cb)) = listener {
                use wasm_bindgen::JsCast;
                let _ =
                    doc.remove_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
            }
        }
    });
}

/// A link pasted into the address bar of an open page changes only the fragment: it is replayed too.
#[hook]
pub fn use_hash_links(model: &UseReducerHandle<Model>) {
    let model = model.clone();
    use_effect_with((), move |_| {
        let listener = web_sys::window().map(|w| {
            let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || {
                // A check link is the checker's to open, and it opens one as the page starts.
                if crate::ui::checker::link_in_location().is_some() || challenge_in_location() {
                    if let Some(location) = web_sys::window().map(|w| w.location()) {
                        let _ = location.reload();
                    }
                    return;
                }
                match crate::ui::trace_from_location() {
                    Some(Ok(trace)) => crate::ui::load_trace(model.clone(), trace),
                    Some(Err(e)) => model.dispatch(Action::Error(e)),
                    None => {}
                }
            });
            use wasm_bindgen::JsCast;
            let _ = w.add_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
            (w, cb)
        });
        move || {
            if let Some((w, cb)) = listener {
                use wasm_bindgen::JsCast;
                let _ = w
                    .remove_event_listener_with_callback("hashchange", cb.as_ref().unchecked_ref());
            }
        }
    });
}

/// Whether the address holds a challenge (`#level=…`), which the page opens as it starts.
fn challenge_in_location() -> bool {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .is_some_and(|h| h.starts_with("#level="))
}

/// Whether a key press belongs to a text field rather than to the page.
fn typing(e: &web_sys::KeyboardEvent) -> bool {
    use wasm_bindgen::JsCast;
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"))
}
