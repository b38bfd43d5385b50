//! What a run reports, as one document (`outbox-playground-check/1`): `experiments check --json` prints it and
//! the page's worker posts it, so the CLI and the page show the same counts and verdicts from the same words.

use super::{why, Config, Counts, Property, Search, Verdict};
use crate::trace::{self, Trace};
use serde_json::{json, Value};

pub const FORMAT: &str = "outbox-playground-check/1";

/// The document for a finished (or stopped) search. Time, threads and memory are the caller's: the core has no
/// clock on every target.
pub fn document(
    config: &Config,
    search: &Search,
    elapsed_ms: u64,
    threads: usize,
    peak_memory_kib: Option<u64>,
) -> Value {
    let counts = search.counts();
    let verdict = search.verdict().map(Verdict::word);
    let (property, counterexample, why, results) = match search.verdict() {
        Some(Verdict::Violated(c)) => (
            json!(c.violation.property.name()),
            serde_json::to_value(&c.trace).unwrap_or(Value::Null),
            json!(why(config, c)),
            serde_json::to_value(&c.reports).unwrap_or(Value::Null),
        ),
        _ => (Value::Null, Value::Null, Value::Null, Value::Null),
    };
    json!({
        "format": FORMAT,
        "config": {
            "flows": config.flows,
            "events": config.events,
            "resends": config.resends,
            "crashes": config.crashes,
            "schema2": config.schema2,
            "consumer": config.consumer.name(),
            "producer": config.producer.name(),
        },
        "counts": counts_value(counts),
        "elapsed_ms": elapsed_ms,
        "threads": threads,
        "symmetry": search.symmetry(),
        "peak_memory_kib": peak_memory_kib,
        "verdict": verdict,
        "property": property,
        "why": why,
        "counterexample": counterexample,
        "results": results,
    })
}

pub fn counts_value(c: Counts) -> Value {
    json!({
        "states": c.states,
        "transitions": c.transitions,
        "depth": c.depth,
        "quiescent": c.quiescent,
    })
}

/// A document read back (the page, from its worker): typed values, the counterexample as a trace.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub counts: Counts,
    pub elapsed_ms: u64,
    /// `None` while the search runs (or when it was stopped).
    pub verdict: Option<Finding>,
}

/// A verdict as the document carries it.
#[derive(Clone, Debug, PartialEq)]
pub enum Finding {
    Holds,
    Violated {
        property: Property,
        why: String,
        trace: Trace,
        /// Each step's result word, with the boundary of an exit (`crashed at apply.after_effect`).
        results: Vec<String>,
    },
}

/// Reads counts from `{"states":…,"transitions":…,"depth":…,"quiescent":…}`.
pub fn read_counts(v: &Value) -> Result<Counts, String> {
    let n = |k: &str| {
        v.get(k)
            .and_then(Value::as_u64)
            .ok_or_else(|| format!("the checker's report has no `{k}` count"))
    };
    Ok(Counts {
        states: n("states")?,
        transitions: n("transitions")?,
        depth: n("depth")? as u32,
        quiescent: n("quiescent")?,
    })
}

impl Outcome {
    pub fn from_document(doc: &Value) -> Result<Outcome, String> {
        if doc.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(format!("not a checker report ({FORMAT})"));
        }
        let counts = read_counts(doc.get("counts").unwrap_or(&Value::Null))?;
        let elapsed_ms = doc.get("elapsed_ms").and_then(Value::as_u64).unwrap_or(0);
        let verdict = match doc.get("verdict").and_then(Value::as_str) {
            None => None,
            Some("holds") => Some(Finding::Holds),
            Some("violated") => {
                let property = doc
                    .get("property")
                    .and_then(Value::as_str)
                    .and_then(Property::from_name)
                    .ok_or("the checker's report names no known property")?;
                let trace =
                    trace::from_value(doc.get("counterexample").cloned().unwrap_or_default())
                        .map_err(|e| e.0)?;
                let results = doc
                    .get("results")
                    .and_then(Value::as_array)
                    .map(|rs| {
                        rs.iter()
                            .map(|r| {
                                let word = r.get("result").and_then(Value::as_str).unwrap_or("");
                                match r.get("boundary").and_then(Value::as_str) {
                                    Some(b) => format!("{word} at {b}"),
                                    None => word.to_owned(),
                                }
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Some(Finding::Violated {
                    property,
                    why: doc
                        .get("why")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    trace,
                    results,
                })
            }
            Some(other) => return Err(format!("unknown verdict `{other}`")),
        };
        Ok(Outcome {
            counts,
            elapsed_ms,
            verdict,
        })
    }
}
