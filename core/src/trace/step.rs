//! The steps of a trace, exactly as TRACE.md spells them, and the trace that holds them.

use super::{MAX_PROCESS_LIMIT, TRACE_FORMAT};
use crate::protocol::{
    self, check_id, check_int_range, Boundary, Event, FaultTarget, Ordering, Role, Synchronous,
    Transition, EXPECTED_SEQ_MAX,
};
#[cfg(not(target_arch = "wasm32"))]
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
        SetSynchronous = "set_synchronous",
        Checkpoint = "checkpoint",
        PowerCut = "power_cut",
    }
}

/// The fields of a producer's write, the same for the protocol's `advance` and the article's
/// `unsafe_dual_write` (§2): the transition asked for, and where the process should exit.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Serialize))]
pub struct Write {
    pub flow: String,
    pub event_id: String,
    pub expected_seq: i64,
    pub kind: String,
    pub schema: i64,
    pub payload: Map<String, Value>,
    #[cfg_attr(
        not(target_arch = "wasm32"),
        serde(skip_serializing_if = "Option::is_none")
    )]
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

/// One step of a trace. Read by [`super::read`] and written by [`Trace::to_json`], both by hand: serde's
/// derived reader weighs 13 KB of the page (gzip), and its writer 1 KB more than the one here. Natively, serde's
/// derived writer is kept as the reference the hand-written one is tested against.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    not(target_arch = "wasm32"),
    derive(Serialize),
    serde(tag = "op", rename_all = "snake_case")
)]
pub enum Step {
    Advance(Write),
    UnsafeDualWrite(Write),
    Relay {
        #[cfg_attr(
            not(target_arch = "wasm32"),
            serde(skip_serializing_if = "Option::is_none")
        )]
        event_id: Option<String>,
        #[cfg_attr(
            not(target_arch = "wasm32"),
            serde(skip_serializing_if = "Option::is_none")
        )]
        crash_at: Option<Boundary>,
    },
    Receive {
        event: Value,
        #[cfg_attr(
            not(target_arch = "wasm32"),
            serde(skip_serializing_if = "Option::is_none")
        )]
        crash_at: Option<Boundary>,
    },
    Apply {
        flow: String,
        #[cfg_attr(
            not(target_arch = "wasm32"),
            serde(skip_serializing_if = "Option::is_none")
        )]
        crash_at: Option<Boundary>,
    },
    ProcessAll {
        #[cfg_attr(
            not(target_arch = "wasm32"),
            serde(skip_serializing_if = "Option::is_none")
        )]
        limit: Option<i64>,
        #[cfg_attr(
            not(target_arch = "wasm32"),
            serde(skip_serializing_if = "Option::is_none")
        )]
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
    /// `PRAGMA synchronous` of both databases from here on.
    SetSynchronous {
        mode: Synchronous,
    },
    /// A checkpoint of both databases (under NORMAL, the moment their disks sync).
    Checkpoint,
    /// The power goes out where these databases run: each keeps only what its disk synced.
    PowerCut {
        databases: Vec<Role>,
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
            Step::SetSynchronous { .. } => Op::SetSynchronous,
            Step::Checkpoint => Op::Checkpoint,
            Step::PowerCut { .. } => Op::PowerCut,
        }
    }

    /// Whether this step can change a row of the consumer's tables (the inbox, projection and effect log):
    /// only these can change what the invariant (§9) reads. The producer's steps and the switches cannot.
    /// The explorer reads the invariant only after such steps; `core/tests/properties.rs` holds every other
    /// step to leaving the consumer's rows as they were.
    pub fn may_change_consumer_rows(&self) -> bool {
        matches!(
            self,
            Step::Relay { .. }
                | Step::Receive { .. }
                | Step::Apply { .. }
                | Step::ProcessAll { .. }
                | Step::PowerCut { .. }
        )
    }

    /// Whether this step can change what the player's badge checks: the consumer's rows (the invariant) or a
    /// loss (`no_loss`: a state committed without its outbox row, an accepted mark, a power cut).
    pub fn may_break_badge(&self) -> bool {
        self.may_change_consumer_rows() || matches!(self, Step::UnsafeDualWrite(_))
    }

    fn crash_slot(&mut self) -> Option<&mut Option<Boundary>> {
        match self {
            Step::Advance(w) | Step::UnsafeDualWrite(w) => Some(&mut w.crash_at),
            Step::Relay { crash_at, .. }
            | Step::Receive { crash_at, .. }
            | Step::Apply { crash_at, .. }
            | Step::ProcessAll { crash_at, .. } => Some(crash_at),
            _ => None,
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
            _ => None,
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

impl Step {
    /// The step as one JSON object, its fields in declaration order, absent options left out.
    fn write_json(&self, out: &mut String) {
        out.push_str("{\"op\":");
        json_str(out, self.op().name());
        let field = |out: &mut String, name: &str| {
            out.push_str(",\"");
            out.push_str(name);
            out.push_str("\":");
        };
        match self {
            Step::Advance(w) | Step::UnsafeDualWrite(w) => {
                field(out, "flow");
                json_str(out, &w.flow);
                field(out, "event_id");
                json_str(out, &w.event_id);
                field(out, "expected_seq");
                out.push_str(&w.expected_seq.to_string());
                field(out, "kind");
                json_str(out, &w.kind);
                field(out, "schema");
                out.push_str(&w.schema.to_string());
                field(out, "payload");
                out.push_str(&Value::Object(w.payload.clone()).to_string());
            }
            Step::Relay { event_id, .. } => {
                if let Some(id) = event_id {
                    field(out, "event_id");
                    json_str(out, id);
                }
            }
            Step::Receive { event, .. } => {
                field(out, "event");
                out.push_str(&event.to_string());
            }
            Step::Apply { flow, .. } => {
                field(out, "flow");
                json_str(out, flow);
            }
            Step::ProcessAll { limit, .. } => {
                if let Some(limit) = limit {
                    field(out, "limit");
                    out.push_str(&limit.to_string());
                }
            }
            Step::SetSupportV2 { on } => {
                field(out, "on");
                out.push_str(if *on { "true" } else { "false" });
            }
            Step::InjectFault { target } | Step::ClearFault { target } => {
                field(out, "target");
                json_str(out, target.name());
            }
            Step::SetSynchronous { mode } => {
                field(out, "mode");
                json_str(out, mode.name());
            }
            Step::Checkpoint => {}
            Step::PowerCut { databases } => {
                field(out, "databases");
                out.push('[');
                for (i, db) in databases.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    json_str(out, db.name());
                }
                out.push(']');
            }
        }
        if let Some(b) = self.crash_at() {
            field(out, "crash_at");
            json_str(out, b.name());
        }
        out.push('}');
    }
}

/// A JSON string, escaped as serde_json escapes it.
fn json_str(out: &mut String, text: &str) {
    out.push_str(&Value::String(text.to_owned()).to_string());
}

/// The payload each schema prescribes (§6): `{"amount":3}` or `{"units":3}`.
pub fn schema_payload(schema: i64) -> Map<String, Value> {
    let mut payload = Map::new();
    let key = if schema == 2 { "units" } else { "amount" };
    payload.insert(key.into(), protocol::AMOUNT.into());
    payload
}

/// The consumer a trace starts with.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Serialize))]
pub struct ConsumerSetup {
    pub ordering: Ordering,
    /// The reader's rule and its effect, with `ordering` `rule` (RULE.md); written as `rule` and `effect`.
    #[cfg_attr(
        not(target_arch = "wasm32"),
        serde(flatten, skip_serializing_if = "Option::is_none")
    )]
    pub rule: Option<std::sync::Arc<crate::protocol::rule::Rule>>,
    pub support_v2: bool,
}

