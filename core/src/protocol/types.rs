//! The protocol's vocabulary as types: boundaries, kinds, result words and the event envelope with its bounds.

use serde::Serialize;
use serde_json::{Map, Value};
use std::fmt;

/// The amount every flow holds (§1: "数量固定为 3").
pub const AMOUNT: i64 = 3;

/// The ten commit boundaries of §8, in the order a three-step delivery crosses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Boundary {
    #[serde(rename = "producer.after_state")]
    ProducerAfterState,
    #[serde(rename = "producer.after_outbox")]
    ProducerAfterOutbox,
    #[serde(rename = "producer.after_commit")]
    ProducerAfterCommit,
    #[serde(rename = "receive.after_insert")]
    ReceiveAfterInsert,
    #[serde(rename = "receive.after_commit")]
    ReceiveAfterCommit,
    #[serde(rename = "relay.after_mark")]
    RelayAfterMark,
    #[serde(rename = "relay.after_mark_commit")]
    RelayAfterMarkCommit,
    #[serde(rename = "apply.after_projection")]
    ApplyAfterProjection,
    #[serde(rename = "apply.after_effect")]
    ApplyAfterEffect,
    #[serde(rename = "apply.after_commit")]
    ApplyAfterCommit,
}

impl Boundary {
    pub const ALL: [Boundary; 10] = [
        Boundary::ProducerAfterState,
        Boundary::ProducerAfterOutbox,
        Boundary::ProducerAfterCommit,
        Boundary::ReceiveAfterInsert,
        Boundary::ReceiveAfterCommit,
        Boundary::RelayAfterMark,
        Boundary::RelayAfterMarkCommit,
        Boundary::ApplyAfterProjection,
        Boundary::ApplyAfterEffect,
        Boundary::ApplyAfterCommit,
    ];

    /// The TRACE.md name, e.g. `receive.after_commit`.
    pub fn name(self) -> &'static str {
        match self {
            Boundary::ProducerAfterState => "producer.after_state",
            Boundary::ProducerAfterOutbox => "producer.after_outbox",
            Boundary::ProducerAfterCommit => "producer.after_commit",
            Boundary::ReceiveAfterInsert => "receive.after_insert",
            Boundary::ReceiveAfterCommit => "receive.after_commit",
            Boundary::RelayAfterMark => "relay.after_mark",
            Boundary::RelayAfterMarkCommit => "relay.after_mark_commit",
            Boundary::ApplyAfterProjection => "apply.after_projection",
            Boundary::ApplyAfterEffect => "apply.after_effect",
            Boundary::ApplyAfterCommit => "apply.after_commit",
        }
    }

    /// The boundary's number in the article's table (§8), 1 to 10.
    pub fn number(self) -> usize {
        Boundary::ALL.iter().position(|b| *b == self).unwrap_or(0) + 1
    }

    pub fn from_name(name: &str) -> Option<Boundary> {
        Boundary::ALL.into_iter().find(|b| b.name() == name)
    }
}

impl fmt::Display for Boundary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The business states of §1, in their only legal order.
pub const KINDS: [&str; 3] = ["reserved", "confirmed", "released"];

/// The legal next kind after `state` (`new → reserved → confirmed → released`), or `None` at the end.
pub fn next_kind(state: &str) -> Option<&'static str> {
    match state {
        "new" => Some("reserved"),
        "reserved" => Some("confirmed"),
        "confirmed" => Some("released"),
        _ => None,
    }
}

/// `held` in the consumer's projection after applying `kind` (§1: 3 while reserved or confirmed, 0 when released).
pub fn held_after(kind: &str) -> i64 {
    if kind == "released" {
        0
    } else {
        AMOUNT
    }
}

/// Whether `payload` is exactly what `schema` prescribes: `{"amount":3}` for 1, `{"units":3}` for 2 (§6).
pub fn payload_fits_schema(schema: i64, payload: &Map<String, Value>) -> bool {
    let key = match schema {
        1 => "amount",
        2 => "units",
        _ => return false,
    };
    payload.len() == 1 && payload.get(key).and_then(Value::as_i64) == Some(AMOUNT)
}

