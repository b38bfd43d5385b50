//! The article's twelve experiments (PROTOCOL.md §9) as trace files, embedded so the CLI, the tests and the
//! browser replay the very same bytes, and the check that compares each live result with the article's.

use crate::trace::{self, ResultDoc};
use serde_json::Value;

/// One experiment file: its name in `experiments/` and its text.
#[derive(Clone, Copy, Debug)]
pub struct Experiment {
    pub file: &'static str,
    pub text: &'static str,
}

macro_rules! experiment {
    ($file:literal) => {
        Experiment {
            file: $file,
            // Minified copies written by build.rs; the files in experiments/ stay readable.
            text: include_str!(concat!(env!("OUT_DIR"), "/", $file)),
        }
    };
}

pub const ALL: [Experiment; 12] = [
    experiment!("01-unsafe-dual-write.json"),
    experiment!("02-accepted-is-not-applied.json"),
    experiment!("03-arrival-3-1-2.json"),
    experiment!("04-six-permutations.json"),
    experiment!("05-dedupe-only-consumer.json"),
    experiment!("06-schema-v2-blocks.json"),
    experiment!("07-gap-isolation.json"),
    experiment!("08-relay-starvation.json"),
    experiment!("09-ten-crash-boundaries.json"),
    experiment!("10-rejecting-triggers.json"),
    experiment!("11-racing-writers.json"),
    experiment!("12-producer-idempotency.json"),
];

/// The outcome of replaying one experiment and comparing it with what the article states.
#[derive(Clone, Debug)]
pub struct Check {
    pub id: String,
    pub title: String,
    pub section: String,
    pub summary: String,
    /// The article's expected outcome: a part of the result document.
    pub expected: Value,
    /// The live result cut to the same shape as `expected`, so the two read side by side.
    pub got: Value,
    /// Where the two differ (empty when the experiment reproduced).
    pub mismatches: Vec<String>,
    pub result: ResultDoc,
}

impl Check {
    pub fn ok(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Replays one experiment file and compares the result with the `experiment.expected` it carries.
pub fn check(experiment: &Experiment) -> Result<Check, String> {
    check_on(experiment, &crate::protocol::Location::memory())
}

/// [`check`] on fresh databases at `location`: the same expected outcomes on every store.
pub fn check_on(
    experiment: &Experiment,
    location: &crate::protocol::Location,
) -> Result<Check, String> {
    let parsed = trace::parse(experiment.text).map_err(|e| format!("{}: {e}", experiment.file))?;
    let meta = parsed
        .experiment
        .clone()
        .ok_or_else(|| format!("{}: no `experiment` block", experiment.file))?;
    let text = |key: &str| {
        meta.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    // A file that expects nothing would reproduce whatever it did: refused, not passed.
    let expected = match meta.get("expected") {
        Some(Value::Object(e)) if !e.is_empty() => Value::Object(e.clone()),
        _ => {
            return Err(format!(
                "{}: its `experiment.expected` names nothing to compare",
                experiment.file
            ))
        }
    };
    let result =
        trace::replay_on(&parsed, location).map_err(|e| format!("{}: {e}", experiment.file))?;
    let actual = result.to_value();
    let mut mismatches = Vec::new();
    compare(&expected, &actual, String::new(), &mut mismatches);
    Ok(Check {
        id: text("id"),
        title: text("title"),
        section: text("section"),
        summary: text("summary"),
        got: project(&actual, &expected),
        expected,
        mismatches,
        result,
    })
}

/// Checks that `actual` contains `expected`: objects by the keys `expected` names, lists element by element
/// and of the same length, everything else equal.
pub fn compare(expected: &Value, actual: &Value, path: String, out: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, ev) in e {
                let p = format!("{path}/{key}");
                match a.get(key) {
                    Some(av) => compare(ev, av, p, out),
                    None => out.push(format!("{p}: expected {ev}, missing")),
                }
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                out.push(format!(
                    "{path}: expected {} rows, got {}",
                    e.len(),
                    a.len()
                ));
            }
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                compare(ev, av, format!("{path}/{i}"), out);
            }
        }
        (e, a) if e == a => {}
        (e, a) => out.push(format!("{path}: expected {e}, got {a}")),
    }
}