impl ConsumerSetup {
    /// A built-in consumer (no rule).
    pub fn builtin(ordering: Ordering, support_v2: bool) -> ConsumerSetup {
        ConsumerSetup {
            ordering,
            rule: None,
            support_v2,
        }
    }

    /// The reader's rule.
    pub fn with_rule(
        rule: std::sync::Arc<crate::protocol::rule::Rule>,
        support_v2: bool,
    ) -> ConsumerSetup {
        ConsumerSetup {
            ordering: Ordering::Rule,
            rule: Some(rule),
            support_v2,
        }
    }

    /// The protocol's configuration for this setup.
    pub fn config(&self) -> crate::protocol::ConsumerConfig {
        crate::protocol::ConsumerConfig {
            ordering: self.ordering,
            support_v2: self.support_v2,
            rule: self.rule.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(not(target_arch = "wasm32"), derive(Serialize))]
pub struct Trace {
    pub format: &'static str,
    pub consumer: ConsumerSetup,
    pub steps: Vec<Step>,
    /// Free metadata a file may carry (the experiments' title and expected outcome); never executed.
    #[cfg_attr(
        not(target_arch = "wasm32"),
        serde(skip_serializing_if = "Option::is_none")
    )]
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

    /// The trace as compact JSON, exactly as serde_json writes the derived `Serialize` (a native test holds
    /// the two equal). Cannot fail; a `Result` so that a change that made it fail is reported, not an empty
    /// link.
    pub fn to_json(&self) -> Result<String, String> {
        let mut out = String::with_capacity(64 + 96 * self.steps.len());
        out.push_str("{\"format\":");
        json_str(&mut out, self.format);
        out.push_str(",\"consumer\":{\"ordering\":");
        json_str(&mut out, self.consumer.ordering.name());
        if let Some(rule) = &self.consumer.rule {
            out.push_str(",\"rule\":");
            json_str(&mut out, rule.sql());
            out.push_str(",\"effect\":");
            json_str(&mut out, rule.effect().name());
        }
        out.push_str(",\"support_v2\":");
        out.push_str(if self.consumer.support_v2 {
            "true"
        } else {
            "false"
        });
        out.push_str("},\"steps\":[");
        for (i, step) in self.steps.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            step.write_json(&mut out);
        }
        out.push(']');
        if let Some(meta) = &self.experiment {
            out.push_str(",\"experiment\":");
            out.push_str(&meta.to_string());
        }
        out.push('}');
        Ok(out)
    }

    /// The trace as the file a reader downloads: indented like serde_json's pretty printer.
    pub fn to_json_pretty(&self) -> Result<String, String> {
        self.to_json().map(|json| super::pretty(&json))
    }
}