/// Which consumer runs: the protocol, or one of the article's wrong turns (CHECKER.md), each a real
/// implementation on the same tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Ordering {
    /// The protocol: apply exactly `last_seq + 1`, block on what it cannot take.
    #[default]
    Strict,
    /// §5's wrong control: dedupe by id, overwrite in arrival order on receive.
    DedupeOnly,
    /// §5: "3 is greater than 0, so apply it" — the smallest pending seq above `last_seq`, no transition check.
    GreaterThan,
    /// §6: a blocked event goes to a dead-letter queue and the flow moves past it.
    SkipBlocked,
    /// §5: the effect is an outside call, written outside the apply transaction.
    EffectOutsideTx,
}

impl Ordering {
    pub const ALL: [Ordering; 5] = [
        Ordering::Strict,
        Ordering::DedupeOnly,
        Ordering::GreaterThan,
        Ordering::SkipBlocked,
        Ordering::EffectOutsideTx,
    ];

    /// The TRACE.md / CHECKER.md name.
    pub fn name(self) -> &'static str {
        match self {
            Ordering::Strict => "strict",
            Ordering::DedupeOnly => "dedupe_only",
            Ordering::GreaterThan => "greater_than",
            Ordering::SkipBlocked => "skip_blocked",
            Ordering::EffectOutsideTx => "effect_outside_tx",
        }
    }

    pub fn from_name(name: &str) -> Option<Ordering> {
        Ordering::ALL.into_iter().find(|o| o.name() == name)
    }
}

/// Why an apply stopped at an event it cannot take (§6). The event is never skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockReason {
    UnsupportedSchema,
    InvalidPayload,
    InvalidTransition,
}

impl BlockReason {
    pub fn name(self) -> &'static str {
        match self {
            BlockReason::UnsupportedSchema => "unsupported_schema",
            BlockReason::InvalidPayload => "invalid_payload",
            BlockReason::InvalidTransition => "invalid_transition",
        }
    }
}

/// Producer results (§4 / PROTOCOL.md §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdvanceResult {
    Committed,
    Existing,
    Conflict,
    Stale,
    InvalidTransition,
}

impl AdvanceResult {
    pub fn word(self) -> &'static str {
        match self {
            AdvanceResult::Committed => "committed",
            AdvanceResult::Existing => "existing",
            AdvanceResult::Conflict => "conflict",
            AdvanceResult::Stale => "stale",
            AdvanceResult::InvalidTransition => "invalid_transition",
        }
    }
}

/// Consumer receive results (PROTOCOL.md §5), plus the transport's refusal of a malformed event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReceiveResult {
    Accepted,
    Duplicate,
    IdConflict,
    SequenceConflict,
    Rejected(String),
}

impl ReceiveResult {
    pub fn word(&self) -> &'static str {
        match self {
            ReceiveResult::Accepted => "accepted",
            ReceiveResult::Duplicate => "duplicate",
            ReceiveResult::IdConflict => "id_conflict",
            ReceiveResult::SequenceConflict => "sequence_conflict",
            ReceiveResult::Rejected(_) => "rejected",
        }
    }
}

/// One apply attempt at `last_seq + 1` (PROTOCOL.md §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyResult {
    Applied,
    Gap,
    Idle,
    Blocked(BlockReason),
}

impl ApplyResult {
    pub fn word(self) -> String {
        match self {
            ApplyResult::Applied => "applied".into(),
            ApplyResult::Gap => "gap".into(),
            ApplyResult::Idle => "idle".into(),
            ApplyResult::Blocked(r) => format!("blocked:{}", r.name()),
        }
    }
}

