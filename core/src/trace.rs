//! The trace format of TRACE.md — the one contract between the core, the UI, the CLI and the tests — and the one
//! engine that replays it. Readers' traces are untrusted: [`parse`] refuses a bad one whole, naming the step and
//! the field, before anything runs.

use crate::protocol::{
    self, check_id, check_int_range, Boundary, ConsumerConfig, Event, FaultTarget, Invariant,
    Ordering, ReceiveResult, Snapshot, SqlLine, Stop, System, Transition, EXPECTED_SEQ_MAX,
};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub const TRACE_FORMAT: &str = "outbox-playground-trace/1";
pub const RESULT_FORMAT: &str = "outbox-playground-result/1";
pub const MAX_STEPS: usize = 10_000;
pub const MAX_TRACE_BYTES: usize = 1024 * 1024;
pub const DEFAULT_PROCESS_LIMIT: u32 = 1000;
pub const MAX_PROCESS_LIMIT: i64 = 1_000_000;
/// The result of a step that waited for another process's write lock past the busy timeout and wrote nothing.
/// Only a session on real files shared by real processes (the CLI's `race` and `soak`) can report it.
pub const BUSY: &str = "busy";

/// One step of a trace, exactly as TRACE.md spells it. Read by [`step_from_value`] (hand-written: serde's
/// derive for an internally tagged enum weighed 24 KB of the page), written by serde.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Step {
    Advance {
        flow: String,
        event_id: String,
        expected_seq: i64,
        kind: String,
        schema: i64,
        payload: Map<String, Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        crash_at: Option<Boundary>,
    },
    UnsafeDualWrite {
        flow: String,
        event_id: String,
        expected_seq: i64,
        kind: String,
        schema: i64,
        payload: Map<String, Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        crash_at: Option<Boundary>,
    },
    Relay {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        crash_at: Option<Boundary>,
    },
    Receive {
        event: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        crash_at: Option<Boundary>,
    },
    Apply {
        flow: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        crash_at: Option<Boundary>,
    },
    ProcessAll {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<i64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
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
    /// The TRACE.md op name.
    pub fn op(&self) -> &'static str {
        match self {
            Step::Advance { .. } => "advance",
            Step::UnsafeDualWrite { .. } => "unsafe_dual_write",
            Step::Relay { .. } => "relay",
            Step::Receive { .. } => "receive",
            Step::Apply { .. } => "apply",
            Step::ProcessAll { .. } => "process_all",
            Step::SetSupportV2 { .. } => "set_support_v2",
            Step::InjectFault { .. } => "inject_fault",
            Step::ClearFault { .. } => "clear_fault",
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

    pub fn crash_at(&self) -> Option<Boundary> {
        match self {
            Step::Advance { crash_at, .. }
            | Step::UnsafeDualWrite { crash_at, .. }
            | Step::Relay { crash_at, .. }
            | Step::Receive { crash_at, .. }
            | Step::Apply { crash_at, .. }
            | Step::ProcessAll { crash_at, .. } => *crash_at,
            Step::SetSupportV2 { .. } | Step::InjectFault { .. } | Step::ClearFault { .. } => None,
        }
    }

    /// The same step set to exit at `boundary` (steps that cannot carry `crash_at` are returned unchanged).
    /// The same transition written the article's unsafe way (§2): an `advance` becomes `unsafe_dual_write`;
    /// any other step is returned as it is.
    pub fn into_unsafe_dual_write(self) -> Step {
        match self {
            Step::Advance {
                flow,
                event_id,
                expected_seq,
                kind,
                schema,
                payload,
                crash_at,
            } => Step::UnsafeDualWrite {
                flow,
                event_id,
                expected_seq,
                kind,
                schema,
                payload,
                crash_at,
            },
            other => other,
        }
    }

    pub fn with_crash_at(mut self, boundary: Option<Boundary>) -> Step {
        match &mut self {
            Step::Advance { crash_at, .. }
            | Step::UnsafeDualWrite { crash_at, .. }
            | Step::Relay { crash_at, .. }
            | Step::Receive { crash_at, .. }
            | Step::Apply { crash_at, .. }
            | Step::ProcessAll { crash_at, .. } => *crash_at = boundary,
            Step::SetSupportV2 { .. } | Step::InjectFault { .. } | Step::ClearFault { .. } => {}
        }
        self
    }

    /// An `advance` step for `event_id` with schema 1 or 2 and the payload that schema prescribes.
    pub fn advance(flow: &str, event_id: &str, expected_seq: i64, kind: &str, schema: i64) -> Step {
        let (flow, event_id, kind) = (flow.to_owned(), event_id.to_owned(), kind.to_owned());
        Step::Advance {
            flow,
            event_id,
            expected_seq,
            kind,
            schema,
            payload: schema_payload(schema),
            crash_at: None,
        }
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

    /// For `advance` and `unsafe_dual_write`: the transition they ask for, with the event they would commit
    /// (`seq = expected_seq + 1`), every bound checked. `None` for other ops.
    pub fn transition(&self) -> Option<Result<Transition, String>> {
        let (Step::Advance {
            flow,
            event_id,
            expected_seq,
            kind,
            schema,
            payload,
            ..
        }
        | Step::UnsafeDualWrite {
            flow,
            event_id,
            expected_seq,
            kind,
            schema,
            payload,
            ..
        }) = self
        else {
            return None;
        };
        Some((|| {
            check_id(flow).map_err(|e| format!("field `flow` {e}"))?;
            check_int_range(*expected_seq, 0, EXPECTED_SEQ_MAX)
                .map_err(|e| format!("field `expected_seq` {e}"))?;
            let event = Event::new(
                event_id,
                flow,
                expected_seq + 1,
                kind,
                *schema,
                payload.clone(),
            )?;
            Ok(Transition {
                expected_seq: *expected_seq,
                event,
            })
        })())
    }

    /// Checks every bound of TRACE.md that belongs to the trace (a `receive` step's event is checked at run time).
    fn check_bounds(&self) -> Result<(), String> {
        if let Some(transition) = self.transition() {
            return transition.map(|_| ());
        }
        match self {
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

    pub fn to_json_pretty(&self) -> String {
        pretty(&serde_json::to_string(self).unwrap_or_default())
    }
}

/// Indents compact JSON exactly as serde_json's pretty printer does (two spaces, `": "`, `[]` and `{}` kept
/// whole). The page serialises a trace one way only, so its serialiser is in the module once, not twice.
pub fn pretty(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    let mut chars = compact.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.extend(chars.next());
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(',');
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
    out
}

/// A refusal of a whole trace: what is wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError(pub String);

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses and validates a trace. Every refusal names what is wrong (the step number counts from 1).
pub fn parse(text: &str) -> Result<Trace, TraceError> {
    if text.len() > MAX_TRACE_BYTES {
        return Err(TraceError(format!(
            "the trace is {} bytes; at most {MAX_TRACE_BYTES} (1 MiB) are allowed",
            text.len()
        )));
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| TraceError(format!("the trace is not valid JSON: {e}")))?;
    from_value(value)
}

/// Validates a trace already parsed as JSON.
pub fn from_value(value: Value) -> Result<Trace, TraceError> {
    let err = |m: String| TraceError(m);
    let Value::Object(mut top) = value else {
        return Err(err(format!(
            "a trace must be a JSON object, got {}",
            protocol::json_type(&value)
        )));
    };
    match top.remove("format") {
        Some(Value::String(f)) if f == TRACE_FORMAT => {}
        Some(other) => {
            return Err(err(format!(
                "field `format` must be \"{TRACE_FORMAT}\", got {}",
                protocol::short_json(&other)
            )))
        }
        None => return Err(err(format!("missing field `format` (\"{TRACE_FORMAT}\")"))),
    }
    let consumer = match top.remove("consumer") {
        None => ConsumerSetup::default(),
        Some(v) => consumer_from_value(v).map_err(|e| err(format!("field `consumer`: {e}")))?,
    };
    let steps_value = top
        .remove("steps")
        .ok_or_else(|| err("missing field `steps` (a list of steps)".into()))?;
    let experiment = top.remove("experiment");
    if let Some(key) = top.keys().next() {
        return Err(err(format!(
            "unknown field {} at the top of the trace (expected format, consumer, steps)",
            protocol::short_json(&Value::String(key.clone()))
        )));
    }
    let Value::Array(raw_steps) = steps_value else {
        return Err(err(format!(
            "field `steps` must be a list, got {}",
            protocol::json_type(&steps_value)
        )));
    };
    if raw_steps.len() > MAX_STEPS {
        return Err(err(format!(
            "the trace has {} steps; at most {MAX_STEPS} are allowed",
            raw_steps.len()
        )));
    }
    let mut steps = Vec::with_capacity(raw_steps.len());
    for (i, raw) in raw_steps.into_iter().enumerate() {
        let n = i + 1;
        let op = raw
            .get("op")
            .and_then(Value::as_str)
            .map(|s| protocol::short_json(&Value::String(s.to_owned())))
            .unwrap_or_default();
        let label = if op.is_empty() {
            format!("step {n}")
        } else {
            format!("step {n} ({})", op.trim_matches('"'))
        };
        if !raw.is_object() {
            return Err(err(format!(
                "{label}: must be an object, got {}",
                protocol::json_type(&raw)
            )));
        }
        if raw.get("op").is_none() {
            return Err(err(format!("{label}: missing field `op`")));
        }
        // serde would say only "unknown variant"; name the field, since a boundary is the likeliest typo.
        if let Some(b) = raw.get("crash_at").filter(|b| !b.is_null()) {
            if b.as_str().and_then(Boundary::from_name).is_none() {
                return Err(err(format!(
                    "{label}: field `crash_at` must be one of the ten boundaries ({}), got {}",
                    Boundary::ALL.map(Boundary::name).join(", "),
                    protocol::short_json(b)
                )));
            }
        }
        let step = step_from_value(raw).map_err(|e| err(format!("{label}: {e}")))?;
        step.check_bounds()
            .map_err(|e| err(format!("{label}: {e}")))?;
        steps.push(step);
    }
    Ok(Trace {
        format: TRACE_FORMAT,
        consumer,
        steps,
        experiment,
    })
}

/// Every step op a trace may name.
pub const OPS: [&str; 9] = [
    "advance",
    "unsafe_dual_write",
    "relay",
    "receive",
    "apply",
    "process_all",
    "set_support_v2",
    "inject_fault",
    "clear_fault",
];

fn quoted_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads the `consumer` object: `ordering` (a consumer's name, `Ordering::from_name`) and `support_v2`, both optional. By hand
/// like the steps: serde's derived reader would pull Rust's float printer into the page for its error messages.
fn consumer_from_value(raw: Value) -> Result<ConsumerSetup, String> {
    let Value::Object(map) = raw else {
        return Err(format!(
            "must be an object, got {}",
            protocol::json_type(&raw)
        ));
    };
    let mut setup = ConsumerSetup::default();
    for (key, value) in map {
        match (key.as_str(), value) {
            ("ordering", Value::String(s)) if Ordering::from_name(&s).is_some() => {
                setup.ordering = Ordering::from_name(&s).unwrap_or_default()
            }
            ("ordering", other) => {
                let names: Vec<&str> = Ordering::ALL.iter().map(|o| o.name()).collect();
                return Err(format!(
                    "field `ordering` must be one of {}, got {}",
                    quoted_list(&names),
                    protocol::short_json(&other)
                ));
            }
            ("support_v2", Value::Bool(on)) => setup.support_v2 = on,
            ("support_v2", other) => {
                return Err(format!(
                    "field `support_v2` must be true or false, got {}",
                    protocol::short_json(&other)
                ))
            }
            (other, _) => {
                return Err(format!(
                    "unknown field `{}`, expected `ordering` or `support_v2`",
                    protocol::short_json(&Value::String(other.to_owned())).trim_matches('"')
                ))
            }
        }
    }
    Ok(setup)
}

/// Reads one step object: the op, then exactly the fields that op takes, each of the right JSON type.
/// Bounds are checked afterwards by [`Step::check_bounds`].
fn step_from_value(raw: Value) -> Result<Step, String> {
    let Value::Object(mut map) = raw else {
        return Err(format!(
            "must be an object, got {}",
            protocol::json_type(&raw)
        ));
    };
    let op = string("op", map.remove("op"))?;
    let fields: &[&str] = match op.as_str() {
        "advance" | "unsafe_dual_write" => &[
            "flow",
            "event_id",
            "expected_seq",
            "kind",
            "schema",
            "payload",
            "crash_at",
        ],
        "relay" => &["event_id", "crash_at"],
        "receive" => &["event", "crash_at"],
        "apply" => &["flow", "crash_at"],
        "process_all" => &["limit", "crash_at"],
        "set_support_v2" => &["on"],
        "inject_fault" | "clear_fault" => &["target"],
        other => {
            return Err(format!(
                "unknown variant `{}`, expected one of {}",
                protocol::short_json(&Value::String(other.to_owned())).trim_matches('"'),
                quoted_list(&OPS)
            ))
        }
    };
    if let Some(extra) = map.keys().find(|k| !fields.contains(&k.as_str())) {
        return Err(format!(
            "unknown field `{}`, expected {}",
            protocol::short_json(&Value::String(extra.clone())).trim_matches('"'),
            quoted_list(fields)
        ));
    }
    let mut take = |name: &str| map.remove(name);
    fn string(name: &str, v: Option<Value>) -> Result<String, String> {
        match v {
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(format!(
                "field `{name}` must be a string, got {}",
                protocol::json_type(&other)
            )),
            None => Err(format!("missing field `{name}`")),
        }
    }
    fn int(name: &str, v: Option<Value>) -> Result<i64, String> {
        match v {
            Some(Value::Number(n)) if n.is_i64() => Ok(n.as_i64().unwrap_or_default()),
            Some(other) => Err(format!(
                "field `{name}` must be an integer, got {}",
                protocol::short_json(&other)
            )),
            None => Err(format!("missing field `{name}`")),
        }
    }
    fn opt<T>(
        v: Option<Value>,
        read: impl FnOnce(Option<Value>) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        match v {
            None | Some(Value::Null) => Ok(None),
            some => read(some).map(Some),
        }
    }
    let crash = |v: Option<Value>| {
        opt(v, |v| {
            let text = string("crash_at", v)?;
            Boundary::from_name(&text).ok_or_else(|| {
                format!("field `crash_at` must be one of the ten boundaries, got {text:?}")
            })
        })
    };
    let target = |v: Option<Value>| -> Result<FaultTarget, String> {
        match string("target", v)?.as_str() {
            "outbox_insert" => Ok(FaultTarget::OutboxInsert),
            "effect_insert" => Ok(FaultTarget::EffectInsert),
            other => Err(format!(
                "field `target` must be `outbox_insert` or `effect_insert`, got {}",
                protocol::short_json(&Value::String(other.to_owned()))
            )),
        }
    };
    Ok(match op.as_str() {
        "advance" | "unsafe_dual_write" => {
            let flow = string("flow", take("flow"))?;
            let event_id = string("event_id", take("event_id"))?;
            let expected_seq = int("expected_seq", take("expected_seq"))?;
            let kind = string("kind", take("kind"))?;
            let schema = int("schema", take("schema"))?;
            let payload = match take("payload") {
                Some(Value::Object(p)) => p,
                Some(other) => {
                    return Err(format!(
                        "field `payload` must be an object, got {}",
                        protocol::json_type(&other)
                    ))
                }
                None => return Err("missing field `payload`".into()),
            };
            let crash_at = crash(take("crash_at"))?;
            let advance = Step::Advance {
                flow,
                event_id,
                expected_seq,
                kind,
                schema,
                payload,
                crash_at,
            };
            if op == "advance" {
                advance
            } else {
                advance.into_unsafe_dual_write()
            }
        }
        "relay" => Step::Relay {
            event_id: opt(take("event_id"), |v| string("event_id", v))?,
            crash_at: crash(take("crash_at"))?,
        },
        "receive" => Step::Receive {
            event: take("event").ok_or("missing field `event`")?,
            crash_at: crash(take("crash_at"))?,
        },
        "apply" => Step::Apply {
            flow: string("flow", take("flow"))?,
            crash_at: crash(take("crash_at"))?,
        },
        "process_all" => Step::ProcessAll {
            limit: opt(take("limit"), |v| int("limit", v))?,
            crash_at: crash(take("crash_at"))?,
        },
        "set_support_v2" => match take("on") {
            Some(Value::Bool(on)) => Step::SetSupportV2 { on },
            Some(other) => {
                return Err(format!(
                    "field `on` must be true or false, got {}",
                    protocol::short_json(&other)
                ))
            }
            None => return Err("missing field `on`".into()),
        },
        "inject_fault" => Step::InjectFault {
            target: target(take("target"))?,
        },
        _ => Step::ClearFault {
            target: target(take("target"))?,
        },
    })
}

/// One step's outcome as the result document reports it, plus what the UI shows beside it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StepReport {
    pub op: &'static str,
    /// The result word: `committed`, `accepted`, `gap`, `blocked:unsupported_schema`, `crashed`, `sql_error`, …
    pub result: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundary: Option<Boundary>,
    /// `"not_reached"` when the step carried `crash_at` but never crossed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crash: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flows: Option<BTreeMap<String, String>>,
    /// The outbox row a relay step sent (not part of the result format).
    #[serde(skip)]
    pub relayed: Option<String>,
    /// Events applied by this step (not part of the result format).
    #[serde(skip)]
    pub applied: usize,
    /// The statements both databases ran, when the session logs SQL (not part of the result format).
    #[serde(skip)]
    pub sql: Vec<SqlLine>,
    /// The boundaries this step crossed (not part of the result format).
    #[serde(skip)]
    pub passed: Vec<Boundary>,
}

impl StepReport {
    fn new(op: &'static str, result: impl Into<String>) -> StepReport {
        StepReport {
            op,
            result: result.into(),
            boundary: None,
            crash: None,
            message: None,
            flows: None,
            relayed: None,
            applied: 0,
            sql: Vec::new(),
            passed: Vec::new(),
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
    pub fn to_json_pretty(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// A live session: fresh databases, then steps one at a time. The CLI, the tests, the explorer and the UI all
/// drive this one engine.
pub struct Session {
    system: System,
}

impl Session {
    pub fn new(setup: ConsumerSetup) -> Result<Session, String> {
        let system = System::new(ConsumerConfig {
            ordering: setup.ordering,
            support_v2: setup.support_v2,
        })
        .map_err(stop_message)?;
        Ok(Session { system })
    }

    /// A session on the two database files in `dir`, shared with other real processes (the CLI's workers).
    pub fn open_files(
        setup: ConsumerSetup,
        dir: &std::path::Path,
        store: protocol::db::Store,
    ) -> Result<Session, String> {
        let config = ConsumerConfig {
            ordering: setup.ordering,
            support_v2: setup.support_v2,
        };
        let system = System::open_files(dir, store, config).map_err(stop_message)?;
        Ok(Session { system })
    }

    /// Reaching an armed boundary ends the process with `hook` (see [`System::set_exit_hook`]).
    pub fn set_exit_hook(&mut self, hook: protocol::db::ExitHook) {
        self.system.set_exit_hook(hook);
    }

    /// Logs every statement each step runs into its report (the UI's SQL panel).
    pub fn set_sql_logging(&mut self, on: bool) {
        self.system.set_logging(on);
    }

    pub fn support_v2(&self) -> bool {
        self.system.config.support_v2
    }

    pub fn ordering(&self) -> Ordering {
        self.system.config.ordering
    }

    /// Runs one step. Never panics and never fails: every outcome, an SQL error included, is a report.
    pub fn step(&mut self, step: &Step) -> StepReport {
        let crash_at = step.crash_at();
        let mut report = self.run(step, crash_at);
        // Not reached: the step ended otherwise, or (the unsafe dual write) by its own exit before the boundary.
        if crash_at.is_some() && report.boundary != crash_at {
            report.crash = Some("not_reached");
        }
        report.sql = self.system.take_sql_log();
        report.passed = self.system.take_passed();
        report
    }

    fn run(&mut self, step: &Step, crash_at: Option<Boundary>) -> StepReport {
        let op = step.op();
        let sys = &mut self.system;
        match step {
            Step::Advance { .. } | Step::UnsafeDualWrite { .. } => {
                let t = match step.transition() {
                    Some(Ok(t)) => t,
                    Some(Err(message)) => return rejected(op, message),
                    None => return rejected(op, "not a transition".into()),
                };
                let unsafe_write = matches!(step, Step::UnsafeDualWrite { .. });
                let r = sys.run(crash_at, |s| {
                    if unsafe_write {
                        s.unsafe_dual_write(&t)
                    } else {
                        s.advance(&t)
                    }
                });
                finish(op, r.map(|a| StepReport::new(op, a.word())))
            }
            Step::Relay { event_id, .. } => {
                let r = sys.run(crash_at, |s| s.relay(event_id.as_deref()));
                finish(
                    op,
                    r.map(|sent| match sent {
                        None => StepReport::new(op, "idle"),
                        Some((id, result)) => {
                            let mut rep = StepReport::new(op, result.word());
                            rep.relayed = Some(id);
                            rep
                        }
                    }),
                )
            }
            Step::Receive { event, .. } => {
                let r = sys.run(crash_at, |s| s.receive(event));
                finish(
                    op,
                    r.map(|result| {
                        let mut rep = StepReport::new(op, result.word());
                        if let ReceiveResult::Rejected(message) = result {
                            rep.message =
                                Some(format!("event refused at the transport: {message}"));
                        }
                        rep
                    }),
                )
            }
            Step::Apply { flow, .. } => {
                let r = sys.run(crash_at, |s| s.apply(flow));
                finish(
                    op,
                    r.map(|a| {
                        let mut rep = StepReport::new(op, a.word());
                        rep.applied = usize::from(a == protocol::ApplyResult::Applied);
                        rep
                    }),
                )
            }
            Step::ProcessAll { limit, .. } => {
                let limit = limit
                    .map(|l| l.clamp(1, MAX_PROCESS_LIMIT) as u32)
                    .unwrap_or(DEFAULT_PROCESS_LIMIT);
                let r = sys.run(crash_at, |s| s.process_all(limit));
                finish(
                    op,
                    r.map(|p| {
                        let mut rep = StepReport::new(op, if p.done { "done" } else { "limit" });
                        rep.flows = Some(p.flows);
                        rep.applied = p.applied;
                        rep
                    }),
                )
            }
            Step::SetSupportV2 { on } => {
                sys.config.support_v2 = *on;
                StepReport::new(op, "ok")
            }
            Step::InjectFault { target } => finish(
                op,
                sys.inject_fault(*target)
                    .map(|()| StepReport::new(op, "ok")),
            ),
            Step::ClearFault { target } => finish(
                op,
                sys.clear_fault(*target).map(|()| StepReport::new(op, "ok")),
            ),
        }
    }

    /// Starts over on empty databases with `setup`, reusing the connections.
    pub fn reset(&mut self, setup: ConsumerSetup) -> Result<(), String> {
        self.system
            .wipe(ConsumerConfig {
                ordering: setup.ordering,
                support_v2: setup.support_v2,
            })
            .map_err(stop_message)
    }

    /// Restores both databases to `snapshot`'s rows directly (see [`System::load`]).
    pub fn load(&mut self, snapshot: &Snapshot) -> Result<(), String> {
        self.system.load(snapshot).map_err(stop_message)
    }

    /// Changes the committed rows from `from` to `to` (see [`System::load_changes`]).
    pub fn load_changes(&mut self, from: &Snapshot, to: &Snapshot) -> Result<(), String> {
        self.system.load_changes(from, to).map_err(stop_message)
    }

    /// See [`System::set_quick_restart`].
    pub fn set_quick_restart(&mut self, on: bool) {
        self.system.set_quick_restart(on);
    }

    /// Both databases' committed rows without their bodies (what a fingerprint reads).
    pub fn rows_without_bodies(&self) -> Result<Snapshot, String> {
        self.system.rows_without_bodies().map_err(stop_message)
    }

    /// The invariant over the committed consumer tables.
    pub fn check_invariant(&self) -> Result<Invariant, String> {
        let view = self.system.consumer_view().map_err(stop_message)?;
        Ok(protocol::invariant::check(&view))
    }

    /// Both databases' committed tables.
    pub fn snapshot(&self) -> Result<Snapshot, String> {
        self.system.snapshot().map_err(stop_message)
    }

    /// The result document for `steps` run so far.
    pub fn result(&self, steps: Vec<StepReport>) -> Result<ResultDoc, String> {
        let snapshot = self.snapshot()?;
        let invariant = protocol::invariant::check(&snapshot);
        Ok(ResultDoc {
            format: RESULT_FORMAT,
            steps,
            producer: snapshot.producer,
            consumer: snapshot.consumer,
            invariant,
        })
    }
}

fn rejected(op: &'static str, message: String) -> StepReport {
    let mut rep = StepReport::new(op, "rejected");
    rep.message = Some(message);
    rep
}

fn finish(op: &'static str, r: Result<StepReport, Stop>) -> StepReport {
    match r {
        Ok(rep) => rep,
        Err(Stop::Crash(boundary)) => {
            let mut rep = StepReport::new(op, "crashed");
            rep.boundary = Some(boundary);
            rep
        }
        Err(Stop::UnsafeExit) => {
            let mut rep = StepReport::new(op, "crashed");
            rep.message = Some(
                "the state change was committed alone; the process exited before writing the outbox".into(),
            );
            rep
        }
        Err(Stop::Sql(message)) => {
            let mut rep = StepReport::new(op, "sql_error");
            rep.message = Some(message);
            rep
        }
        // Only real files shared by real processes answer this (never a trace on the page's databases).
        Err(Stop::Busy(message)) => {
            let mut rep = StepReport::new(op, BUSY);
            rep.message = Some(message);
            rep
        }
    }
}

fn stop_message(stop: Stop) -> String {
    match stop {
        Stop::Sql(m) | Stop::Busy(m) => m,
        Stop::Crash(b) => format!("crashed at {b}"),
        Stop::UnsafeExit => "crashed".into(),
    }
}

/// Replays a validated trace on fresh databases and returns the result document.
pub fn replay(trace: &Trace) -> Result<ResultDoc, String> {
    let mut session = Session::new(trace.consumer)?;
    let reports = trace.steps.iter().map(|s| session.step(s)).collect();
    session.result(reports)
}

/// Parses, validates and replays trace text: the CLI's `replay`.
pub fn replay_text(text: &str) -> Result<ResultDoc, TraceError> {
    let trace = parse(text)?;
    replay(&trace).map_err(|m| TraceError(format!("the databases failed: {m}")))
}
