//! The steps of a trace, exactly as TRACE.md spells them, and the trace that holds them.

use super::{MAX_PROCESS_LIMIT, TRACE_FORMAT};
use crate::protocol::{
    self, check_id, check_int_range, Boundary, Event, FaultTarget, Ordering, Transition,
    EXPECTED_SEQ_MAX,
};
use serde::Serialize;
use serde_json::{Map, Value};

words! {
    /// Every op a trace step may name.
    pub enum Op {
        Advance = "advance",
        UnsafeDualWrite = "unsafe_dual_write",
        Relay = "relay",
        Receive = "receive",
        Apply = "apply",
        ProcessAll = "process_all",
        SetSupportV2 = "set_support_v2",
        InjectFault = "inject_fault",
        ClearFault = "clear_fault",
    }
}

/// The fields of a producer's write, the same for the protocol's `advance` and the article's
/// `unsafe_dual_write` (§2): the transition asked for, and where the process should exit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Write {
    pub flow: String,
    pub event_id: String,
    pub expected_seq: i64,
    pub kind: String,
    pub schema: i64,
    pub payload: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash_at: Option<Boundary>,
}

impl Write {
    /// The transition this write asks for, with the event it would commit (`seq = expected_seq + 1`), every
    /// bound checked.
    pub fn transition(&self) -> Result<Transition, String> {
        check_id(&self.flow).map_err(|e| format!("field `flow` {e}"))?;
        check_int_range(self.expected_seq, 0, EXPECTED_SEQ_MAX)
            .map_err(|e| format!("field `expected_seq` {e}"))?;
        let event = Event::new(
            &self.event_id,
            &self.flow,
            self.expected_seq + 1,
            &self.kind,
            self.schema,
            self.payload.clone(),
        )?;
        Ok(Transition {
            expected_seq: self.expected_seq,
            event,
        })
    }
}

/// One step of a trace. Read by [`super::read`] (hand-written: serde's derive for an internally tagged enum
/// weighed 24 KB of the page), written by serde.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Step {
    Advance(Write),
    UnsafeDualWrite(Write),
    Relay {
        #[serde(skip_serializing_if = "Option::is_none")]
        event_id: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        crash_at: Option<Boundary>,
    },
    Receive {
        event: Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        crash_at: Option<Boundary>,
    },
    Apply {
        flow: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        crash_at: Option<Boundary>,
    },
    ProcessAll {
        #[serde(skip_serializing_if = "Option::is_none")]
        limit: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        crash_at: Option<Boundary>,
    },
    SetSupportV2 {
        on: bool,
    },
    InjectFault {
        target: FaultTarget,
    },
    ClearFault {
        target: FaultTarget,
    },
}

impl Step {
    /// The TRACE.md op.
    pub fn op(&self) -> Op {
        match self {
            Step::Advance(_) => Op::Advance,
            Step::UnsafeDualWrite(_) => Op::UnsafeDualWrite,
            Step::Relay { .. } => Op::Relay,
            Step::Receive { .. } => Op::Receive,
            Step::Apply { .. } => Op::Apply,
            Step::ProcessAll { .. } => Op::ProcessAll,
            Step::SetSupportV2 { .. } => Op::SetSupportV2,
            Step::InjectFault { .. } => Op::InjectFault,
            Step::ClearFault { .. } => Op::ClearFault,
        }
    }

    /// Whether this step can change a row of the consumer's tables (the inbox, projection and effect log):
    /// only these can change what the invariant (§9) reads. The producer's steps and the switches cannot.
    pub fn may_change_consumer_rows(&self) -> bool {
        matches!(
            self,
            Step::Relay { .. }
                | Step::Receive { .. }
                | Step::Apply { .. }
                | Step::ProcessAll { .. }
        )
    }

    fn crash_slot(&mut self) -> Option<&mut Option<Boundary>> {
        match self {
            Step::Advance(w) | Step::UnsafeDualWrite(w) => Some(&mut w.crash_at),
            Step::Relay { crash_at, .. }
            | Step::Receive { crash_at, .. }
            | Step::Apply { crash_at, .. }
            | Step::ProcessAll { crash_at, .. } => Some(crash_at),
            Step::SetSupportV2 { .. } | Step::InjectFault { .. } | Step::ClearFault { .. } => None,
        }
    }

    /// Where the process exits during this step, if it is armed.
    pub fn crash_at(&self) -> Option<Boundary> {
        match self {
            Step::Advance(w) | Step::UnsafeDualWrite(w) => w.crash_at,
            Step::Relay { crash_at, .. }
            | Step::Receive { crash_at, .. }
            | Step::Apply { crash_at, .. }
            | Step::ProcessAll { crash_at, .. } => *crash_at,
            Step::SetSupportV2 { .. } | Step::InjectFault { .. } | Step::ClearFault { .. } => None,
        }
    }

