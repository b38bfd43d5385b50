//! The checker off the main thread: Web Workers (`www/checker-worker.js`) each instantiate the page's own wasm
//! module — the compiled `WebAssembly.Module` is posted to them, so nothing is downloaded or compiled twice —
//! and share one search ([`outbox_core::checker::shard`]), trading states over channels of their own and
//! posting their progress and then what they found ([`Outcome`]). Stopping a search terminates its workers.
//! `checker/worker.rs` is what runs inside each worker; here is the page's side, and what the two say to each other.

use outbox_core::checker::{Config, Counts, Finding, Outcome, Property};
use outbox_core::trace;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

mod worker;

#[wasm_bindgen]
extern "C" {
    /// The JS glue's own address (`import.meta.url` in the glue module): the worker imports the same glue, and
    /// its script sits beside it.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["import", "meta"], js_name = url)]
    static GLUE_URL: JsValue;
}

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

/// A search running in workers; dropping it terminates them.
pub struct Running(Rc<Search>);

/// The workers of one search, and what it takes to start them again.
struct Search {
    config: Config,
    workers: RefCell<Vec<web_sys::Worker>>,
    progress: RefCell<Progress>,
    /// The workers were started again after the engine faulted (once: a second fault is reported).
    restarted: Cell<bool>,
    /// The page has heard the search's end: a fault after it starts nothing.
    ended: Cell<bool>,
    handlers: RefCell<Option<Handlers>>,
}

struct Handlers {
    on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.0.stop();
        self.0.handlers.borrow_mut().take();
    }
}

impl Drop for Search {
    /// Also when the first start failed half way: the workers made so far go too.
    fn drop(&mut self) {
        self.stop();
    }
}

/// How many workers share one search: as many as the reader's cores, at least two, at most four (each holds
/// its own SQLite and its share of the states).
fn worker_count() -> usize {
    let cores = web_sys::window().map_or(2.0, |w| w.navigator().hardware_concurrency());
    (cores as usize).clamp(2, 4)
}

/// The workers' progress, added up: every worker reports the counts of the levels done (the same in each) and
/// the transitions it has run in the current one.
#[derive(Default)]
struct Progress {
    /// Per worker: the level it is expanding and the transitions it has run in it.
    at: Vec<(u64, u64)>,
}

impl Progress {
    fn add(&mut self, o: &JsValue, workers: usize) -> Message {
        self.at.resize(workers, (0, 0));
        let worker = (number(o, "worker") as usize).min(workers - 1);
        let level = number(o, "level");
        self.at[worker] = (level, number(o, "expanded"));
        let mut counts = match Message::read(o) {
            Message::Progress { counts, .. } => counts,
            _ => Counts::default(),
        };
        counts.transitions += self
            .at
            .iter()
            .filter(|(l, _)| *l == level)
            .map(|(_, t)| t)
            .sum::<u64>();
        Message::Progress {
            counts,
            elapsed_ms: number(o, "elapsed_ms"),
        }
    }
}

/// Starts a search for `config` in workers that share it, each pair joined by a channel of their own (the page
/// only hears progress and the end); `on` hears them. When a worker reports that the browser's WebAssembly engine
/// faulted (a trap safe code cannot make), the search starts again once, with new workers.
pub fn start(config: &Config, on: impl Fn(Message) + 'static) -> Result<Running, String> {
    let search = Rc::new(Search {
        config: config.clone(),
        workers: RefCell::default(),
        progress: RefCell::default(),
        restarted: Cell::new(false),
        ended: Cell::new(false),
        handlers: RefCell::default(),
    });
    let on = Rc::new(on);
    let on_message = {
        let (on, search) = (on.clone(), Rc::downgrade(&search));
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let Some(search) = search.upgrade() else {
                return;
            };
            let data = e.data();
            let kind = text(&data, "kind");
            if text(&data, "fault") == "engine"
                && !search.ended.get()
                && !search.restarted.replace(true)
            {
                web_sys::console::warn_1(
                    &format!("{}; starting the search again", text(&data, "message")).into(),
                );
                if let Err(e) = search.spawn() {
                    on(Message::Failed(e));
                }
                return;
            }
            let n = search.workers.borrow().len().max(1);
            search.ended.set(search.ended.get() || kind != "progress");
            on(if kind == "progress" {
                search.progress.borrow_mut().add(&data, n)
            } else {
                Message::read(&data)
            });
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
    *search.handlers.borrow_mut() = Some(Handlers {
        on_message,
        on_error,
    });
    search.spawn()?;
    Ok(Running(search))
}

impl Search {
    /// Terminates the workers, if any, without a word from them after.
    fn stop(&self) {
        for worker in self.workers.borrow_mut().drain(..) {
            worker.set_onmessage(None);
            worker.set_onerror(None);
            worker.terminate();
        }
    }

    /// Starts the search's workers (after stopping any before), each handed the module, its part and its ports.
    fn spawn(&self) -> Result<(), String> {
        self.stop();
        *self.progress.borrow_mut() = Progress::default();
        // The search's code is in the rest of a split module: the workers instantiate both.
        let rest = crate::ui::split::module_for_worker()?;
        let glue = glue_url();
        let script = web_sys::Url::new_with_base("checker-worker.js", &glue)
            .map(|u| u.href())
            .map_err(|_| format!("cannot locate the checker's worker beside `{glue}`"))?;
        let n = worker_count();
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        // Each worker is kept as it is made, so that a failure half way still stops the ones before it.
        for _ in 0..n {
            let worker = web_sys::Worker::new_with_options(&script, &options)
                .map_err(|e| format!("the browser refused the checker's worker: {e:?}"))?;
            self.workers.borrow_mut().push(worker);
        }
        // ports[i][j]: worker i's end of the channel to worker j.
        let mut ports: Vec<Vec<JsValue>> = vec![vec![JsValue::NULL; n]; n];
        for (i, j) in (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))) {
            let channel = web_sys::MessageChannel::new()
                .map_err(|e| format!("the browser refused a channel between workers: {e:?}"))?;
            ports[i][j] = channel.port1().into();
            ports[j][i] = channel.port2().into();
        }
        let handlers = self.handlers.borrow();
        let handlers = handlers.as_ref().ok_or("the search has stopped")?;
        let workers = self.workers.borrow();
        for (index, (worker, own)) in workers.iter().zip(ports).enumerate() {
            worker.set_onmessage(Some(handlers.on_message.as_ref().unchecked_ref()));
            worker.set_onerror(Some(handlers.on_error.as_ref().unchecked_ref()));
            let own: js_sys::Array = own.into_iter().collect();
            let transfer: js_sys::Array = own.iter().filter(|p| !p.is_null()).collect();
            let init = object(&[
                ("glue", JsValue::from_str(&glue)),
                ("module", wasm_bindgen::module()),
                ("rest", rest.clone()),
                ("job", JsValue::from_str(&self.config.to_query())),
                ("index", JsValue::from_f64(index as f64)),
                ("workers", JsValue::from_f64(n as f64)),
                ("ports", own.into()),
            ]);
            worker
                .post_message_with_transfer(&init, &transfer)
                .map_err(|e| format!("cannot hand the module to the checker's worker: {e:?}"))?;
        }
        Ok(())
    }
}

/// The JS glue's address, beside which the workers' script sits.
pub fn glue_url() -> String {
    GLUE_URL.with(JsValue::as_string).unwrap_or_default()
}

/// The check link in the address (`#check?flows=2&…`), if the page was opened with one.
pub fn link_in_location() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    hash.strip_prefix("#check?").map(str::to_owned)
}