/// The six fields of §3. Only ever built through [`Event::from_json`] or [`Event::new`], which enforce the bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub event_id: String,
    pub flow_id: String,
    pub seq: i64,
    pub kind: String,
    pub schema: i64,
    pub payload: Map<String, Value>,
}

pub const ID_MAX_CHARS: usize = 64;
pub const SEQ_MAX: i64 = 1_000_000;
pub const EXPECTED_SEQ_MAX: i64 = 999_999;
pub const SCHEMA_MAX: i64 = 1000;
pub const KIND_MAX_CHARS: usize = 32;
pub const PAYLOAD_MAX_KEYS: usize = 8;
pub const PAYLOAD_KEY_MAX_CHARS: usize = 32;
pub const PAYLOAD_STRING_MAX_CHARS: usize = 256;

/// Checks an identifier (`event_id`, `flow_id`): 1–64 characters of `A–Z a–z 0–9 _ . : -`.
pub fn check_id(value: &str) -> Result<(), String> {
    let n = value.chars().count();
    if n == 0 || n > ID_MAX_CHARS {
        return Err(format!("must be 1–{ID_MAX_CHARS} characters, got {n}"));
    }
    if let Some(c) = value
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-')))
    {
        return Err(format!(
            "may hold only A–Z a–z 0–9 _ . : -, found {}",
            describe_char(c)
        ));
    }
    Ok(())
}

fn describe_char(c: char) -> String {
    if c.is_control() || c.is_whitespace() {
        format!("U+{:04X}", c as u32)
    } else {
        format!("'{c}'")
    }
}

pub fn check_kind(value: &str) -> Result<(), String> {
    let n = value.chars().count();
    if n == 0 || n > KIND_MAX_CHARS {
        return Err(format!("must be 1–{KIND_MAX_CHARS} characters, got {n}"));
    }
    Ok(())
}

pub fn check_int_range(value: i64, min: i64, max: i64) -> Result<(), String> {
    if value < min || value > max {
        return Err(format!(
            "must be an integer from {min} to {max}, got {value}"
        ));
    }
    Ok(())
}

/// The payload bound of TRACE.md: a flat object of at most 8 keys with scalar values.
pub fn check_payload(payload: &Map<String, Value>) -> Result<(), String> {
    if payload.len() > PAYLOAD_MAX_KEYS {
        return Err(format!(
            "may have at most {PAYLOAD_MAX_KEYS} keys, got {}",
            payload.len()
        ));
    }
    for (key, value) in payload {
        let n = key.chars().count();
        if n == 0 || n > PAYLOAD_KEY_MAX_CHARS {
            return Err(format!(
                "key {} must be 1–{PAYLOAD_KEY_MAX_CHARS} characters",
                short_json(&Value::String(key.clone()))
            ));
        }
        match value {
            Value::Null | Value::Bool(_) => {}
            Value::Number(num) if num.is_i64() => {}
            Value::Number(_) => {
                return Err(format!(
                    "value of {key:?} must be an integer, bool, null or short string, got the number {value}"
                ))
            }
            Value::String(s) if s.chars().count() <= PAYLOAD_STRING_MAX_CHARS => {}
            Value::String(_) => {
                return Err(format!(
                    "value of {key:?} is a string longer than {PAYLOAD_STRING_MAX_CHARS} characters"
                ))
            }
            Value::Array(_) | Value::Object(_) => {
                return Err(format!(
                    "value of {key:?} must be a scalar (integer, bool, null or string), got {}",
                    json_type(value)
                ))
            }
        }
    }
    Ok(())
}

pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a fractional number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A JSON value shortened for an error message, so a hostile megabyte never lands in the page.
pub fn short_json(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(37).collect();
        format!("{cut}…")
    } else {
        text
    }
}