    /// The same step set to exit at `boundary` (steps that cannot carry `crash_at` are returned unchanged).
    pub fn with_crash_at(mut self, boundary: Option<Boundary>) -> Step {
        if let Some(slot) = self.crash_slot() {
            *slot = boundary;
        }
        self
    }

    /// The same transition written the article's unsafe way (§2): an `advance` becomes `unsafe_dual_write`;
    /// any other step is returned as it is.
    pub fn into_unsafe_dual_write(self) -> Step {
        match self {
            Step::Advance(w) => Step::UnsafeDualWrite(w),
            other => other,
        }
    }

    /// The producer's write, for `advance` and `unsafe_dual_write`.
    pub fn write(&self) -> Option<&Write> {
        match self {
            Step::Advance(w) | Step::UnsafeDualWrite(w) => Some(w),
            _ => None,
        }
    }

    /// The flow the step names (`advance`, `unsafe_dual_write`, `apply`).
    pub fn flow(&self) -> Option<&str> {
        match self {
            Step::Advance(w) | Step::UnsafeDualWrite(w) => Some(&w.flow),
            Step::Apply { flow, .. } => Some(flow),
            _ => None,
        }
    }

    /// An `advance` step for `event_id` with schema 1 or 2 and the payload that schema prescribes.
    pub fn advance(flow: &str, event_id: &str, expected_seq: i64, kind: &str, schema: i64) -> Step {
        Step::Advance(Write {
            flow: flow.to_owned(),
            event_id: event_id.to_owned(),
            expected_seq,
            kind: kind.to_owned(),
            schema,
            payload: schema_payload(schema),
            crash_at: None,
        })
    }

    /// A `relay` step: the first unaccepted row, or the row `event_id` names.
    pub fn relay(event_id: Option<&str>) -> Step {
        Step::Relay {
            event_id: event_id.map(str::to_owned),
            crash_at: None,
        }
    }

    /// An `apply` step: one attempt at `last_seq + 1` of `flow`.
    pub fn apply(flow: &str) -> Step {
        Step::Apply {
            flow: flow.to_owned(),
            crash_at: None,
        }
    }

    /// A `process_all` step with `limit` apply attempts (the default 1000 when `None`).
    pub fn process_all(limit: Option<i64>) -> Step {
        Step::ProcessAll {
            limit,
            crash_at: None,
        }
    }

    /// Checks every bound of TRACE.md that belongs to the trace (a `receive` step's event is checked at run time).
    pub(super) fn check_bounds(&self) -> Result<(), String> {
        match self {
            Step::Advance(w) | Step::UnsafeDualWrite(w) => w.transition().map(|_| ()),
            Step::Relay {
                event_id: Some(id), ..
            } => check_id(id).map_err(|e| format!("field `event_id` {e}")),
            Step::Apply { flow, .. } => check_id(flow).map_err(|e| format!("field `flow` {e}")),
            Step::ProcessAll {
                limit: Some(limit), ..
            } => check_int_range(*limit, 1, MAX_PROCESS_LIMIT)
                .map_err(|e| format!("field `limit` {e}")),
            _ => Ok(()),
        }
    }
}

/// The payload each schema prescribes (§6): `{"amount":3}` or `{"units":3}`.
pub fn schema_payload(schema: i64) -> Map<String, Value> {
    let mut payload = Map::new();
    let key = if schema == 2 { "units" } else { "amount" };
    payload.insert(key.into(), protocol::AMOUNT.into());
    payload
}

/// The consumer a trace starts with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Default)]
pub struct ConsumerSetup {
    pub ordering: Ordering,
    pub support_v2: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trace {
    pub format: &'static str,
    pub consumer: ConsumerSetup,
    pub steps: Vec<Step>,
    /// Free metadata a file may carry (the experiments' title and expected outcome); never executed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experiment: Option<Value>,
}

impl Trace {
    pub fn new(consumer: ConsumerSetup, steps: Vec<Step>) -> Trace {
        Trace {
            format: TRACE_FORMAT,
            consumer,
            steps,
            experiment: None,
        }
    }

    /// The trace as compact JSON. Serialising these types cannot fail today (string keys, no custom error);
    /// if a change ever made it fail, the caller reports it rather than writing an empty trace.
    pub fn to_json(&self) -> Result<String, String> {
        serde_json::to_string(self)
            .map_err(|e| format!("the trace could not be written as JSON: {e}"))
    }

    /// The trace as the file a reader downloads: indented like serde_json's pretty printer.
    pub fn to_json_pretty(&self) -> Result<String, String> {
        self.to_json().map(|json| super::pretty(&json))
    }
}
