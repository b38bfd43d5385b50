//! What a run reports, as one document (`outbox-playground-check/1`): `experiments check --json` prints it and
//! the page's worker posts it, so the CLI and the page show the same counts and verdicts from the same words.

use super::{why, Config, Counts, Property, Search, Verdict};
use crate::trace::{StepReport, Trace};
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
            c.trace
                .to_json()
                .ok()
                .and_then(|json| serde_json::from_str(&json).ok())
                .unwrap_or(Value::Null),
            json!(why(config, c)),
            serde_json::to_value(&c.reports).unwrap_or(Value::Null),
        ),
        _ => (Value::Null, Value::Null, Value::Null, Value::Null),
    };
    let mut doc = json!({
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
    });
    if let Some(rule) = &config.rule {
        doc["config"]["rule"] = json!(rule.sql());
        doc["config"]["effect"] = json!(rule.effect().name());
    }
    doc
}

pub fn counts_value(c: Counts) -> Value {
    json!({
        "states": c.states,
        "transitions": c.transitions,
        "depth": c.depth,
        "quiescent": c.quiescent,
    })
}

/// What a search found, as typed values (the page's worker sends these across): the counterexample as a trace.
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

impl Outcome {
    /// What a finished (or stopped) search found.
    pub fn of(config: &Config, search: &Search, elapsed_ms: u64) -> Outcome {
        Outcome::found(config, search.counts(), search.verdict(), elapsed_ms)
    }

    /// What a search found, from its counts and verdict (however many workers shared it).
    pub fn found(
        config: &Config,
        counts: Counts,
        verdict: Option<&Verdict>,
        elapsed_ms: u64,
    ) -> Outcome {
        let verdict = verdict.map(|v| match v {
            Verdict::Holds => Finding::Holds,
            Verdict::Violated(c) => Finding::Violated {
                property: c.violation.property,
                why: why(config, c),
                trace: c.trace.clone(),
                results: c.reports.iter().map(StepReport::summary).collect(),
            },
        });
        Outcome {
            counts,
            elapsed_ms,
            verdict,
        }
    }
}
