//! A fuzz run over everything a reader can hand the page: raw bytes, mutated traces, arbitrary JSON and share
//! links (base64url + DEFLATE + JSON). No input may panic or hang, and every refusal must say what is wrong.
//! Valid traces that come out of the mutations are replayed too.
//!
//! Bounded here (`FUZZ_INPUTS`, default 30,000); the full run is
//! `FUZZ_INPUTS=1000000 cargo test -p outbox-core --profile bench-native --test fuzz -- --nocapture`.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::protocol::Location;
use outbox_core::{experiments, share, trace};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

#[path = "core/rulegen.rs"]
mod rulegen;

/// xorshift64*: deterministic, so a failure names the input number that reproduces it.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "null",
    "true",
    "false",
    "0",
    "-1",
    "1e999",
    "1.5",
    "99999999999999999999",
    "\"op\"",
    "\"advance\"",
    "\"relay\"",
    "\"receive\"",
    "\"apply\"",
    "\"process_all\"",
    "\"set_support_v2\"",
    "\"inject_fault\"",
    "\"crash_at\"",
    "\"apply.after_effect\"",
    "\"receive.after_commit\"",
    "\"flow\"",
    "\"A\"",
    "\"event_id\"",
    "\"expected_seq\"",
    "\"kind\"",
    "\"schema\"",
    "\"payload\"",
    "\"event\"",
    "\"steps\"",
    "\"format\"",
    "\"outbox-playground-trace/1\"",
    "\"\\u0000\"",
    "\"<img src=x onerror=alert(1)>\"",
    "\"预留\"",
    "\u{1F600}",
    "\\",
    "\n",
    "{\"amount\":3}",
    "\"limit\"",
    "\"consumer\"",
    "\"dedupe_only\"",
];

const KEYS: &[&str] = &[
    "format",
    "steps",
    "consumer",
    "op",
    "flow",
    "event_id",
    "expected_seq",
    "kind",
    "schema",
    "payload",
    "crash_at",
    "event",
    "limit",
    "on",
    "target",
    "ordering",
    "support_v2",
    "seq",
    "flow_id",
    "amount",
    "units",
    "x",
];

