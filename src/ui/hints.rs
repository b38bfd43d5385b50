//! A level's searches off the main thread (issue 56): one Web Worker per open level (`www/checker-worker.js`,
//! started with `hint`), which instantiates the page's own module as the checker's workers do and answers
//! each job, a configuration and the reader's moves so far, with the shortest way on to a break or the proof
//! that there is none ([`Play::hint`]). It starts as the level opens and searches the level's start at once
//! (the par, or the proof), so a reader's first *Hint* finds it done.

use outbox_core::checker::{Config, Hint, Move, Play, Property};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_name = postMessage)]
    fn post_to_page(message: &JsValue);
}

/// What a search from a position found.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    /// The shortest way on breaks `property`, `moves` moves from here; `next` is its first.
    Break {
        property: Property,
        why: String,
        next: Move,
        moves: usize,
    },
    /// Nothing within the bounds breaks a property from here: `states` states and `transitions` moves, all
    /// checked.
    Safe { states: u64, transitions: u64 },
}

/// A job's text: the configuration's query, then the job's number and the moves as hex codes ([`Move::code`]).
pub fn job(config: &Config, id: u32, history: &[Move]) -> String {
    let moves: String = history
        .iter()
        .flat_map(|m| m.code())
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{}&id={id}&moves={moves}", config.to_query())
}

fn read_job(job: &str) -> Result<(Config, u32, Vec<Move>), String> {
    let (config, rest) = Config::from_query(job)?;
    let get = |key: &str| {
        rest.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    let id = get("id")
        .parse()
        .map_err(|_| "a hint's job has no number")?;
    let hex = get("moves");
    let bytes = (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2).unwrap_or(""), 16))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| "a hint's moves are not hex")?;
    let moves = bytes
        .chunks(2)
        .map(|c| Move::from_code([c[0], *c.get(1).unwrap_or(&0)]))
        .collect::<Option<Vec<_>>>()
        .ok_or("a hint's job names a move the checker does not know")?;
    Ok((config, id, moves))
}

/// The search for one job: the moves made again on the worker's own databases, then the hint from there.
pub fn answer(config: Config, history: &[Move]) -> Result<Reply, String> {
    let mut play = Play::new(config)?;
    for m in history {
        play.make(*m)?;
    }
    Ok(match play.hint()? {
        Hint::Break {
            violation,
            next,
            moves,
            ..
        } => Reply::Break {
            property: violation.property,
            why: violation.message,
            next,
            moves,
        },
        Hint::Safe {
            states,
            transitions,
        } => Reply::Safe {
            states,
            transitions,
        },
    })
}

fn object(fields: &[(&str, JsValue)]) -> JsValue {
    let o = js_sys::Object::new();
    for (key, value) in fields {
        let _ = js_sys::Reflect::set(&o, &JsValue::from_str(key), value);
    }
    o.into()
}

/// Runs inside the level's worker, once for each job the page posts.
#[wasm_bindgen]
pub fn hint_in_worker(job: &str) {
    let (id, result) = match read_job(job) {
        Ok((config, id, history)) => (id, answer(config, &history)),
        Err(e) => (0, Err(e)),
    };
    let mut fields = vec![("id", JsValue::from_f64(f64::from(id)))];
    match result {
        Ok(Reply::Break {
            property,
            why,
            next,
            moves,
        }) => {
            let [a, b] = next.code();
            fields.extend([
                ("kind", "break".into()),
                ("property", property.name().into()),
                ("why", why.into()),
                (
                    "next",
                    JsValue::from_f64(f64::from(u16::from(a) << 8 | u16::from(b))),
                ),
                ("moves", JsValue::from_f64(moves as f64)),
            ]);
        }
        Ok(Reply::Safe {
            states,
            transitions,
        }) => fields.extend([
            ("kind", "safe".into()),
            ("states", JsValue::from_f64(states as f64)),
            ("transitions", JsValue::from_f64(transitions as f64)),
        ]),
        Err(message) => fields.extend([("kind", "failed".into()), ("message", message.into())]),
    }
    post_to_page(&object(&fields));
}

