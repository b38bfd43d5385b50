//! "Why it broke, in words": what a reader reads for experiment 05, for each wrong consumer's shortest
//! counterexample (CHECKER.md), for the unsafe producer, for hand-made histories (an illegal transition, a flow
//! that stops short), and nothing for a history that holds.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::checker::{Config, Property, Search, Verdict};
use outbox_core::explain::{explain, explain_property, Explanation};
use outbox_core::lang::Lang;
use outbox_core::playground::{Command, Playground};
use outbox_core::protocol::{Ordering, WriteMode};
use outbox_core::trace::{self, Trace};

fn experiment(file: &str) -> Trace {
    let path = format!("{}/../experiments/{file}", env!("CARGO_MANIFEST_DIR"));
    trace::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A trace from its consumer and its steps, written as TRACE.md's JSON.
fn trace(consumer: &str, steps: &[&str]) -> Trace {
    let text = format!(
        r#"{{"format":"outbox-playground-trace/1","consumer":{{"ordering":"{consumer}"}},"steps":[{}]}}"#,
        steps.join(",")
    );
    trace::parse(&text).unwrap()
}

fn advance(id: &str, expected_seq: i64, kind: &str) -> String {
    format!(
        r#"{{"op":"advance","flow":"A","event_id":"{id}","expected_seq":{expected_seq},"kind":"{kind}","schema":1,"payload":{{"amount":3}}}}"#
    )
}

/// The shortest counterexample the checker finds, with its property and message.
fn counterexample(config: Config) -> (Trace, Property, String) {
    let mut search = Search::new(config).unwrap().with_threads(1);
    match search.finish().unwrap() {
        Verdict::Violated(c) => (
            c.trace.clone(),
            c.violation.property,
            c.violation.message.clone(),
        ),
        Verdict::Holds => panic!("the configuration holds"),
    }
}

/// The shortest counterexample for a rule consumer on one flow of `events` events, no resend, no exit.
fn rule_counterexample(events: u8, sql: &str) -> (Trace, Property, String) {
    use outbox_core::rule::{Rule, RuleEffect};
    counterexample(Config {
        flows: 1,
        events,
        resends: 0,
        crashes: 0,
        consumer: Ordering::Rule,
        rule: Some(Rule::new(sql, RuleEffect::Inside).unwrap()),
        ..Config::default()
    })
}

fn config(consumer: Ordering, producer: WriteMode, schema2: &[&str]) -> Config {
    Config {
        consumer,
        producer,
        schema2: schema2.iter().map(|s| s.to_string()).collect(),
        ..Config::default()
    }
}

/// Both languages' explanations; they name the same steps.
fn both(trace: &Trace) -> (Explanation, Explanation) {
    let en = explain(trace, Lang::En)
        .unwrap()
        .expect("the invariant fails");
    let zh = explain(trace, Lang::Zh)
        .unwrap()
        .expect("the invariant fails");
    assert_eq!((en.step, &en.steps), (zh.step, &zh.steps));
    // The step it blames is the one the playground marks in the diagram, found by its own sliced replay.
    let mut pg = Playground::new(trace.consumer.clone()).unwrap();
    pg.apply(Command::Load(Box::new(trace.clone())));
    assert_eq!(en.step, pg.broke_at);
    eprintln!("{}\n{}\n", en.text, zh.text);
    (en, zh)
}

fn has(text: &str, needles: &[&str]) {
    for n in needles {
        assert!(text.contains(n), "{n:?} is missing from: {text}");
    }
}

/// Real Chinese: mostly Han characters outside the identifiers, never an English sentence.
fn chinese(text: &str) {
    let han = text
        .chars()
        .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
        .count();
    assert!(han * 4 > text.chars().count(), "too little Chinese: {text}");
    for english in [" the ", " was ", " and ", "Step ", "A correct"] {
        assert!(!text.contains(english), "English {english:?} in: {text}");
    }
}

#[test]
fn experiment_05_names_the_step_that_applied_a3_before_a1_and_a2() {
    let (en, zh) = both(&experiment("05-dedupe-only-consumer.json"));
    assert_eq!((en.step, en.steps.as_slice()), (Some(3), &[3][..]));
    has(
        &en.text,
        &[
            "Step 4 (relay A3) applied A3 (released, seq 3) on arrival",
            "last_seq 0 (new): A1 and A2 had not been applied",
            "strict consumer",
            "gap",
        ],
    );
    has(
        &zh.text,
        &[
            "第 4 步（relay A3）",
            "released（释放）",
            "：A1 和 A2 还没有被应用",
            "gap",
        ],
    );
    chinese(&zh.text);
}

#[test]
fn dedupe_only_counterexample() {
    let (t, p, m) = counterexample(config(Ordering::DedupeOnly, WriteMode::Atomic, &[]));
    assert_eq!(p, Property::ConsumerInvariant);
    let (en, zh) = both(&t);
    assert_eq!(en, explain_property(&t, p, &m, Lang::En).unwrap().unwrap());
    assert_eq!(en.step, Some(2));
    has(
        &en.text,
        &[
            "Step 3 (relay A2) applied A2 (confirmed, seq 2) on arrival",
            ": A1 had not been applied",
            "gap and waits",
        ],
    );
    has(
        &zh.text,
        &[
            "第 3 步（relay A2）",
            "confirmed（确认）",
            "A1 还没有被应用",
            "gap",
        ],
    );
    chinese(&zh.text);
}

#[test]
fn greater_than_counterexample() {
    let (t, p, m) = counterexample(config(Ordering::GreaterThan, WriteMode::Atomic, &[]));
    assert_eq!(p, Property::ConsumerInvariant);
    let (en, zh) = both(&t);
    assert_eq!(zh, explain_property(&t, p, &m, Lang::Zh).unwrap().unwrap());
    assert_eq!(en.steps, [3]);
    has(
        &en.text,
        &[
            "Step 4 (apply A) applied A2 (confirmed, seq 2) while flow A was at last_seq 0 (new)",
            "A1 had not been applied",
            "applies only last_seq + 1 (A1): here it answers gap and waits",
        ],
    );
    has(
        &zh.text,
        &[
            "第 4 步（apply A）",
            "confirmed（确认）",
            "new（新建）",
            "A1 还没有被应用",
            "gap",
        ],
    );
    chinese(&zh.text);
}

#[test]
fn greater_than_past_a_blocked_event() {
    // A1 in schema 2 is blocked (support_v2 is off); greater-than then takes A2, which is "greater than 0".
    let a1 = r#"{"op":"advance","flow":"A","event_id":"A1","expected_seq":0,"kind":"reserved","schema":2,"payload":{"units":3}}"#;
    let t = trace(
        "greater_than",
        &[
            a1,
            &advance("A2", 1, "confirmed"),
            r#"{"op":"relay"}"#,
            r#"{"op":"apply","flow":"A"}"#,
            r#"{"op":"relay"}"#,
            r#"{"op":"apply","flow":"A"}"#,
        ],
    );
    let (en, zh) = both(&t);
    assert_eq!(en.steps, [5]);
    has(
        &en.text,
        &[
            "Step 6 (apply A) applied A2 (confirmed, seq 2) while flow A was at last_seq 0 (new)",
            "A1 had not been applied",
            "here it answers blocked, as A1 is, and waits",
        ],
    );
    has(
        &zh.text,
        &[
            "第 6 步（apply A）",
            "confirmed（确认）",
            "A1 被阻塞而回答 blocked",
        ],
    );
    chinese(&zh.text);
}

#[test]
fn skip_blocked_counterexample() {
    let (t, p, m) = counterexample(config(Ordering::SkipBlocked, WriteMode::Atomic, &["A2"]));
    assert_eq!(p, Property::ConsumerInvariant);
    let (en, zh) = both(&t);
    assert_eq!(en, explain_property(&t, p, &m, Lang::En).unwrap().unwrap());
    assert_eq!(en.steps, [5]);
    has(
        &en.text,
        &[
            "Step 6 (apply A) marked A2 blocked (unsupported_schema)",
            "last_seq from 1 to 2, still reserved",
            "never moves past a blocked event",
        ],
    );
    has(
        &zh.text,
        &[
            "第 6 步（apply A）",
            "A2",
            "blocked（unsupported_schema）",
            "从 1 挪到了 2，状态仍是 reserved（预留）",
        ],
    );
    chinese(&zh.text);
}

#[test]
fn effect_outside_tx_counterexample_names_the_crash() {
    let (t, p, m) = counterexample(config(Ordering::EffectOutsideTx, WriteMode::Atomic, &[]));
    assert_eq!(p, Property::ConsumerInvariant);
    let (en, zh) = both(&t);
    assert_eq!(en, explain_property(&t, p, &m, Lang::En).unwrap().unwrap());
    assert_eq!(en.steps, [2]);
    has(
        &en.text,
        &[
            "Step 3 (apply A) crashed at apply.after_effect",
            "the effect of A1 (reserved) survived",
            "inbox row is still pending",
            "last_seq 0 (new). A correct consumer commits the projection, the effect and the applied mark in one transaction",
        ],
    );
    has(
        &zh.text,
        &[
            "状态 new（新建）。正确的消费端",
            "第 3 步（apply A）在 apply.after_effect 退出",
            "reserved（预留）",
            "A1",
            "pending",
            "同一个事务",
        ],
    );
    chinese(&zh.text);
}

#[test]
fn an_illegal_transition_names_both_states() {
    // Greater-than checks no transition: an event that releases a flow still new is applied.
    let t = trace(
        "greater_than",
        &[
            r#"{"op":"receive","event":{"event_id":"A1","flow_id":"A","seq":1,"kind":"released","schema":1,"payload":{"amount":3}}}"#,
            r#"{"op":"apply","flow":"A"}"#,
        ],
    );
    let (en, zh) = both(&t);
    assert_eq!(en.steps, [1]);
    has(
        &en.text,
        &[
            "Step 2 (apply A) applied A1 (released) as seq 1 of flow A, which was new",
            "released does not follow new",
            "blocked (invalid_transition)",
        ],
    );
    has(
        &zh.text,
        &[
            "第 2 步（apply A）",
            "released（释放）",
            "new（新建）",
            "invalid_transition",
        ],
    );
    chinese(&zh.text);
}

#[test]
fn the_unsafe_dual_write_loses_a_transition() {
    let (t, p, m) = counterexample(config(Ordering::Strict, WriteMode::UnsafeDualWrite, &[]));
    assert_eq!(p, Property::NoLoss);
    let en = explain_property(&t, p, &m, Lang::En).unwrap().unwrap();
    let zh = explain_property(&t, p, &m, Lang::Zh).unwrap().unwrap();
    eprintln!("{}\n{}\n", en.text, zh.text);
    assert_eq!((en.step, en.steps.as_slice()), (Some(0), &[0][..]));
    assert_eq!(zh.steps, en.steps);
    has(
        &en.text,
        &[
            "Step 1 (unsafe_dual_write A1) committed flow A's change to reserved (seq 1) on its own",
            "before it wrote A1 to the outbox",
            "in one transaction",
        ],
    );
    has(
        &zh.text,
        &[
            "第 1 步（unsafe_dual_write A1）",
            "reserved（预留）",
            "A1",
            "outbox",
            "同一个事务",
        ],
    );
    chinese(&zh.text);
    // The player's badge checks no_loss beside the consumer's invariant: its paragraph is the same one.
    assert_eq!(explain(&t, Lang::En).unwrap(), Some(en));
}

#[test]
fn a_flow_that_stops_short_breaks_completion() {
    let t = trace(
        "strict",
        &[
            &advance("A1", 0, "reserved"),
            r#"{"op":"relay"}"#,
            r#"{"op":"apply","flow":"A"}"#,
            &advance("A2", 1, "confirmed"),
            r#"{"op":"relay"}"#,
        ],
    );
    let message = "nothing is left to do, yet flow A stops at last_seq 1 and its next event A2 is pending, not blocked";
    let en = explain_property(&t, Property::Completion, message, Lang::En)
        .unwrap()
        .unwrap();
    let zh = explain_property(&t, Property::Completion, message, Lang::Zh)
        .unwrap()
        .unwrap();
    eprintln!("{}\n{}\n", en.text, zh.text);
    assert_eq!((en.step, en.steps.as_slice()), (Some(4), &[4][..]));
    has(
        &en.text,
        &[
            "flow A stops at last_seq 1 (reserved), short of seq 2",
            "A2 has been in the inbox since step 5 and is still pending",
            "no step tried to apply it",
        ],
    );
    has(
        &zh.text,
        &[
            "last_seq 1",
            "reserved（预留）",
            "A2 从第 5 步起就在 inbox 里",
            "pending",
        ],
    );
    chinese(&zh.text);
}

#[test]
fn a_history_that_holds_has_nothing_to_explain() {
    for file in ["03-arrival-3-1-2.json", "09-ten-crash-boundaries.json"] {
        let t = experiment(file);
        assert_eq!(explain(&t, Lang::En).unwrap(), None, "{file}");
        assert_eq!(explain(&t, Lang::Zh).unwrap(), None, "{file}");
    }
}

/// Completion names the flow that stopped short, not another flow whose event at the same seq is blocked.
#[test]
fn a_stopped_flow_is_named_beside_another_flows_blocked_event() {
    // B2 is schema 2, which the strict consumer without its support blocks.
    let t = trace(
        "strict",
        &[
            &advance_in("A", 1, "reserved", 1),
            r#"{"op":"relay"}"#,
            r#"{"op":"apply","flow":"A"}"#,
            &advance_in("A", 2, "confirmed", 1),
            r#"{"op":"relay"}"#,
            &advance_in("B", 1, "reserved", 1),
            r#"{"op":"relay"}"#,
            r#"{"op":"apply","flow":"B"}"#,
            &advance_in("B", 2, "confirmed", 2),
            r#"{"op":"relay"}"#,
            r#"{"op":"apply","flow":"B"}"#,
        ],
    );
    let doc = trace::replay(&t).unwrap();
    assert!(doc
        .consumer
        .inbox
        .iter()
        .any(|r| r.event_id == "B2" && r.state == "blocked"));
    let message = "nothing is left to do, yet flow A stops at last_seq 1 and its next event A2 is pending, not blocked";
    let en = explain_property(&t, Property::Completion, message, Lang::En)
        .unwrap()
        .unwrap();
    // Flow B's applies after A2 arrived are not attempts at A.
    has(
        &en.text,
        &[
            "flow A stops at last_seq 1 (reserved), short of seq 2",
            "A2 has been in the inbox since step 5 and is still pending, and no step tried to apply it.",
        ],
    );
}

/// A rule's answer the engine cannot carry out: the checker's `rule_answers`, said at the end of the history with
/// what the rule answered there and what the strict rule would have.
#[test]
fn a_rule_answer_is_explained_with_what_the_strict_rule_would_have_answered() {
    let (t, p, m) = rule_counterexample(
        2,
        "SELECT CASE WHEN seq = 2 THEN 'A9' ELSE event_id END, 'apply' FROM waiting ORDER BY seq DESC",
    );
    assert_eq!(p, Property::RuleAnswers);
    let en = explain_property(&t, p, &m, Lang::En).unwrap().unwrap();
    let n = t.steps.len();
    assert_eq!(en.steps, [n - 1]);
    has(
        &en.text,
        &[
            &format!("After step {n} (relay A2) rule_answers no longer holds: {m}."),
            "Your rule answered",
            "the strict rule would have answered",
        ],
    );
    let zh = explain_property(&t, p, &m, Lang::Zh).unwrap().unwrap();
    has(
        &zh.text,
        &[
            &format!("第 {n} 步（relay A2）之后，rule_answers 不再成立：{m}。"),
            "你的规则在这里回答了",
        ],
    );
}

/// The dedupe-only control applies on receive: the step that applied past a gap is named by the event it
/// received.
#[test]
fn a_receive_is_named_by_its_event() {
    let receive = |id: &str, seq: i64, kind: &str| {
        format!(
            r#"{{"op":"receive","event":{{"event_id":"{id}","flow_id":"A","seq":{seq},"kind":"{kind}","schema":1,"payload":{{"amount":3}}}}}}"#
        )
    };
    let t = trace(
        "dedupe_only",
        &[
            &receive("A2", 2, "confirmed"),
            &receive("A1", 1, "reserved"),
        ],
    );
    let (en, zh) = both(&t);
    has(
        &en.text,
        &["Step 1 (receive A2) applied A2 (confirmed, seq 2) on arrival"],
    );
    has(&zh.text, &["第 1 步（receive A2）"]);
}

fn advance_in(flow: &str, seq: i64, kind: &str, schema: i64) -> String {
    // Schema 2 calls the amount `units` (experiment 6).
    let field = if schema == 2 { "units" } else { "amount" };
    format!(
        r#"{{"op":"advance","flow":"{flow}","event_id":"{flow}{seq}","expected_seq":{},"kind":"{kind}","schema":{schema},"payload":{{"{field}":3}}}}"#,
        seq - 1
    )
}

fn with_rule(mut t: Trace, sql: &str) -> Trace {
    use outbox_core::rule::{Rule, RuleEffect};
    t.consumer = trace::ConsumerSetup {
        ordering: Ordering::Rule,
        rule: Some(Rule::new(sql, RuleEffect::Inside).unwrap()),
        support_v2: false,
    };
    t
}

/// The strict consumer's answer is read from the broken flow's own row at last_seq + 1: pending (it applies that
/// first), or absent (a gap) even where another flow's row at that seq waits.
#[test]
fn what_the_strict_consumer_would_do_is_read_from_the_flows_own_next_row() {
    let arrival_order = with_rule(
        trace(
            "strict",
            &[
                &advance("A1", 0, "reserved"),
                &advance("A2", 1, "confirmed"),
                r#"{"op":"relay","event_id":"A2"}"#,
                r#"{"op":"relay","event_id":"A1"}"#,
                r#"{"op":"apply","flow":"A"}"#,
            ],
        ),
        outbox_core::rule::ARRIVAL_ORDER,
    );
    let en = explain(&arrival_order, Lang::En).unwrap().unwrap();
    has(
        &en.text,
        &["Step 5 (apply A) applied A2 (confirmed, seq 2) while flow A was at last_seq 0 (new): A1 had not been applied. The strict consumer applies only last_seq + 1 (A1): here it applies A1 first. Your rule answered (A2, apply) there"],
    );
    let zh = explain(&arrival_order, Lang::Zh).unwrap().unwrap();
    has(&zh.text, &["在这里它会先应用 A1。"]);

    let other_flow = trace(
        "greater_than",
        &[
            &advance_in("A", 1, "reserved", 1),
            &advance_in("B", 1, "reserved", 1),
            &advance_in("B", 2, "confirmed", 1),
            r#"{"op":"relay","event_id":"A1"}"#,
            r#"{"op":"relay","event_id":"B2"}"#,
            r#"{"op":"apply","flow":"B"}"#,
        ],
    );
    let (en, _) = both(&other_flow);
    has(
        &en.text,
        &["B1 had not been applied. The strict consumer applies only last_seq + 1 (B1): here it answers gap and waits."],
    );
}

/// A rule that skips flow B's blocked event and blocks flow A's: the projection fault names B's row, not A's
/// blocked one.
#[test]
fn a_skip_is_named_by_the_skipping_flows_own_row() {
    let t = with_rule(
        trace(
            "strict",
            &[
                &advance_in("A", 1, "reserved", 2),
                &advance_in("B", 1, "reserved", 2),
                r#"{"op":"relay"}"#,
                r#"{"op":"relay"}"#,
                r#"{"op":"apply","flow":"A"}"#,
                r#"{"op":"apply","flow":"B"}"#,
            ],
        ),
        "SELECT event_id, CASE WHEN problem IS NULL THEN 'apply' WHEN event_id = 'B1' THEN 'skip' ELSE 'block' END FROM waiting WHERE seq = last_seq + 1",
    );
    let en = explain(&t, Lang::En).unwrap().unwrap();
    assert_eq!(en.step, Some(5));
    has(
        &en.text,
        &["Step 6 (apply B) marked B1 blocked (unsupported_schema), yet in the same step moved flow B's last_seq from 0 to 1"],
    );
}

/// Completion names the first flow that stopped short: not one that finished, nor one waiting at a blocked event.
#[test]
fn completion_passes_over_a_finished_flow_and_a_blocked_one() {
    let t = trace(
        "strict",
        &[
            &advance_in("A", 1, "reserved", 1),
            r#"{"op":"relay"}"#,
            r#"{"op":"apply","flow":"A"}"#,
            &advance_in("B", 1, "reserved", 2),
            r#"{"op":"relay"}"#,
            r#"{"op":"apply","flow":"B"}"#,
            &advance_in("C", 1, "reserved", 1),
        ],
    );
    let message = "nothing is left to do, yet flow C stops at last_seq 0 and its next event C1 is not in the inbox";
    let en = explain_property(&t, Property::Completion, message, Lang::En)
        .unwrap()
        .unwrap();
    has(
        &en.text,
        &["After step 7, the last, nothing is left to do, yet flow C stops at last_seq 0 (new), short of seq 1:"],
    );
    let zh = explain_property(&t, Property::Completion, message, Lang::Zh)
        .unwrap()
        .unwrap();
    has(
        &zh.text,
        &["第 7 步（最后一步）之后已经无事可做，流程 C 却停在 last_seq 0"],
    );
}

/// A rule that never answers: the flow stalls at its first event, and the explanation names the apply that left
/// it there with what it answered.
#[test]
fn a_stalled_flow_names_the_apply_that_left_it() {
    let t = with_rule(
        trace(
            "strict",
            &[
                &advance("A1", 0, "reserved"),
                r#"{"op":"relay"}"#,
                r#"{"op":"apply","flow":"A"}"#,
            ],
        ),
        "SELECT event_id, 'apply' FROM waiting WHERE seq = 0",
    );
    let message = "nothing is left to do, yet flow A stops at last_seq 0 and its next event A1 is pending, not blocked";
    let en = explain_property(&t, Property::Completion, message, Lang::En)
        .unwrap()
        .unwrap();
    assert_eq!(en.steps, [1, 2]);
    has(
        &en.text,
        &["A1 has been in the inbox since step 2 and is still pending, and step 3 (apply A) answered gap and left it there."],
    );
}

/// A rule that answers with a row when nothing waits: the strict rule's answer there is said as idle.
#[test]
fn a_rule_answer_on_nothing_waiting_is_set_beside_idle() {
    let (t, p, m) = rule_counterexample(
        1,
        "SELECT coalesce(event_id, 'A9'), 'apply' FROM (SELECT 1 AS one) LEFT JOIN waiting ON seq = last_seq + 1",
    );
    assert_eq!(p, Property::RuleAnswers);
    let en = explain_property(&t, p, &m, Lang::En).unwrap().unwrap();
    has(
        &en.text,
        &["the strict rule would have answered no row (idle)."],
    );
}
