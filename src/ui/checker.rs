//! The checker off the main thread: a Web Worker (`www/checker-worker.js`) instantiates the page's own wasm
//! module — the compiled `WebAssembly.Module` is posted to it, so nothing is downloaded or compiled twice —
//! and runs [`outbox_core::checker::Search`] there, posting its progress and then what it found ([`Outcome`]). Stopping a search terminates its worker.

use outbox_core::checker::{Config, Counts, Finding, Outcome, Property, Search};
use outbox_core::trace;
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
    fn post_to_page(message: &JsValue);
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

/// A message's fields, as the worker posts them: a plain object of numbers and strings (the counterexample as
/// TRACE.md text), so neither side needs more than the page already has to write and read them.
fn field(o: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn number(o: &JsValue, key: &str) -> u64 {
    field(o, key).as_f64().unwrap_or(0.0) as u64
}

fn text(o: &JsValue, key: &str) -> String {
    field(o, key).as_string().unwrap_or_default()
}

fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let o = js_sys::Object::new();
    for (key, value) in fields {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(key), value);
    }
    o.into()
}

fn counts_fields(c: Counts) -> [(&'static str, JsValue); 4] {
    [
        ("states", JsValue::from_f64(c.states as f64)),
        ("transitions", JsValue::from_f64(c.transitions as f64)),
        ("depth", JsValue::from_f64(f64::from(c.depth))),
        ("quiescent", JsValue::from_f64(c.quiescent as f64)),
    ]
}

impl Message {
    fn read(o: &JsValue) -> Message {
        let counts = Counts {
            states: number(o, "states"),
            transitions: number(o, "transitions"),
            depth: number(o, "depth") as u32,
            quiescent: number(o, "quiescent"),
        };
        let elapsed_ms = number(o, "elapsed_ms");
        let verdict = match text(o, "kind").as_str() {
            "progress" => return Message::Progress { counts, elapsed_ms },
            "holds" => Finding::Holds,
            "violated" => {
                let trace = trace::parse(&text(o, "trace")).map_err(|e| e.0);
                let property = Property::from_name(&text(o, "property"));
                match (trace, property) {
                    (Ok(trace), Some(property)) => Finding::Violated {
                        property,
                        why: text(o, "why"),
                        trace,
                        results: text(o, "results").lines().map(str::to_owned).collect(),
                    },
                    (Err(e), _) => return Message::Failed(e),
                    (_, None) => {
                        return Message::Failed("the checker named no known property".into())
                    }
                }
            }
            _ => {
                let message = text(o, "message");
                return Message::Failed(if message.is_empty() {
                    "the checker's worker sent nothing the page can read".into()
                } else {
                    message
                });
            }
        };
        Message::Done(Box::new(Outcome {
            counts,
            elapsed_ms,
            verdict: Some(verdict),
        }))
    }
}

/// Runs inside the worker (called by `checker-worker.js` once the module is instantiated): the search for the
/// configuration `job` (a [`Config::to_query`] text), to the end.
#[wasm_bindgen]
pub fn check_in_worker(job: &str) {
    let fail = |message: String| {
        post_to_page(&object(&[
            ("kind", "failed".into()),
            ("message", message.into()),
        ]))
    };
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
            let mut fields = counts_fields(search.counts()).to_vec();
            fields.push(("kind", "progress".into()));
            fields.push(("elapsed_ms", JsValue::from_f64(now - start)));
            post_to_page(&object(&fields));
        }
    }
    let elapsed = js_sys::Date::now() - start;
    let outcome = Outcome::of(&config, &search, elapsed as u64);
    let mut fields = counts_fields(outcome.counts).to_vec();
    fields.push(("elapsed_ms", JsValue::from_f64(elapsed)));
    match outcome.verdict {
        Some(Finding::Violated {
            property,
            why,
            trace,
            results,
        }) => {
            fields.push(("kind", "violated".into()));
            fields.push(("property", property.name().into()));
            fields.push(("why", why.into()));
            fields.push(("results", results.join("\n").into()));
            match trace.to_json() {
                Ok(json) => fields.push(("trace", json.into())),
                Err(e) => {
                    fields.clear();
                    fields.push(("kind", "failed".into()));
                    fields.push(("message", e.into()));
                }
            }
        }
        _ => fields.push(("kind", "holds".into())),
    }
    post_to_page(&object(&fields));
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
    // The search's code is in the rest of a split module: the worker instantiates both.
    let rest = crate::ui::split::module_for_worker()?;
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
            on(Message::read(&e.data()));
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
        ("rest", rest),
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

/// The check link in the address (`#check?flows=2&…`), if the page was opened with one.
pub fn link_in_location() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix("#check?").map(str::to_owned)
}