fn json_value(rng: &mut Rng, depth: usize) -> String {
    match rng.below(if depth > 4 { 5 } else { 8 }) {
        0 => "null".into(),
        1 => ["true", "false"][rng.below(2)].into(),
        2 => ((rng.next() as i64) >> rng.below(63)).to_string(),
        3 => format!("\"{}\"", rng.pick(TOKENS).replace(['"', '\\'], "")),
        4 => format!("\"{}\"", rng.pick(KEYS)),
        5 | 6 => {
            let n = rng.below(6);
            let fields: Vec<String> = (0..n)
                .map(|_| format!("\"{}\":{}", rng.pick(KEYS), json_value(rng, depth + 1)))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        _ => {
            let n = rng.below(5);
            let items: Vec<String> = (0..n).map(|_| json_value(rng, depth + 1)).collect();
            format!("[{}]", items.join(","))
        }
    }
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(5) {
            0 if !bytes.is_empty() => {
                let i = at.min(bytes.len() - 1);
                bytes[i] ^= 1 << rng.below(8);
            }
            1 => {
                let end = (at + rng.below(40)).min(bytes.len());
                bytes.drain(at..end);
            }
            2 => {
                let token = rng.pick(TOKENS).as_bytes().to_vec();
                bytes.splice(at..at, token);
            }
            3 => bytes.truncate(at),
            _ => {
                let end = (at + rng.below(60)).min(bytes.len());
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn structured_trace(rng: &mut Rng) -> String {
    let n = rng.below(8);
    let steps: Vec<String> = (0..n)
        .map(|_| {
            // Every op a trace may name, and one it may not.
            let ops: Vec<&str> = trace::Op::ALL
                .iter()
                .map(|o| o.name())
                .chain(["bogus"])
                .collect();
            let mut fields = vec![format!("\"op\":\"{}\"", rng.pick(&ops))];
            for _ in 0..rng.below(7) {
                fields.push(format!("\"{}\":{}", rng.pick(KEYS), json_value(rng, 1)));
            }
            format!("{{{}}}", fields.join(","))
        })
        .collect();
    format!(
        "{{\"format\":\"outbox-playground-trace/1\",\"steps\":[{}]}}",
        steps.join(",")
    )
}

/// The shapes a reason takes once the message's location is taken off: each says what is wrong. (Words like
/// "step", "link" or "field" alone would not do: the location prefixes carry them whatever the reason.)
const REASONS: &[&str] = &[
    "must be",
    "missing field",
    "unknown field",
    "unknown variant",
    "is not valid JSON",
    "at most",
    "longer than",
    "is empty",
    "expected the fragment to start with",
    "not a packed trace",
    "unpacks to more than",
    "not UTF-8",
    "middle of a byte",
    "is not base64url",
    "may hold only",
    "may have at most",
    "is a string longer than",
];

/// Where a refusal happened (`the link: `, `step 3 (apply): `, `field \`consumer\`: `), taken off the front.
fn reason(message: &str) -> &str {
    let mut rest = message;
    loop {
        let before = rest;
        rest = rest.strip_prefix("the link: ").unwrap_or(rest);
        if let Some(after) = rest.strip_prefix("field `consumer`: ") {
            rest = after;
        }
        if rest.starts_with("step ") {
            if let Some(colon) = rest.find(": ") {
                rest = &rest[colon + 2..];
            }
        }
        if rest == before {
            return rest;
        }
    }
}

fn check_refusal(what: &str, message: &str) {
    let why = reason(message);
    assert!(
        REASONS.iter().any(|r| why.contains(r)),
        "{what}: the refusal does not say what is wrong: {message:?} (reason: {why:?})"
    );
}

#[test]
fn no_input_panics_hangs_or_is_refused_without_a_reason() {
    let total: usize = std::env::var("FUZZ_INPUTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30_000);
    let seeds: Vec<&str> = experiments::ALL.iter().map(|e| e.text).collect();
    let mut rng = Rng(0x005E_ED0F_0B0C_1234);
    let (mut accepted, mut refused, mut replayed) = (0usize, 0usize, 0usize);
    let mut slowest = Duration::ZERO;
    let started = Instant::now();
    for i in 0..total {
        let kind = i % 6;
        let input = match kind {
            0 => {
                let n = rng.below(64);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                String::from_utf8_lossy(&bytes).into_owned()
            }
            1 | 2 => {
                let seed = seeds[rng.below(seeds.len())];
                mutate(&mut rng, seed)
            }
            3 => structured_trace(&mut rng),
            4 => json_value(&mut rng, 0),
            _ => {
                // A share link: random base64url, or a packed (possibly mutated) trace.
                let body = if rng.below(2) == 0 {
                    let n = rng.below(80);
                    (0..n)
                        .map(|_| {
                            rng.pick(&["A", "z", "9", "-", "_", "=", "%", " ", "é"])
                                .to_owned()
                        })
                        .collect()
                } else {
                    let seed = seeds[rng.below(seeds.len())];
                    let text = mutate(&mut rng, seed);
                    let packed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 6);
                    let mut link = share::base64url_encode(&packed);
                    if rng.below(3) == 0 {
                        link.truncate(rng.below(link.len() + 1));
                    }
                    link
                };
                format!("#t={body}")
            }
        };
        let t0 = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            if kind == 5 {
                share::decode(&input)
            } else {
                trace::parse(&input)
            }
        }));
        let parsed = outcome.unwrap_or_else(|_| panic!("input #{i} panicked: {input:?}"));
        match parsed {
            Ok(t) => {
                accepted += 1;
                // Replay a sample of the valid ones: the engine must not panic on them either.
                if t.steps.len() <= 300
                    && (i % 7 == 0 || t.steps.iter().any(|s| s.crash_at().is_some()))
                {
                    let doc = catch_unwind(AssertUnwindSafe(|| trace::replay(&t)))
                        .unwrap_or_else(|_| panic!("replay of input #{i} panicked: {input:?}"));
                    assert!(doc.is_ok(), "input #{i}: the databases failed: {doc:?}");
                    replayed += 1;
                }
            }
            Err(e) => {
                refused += 1;
                check_refusal(&format!("input #{i}"), &e.0);
            }
        }
        let took = t0.elapsed();
        slowest = slowest.max(took);
        assert!(
            took < Duration::from_secs(5),
            "input #{i} took {took:?} (a hang?): {input:?}"
        );
    }
    println!(
        "fuzz: {total} inputs in {:.1?}: {accepted} accepted ({replayed} replayed), {refused} refused with a reason, slowest {slowest:?}",
        started.elapsed()
    );
    assert!(accepted > 0 && refused > 0, "the run reached both paths");
}

/// What a generated rule is made of besides `waiting`'s columns (`rule::COLUMNS`, picked as often).
const RULE_TOKENS: &[&str] = &[
    "'apply'",
    "'block'",
    "'skip'",
    "'A1'",
    "'pending'",
    "NULL",
    "1",
    "0",
    "2",
    "=",
    "<",
    ">",
    "+",
    "-",
    "*",
    "/",
    "%",
    "||",
    "AND",
    "OR",
    "NOT",
    "IS",
    "IN",
    "(",
    ")",
    ",",
    "CASE",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "waiting",
    "inbox",
    "sqlite_master",
    "FROM",
    "WHERE",
    "ORDER BY",
    "LIMIT",
    "GROUP BY",
    "OVER",
    "DESC",
    ";",
    "--",
    "1.5",
    "x'00'",
    "UNION",
    "CAST",
    "SELECT",
    "LIKE",
    "'%'",
    "EXISTS",
];

/// A column of `waiting` or another token, half and half.
fn token(rng: &mut Rng) -> &'static str {
    if rng.below(2) == 0 {
        outbox_core::rule::COLUMNS[rng.below(outbox_core::rule::COLUMNS.len())]
    } else {
        RULE_TOKENS[rng.below(RULE_TOKENS.len())]
    }
}

