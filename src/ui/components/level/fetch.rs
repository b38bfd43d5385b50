//! A file beside the page, fetched as text, and a stylesheet beside it linked (the levels' and the PostgreSQL
//! panel's, which are not in the first load).

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// Calls `done` with the text of `url` (relative to the page), or why it could not be had.
pub fn text(url: &str, done: impl FnOnce(Result<String, String>) + 'static) {
    let done = std::rc::Rc::new(std::cell::RefCell::new(Some(
        Box::new(done) as Box<dyn FnOnce(Result<String, String>)>
    )));
    let finish = move |r: Result<String, String>| {
        if let Some(f) = done.borrow_mut().take() {
            f(r)
        }
    };
    let name = url.to_owned();
    let failed = {
        let finish = finish.clone();
        let name = name.clone();
        move |e: JsValue| {
            let why = js_sys::Reflect::get(&e, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or_else(|| format!("{e:?}"));
            finish(Err(format!("{name}: {why}")))
        }
    };
    let Some(window) = web_sys::window() else {
        return finish(Err("no window".into()));
    };
    let fetch = js_sys::Reflect::get(&window, &"fetch".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let Some(promise) = fetch
        .and_then(|f| f.call1(&window, &url.into()).ok())
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok())
    else {
        return finish(Err(format!("{name}: the browser cannot fetch")));
    };
    let on_response = {
        let finish = finish.clone();
        let failed = failed.clone();
        Closure::once(move |response: JsValue| {
            let get = |key: &str| js_sys::Reflect::get(&response, &key.into()).ok();
            if get("ok").and_then(|v| v.as_bool()) != Some(true) {
                let status = get("status").and_then(|s| s.as_f64()).unwrap_or(0.0) as u32;
                return finish(Err(format!("{name} answered {status}")));
            }
            let text = get("text")
                .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
                .and_then(|f| f.call0(&response).ok())
                .and_then(|p| p.dyn_into::<js_sys::Promise>().ok());
            match text {
                Some(p) => {
                    let ok = Closure::once(move |t: JsValue| {
                        finish(t.as_string().ok_or_else(|| format!("{name} is not text")))
                    });
                    let err = Closure::once(failed);
                    let _ = p.then2(&ok, &err);
                    ok.forget();
                    err.forget();
                }
                None => finish(Err(format!("{name}: the response has no text"))),
            }
        })
    };
    let on_error = Closure::once(failed);
    let _ = promise.then2(&on_response, &on_error);
    // Each runs at most once; the two of a pair that does not run are small and few (a level's one fetch).
    on_response.forget();
    on_error.forget();
}

/// Links the stylesheet `href` (relative to the page) into the document's head, once.
pub fn stylesheet(href: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if doc
        .query_selector(&format!("link[rel=stylesheet][href=\"{href}\"]"))
        .ok()
        .flatten()
        .is_some()
    {
        return;
    }
    if let (Ok(link), Ok(Some(head))) = (doc.create_element("link"), doc.query_selector("head")) {
        let _ = link.set_attribute("rel", "stylesheet");
        let _ = link.set_attribute("href", href);
        let _ = head.append_child(&link);
    }
}
