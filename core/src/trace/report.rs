//! What a replay reports: each step's outcome, and the result document of TRACE.md.

use super::{Op, RESULT_FORMAT};
use crate::protocol::{self, Boundary, CrashMark, FlowStop, Invariant, Outcome, SqlLine};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// One step's outcome as the result document reports it, plus what the UI shows beside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepReport {
    pub op: Op,
    pub result: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundary: Option<Boundary>,
    /// `not_reached` when the step carried `crash_at` but never crossed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash: Option<CrashMark>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flows: Option<BTreeMap<String, FlowStop>>,
    /// The outbox row a relay step sent (not part of the result format).
    #[serde(skip)]
    pub relayed: Option<String>,
    /// Events applied by this step (not part of the result format).
    #[serde(skip)]
    pub applied: usize,
    /// The statements both databases ran, when the session logs SQL (not part of the result format).
    #[serde(skip)]
    pub sql: Vec<SqlLine>,
    /// The committed rows a power cut took away or changed back (not part of the result format).
    #[serde(skip)]
    pub lost_rows: usize,
    /// The boundaries this step crossed (not part of the result format).
    #[serde(skip)]
    pub passed: Vec<Boundary>,
    /// The effects this step committed, when the session logs them (the page's diagram; not part of the result
    /// format).
    #[serde(skip)]
    pub effects: Vec<protocol::system::EffectRow>,
}

impl StepReport {
    /// Not inlined: the engine builds a report in a dozen places, and the page pays for each copy.
    #[inline(never)]
    pub(super) fn new(op: Op, result: Outcome) -> StepReport {
        StepReport {
            op,
            result,
            boundary: None,
            crash: None,
            message: None,
            flows: None,
            relayed: None,
            applied: 0,
            sql: Vec::new(),
            lost_rows: 0,
            passed: Vec::new(),
            effects: Vec::new(),
        }
    }

    /// The result as one line of a listing: `crashed at receive.after_commit`, `gap`, …
    pub fn summary(&self) -> String {
        match self.boundary {
            Some(b) => format!("{} at {b}", self.result),
            None => self.result.to_string(),
        }
    }
}

/// The result document of TRACE.md.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResultDoc {
    pub format: &'static str,
    pub steps: Vec<StepReport>,
    pub producer: protocol::system::ProducerTables,
    pub consumer: protocol::system::ConsumerTables,
    pub invariant: Invariant,
}

impl ResultDoc {
    pub(super) fn new(steps: Vec<StepReport>, snapshot: protocol::Snapshot) -> ResultDoc {
        let invariant = protocol::invariant::check(&snapshot);
        ResultDoc {
            format: RESULT_FORMAT,
            steps,
            producer: snapshot.producer,
            consumer: snapshot.consumer,
            invariant,
        }
    }

    /// The document as `experiments replay` prints it (see [`super::Trace::to_json`] on why it is a `Result`).
    pub fn to_json_pretty(&self) -> Result<String, String> {
        serde_json::to_string(self)
            .map(|json| super::pretty(&json))
            .map_err(|e| format!("the result could not be written as JSON: {e}"))
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}