/// A SELECT over `waiting`, more or less well formed: columns, function calls, operators, clauses.
fn rule_text(rng: &mut Rng) -> String {
    if rng.below(2) == 0 {
        return rulegen::well_formed_rule(&mut |n| rng.below(n));
    }
    let expr = |rng: &mut Rng| -> String {
        let n = 1 + rng.below(6);
        (0..n)
            .map(|_| {
                if rng.below(4) == 0 {
                    format!("{}({})", rng.pick(rulegen::FUNCTIONS), token(rng))
                } else {
                    token(rng).to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let head = if rng.below(8) == 0 {
        "WITH w AS (SELECT * FROM waiting) SELECT"
    } else {
        "SELECT"
    };
    let from = if rng.below(6) == 0 {
        rng.pick(&["w", "inbox", "waiting a, waiting b"]).to_owned()
    } else {
        "waiting".to_owned()
    };
    let mut text = format!("{head} {}, {} FROM {from}", expr(rng), expr(rng));
    if rng.below(2) == 0 {
        text.push_str(&format!(" WHERE {}", expr(rng)));
    }
    if rng.below(3) == 0 {
        text.push_str(&format!(" ORDER BY {} LIMIT 1", expr(rng)));
    }
    text
}

#[test]
fn no_rule_panics_or_is_refused_without_a_reason() {
    use outbox_core::protocol::{ApplyResult, Outcome};
    use outbox_core::rule::{Rule, RuleEffect};
    use outbox_core::trace::{ConsumerSetup, Session, Step};
    let total: usize = std::env::var("FUZZ_RULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let mut rng = Rng(0x0123_4567_89AB_CDEF);
    let (mut accepted, mut refused, mut errors) = (0usize, 0usize, 0usize);
    for i in 0..total {
        let sql = rule_text(&mut rng);
        let checked = catch_unwind(AssertUnwindSafe(|| Rule::new(&sql, RuleEffect::Inside)))
            .unwrap_or_else(|_| panic!("rule #{i} panicked: {sql:?}"));
        let rule = match checked {
            Err(r) => {
                refused += 1;
                assert!(
                    !r.message.is_empty() && !r.message.contains("could not prepare"),
                    "rule #{i} refused without a reason: {sql:?}: {r:?}"
                );
                continue;
            }
            Ok(rule) => rule,
        };
        accepted += 1;
        let ran = catch_unwind(AssertUnwindSafe(|| {
            let mut session =
                Session::create(&Location::memory(), ConsumerSetup::with_rule(rule, false))
                    .unwrap();
            for (id, expected, kind) in [("A1", 0, "reserved"), ("A2", 1, "confirmed")] {
                session.step(&Step::advance("A", id, expected, kind, 1));
            }
            session.step(&Step::relay(Some("A2")));
            session.step(&Step::relay(Some("A1")));
            let before = session.snapshot().unwrap();
            let report = session.step(&Step::apply("A"));
            (report, before, session.snapshot().unwrap())
        }))
        .unwrap_or_else(|_| panic!("running rule #{i} panicked: {sql:?}"));
        let (report, before, after) = ran;
        if report.result == Outcome::Apply(ApplyResult::RuleError) {
            errors += 1;
            assert!(
                report.message.as_deref().is_some_and(|m| !m.is_empty()),
                "rule #{i}: {sql:?}"
            );
            assert_eq!(before, after, "rule #{i} wrote on a rule_error: {sql:?}");
        }
        assert_ne!(
            report.result,
            Outcome::SqlError,
            "rule #{i}: {sql:?}: {:?}",
            report.message
        );
    }
    println!("rule fuzz: {total} rules: {accepted} accepted ({errors} answered rule_error), {refused} refused with a reason");
    assert!(accepted > 0 && refused > 0, "the run reached both paths");
}
