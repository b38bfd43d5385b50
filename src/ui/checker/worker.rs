//! Inside one worker of a search: its part of the shared search ([`Shard`]), the messages it trades with its
//! peers, and what it posts to the page (progress, then the outcome).

use super::{counts_fields, object};
use outbox_core::checker::shard::{LevelReport, Next, Shard, Tally};
use outbox_core::checker::{Config, Finding, Outcome, Verdict};
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The worker's `postMessage` (only called inside a worker).
    #[wasm_bindgen(js_name = postMessage)]
    fn post_to_page(message: &JsValue);

    /// Sends bytes to another worker of the same search, over the port the page gave (`checker-worker.js`).
    #[wasm_bindgen(js_name = outboxSendToWorker)]
    fn send_to_worker(to: u32, bytes: &[u8]);
}

/// How often the worker reports progress.
const PROGRESS_MS: f64 = 100.0;

/// One worker's part of a search shared by several (`checker::shard`): its shard, its sum of every worker's
/// reports, and how many of the next level's bundles it has taken.
struct Part {
    config: Config,
    index: usize,
    workers: usize,
    shard: Shard,
    tally: Tally,
    taken: usize,
    start: f64,
    reported: f64,
}

/// What a worker hears, from its peers or itself.
enum Event {
    Bundle(Vec<u8>),
    Report(Vec<u8>),
}

/// A message between workers: its first byte says which.
const BUNDLE: u8 = 0;
const REPORT: u8 = 1;

thread_local! {
    static PART: std::cell::RefCell<Option<Part>> = const { std::cell::RefCell::new(None) };
}

fn post_failed(message: String) {
    post_to_page(&object(&[
        ("kind", "failed".into()),
        ("message", message.into()),
    ]))
}

/// Runs inside worker `index` of `workers` (called by `checker-worker.js` once the module is instantiated and
/// its peers' ports are set): its part of the search for the configuration `job` (a [`Config::to_query`] text).
#[wasm_bindgen]
pub fn check_in_worker(job: &str, index: u32, workers: u32) {
    let (index, workers) = (index as usize, workers as usize);
    let started = Config::from_query(job).and_then(|(config, _)| {
        let (shard, report) = Shard::new(config.clone(), index, workers, config.symmetry)?;
        Ok((config, shard, report))
    });
    let (config, shard, report) = match started {
        Ok(s) => s,
        Err(e) => return post_failed(e),
    };
    let start = js_sys::Date::now();
    PART.with_borrow_mut(|p| {
        *p = Some(Part {
            config,
            index,
            workers,
            shard,
            tally: Tally::default(),
            taken: 0,
            start,
            reported: start,
        })
    });
    handle(Event::Report(broadcast(
        REPORT,
        report.to_bytes(),
        index,
        workers,
    )));
}

/// What another worker sent this one.
#[wasm_bindgen]
pub fn check_message_in_worker(bytes: &[u8]) {
    match bytes.split_first() {
        Some((&BUNDLE, rest)) => handle(Event::Bundle(rest.to_vec())),
        Some((&REPORT, rest)) => handle(Event::Report(rest.to_vec())),
        _ => post_failed("a worker sent another one something it cannot read".into()),
    }
}

/// Sends `bytes` to every other worker; returns them for this one.
fn broadcast(tag: u8, bytes: Vec<u8>, index: usize, workers: usize) -> Vec<u8> {
    let mut message = vec![tag];
    message.extend(&bytes);
    for to in (0..workers).filter(|&to| to != index) {
        send_to_worker(to as u32, &message);
    }
    bytes
}

/// Handles an event and whatever it leads to in this worker, in order (a loop, not recursion: with one worker
/// every message is its own).
fn handle(first: Event) {
    let mut events = std::collections::VecDeque::from([first]);
    while let Some(event) = events.pop_front() {
        let step = PART.with_borrow_mut(|p| match p {
            Some(part) => part.on(event),
            None => Err("the checker's worker heard from a peer before it started".into()),
        });
        match step {
            Ok(more) => events.extend(more),
            Err(e) => return post_failed(e),
        }
    }
}

impl Part {
    fn on(&mut self, event: Event) -> Result<Vec<Event>, String> {
        match event {
            Event::Bundle(bytes) => {
                self.shard.take(&bytes)?;
                self.taken += 1;
                if self.taken < self.workers {
                    return Ok(Vec::new());
                }
                self.taken = 0;
                let report = self.shard.merge()?.to_bytes();
                Ok(vec![Event::Report(broadcast(
                    REPORT,
                    report,
                    self.index,
                    self.workers,
                ))])
            }
            Event::Report(bytes) => {
                let report = LevelReport::from_bytes(&self.config, &bytes)?;
                match self.tally.add(report, self.workers) {
                    None => Ok(Vec::new()),
                    Some(Next::Expand) => self.expand(),
                    Some(next) => {
                        // Every worker reaches the same end; the first tells the page.
                        if self.index == 0 {
                            self.finish(next)?;
                        }
                        Ok(Vec::new())
                    }
                }
            }
        }
    }

    /// Expands this worker's states of the level and sends each bundle to its owner; its own comes back.
    fn expand(&mut self) -> Result<Vec<Event>, String> {
        let (index, base, start) = (self.index, self.tally.counts, self.start);
        let reported = &mut self.reported;
        let bundles = self.shard.expand(|transitions| {
            let now = js_sys::Date::now();
            if now - *reported >= PROGRESS_MS {
                *reported = now;
                let mut fields = counts_fields(base).to_vec();
                fields.push(("kind", "progress".into()));
                fields.push(("worker", JsValue::from_f64(index as f64)));
                fields.push(("level", JsValue::from_f64(f64::from(base.depth))));
                fields.push(("expanded", JsValue::from_f64(transitions as f64)));
                fields.push(("elapsed_ms", JsValue::from_f64(now - start)));
                post_to_page(&object(&fields));
            }
        })?;
        let mut own = Vec::new();
        for (to, bundle) in bundles.into_iter().enumerate() {
            if to == self.index {
                own = bundle;
            } else {
                let mut message = vec![BUNDLE];
                message.extend(bundle);
                send_to_worker(to as u32, &message);
            }
        }
        Ok(vec![Event::Bundle(own)])
    }

    /// Posts what the search found: its counts, and the verdict with its counterexample.
    fn finish(&self, next: Next) -> Result<(), String> {
        let elapsed = js_sys::Date::now() - self.start;
        let verdict = match next {
            Next::Violated(b) => Verdict::Violated(Box::new(b.counterexample(&self.config)?)),
            _ => Verdict::Holds,
        };
        let outcome = Outcome::found(
            &self.config,
            self.tally.counts,
            Some(&verdict),
            elapsed as u64,
        );
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
                fields.push(("trace", trace.to_json()?.into()));
            }
            _ => fields.push(("kind", "holds".into())),
        }
        post_to_page(&object(&fields));
        Ok(())
    }
}