fn field(o: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(o, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// A reply as the page reads it.
fn read_reply(o: &JsValue) -> Result<Reply, String> {
    let number = |key| field(o, key).as_f64().unwrap_or(0.0);
    let text = |key| field(o, key).as_string().unwrap_or_default();
    let reply = match text("kind").as_str() {
        "break" => {
            let code = number("next") as u16;
            Reply::Break {
                property: Property::from_name(&text("property"))
                    .ok_or("the hint named no known property")?,
                why: text("why"),
                next: Move::from_code([(code >> 8) as u8, code as u8])
                    .ok_or("the hint named no known move")?,
                moves: number("moves") as usize,
            }
        }
        "safe" => Reply::Safe {
            states: number("states") as u64,
            transitions: number("transitions") as u64,
        },
        _ => {
            let message = text("message");
            return Err(if message.is_empty() {
                "the level's worker sent nothing the page can read".into()
            } else {
                message
            });
        }
    };
    Ok(reply)
}

type Waiting = Rc<RefCell<HashMap<u32, Box<dyn FnOnce(Result<Reply, String>)>>>>;

/// The open level's worker; dropping it terminates the worker.
pub struct Hinter {
    worker: web_sys::Worker,
    next_id: std::cell::Cell<u32>,
    waiting: Waiting,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for Hinter {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

impl Hinter {
    /// Starts the worker: the module handed over compiled, as to the checker's workers.
    pub fn start() -> Result<Hinter, String> {
        let rest = crate::ui::split::module_for_worker()?;
        let glue = crate::ui::checker::glue_url();
        let script = web_sys::Url::new_with_base("checker-worker.js", &glue)
            .map(|u| u.href())
            .map_err(|_| format!("cannot locate the level's worker beside `{glue}`"))?;
        let options = web_sys::WorkerOptions::new();
        options.set_type(web_sys::WorkerType::Module);
        let worker = web_sys::Worker::new_with_options(&script, &options)
            .map_err(|e| format!("the browser refused the level's worker: {e:?}"))?;
        let waiting: Waiting = Rc::default();
        let on_message = {
            let waiting = waiting.clone();
            Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                let data = e.data();
                let id = field(&data, "id").as_f64().unwrap_or(0.0) as u32;
                let reply = read_reply(&data);
                let done = waiting.borrow_mut().remove(&id);
                match done {
                    Some(done) => done(reply),
                    // A failure that names no job (the worker itself failed): every job waiting hears it.
                    None if reply.is_err() => {
                        let all: Vec<_> = waiting.borrow_mut().drain().collect();
                        for (_, done) in all {
                            done(reply.clone());
                        }
                    }
                    None => {}
                }
            })
        };
        let on_error = {
            let waiting = waiting.clone();
            Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
                e.prevent_default();
                let detail = e
                    .dyn_ref::<web_sys::ErrorEvent>()
                    .map(|e| e.message())
                    .unwrap_or_default();
                let all: Vec<_> = waiting.borrow_mut().drain().collect();
                for (_, done) in all {
                    done(Err(format!("the level's worker failed to start: {detail}")));
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        let init = object(&[
            ("glue", JsValue::from_str(&glue)),
            ("module", wasm_bindgen::module()),
            ("rest", rest),
            ("hint", JsValue::TRUE),
        ]);
        worker
            .post_message(&init)
            .map_err(|e| format!("cannot hand the module to the level's worker: {e:?}"))?;
        Ok(Hinter {
            worker,
            next_id: std::cell::Cell::new(1),
            waiting,
            _on_message: on_message,
            _on_error: on_error,
        })
    }

    /// Searches on from `history`; `done` hears the reply.
    pub fn ask(
        &self,
        config: &Config,
        history: &[Move],
        done: impl FnOnce(Result<Reply, String>) + 'static,
    ) {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        self.waiting.borrow_mut().insert(id, Box::new(done));
        let message = object(&[
            ("id", JsValue::from_f64(f64::from(id))),
            ("job", JsValue::from_str(&job(config, id, history))),
        ]);
        if let Err(e) = self.worker.post_message(&message) {
            let done = self.waiting.borrow_mut().remove(&id);
            // Never within the call: the caller may be holding what `done` changes.
            if let Some(done) = done {
                let e = format!("cannot ask the level's worker: {e:?}");
                crate::ui::run_soon(move || done(Err(e)));
            }
        }
    }
}