impl Event {
    /// Builds an event from trusted parts (the producer's own fields), still checking every bound.
    pub fn new(
        event_id: &str,
        flow_id: &str,
        seq: i64,
        kind: &str,
        schema: i64,
        payload: Map<String, Value>,
    ) -> Result<Event, String> {
        check_id(event_id).map_err(|e| format!("field `event_id` {e}"))?;
        check_id(flow_id).map_err(|e| format!("field `flow_id` {e}"))?;
        check_int_range(seq, 1, SEQ_MAX).map_err(|e| format!("field `seq` {e}"))?;
        check_kind(kind).map_err(|e| format!("field `kind` {e}"))?;
        check_int_range(schema, 1, SCHEMA_MAX).map_err(|e| format!("field `schema` {e}"))?;
        check_payload(&payload).map_err(|e| format!("field `payload` {e}"))?;
        Ok(Event {
            event_id: event_id.to_owned(),
            flow_id: flow_id.to_owned(),
            seq,
            kind: kind.to_owned(),
            schema,
            payload,
        })
    }

    /// The transport envelope check (§3, §5): exactly the six fields, each within its bound.
    /// The message names the field that is wrong.
    pub fn from_json(value: &Value) -> Result<Event, String> {
        let Value::Object(map) = value else {
            return Err(format!(
                "an event must be a JSON object, got {}",
                json_type(value)
            ));
        };
        const FIELDS: [&str; 6] = ["event_id", "flow_id", "seq", "kind", "schema", "payload"];
        if let Some(extra) = map.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return Err(format!(
                "unknown field {} (an event has exactly event_id, flow_id, seq, kind, schema, payload)",
                short_json(&Value::String(extra.clone()))
            ));
        }
        let string = |name: &str| -> Result<&str, String> {
            match map.get(name) {
                None => Err(format!("missing field `{name}`")),
                Some(Value::String(s)) => Ok(s.as_str()),
                Some(other) => Err(format!(
                    "field `{name}` must be a string, got {}",
                    json_type(other)
                )),
            }
        };
        let int = |name: &str| -> Result<i64, String> {
            match map.get(name) {
                None => Err(format!("missing field `{name}`")),
                Some(Value::Number(n)) if n.is_i64() => Ok(n.as_i64().unwrap_or_default()),
                Some(other) => Err(format!(
                    "field `{name}` must be an integer, got {}",
                    short_json(other)
                )),
            }
        };
        let event_id = string("event_id")?;
        let flow_id = string("flow_id")?;
        let seq = int("seq")?;
        let kind = string("kind")?;
        let schema = int("schema")?;
        let payload = match map.get("payload") {
            None => return Err("missing field `payload`".into()),
            Some(Value::Object(p)) => p.clone(),
            Some(other) => {
                return Err(format!(
                    "field `payload` must be an object, got {}",
                    json_type(other)
                ))
            }
        };
        Event::new(event_id, flow_id, seq, kind, schema, payload)
    }

    pub fn to_json(&self) -> Value {
        let mut map = Map::new();
        map.insert("event_id".into(), self.event_id.clone().into());
        map.insert("flow_id".into(), self.flow_id.clone().into());
        map.insert("seq".into(), self.seq.into());
        map.insert("kind".into(), self.kind.clone().into());
        map.insert("schema".into(), self.schema.into());
        map.insert("payload".into(), Value::Object(self.payload.clone()));
        Value::Object(map)
    }

    /// The canonical body (§3, TRACE.md "Event body"): keys sorted, no whitespace, integers as integers,
    /// non-ASCII kept as is — what Python's `json.dumps(sort_keys=True, separators=(",", ":"),
    /// ensure_ascii=False)` prints. Written by hand so it does not depend on serde_json's map ordering.
    pub fn canonical_body(&self) -> String {
        let mut out = String::with_capacity(128);
        out.push_str("{\"event_id\":");
        push_json_string(&mut out, &self.event_id);
        out.push_str(",\"flow_id\":");
        push_json_string(&mut out, &self.flow_id);
        out.push_str(",\"kind\":");
        push_json_string(&mut out, &self.kind);
        out.push_str(",\"payload\":{");
        // serde_json's map is ordered by key (no `preserve_order`): the keys come sorted.
        for (i, key) in self.payload.keys().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_json_string(&mut out, key);
            out.push(':');
            // Values are scalars (checked at construction), whose serde_json text is already canonical.
            out.push_str(&self.payload[key.as_str()].to_string());
        }
        out.push_str("},\"schema\":");
        out.push_str(&self.schema.to_string());
        out.push_str(",\"seq\":");
        out.push_str(&self.seq.to_string());
        out.push('}');
        out
    }

    /// Parses a stored body back into an event (bodies are written only by [`Event::canonical_body`]).
    pub fn from_body(body: &str) -> Result<Event, String> {
        let value: Value =
            serde_json::from_str(body).map_err(|e| format!("body is not JSON: {e}"))?;
        Event::from_json(&value)
    }
}

