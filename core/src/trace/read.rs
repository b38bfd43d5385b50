//! Reading and validating a trace. Readers' traces are untrusted: [`parse`] refuses a bad one whole, naming the
//! step and the field, before anything runs.

use super::{ConsumerSetup, Op, Step, Trace, Write, MAX_STEPS, MAX_TRACE_BYTES, TRACE_FORMAT};
use crate::json::{json_type, short_json, short_str, Fields};
use crate::protocol::rule::{Rule, RuleEffect};
use crate::protocol::{Ordering, Role};
use crate::words::Word;
use serde_json::Value;

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
    let err = TraceError;
    let Value::Object(mut top) = value else {
        return Err(err(format!(
            "a trace must be a JSON object, got {}",
            json_type(&value)
        )));
    };
    match top.remove("format") {
        Some(Value::String(f)) if f == TRACE_FORMAT => {}
        Some(other) => {
            return Err(err(format!(
                "field `format` must be \"{TRACE_FORMAT}\", got {}",
                short_json(&other)
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
            short_json(&Value::String(key.clone()))
        )));
    }
    let Value::Array(raw_steps) = steps_value else {
        return Err(err(format!(
            "field `steps` must be a list, got {}",
            json_type(&steps_value)
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
        let label = match raw.get("op").and_then(Value::as_str) {
            Some(op) => format!("step {n} ({})", short_str(op)),
            None => format!("step {n}"),
        };
        let step = step_from_value(raw)
            .and_then(|step| step.check_bounds().map(|()| step))
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

/// Reads the `consumer` object: `ordering` (a consumer's name) and `support_v2`, both optional; with `ordering`
/// `rule`, the rule's SQL in `rule` (checked as RULE.md says) and `effect` (`inside` by default).
pub(crate) fn consumer_from_value(raw: Value) -> Result<ConsumerSetup, String> {
    let mut f = Fields::new(raw)?;
    if let Some(other) = f.unknown(&["ordering", "support_v2", "rule", "effect"]) {
        return Err(format!(
            "unknown field `{}`, expected `ordering`, `support_v2`, `rule` or `effect`",
            short_str(other)
        ));
    }
    // All optional, but a field that is there must hold what it names (a `null` is refused).
    let ordering = if f.has("ordering") {
        f.word("ordering")?
    } else {
        Ordering::default()
    };
    let support_v2 = f.has("support_v2") && f.bool("support_v2")?;
    if ordering != Ordering::Rule {
        if let Some(field) = ["rule", "effect"].into_iter().find(|k| f.has(k)) {
            return Err(format!(
                "field `{field}` belongs only to the ordering `rule`, not `{}`",
                ordering.name()
            ));
        }
        return Ok(ConsumerSetup::builtin(ordering, support_v2));
    }
    rule_setup(f, support_v2)
}

/// The `rule` and `effect` fields of a rule consumer, the rule checked as RULE.md says.
#[cold]
#[inline(never)]
fn rule_setup(mut f: Fields, support_v2: bool) -> Result<ConsumerSetup, String> {
    if !f.has("rule") {
        return Err("missing field `rule` (the rule's SELECT, for the ordering `rule`)".into());
    }
    let sql = f.string("rule")?;
    let effect = if f.has("effect") {
        f.word("effect")?
    } else {
        RuleEffect::default()
    };
    let rule = Rule::new(&sql, effect).map_err(|r| format!("field `rule`: {}", r.located(&sql)))?;
    Ok(ConsumerSetup::with_rule(rule, support_v2))
}

/// The fields each op takes.
fn fields_of(op: Op) -> &'static [&'static str] {
    match op {
        Op::Advance | Op::UnsafeDualWrite => &[
            "flow",
            "event_id",
            "expected_seq",
            "kind",
            "schema",
            "payload",
            "crash_at",
        ],
        Op::Relay => &["event_id", "crash_at"],
        Op::Receive => &["event", "crash_at"],
        Op::Apply => &["flow", "crash_at"],
        Op::ProcessAll => &["limit", "crash_at"],
        Op::SetSupportV2 => &["on"],
        Op::InjectFault | Op::ClearFault => &["target"],
        Op::SetSynchronous => &["mode"],
        Op::Checkpoint => &[],
        Op::PowerCut => &["databases"],
    }
}

/// Reads one step object: the op, then exactly the fields that op takes, each of the right JSON type.
/// Bounds are checked afterwards by [`Step::check_bounds`].
fn step_from_value(raw: Value) -> Result<Step, String> {
    let mut f = Fields::new(raw)?;
    let name = f.string("op")?;
    let op = Op::from_name(&name).ok_or_else(|| {
        format!(
            "unknown variant `{}`, expected one of {}",
            short_str(&name),
            Op::listed()
        )
    })?;
    let fields = fields_of(op);
    if let Some(extra) = f.unknown(fields) {
        let expected = match fields {
            [] => "no fields".to_owned(),
            _ => crate::words::quoted_list(fields),
        };
        return Err(format!(
            "unknown field `{}`, expected {expected}",
            short_str(extra)
        ));
    }
    let crash_at = f.opt("crash_at", Fields::word)?;
    Ok(match op {
        Op::Advance | Op::UnsafeDualWrite => {
            let write = Write {
                flow: f.string("flow")?,
                event_id: f.string("event_id")?,
                expected_seq: f.int("expected_seq")?,
                kind: f.string("kind")?,
                schema: f.int("schema")?,
                payload: f.object("payload")?,
                crash_at,
            };
            if op == Op::Advance {
                Step::Advance(write)
            } else {
                Step::UnsafeDualWrite(write)
            }
        }
        Op::Relay => Step::Relay {
            event_id: f.opt("event_id", Fields::string)?,
            crash_at,
        },
        // Whatever the event is (`null` too), the step carries it: `receive` checks it at run time and
        // answers `rejected`, so a trace can show a malformed event arriving (TRACE.md).
        Op::Receive => Step::Receive {
            event: f.take("event").ok_or("missing field `event`")?,
            crash_at,
        },
        Op::Apply => Step::Apply {
            flow: f.string("flow")?,
            crash_at,
        },
        Op::ProcessAll => Step::ProcessAll {
            limit: f.opt("limit", Fields::int)?,
            crash_at,
        },
        Op::SetSupportV2 => Step::SetSupportV2 { on: f.bool("on")? },
        Op::InjectFault => Step::InjectFault {
            target: f.word("target")?,
        },
        Op::ClearFault => Step::ClearFault {
            target: f.word("target")?,
        },
        Op::SetSynchronous => Step::SetSynchronous {
            mode: f.word("mode")?,
        },
        Op::Checkpoint => Step::Checkpoint,
        Op::PowerCut => Step::PowerCut {
            databases: databases(f.take("databases"))?,
        },
    })
}

/// `power_cut`'s `databases`: `producer`, `consumer` or both, each at most once.
#[cold]
#[inline(never)]
fn databases(raw: Option<Value>) -> Result<Vec<Role>, String> {
    let expected = || format!("a list of one or two of {}", Role::listed());
    let Some(Value::Array(items)) = raw else {
        return Err(match raw {
            None => format!("missing field `databases` ({})", expected()),
            Some(v) => format!(
                "field `databases` must be {}, got {}",
                expected(),
                json_type(&v)
            ),
        });
    };
    let mut out = Vec::new();
    for item in &items {
        let role = item.as_str().and_then(Role::from_name).ok_or_else(|| {
            format!(
                "field `databases`: {} is not one of {}",
                short_json(item),
                Role::listed()
            )
        })?;
        if out.contains(&role) {
            return Err(format!("field `databases` names `{role}` twice"));
        }
        out.push(role);
    }
    if out.is_empty() {
        return Err(format!(
            "field `databases` is empty; expected {}",
            expected()
        ));
    }
    Ok(out)
}
