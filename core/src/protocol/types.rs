//! The event envelope of §3 with its bounds, and the business kinds of §1. The result words are in
//! [`super::results`].

use crate::json::{json_type, short_json, Fields};
use serde_json::{Map, Value};

/// The amount every flow holds (§1: "数量固定为 3").
pub const AMOUNT: i64 = 3;

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
        const FIELDS: [&str; 6] = ["event_id", "flow_id", "seq", "kind", "schema", "payload"];
        let mut f = Fields::new(value.clone())
            .map_err(|_| format!("an event must be a JSON object, got {}", json_type(value)))?;
        if let Some(extra) = f.unknown(&FIELDS) {
            return Err(format!(
                "unknown field {} (an event has exactly event_id, flow_id, seq, kind, schema, payload)",
                short_json(&Value::String(extra.to_owned()))
            ));
        }
        let event_id = f.string("event_id")?;
        let flow_id = f.string("flow_id")?;
        let seq = f.int("seq")?;
        let kind = f.string("kind")?;
        let schema = f.int("schema")?;
        let payload = f.object("payload")?;
        Event::new(&event_id, &flow_id, seq, &kind, schema, payload)
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
    use crate::protocol::Boundary;

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