fn push_json_string(out: &mut String, s: &str) {
    // serde_json escapes exactly as Python does with ensure_ascii=False: `"`, `\` and control characters.
    out.push_str(&Value::String(s.to_owned()).to_string());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_body_matches_trace_md_example() {
        let mut payload = Map::new();
        payload.insert("amount".into(), 3.into());
        let event = Event::new("A1", "A", 1, "reserved", 1, payload).unwrap();
        assert_eq!(
            event.canonical_body(),
            r#"{"event_id":"A1","flow_id":"A","kind":"reserved","payload":{"amount":3},"schema":1,"seq":1}"#
        );
    }

    #[test]
    fn canonical_body_sorts_payload_keys_and_keeps_unicode() {
        let payload: Map<String, Value> =
            serde_json::from_str(r#"{"z":null,"a":"预留\n","m":true}"#).unwrap();
        let event = Event::new("A1", "A", 1, "预留", 1, payload).unwrap();
        assert_eq!(
            event.canonical_body(),
            r#"{"event_id":"A1","flow_id":"A","kind":"预留","payload":{"a":"预留\n","m":true,"z":null},"schema":1,"seq":1}"#
        );
    }

    #[test]
    fn envelope_refusals_name_the_field() {
        let cases = [
            (r#"[]"#, "must be a JSON object"),
            (
                r#"{"event_id":"A 1","flow_id":"A","seq":1,"kind":"reserved","schema":1,"payload":{}}"#,
                "field `event_id`",
            ),
            (
                r#"{"event_id":"A1","flow_id":"A","seq":0,"kind":"reserved","schema":1,"payload":{}}"#,
                "field `seq`",
            ),
            (
                r#"{"event_id":"A1","flow_id":"A","seq":1.5,"kind":"reserved","schema":1,"payload":{}}"#,
                "field `seq`",
            ),
            (
                r#"{"event_id":"A1","flow_id":"A","seq":1,"kind":"","schema":1,"payload":{}}"#,
                "field `kind`",
            ),
            (
                r#"{"event_id":"A1","flow_id":"A","seq":1,"kind":"k","schema":1001,"payload":{}}"#,
                "field `schema`",
            ),
            (
                r#"{"event_id":"A1","flow_id":"A","seq":1,"kind":"k","schema":1,"payload":{"a":[1]}}"#,
                "field `payload`",
            ),
            (
                r#"{"event_id":"A1","flow_id":"A","seq":1,"kind":"k","schema":1,"payload":{"a":1},"x":1}"#,
                "unknown field",
            ),
            (
                r#"{"event_id":"A1","seq":1,"kind":"k","schema":1,"payload":{}}"#,
                "missing field `flow_id`",
            ),
        ];
        for (text, needle) in cases {
            let value: Value = serde_json::from_str(text).unwrap();
            let err = Event::from_json(&value).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn boundary_names_round_trip() {
        for (i, b) in Boundary::ALL.into_iter().enumerate() {
            assert_eq!(Boundary::from_name(b.name()), Some(b));
            assert_eq!(b.number(), i + 1);
        }
    }
}
