//! The one field reader behind the hand-written JSON readers (a trace, its steps, its consumer, an event on the
//! wire). Untrusted input: every refusal names the field and what it got, shortened so a hostile megabyte never
//! reaches the page. By hand rather than serde's derive, which would pull Rust's float printer into the page
//! for its error messages (ARCHITECTURE.md, "Decisions").

use crate::words::{quoted_list, Word};
use serde_json::{Map, Value};

/// How a message names a JSON value's type.
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

/// A JSON value shortened for an error message.
pub fn short_json(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        clip(&text, 38)
    } else {
        text
    }
}

/// `text` cut to at most `max` characters, the last of them an ellipsis when it was longer.
pub fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
        out.push('…');
        out
    }
}

/// A string shortened and quoted as [`short_json`] would, without its quotes (a field name, an op).
pub fn short_str(text: &str) -> String {
    short_json(&Value::String(text.to_owned()))
        .trim_matches('"')
        .to_owned()
}

/// An object's fields, taken one at a time by name and type.
pub struct Fields(Map<String, Value>);

impl Fields {
    /// `raw` must be an object.
    pub fn new(raw: Value) -> Result<Fields, String> {
        match raw {
            Value::Object(map) => Ok(Fields(map)),
            other => Err(format!("must be an object, got {}", json_type(&other))),
        }
    }

    /// The first field not in `allowed`, if any.
    pub fn unknown(&self, allowed: &[&str]) -> Option<&str> {
        self.0
            .keys()
            .map(String::as_str)
            .find(|k| !allowed.contains(k))
    }

    /// A field as it is, `null` included, if present.
    pub fn take(&mut self, name: &str) -> Option<Value> {
        self.0.remove(name)
    }

    /// Whether the object has the field (`null` included).
    pub fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// A field that must be there; a `null` is there, and its reader refuses it ("got null").
    fn required(&mut self, name: &str) -> Result<Value, String> {
        self.take(name)
            .ok_or_else(|| format!("missing field `{name}`"))
    }

    /// A required field of one JSON type (`is` says which), else a refusal that says what the field must be
    /// and what it got. One routine for every type keeps the page small.
    fn typed(
        &mut self,
        name: &str,
        must_be: &str,
        is: fn(&Value) -> bool,
    ) -> Result<Value, String> {
        let value = self.required(name)?;
        if is(&value) {
            return Ok(value);
        }
        // A short value says more than its type, except for the types whose value says nothing new.
        let got = match value {
            Value::Number(_) | Value::Bool(_) => short_json(&value),
            _ => json_type(&value).to_owned(),
        };
        Err(format!("field `{name}` must be {must_be}, got {got}"))
    }

    pub fn string(&mut self, name: &str) -> Result<String, String> {
        match self.typed(name, "a string", Value::is_string)? {
            Value::String(s) => Ok(s),
            _ => Ok(String::new()),
        }
    }

    /// An integer field; a fraction is refused, so reader input reaches SQL only as integers (the page's
    /// SQLite has no floating point).
    pub fn int(&mut self, name: &str) -> Result<i64, String> {
        Ok(self
            .typed(name, "an integer", Value::is_i64)?
            .as_i64()
            .unwrap_or_default())
    }

    pub fn bool(&mut self, name: &str) -> Result<bool, String> {
        Ok(self
            .typed(name, "true or false", Value::is_boolean)?
            .as_bool()
            .unwrap_or_default())
    }

    pub fn object(&mut self, name: &str) -> Result<Map<String, Value>, String> {
        match self.typed(name, "an object", Value::is_object)? {
            Value::Object(map) => Ok(map),
            _ => Ok(Map::new()),
        }
    }

    /// A field holding one of `T`'s words.
    pub fn word<T: Word>(&mut self, name: &str) -> Result<T, String> {
        let at = self.word_at(name, T::names())?;
        Ok(T::all()[at])
    }

    /// Where the word in field `name` is in `names` (one routine for every word enum).
    fn word_at(&mut self, name: &str, names: &[&str]) -> Result<usize, String> {
        let value = self.required(name)?;
        value
            .as_str()
            .and_then(|s| names.iter().position(|w| *w == s))
            .ok_or_else(|| {
                format!(
                    "field `{name}` must be one of {}, got {}",
                    quoted_list(names),
                    short_json(&value)
                )
            })
    }

    /// An optional field, read by `read` when present; `null` counts as absent (TRACE.md's optional fields).
    pub fn opt<T>(
        &mut self,
        name: &str,
        read: impl FnOnce(&mut Fields, &str) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        if self.0.get(name).is_none_or(Value::is_null) {
            return Ok(None);
        }
        read(self, name).map(Some)
    }
}
