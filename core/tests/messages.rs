//! The core's refusals in Chinese: every shape of refusal the trace reader, share links, event checks and the
//! checker's knobs produce reads as Chinese, with only identifiers, field names and values left as they were.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::checker::Config;
use outbox_core::lang::messages::zh;
use outbox_core::protocol::Location;
use outbox_core::trace::{self, Session};

/// Refusals as the page shows them, one per shape.
fn refusals() -> Vec<String> {
    let t = |steps: &str| format!(r#"{{"format":"outbox-playground-trace/1","steps":[{steps}]}}"#);
    let mut texts = vec![
        "not json".to_owned(),
        "{\"format\":".to_owned(),
        "[1,2]".to_owned(),
        "{\"steps\":[]}".to_owned(),
        r#"{"format":"x","steps":[]}"#.to_owned(),
        r#"{"format":"outbox-playground-trace/1"}"#.to_owned(),
        r#"{"format":"outbox-playground-trace/1","steps":{}}"#.to_owned(),
        r#"{"format":"outbox-playground-trace/1","steps":[],"extra":1}"#.to_owned(),
        r#"{"format":"outbox-playground-trace/1","steps":[],"consumer":{"ordering":"sideways"}}"#
            .to_owned(),
        r#"{"format":"outbox-playground-trace/1","steps":[],"consumer":{"colour":1}}"#.to_owned(),
        t(r#"{"op":"teleport"}"#),
        t(r#"{"op":"apply"}"#),
        t(r#"{"op":"apply","flow":"A","speed":2}"#),
        t(r#"{"op":"apply","flow":7}"#),
        t(r#"{"op":"apply","flow":""}"#),
        t(r#"{"op":"apply","flow":"A B"}"#),
        t(r#"{"op":"process_all","limit":-5}"#),
        t(r#"{"op":"process_all","limit":1.5}"#),
        t(r#"{"op":"relay","crash_at":"nowhere"}"#),
        t(
            r#"{"op":"advance","flow":"A","event_id":"A1","expected_seq":0,"kind":"reserved","schema":1,"payload":[]}"#,
        ),
        t(&vec![r#"{"op":"relay"}"#; 10_001].join(",")),
    ];
    let mut out: Vec<String> = texts
        .drain(..)
        .map(|text| trace::parse(&text).unwrap_err().0)
        .collect();
    for link in ["#x=abc", "#t=", "#t=ab$c", "#t=AAAA", "#t=A"] {
        out.push(outbox_core::share::decode(link).unwrap_err().0);
    }
    // A malformed event is run and rejected, with the reason in the step's report.
    let mut session = Session::create(&Location::memory(), Default::default()).unwrap();
    for event in [
        r#""hello""#,
        r#"{"event_id":"A1","flow_id":"A","seq":1,"kind":"reserved","schema":1,"payload":{},"x":1}"#,
        r#"{"event_id":"A1","flow_id":"A","seq":0,"kind":"reserved","schema":1,"payload":{}}"#,
        r#"{"event_id":"A1","flow_id":"A","seq":1,"kind":"reserved","schema":1,"payload":{"a":1.5}}"#,
        r#"{"event_id":"A1","flow_id":"A","seq":1,"kind":"reserved","schema":1,"payload":{"a":[1]}}"#,
    ] {
        let step = trace::parse(&t(&format!(r#"{{"op":"receive","event":{event}}}"#))).unwrap();
        let report = session.step(&step.steps[0]);
        out.push(report.message.expect("a rejected receive says why"));
    }
    for (key, value) in [
        ("flows", "9"),
        ("events", "x"),
        ("consumer", "nobody"),
        ("producer", "twice"),
    ] {
        out.push(Config::default().set(key, value).unwrap_err());
    }
    let config = Config {
        schema2: vec!["Z9".into()],
        ..Default::default()
    };
    out.push(config.validate().unwrap_err());
    // The reader's rule: every refusal RULE.md names, as a trace's field and as a check link's knob.
    for sql in [
        "",
        "SELECT event_id, 'apply' FROM waiting WHERE seq = 1.5",
        "SELECT event_id, 'apply' FROM waiting WHERE seq = 0x1",
        "SELECT event_id, 'apply' FROM waiting WHERE seq = 99999999999999999999",
        "SELECT event_id, x'00' FROM waiting",
        "SELECT event_id, 'apply' FROM waiting UNION SELECT event_id, 'skip' FROM waiting",
        "SELECT event_id, CAST(seq AS TEXT) FROM waiting",
        "DELETE FROM waiting",
        "SELECT 1, 2; SELECT 3, 4",
        "SELECT * FROM waiting",
        "SELECT event_id, 'apply' FROM inbox",
        "SELECT name, 'apply' FROM sqlite_master",
        "SELECT event_id, 'apply' FROM waiting WHERE random() > 0",
        "SELECT event_id, 'apply' FROM waiting WHERE nope = 1",
        "SELECT event_id,\n 'apply' FROM waiting WHER seq = 1",
        "SELECT event_id, 'apply' FROM waiting WHERE seq = ?1",
        "SELECT event_id, kind -> 'x' FROM waiting",
        "SELECT event_id 'apply' FROM waiting WHERE",
    ] {
        let json = serde_json::json!({
            "format": "outbox-playground-trace/1",
            "consumer": {"ordering": "rule", "rule": sql},
            "steps": []
        });
        out.push(trace::parse(&json.to_string()).unwrap_err().0);
    }
    let long = format!(
        "SELECT event_id, 'apply' FROM waiting WHERE {}1",
        "(".repeat(60)
    );
    out.push(Config::default().set("rule", &long).unwrap_err());
    out.push(
        Config::default()
            .set("rule", &"x".repeat(5000))
            .unwrap_err(),
    );
    out.push(
        Config::default()
            .set("rule", &format!("SELECT {}", "~".repeat(900)))
            .unwrap_err(),
    );
    out.push(Config::default().set("effect", "inside").unwrap_err());
    let mut ruleless = Config::default();
    ruleless.set("consumer", "rule").unwrap();
    out.push(ruleless.validate().unwrap_err());
    // What a rule answered that the engine cannot carry out.
    for sql in [
        "SELECT 'A9', 'apply' FROM waiting",
        "SELECT event_id, 'maybe' FROM waiting",
    ] {
        let rule = outbox_core::rule::Rule::new(sql, Default::default()).unwrap();
        let mut session = Session::create(
            &Location::memory(),
            trace::ConsumerSetup::with_rule(rule, false),
        )
        .unwrap();
        session.step(&trace::Step::advance("A", "A1", 0, "reserved", 1));
        session.step(&trace::Step::relay(Some("A1")));
        out.push(session.step(&trace::Step::apply("A")).message.unwrap());
    }
    // The levels: a progress file to import, a challenge link, and a level it carries.
    use outbox_core::levels::{self, Progress};
    let p = |levels: &str| {
        format!(r#"{{"format":"outbox-playground-progress/1","levels":{{"a":{levels}}}}}"#)
    };
    for text in [
        "not json".to_owned(),
        "[]".to_owned(),
        r#"{"format":"x"}"#.to_owned(),
        r#"{"format":"outbox-playground-progress/1","extra":1}"#.to_owned(),
        p(r#"{"best":0}"#),
        p(r#"{"best":"x"}"#),
        p(r#"{"bet":"maybe"}"#),
        p(r#"{"bet":3}"#),
        p(r#"{"solved":"yes"}"#),
        p(r#"{"x":1}"#),
        "x".repeat(300 * 1024),
    ] {
        out.push(Progress::parse(&text).unwrap_err());
    }
    for link in ["#x=1", "#level=", "#level=ab$c", "#level=AAAA"] {
        out.push(levels::from_link(link).unwrap_err());
    }
    let level: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../levels/02-dedupe-only.json"
        ))
        .unwrap(),
    )
    .unwrap();
    for (field, value) in [
        ("flows", serde_json::json!(9)),
        ("break", serde_json::json!("everything")),
        ("id", serde_json::json!("")),
        ("colour", serde_json::json!(1)),
    ] {
        let mut bad = level.clone();
        bad[field] = value;
        out.push(levels::from_link(&levels::to_link(&bad)).unwrap_err());
    }
    out
}

/// What may stay in Latin letters: identifiers, values, names of formats.
fn leftover(zh: &str) -> Vec<String> {
    let mut text = String::new();
    let mut quote = None;
    for c in zh.chars() {
        match (quote, c) {
            (None, '`' | '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, c) => text.push(c),
        }
    }
    const KEEP: &[&str] = &[
        "JSON",
        "UTF",
        "base64url",
        "trace",
        "MiB",
        "null",
        "format",
        "consumer",
        "steps",
        "outbox",
        "producer",
        "atomic",
        "unsafe_dual_write",
        "schema2",
        "event_id",
        "flow_id",
        "seq",
        "kind",
        "schema",
        "payload",
        "Unicode",
        "strict",
        "dedupe_only",
        "greater_than",
        "skip_blocked",
        "effect_outside_tx",
        "advance",
        "relay",
        "receive",
        "apply",
        "process_all",
        "set_support_v2",
        "inject_fault",
        "clear_fault",
        "flow",
        "limit",
        "crash_at",
        "event",
        "on",
        "target",
        "hello",
        "teleport",
        "sideways",
        "colour",
        "speed",
        "nowhere",
        "flows",
        "events",
        "nobody",
        "twice",
        "abc",
        "rule",
        "SELECT",
        "WITH",
        "waiting",
        "sqlite_master",
        "inbox",
        "nope",
        "WHER",
        "ATTACH",
        "CAST",
        "UNION",
        "blob",
        "SQLite",
        "effect",
        "ordering",
        "random",
        "block",
        "skip",
        "DELETE",
        "level",
        "true",
        "false",
    ];
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.chars().filter(|c| c.is_ascii_alphabetic()).count() >= 3)
        .filter(|w| !KEEP.contains(w) && !w.chars().any(|c| c.is_ascii_digit()))
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_refusal_reads_as_chinese() {
    let all = refusals();
    assert!(all.len() > 30);
    // Every one that stays English, named at once.
    let english: Vec<String> = all
        .iter()
        .map(|en| (en, zh(en)))
        .filter(|(_, zh)| {
            !zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) || !leftover(zh).is_empty()
        })
        .map(|(en, zh)| format!("{en} → {zh} (left: {:?})", leftover(&zh)))
        .collect();
    assert!(english.is_empty(), "{}", english.join("\n"));
}

#[test]
fn values_and_names_survive_translation() {
    let en = "the link: step 3 (apply): field `flow` must be 1–64 characters, got 0";
    assert_eq!(
        zh(en),
        "链接：第 3 步（apply）：字段 `flow` 必须是 1–64 个字符，实际是 0"
    );
    assert_eq!(
        zh("character '$' at position 2 is not base64url"),
        "位置 2 的字符 '$' 不是 base64url"
    );
    assert_eq!(
        zh("the trace is not valid JSON: expected value at line 1 column 1"),
        "trace 不是合法的 JSON：这里应有一个值（第 1 行第 1 列）"
    );
}
