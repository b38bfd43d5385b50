//! The checker off the main thread: a Web Worker (`www/checker-worker.js`) instantiates the page's own wasm
//! module — the compiled `WebAssembly.Module` is posted to it, so nothing is downloaded or compiled twice —
//! and runs [`crate::checker::Search`] there, posting its progress and then the same report document as
//! `experiments check --json`. Stopping a search terminates its worker.

use crate::checker::{report, Config, Counts, Outcome, Search};
use serde_json::{json, Value};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    /// The JS glue's own address (`import.meta.url` in the glue module): the worker imports the same glue, and
    /// its script sits beside it.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["import", "meta"], js_name = url)]
    static GLUE_URL: JsValue;

    /// The worker's `postMessage` (only called inside a worker).
    #[wasm_bindgen(js_name = postMessage)]
    fn post_to_page(message: &str);
}

/// How many transitions a slice of the search runs between looks at the clock.
const SLICE: u64 = 400;
/// How often the worker reports progress.
const PROGRESS_MS: f64 = 100.0;

/// What the page hears from a worker.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Progress { counts: Counts, elapsed_ms: u64 },
    Done(Box<Outcome>),
    Failed(String),
}

impl Message {
    fn read(text: &str) -> Message {
        let parsed = serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
        let result = parsed.and_then(|v| match v.get("kind").and_then(Value::as_str) {
            Some("progress") => Ok(Message::Progress {
                counts: report::read_counts(&v)?,
                elapsed_ms: v.get("elapsed_ms").and_then(Value::as_u64).unwrap_or(0),
            }),
            Some("done") => Outcome::from_document(v.get("report").unwrap_or(&Value::Null))
                .map(|o| Message::Done(Box::new(o))),
            _ => Ok(Message::Failed(
                v.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("the checker's worker sent nothing it could read")
                    .to_owned(),
            )),
        });
        result.unwrap_or_else(Message::Failed)
    }
}

/// Runs inside the worker (called by `checker-worker.js` once the module is instantiated): the search for the
/// configuration `job` (a [`Config::to_query`] text), to the end.
#[wasm_bindgen]
pub fn check_in_worker(job: &str) {
    let post = |v: Value| post_to_page(&v.to_string());
    let fail = |message: String| post(json!({ "kind": "failed", "message": message }));
    let config = match Config::from_query(job) {
        Ok((config, _)) => config,
        Err(e) => return fail(e),
    };
    let start = js_sys::Date::now();
    let mut search = match Search::new(config.clone()) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut reported = start;
    loop {
        match search.run(SLICE) {
            Ok(true) => break,
            Ok(false) => {}
            Err(e) => return fail(e),
        }
        let now = js_sys::Date::now();
        if now - reported >= PROGRESS_MS {
            reported = now;
            let mut progress = report::counts_value(search.counts());
            progress["kind"] = json!("progress");
            progress["elapsed_ms"] = json!((now - start) as u64);
            post(progress);
        }
    }
    let elapsed = (js_sys::Date::now() - start) as u64;
    post(json!({ "kind": "done", "report": report::document(&config, &search, elapsed, 1, None) }));
}

/// A search running in a worker; dropping it terminates the worker.
pub struct Running {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// Starts a search for `config` in a new worker; `on` hears its progress and its end.
pub fn start(config: &Config, on: impl Fn(Message) + 'static) -> Result<Running, String> {
    let glue = GLUE_URL.with(JsValue::as_string).unwrap_or_default();
    let script = web_sys::Url::new_with_base("checker-worker.js", &glue)
        .map(|u| u.href())
        .map_err(|_| format!("cannot locate the checker's worker beside `{glue}`"))?;
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&script, &options)
        .map_err(|e| format!("the browser refused the checker's worker: {e:?}"))?;
    let on = std::rc::Rc::new(on);
    let on_message = {
        let on = on.clone();
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let text = e.data().as_string().unwrap_or_default();
            on(Message::read(&text));
        })
    };
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
        e.prevent_default();
        let detail = e
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .unwrap_or_default();
        on(Message::Failed(format!(
            "the checker's worker failed to start{}{detail}",
            if detail.is_empty() { "" } else { ": " }
        )));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    let init = js_sys::Object::new();
    for (key, value) in [
        ("glue", JsValue::from_str(&glue)),
        ("module", wasm_bindgen::module()),
        ("job", JsValue::from_str(&config.to_query())),
    ] {
        let _ = js_sys::Reflect::set(&init, &JsValue::from_str(key), &value);
    }
    worker
        .post_message(&init)
        .map_err(|e| format!("cannot hand the module to the checker's worker: {e:?}"))?;
    Ok(Running {
        worker,
        _on_message: on_message,
        _on_error: on_error,
    })
}