/// `actual` cut to the shape of `expected` (the same keys, the actual list lengths).
pub fn project(actual: &Value, expected: &Value) -> Value {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            // Inserted, not collected: collecting into the (B-tree) map sorts first, and that sort routine was
            // the page's last.
            let mut out = serde_json::Map::new();
            for (k, ev) in e {
                if let Some(av) = a.get(k) {
                    out.insert(k.clone(), project(av, ev));
                }
            }
            Value::Object(out)
        }
        (Value::Array(e), Value::Array(a)) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, av)| match e.get(i) {
                    Some(ev) => project(av, ev),
                    None => av.clone(),
                })
                .collect(),
        ),
        (_, a) => a.clone(),
    }
}

/// Replays all twelve.
pub fn check_all() -> Vec<Result<Check, String>> {
    ALL.iter().map(check).collect()
}

/// A one-line reading of a (part of a) result document: step results with repeats folded, then the tables
/// the part names, e.g. `steps committed×3 accepted gap · projection A=released/3/0 · invariant holds`.
pub fn digest(doc: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(steps) = doc.get("steps").and_then(Value::as_array) {
        let words: Vec<String> = steps
            .iter()
            .map(|s| {
                let r = s.get("result").and_then(Value::as_str).unwrap_or("?");
                match s.get("boundary").and_then(Value::as_str) {
                    Some(b) => format!("{r}@{b}"),
                    None => r.to_owned(),
                }
            })
            .collect();
        let mut folded: Vec<String> = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let run = words[i..].iter().take_while(|w| **w == words[i]).count();
            folded.push(if run > 1 {
                format!("{}×{run}", words[i])
            } else {
                words[i].clone()
            });
            i += run;
        }
        parts.push(format!("steps {}", folded.join(" ")));
    }
    let table = |side: &str, name: &str, row: &dyn Fn(&Value) -> String| -> Option<String> {
        let rows = doc.get(side)?.get(name)?.as_array()?;
        let cells: Vec<String> = rows.iter().map(row).collect();
        Some(format!("{name} [{}]", cells.join(" ")))
    };
    let s = |v: &Value, k: &str| match v.get(k) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) => "-".into(),
        Some(other) => other.to_string(),
        None => "_".into(),
    };
    type RowText<'a> = &'a dyn Fn(&Value) -> String;
    let specs: [(&str, &str, RowText); 5] = [
        ("producer", "flow", &|r| {
            format!("{}={}/{}", s(r, "flow_id"), s(r, "state"), s(r, "seq"))
        }),
        ("producer", "outbox", &|r| {
            format!("{}:accepted={}", s(r, "event_id"), s(r, "accepted"))
        }),
        ("consumer", "inbox", &|r| {
            format!("{}:{}", s(r, "event_id"), s(r, "state"))
        }),
        ("consumer", "projection", &|r| {
            format!(
                "{}={}/{}/{}",
                s(r, "flow_id"),
                s(r, "state"),
                s(r, "last_seq"),
                s(r, "held")
            )
        }),
        ("consumer", "effect", &|r| {
            format!("{}:{}", s(r, "event_id"), s(r, "kind"))
        }),
    ];
    for (side, name, row) in specs {
        if let Some(text) = table(side, name, row) {
            parts.push(text);
        }
    }
    if let Some(holds) = doc
        .get("invariant")
        .and_then(|i| i.get("holds"))
        .and_then(Value::as_bool)
    {
        parts.push(format!(
            "invariant {}",
            if holds { "holds" } else { "broken" }
        ));
    }
    parts.join(" · ")
}
