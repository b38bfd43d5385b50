//! The protocol's results, the arrival orders, the ten crash boundaries and the twelve experiments, asserted on
//! what the result document shows. The same tests run natively (`cargo test -p outbox-core`) and in headless Chromium on the
//! SQLite-in-wasm build (`cargo test --target wasm32-unknown-unknown -p outbox-core --test core`, see README).

use outbox_core::experiments;
use outbox_core::protocol::system::System;
use outbox_core::protocol::Location;
use outbox_core::protocol::{
    invariant, AdvanceResult, ApplyResult, BlockReason, Boundary, CrashMark, FlowStop, Ordering,
    Outcome, Receipt,
};
use outbox_core::trace::{self, ConsumerSetup, ResultDoc, Session, Step, Write};
use serde_json::{json, Value};

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// Marks a test for both runners: `#[test]` natively, `#[wasm_bindgen_test]` in the browser.
macro_rules! both {
    ($(fn $name:ident() $body:block)*) => {
        $(
            #[cfg_attr(not(target_arch = "wasm32"), test)]
            #[cfg_attr(target_arch = "wasm32", wasm_bindgen_test::wasm_bindgen_test)]
            fn $name() $body
        )*
    };
}

const KINDS: [&str; 3] = ["reserved", "confirmed", "released"];

// Every result a test here expects, typed: the words themselves are TRACE.md's, tested where the document is
// written (tests/cli.rs reads the JSON).
const COMMITTED: Outcome = Outcome::COMMITTED;
const EXISTING: Outcome = Outcome::Advanced(AdvanceResult::Existing);
const CONFLICT: Outcome = Outcome::Advanced(AdvanceResult::Conflict);
const STALE: Outcome = Outcome::Advanced(AdvanceResult::Stale);
const INVALID_TRANSITION: Outcome = Outcome::Advanced(AdvanceResult::InvalidTransition);
const ACCEPTED: Outcome = Outcome::ACCEPTED;
const DUPLICATE: Outcome = Outcome::Received(Receipt::Duplicate);
const ID_CONFLICT: Outcome = Outcome::Received(Receipt::IdConflict);
const SEQUENCE_CONFLICT: Outcome = Outcome::Received(Receipt::SequenceConflict);
const REJECTED: Outcome = Outcome::Rejected;
const APPLIED: Outcome = Outcome::APPLIED;
const GAP: Outcome = Outcome::GAP;
const IDLE: Outcome = Outcome::IDLE;
const DONE: Outcome = Outcome::ProcessAll { done: true };
const LIMIT: Outcome = Outcome::ProcessAll { done: false };
const CRASHED: Outcome = Outcome::Crashed;
const SQL_ERROR: Outcome = Outcome::SqlError;

const fn blocked(reason: BlockReason) -> Outcome {
    Outcome::Apply(ApplyResult::Blocked(reason))
}

fn strict() -> ConsumerSetup {
    ConsumerSetup::default()
}

fn advance(flow: &str, n: i64) -> Step {
    Step::advance(
        flow,
        &format!("{flow}{n}"),
        n - 1,
        KINDS[(n - 1) as usize],
        1,
    )
}

fn with_payload(step: Step, new: serde_json::Map<String, Value>) -> Step {
    match step {
        Step::Advance(w) => Step::Advance(Write { payload: new, ..w }),
        other => other,
    }
}

fn relay(id: Option<&str>) -> Step {
    Step::relay(id)
}

fn apply(flow: &str) -> Step {
    Step::apply(flow)
}

fn process_all() -> Step {
    Step::process_all(None)
}

fn receive(event: Value) -> Step {
    Step::Receive {
        event,
        crash_at: None,
    }
}

both! {
    fn a_rule_that_answers_nothing_is_idle_with_nothing_waiting_and_at_a_gap_otherwise() {
        // RULE.md: no row answered is `gap` when `waiting` has a row, else `idle`; nothing is written.
        use outbox_core::rule::{Rule, RuleEffect};
        let never = Rule::new("SELECT event_id, 'apply' FROM waiting WHERE seq = 0", RuleEffect::Inside).unwrap();
        let (got, doc) = run(ConsumerSetup::with_rule(never, false), &[apply("A"), advance("A", 1), relay(None), apply("A")]);
        assert_eq!(got, vec![IDLE, COMMITTED, ACCEPTED, GAP]);
        assert!(doc.consumer.effect.is_empty() && doc.consumer.inbox[0].state == "pending");
    }

    fn a_traces_limits_are_inclusive_and_a_refusal_names_the_character() {
        // TRACE.md's bounds, each at its limit (accepted) and one past it (refused with the bound).
        let advance_with = |event_id: &str, expected_seq: i64, kind: &str, payload: Value| {
            let step = json!({"op": "advance", "flow": "A", "event_id": event_id, "expected_seq": expected_seq,
                "kind": kind, "schema": 1, "payload": payload});
            trace::parse(&json!({"format": "outbox-playground-trace/1", "steps": [step]}).to_string()).map(|_| ()).map_err(|e| e.0)
        };
        let keys = |n: usize| Value::Object((0..n).map(|i| (format!("k{i}"), json!(i))).collect());
        let (id, kind, p) = ("A1", "reserved", json!({}));
        assert_eq!(advance_with(&"a".repeat(64), 0, kind, p.clone()), Ok(()));
        assert_eq!(advance_with(id, 999_999, kind, p.clone()), Ok(()));
        assert_eq!(advance_with(id, 0, &"k".repeat(32), p.clone()), Ok(()));
        assert_eq!(advance_with(id, 0, kind, keys(8)), Ok(()));
        assert_eq!(advance_with(id, 0, kind, json!({"k".repeat(32): 1})), Ok(()));
        assert_eq!(advance_with(id, 0, kind, json!({"note": "x".repeat(256)})), Ok(()));
        for (result, needle) in [
            (advance_with(&"a".repeat(65), 0, kind, p.clone()), "must be 1–64 characters, got 65"),
            (advance_with("A 1", 0, kind, p.clone()), "found U+0020"),
            (advance_with("A\t1", 0, kind, p.clone()), "found U+0009"),
            (advance_with("A<1", 0, kind, p.clone()), "found '<'"),
            (advance_with(id, 1_000_000, kind, p.clone()), "from 0 to 999999, got 1000000"),
            (advance_with(id, 0, &"k".repeat(33), p.clone()), "must be 1–32 characters, got 33"),
            (advance_with(id, 0, kind, keys(9)), "at most 8 keys, got 9"),
            (advance_with(id, 0, kind, json!({"k".repeat(33): 1})), "must be 1–32 characters"),
            (advance_with(id, 0, kind, json!({"": 1})), "must be 1–32 characters"),
            (advance_with(id, 0, kind, json!({"note": "x".repeat(257)})), "is a string longer than 256 characters"),
        ] {
            let e = result.expect_err(needle);
            assert!(e.contains(needle), "{e} (wanted {needle})");
        }
        // A whole trace of up to 1 MiB is read (here valid JSON padded with spaces to exactly that); one byte more
        // is refused for its size, and the refusal prints as its message.
        let text = json!({"format": "outbox-playground-trace/1", "steps": []}).to_string();
        let padded = format!("{text}{}", " ".repeat((1 << 20) - text.len()));
        assert!(trace::parse(&padded).is_ok());
        let relays = vec![json!({"op": "relay"}); 10_000];
        let most = json!({"format": "outbox-playground-trace/1", "steps": relays}).to_string();
        assert_eq!(trace::parse(&most).map(|t| t.steps.len()), Ok(10_000), "10,000 steps are allowed");
        let e = trace::parse(&format!("{padded} ")).unwrap_err();
        assert_eq!(e.to_string(), "the trace is 1048577 bytes; at most 1048576 (1 MiB) are allowed");

        // A share link: 2 MiB characters reach the decoder (here: not a packed trace), one more is refused for its
        // length; a bad character is named, a space by its code point.
        let link = |n: usize| outbox_core::share::decode(&format!("#t={}", "A".repeat(n))).unwrap_err().0;
        assert_eq!(link(2 << 20), "the link: the data is not a packed trace (it may be truncated or altered)");
        assert_eq!(link((2 << 20) + 1), "the link: 2097153 characters is longer than the 2097152 a link may carry");
        let e = outbox_core::share::decode("#t=AB CD").unwrap_err().0;
        assert_eq!(e, "the link: character U+0020 at position 3 is not base64url");

        // A value of the wrong type is named by its type, a number as an integer or not; a value is shown whole
        // up to 40 characters.
        for (text, message) in [
            ("-7", "a trace must be a JSON object, got an integer"),
            ("18446744073709551615", "a trace must be a JSON object, got an integer"),
            ("1.5", "a trace must be a JSON object, got a fractional number"),
        ] {
            assert_eq!(trace::parse(text).unwrap_err().0, message);
        }
        let format = |n: usize| trace::parse(&json!({"format": "x".repeat(n), "steps": []}).to_string()).unwrap_err().0;
        let x = |n: usize| "x".repeat(n);
        assert!(format(38).ends_with(&format!("got \"{}\"", x(38))), "{}", format(38));
        assert!(format(39).ends_with(&format!("got \"{}…", x(36))), "{}", format(39));
    }

    fn every_result_word_reads_back_to_its_outcome() {
        // A real worker answers on its pipe with TRACE.md's word; the parent reads it back (`experiments race`).
        let all = Outcome::all();
        let words: Vec<String> = all.iter().map(Outcome::to_string).collect();
        for (outcome, word) in all.iter().zip(&words) {
            assert_eq!(Outcome::from_name(word), Some(*outcome), "{word}");
        }
        for word in ["committed", "accepted", "duplicate", "applied", "gap", "idle", "blocked:invalid_payload",
            "blocked:unsupported_schema", "blocked:invalid_transition", "rule_error", "crashed", "sql_error", "busy"] {
            assert!(words.iter().any(|w| w == word), "{word} is missing from {words:?}");
        }
        assert_eq!(Outcome::from_name("blocked"), None);
        assert_eq!(ApplyResult::Blocked(BlockReason::InvalidPayload).to_string(), "blocked:invalid_payload");
        assert_eq!(ApplyResult::Gap.to_string(), "gap");
        let stops: Vec<String> = FlowStop::all().iter().map(FlowStop::to_string).collect();
        assert!(["idle", "gap", "limit", "blocked:unsupported_schema"].iter().all(|w| stops.iter().any(|s| s == w)), "{stops:?}");
    }

    fn the_hooks_name_the_tables_each_commit_changed_and_forget_what_rolled_back() {
        use outbox_core::protocol::db::tables::{EFFECT, FLOW, INBOX, OUTBOX, PROJECTION};
        use outbox_core::protocol::Boundary;
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        // Untracked, every table may have changed.
        session.step(&advance("A", 1));
        assert_eq!(session.take_changed_tables(), FLOW | OUTBOX | INBOX | PROJECTION | EFFECT);
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        session.track_changes().unwrap();
        // (step, what it commits): the checker reads back exactly these tables after each step.
        let steps = [
            (advance("A", 1), FLOW | OUTBOX),
            // The process exits before the commit: SQLite rolls back, and so does the mark.
            (
                advance("A", 2).with_crash_at(Some(Boundary::ProducerAfterOutbox)),
                0,
            ),
            (relay(None), OUTBOX | INBOX),
            (relay(Some("A1")), 0),
            (
                apply("A").with_crash_at(Some(Boundary::ApplyAfterEffect)),
                0,
            ),
            (apply("A"), INBOX | PROJECTION | EFFECT),
            (apply("A"), 0),
            // The receive commits, then the process exits before marking the outbox row.
            (advance("A", 2), FLOW | OUTBOX),
            (
                relay(None).with_crash_at(Some(Boundary::RelayAfterMark)),
                INBOX,
            ),
        ];
        for (step, tables) in steps {
            let report = session.step(&step);
            assert_eq!(
                session.take_changed_tables(),
                tables,
                "{step:?} → {:?}",
                report.result
            );
        }
    }
}

/// Runs steps on fresh databases; returns each step's result and the final document.
fn run(setup: ConsumerSetup, steps: &[Step]) -> (Vec<Outcome>, ResultDoc) {
    let mut session = Session::create(&Location::memory(), setup).expect("fresh databases open");
    let reports: Vec<_> = steps.iter().map(|s| session.step(s)).collect();
    let results = reports.iter().map(|r| r.result).collect();
    (results, session.result(reports).expect("snapshot"))
}

fn final_projection(doc: &ResultDoc, flow: &str) -> Option<(String, i64, i64)> {
    doc.consumer
        .projection
        .iter()
        .find(|p| p.flow_id == flow)
        .map(|p| (p.state.clone(), p.last_seq, p.held))
}

fn effect_log(doc: &ResultDoc) -> Vec<(String, String)> {
    doc.consumer
        .effect
        .iter()
        .map(|e| (e.event_id.clone(), e.kind.clone()))
        .collect()
}

fn released(doc: &ResultDoc, flow: &str) -> bool {
    final_projection(doc, flow) == Some(("released".into(), 3, 0))
}

both! {
    fn advance_gives_all_five_results() {
        let mut bad_payload = trace::schema_payload(1);
        bad_payload.insert("amount".into(), 4.into());
        let steps = [
            advance("A", 1),
            advance("A", 1),
            with_payload(advance("A", 1), bad_payload),
            Step::advance("A", "A9", 0, "confirmed", 1),
            Step::advance("A", "A2", 1, "released", 1),
            Step::advance("A", "A2", 1, "confirmed", 3),
            with_payload(advance("A", 2), trace::schema_payload(2)),
            advance("A", 2),
        ];
        let (got, doc) = run(strict(), &steps);
        assert_eq!(got, vec![COMMITTED, EXISTING, CONFLICT, STALE, INVALID_TRANSITION, INVALID_TRANSITION, INVALID_TRANSITION, COMMITTED]);
        // Nothing of the refused steps was stored.
        assert_eq!(doc.producer.outbox.len(), 2);
        assert_eq!((doc.producer.flow[0].seq, doc.producer.flow[0].state.as_str()), (2, "confirmed"));
    }

    fn sqlite_warm_up_runs_in_a_scratch_database_that_leaves_nothing_behind() {
        // Twice, as a page would if it started twice in one module: each scratch database is its own.
        System::warm_up().unwrap();
        System::warm_up().unwrap();
        // And each step alone, as the page runs them (a task each), in any order.
        for step in System::WARM_UP.iter().rev() {
            step().unwrap();
        }
        let (got, doc) = run(strict(), &[advance("A", 1)]);
        assert_eq!(got, vec![COMMITTED]);
        assert_eq!(doc.producer.outbox.len(), 1);
    }

    fn existing_holds_after_the_flow_moved_on() {
        let (got, _) = run(strict(), &[advance("A", 1), advance("A", 2), advance("A", 3), advance("A", 1)]);
        assert_eq!(got.last(), Some(&EXISTING));
    }

    fn unsafe_dual_write_leaves_state_without_outbox() {
        let unsafe_step = advance("A", 1).into_unsafe_dual_write();
        let (got, doc) = run(strict(), &[unsafe_step, relay(None)]);
        assert_eq!(got, vec![CRASHED, IDLE]);
        assert_eq!(doc.producer.flow.len(), 1);
        assert!(doc.producer.outbox.is_empty());
    }

    fn receive_tells_duplicates_and_conflicts_apart() {
        let a1 = json!({"event_id":"A1","flow_id":"A","seq":1,"kind":"reserved","schema":1,"payload":{"amount":3}});
        let a1_other = json!({"event_id":"A1","flow_id":"A","seq":1,"kind":"reserved","schema":1,"payload":{"amount":5}});
        let x1 = json!({"event_id":"X1","flow_id":"A","seq":1,"kind":"reserved","schema":1,"payload":{"amount":3}});
        let bad = json!({"event_id":"A2","flow_id":"A","seq":2,"kind":"confirmed","schema":1,"payload":{"amount":[3]}});
        let (got, doc) = run(strict(), &[receive(a1.clone()), receive(a1), receive(a1_other), receive(x1), receive(bad)]);
        assert_eq!(got, vec![ACCEPTED, DUPLICATE, ID_CONFLICT, SEQUENCE_CONFLICT, REJECTED]);
        assert_eq!(doc.consumer.inbox.len(), 1, "only the first delivery is stored");
        assert_eq!(doc.consumer.inbox[0].state, "pending");
    }

    fn a_rejected_event_names_the_field_and_writes_nothing() {
        let bad = json!({"event_id":"A 2","flow_id":"A","seq":2,"kind":"confirmed","schema":1,"payload":{}});
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        let report = session.step(&receive(bad));
        assert_eq!(report.result, REJECTED);
        assert!(report.message.as_deref().unwrap_or("").contains("event_id"), "{:?}", report.message);
        assert!(session.snapshot().unwrap().consumer.inbox.is_empty());
    }

    fn relay_marks_accepted_only_on_accepted_or_duplicate() {
        let conflicting = json!({"event_id":"A1","flow_id":"A","seq":1,"kind":"reserved","schema":1,"payload":{"amount":5}});
        let (got, doc) = run(strict(), &[
            advance("B", 1), advance("A", 1), receive(conflicting),
            relay(None), relay(None), relay(Some("B1")), relay(Some("B1")), relay(Some("nope")), relay(None),
        ]);
        // Default relay takes (flow_id, seq) order: A1 first, and its conflict is never marked accepted.
        assert_eq!(got, vec![COMMITTED, COMMITTED, ACCEPTED, ID_CONFLICT, ID_CONFLICT, ACCEPTED, DUPLICATE, IDLE, ID_CONFLICT]);
        let accepted: Vec<_> = doc.producer.outbox.iter().map(|r| (r.event_id.as_str(), r.accepted)).collect();
        assert_eq!(accepted, vec![("A1", 0), ("B1", 1)]);
    }

    fn apply_waits_at_a_gap_and_is_idle_when_done() {
        let (got, doc) = run(strict(), &[
            advance("A", 1), advance("A", 2), advance("A", 3),
            relay(Some("A2")), apply("A"), relay(Some("A1")), apply("A"), apply("A"), apply("A"),
        ]);
        assert_eq!(got[3..], vec![ACCEPTED, GAP, ACCEPTED, APPLIED, APPLIED, IDLE][..]);
        assert_eq!(final_projection(&doc, "A"), Some(("confirmed".into(), 2, 3)));
        // Each step's count of events it applied (a real worker reports it to `experiments race`): one for an apply
        // that applied, none otherwise.
        let applied: Vec<usize> = doc.steps[3..].iter().map(|s| s.applied).collect();
        assert_eq!(applied, [0, 0, 0, 1, 1, 0]);
        assert_eq!(run(strict(), &[apply("Z")]).0, vec![IDLE]);
    }

    fn apply_blocks_with_each_reason_and_never_skips() {
        let ev = |id: &str, seq: i64, kind: &str, schema: i64, payload: Value| json!({
            "event_id": id, "flow_id": "A", "seq": seq, "kind": kind, "schema": schema, "payload": payload});
        let cases = [
            (ev("A1", 1, "reserved", 2, json!({"units":3})), blocked(BlockReason::UnsupportedSchema)),
            (ev("A1", 1, "reserved", 1, json!({"amount":5})), blocked(BlockReason::InvalidPayload)),
            (ev("A1", 1, "confirmed", 1, json!({"amount":3})), blocked(BlockReason::InvalidTransition)),
            (ev("A1", 1, "cancelled", 1, json!({"amount":3})), blocked(BlockReason::InvalidTransition)),
        ];
        for (event, want) in cases.clone() {
            let a2 = ev("A2", 2, "confirmed", 1, json!({"amount":3}));
            let (got, doc) = run(strict(), &[receive(event), receive(a2), apply("A"), process_all()]);
            assert_eq!(got[2], want);
            assert_eq!(got[3], DONE);
            let states: Vec<_> = doc.consumer.inbox.iter().map(|r| (r.state.as_str(), r.reason.as_deref())).collect();
            assert_eq!(states, vec![("blocked", want.blocked().map(BlockReason::name)), ("pending", None)]);
            assert!(doc.consumer.projection.is_empty() && doc.consumer.effect.is_empty());
        }
        // The greater-than consumer (a wrong turn for its order, not for its checks) blocks what it cannot read too.
        for (event, want) in cases.into_iter().take(2) {
            let greater_than = ConsumerSetup::builtin(Ordering::GreaterThan, false);
            let (got, doc) = run(greater_than, &[receive(event), apply("A")]);
            assert_eq!(got[1], want);
            assert!(doc.consumer.effect.is_empty());
        }
    }

    fn support_v2_applies_the_same_blocked_events_unchanged() {
        let steps = [
            Step::advance("A", "A1", 0, "reserved", 1),
            Step::advance("A", "A2", 1, "confirmed", 2),
            Step::advance("A", "A3", 2, "released", 2),
            relay(None), relay(None), relay(None), process_all(),
        ];
        let (_, before) = run(strict(), &steps);
        let states: Vec<_> = before.consumer.inbox.iter().map(|r| r.state.as_str()).collect();
        assert_eq!(states, ["applied", "blocked", "pending"]);
        assert_eq!(before.consumer.inbox[1].reason.as_deref(), Some("unsupported_schema"));
        let mut more = steps.to_vec();
        more.extend([Step::SetSupportV2 { on: true }, process_all()]);
        let (_, after) = run(strict(), &more);
        assert!(released(&after, "A"));
        let bodies = |d: &ResultDoc| d.consumer.inbox.iter().map(|r| r.body.clone()).collect::<Vec<_>>();
        assert_eq!(bodies(&before), bodies(&after), "ids, seqs and bodies are untouched");
    }

    fn process_all_stops_at_its_limit() {
        let mut steps: Vec<Step> = (1..=3).map(|n| advance("A", n)).collect();
        steps.extend([relay(None), relay(None), relay(None), Step::process_all(Some(2))]);
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        let reports: Vec<_> = steps.iter().map(|s| session.step(s)).collect();
        let last = reports.last().unwrap();
        assert_eq!(last.result, LIMIT);
        assert_eq!(last.flows.as_ref().unwrap().get("A"), Some(&FlowStop::Limit));
        assert_eq!(session.snapshot().unwrap().consumer.effect.len(), 2);
    }

    fn all_six_arrival_orders_end_the_same() {
        let mut finals = Vec::new();
        for order in ["123", "132", "213", "231", "312", "321"] {
            let mut steps: Vec<Step> = (1..=3).map(|n| advance("A", n)).collect();
            for c in order.chars() {
                steps.push(relay(Some(&format!("A{c}"))));
                steps.push(process_all());
            }
            let (_, doc) = run(strict(), &steps);
            assert!(doc.invariant.holds, "{order}: {:?}", doc.invariant.violations);
            finals.push((final_projection(&doc, "A"), effect_log(&doc)));
        }
        let want = (Some(("released".to_owned(), 3, 0)), vec![
            ("A1".to_owned(), "reserved".to_owned()), ("A2".into(), "confirmed".into()), ("A3".into(), "released".into())]);
        assert!(finals.iter().all(|f| *f == want), "{finals:?}");
    }

    fn dedupe_only_runs_backwards_and_breaks_the_invariant() {
        let mut steps: Vec<Step> = (1..=3).map(|n| advance("A", n)).collect();
        steps.extend(["A3", "A1", "A2", "A3"].map(|id| relay(Some(id))));
        let setup = ConsumerSetup::builtin(Ordering::DedupeOnly, false);
        let (got, doc) = run(setup, &steps);
        assert_eq!(got[3..], vec![ACCEPTED, ACCEPTED, ACCEPTED, DUPLICATE][..]);
        assert_eq!(final_projection(&doc, "A"), Some(("confirmed".into(), 2, 3)));
        assert!(!doc.invariant.holds);
        assert!(doc.invariant.violations[0].contains("flow A"), "{:?}", doc.invariant.violations);
    }

    fn ten_boundaries_at_every_step_recover_to_one_effect_each() {
        // The full three-event delivery: each boundary is tried at every step; where it fires, the process
        // restarts and recovers by resubmitting, resending and processing again.
        let mut fired = [0usize; 10];
        for order in ["123", "213", "321"] {
            let mut base: Vec<Step> = (1..=3).map(|n| advance("A", n)).collect();
            for c in order.chars() {
                base.push(relay(Some(&format!("A{c}"))));
                base.push(apply("A"));
            }
            for boundary in Boundary::ALL {
                for at in 0..base.len() {
                    let mut session = Session::create(&Location::memory(), strict()).unwrap();
                    let mut crashed = false;
                    for (i, step) in base.iter().enumerate() {
                        let step = if i == at { step.clone().with_crash_at(Some(boundary)) } else { step.clone() };
                        let report = session.step(&step);
                        if report.result == CRASHED {
                            assert_eq!(report.boundary, Some(boundary));
                            crashed = true;
                        }
                        let snap = session.snapshot().unwrap();
                        assert!(invariant::check(&snap).holds, "{boundary} at step {at}");
                    }
                    if !crashed {
                        continue;
                    }
                    fired[boundary.number() - 1] += 1;
                    // Recovery: resubmit every transition, resend every event, process everything.
                    for n in 1..=3 {
                        let r = session.step(&advance("A", n)).result;
                        assert!(r == COMMITTED || r == EXISTING, "{boundary} at {at}: {r}");
                        let sent = session.step(&relay(Some(&format!("A{n}")))).result;
                        assert!(sent == ACCEPTED || sent == DUPLICATE, "{boundary} at {at}: resend {sent}");
                    }
                    session.step(&process_all());
                    let doc = session.result(vec![]).unwrap();
                    assert!(doc.invariant.holds, "{boundary} at {at}: {:?}", doc.invariant.violations);
                    assert!(released(&doc, "A"), "{boundary} at {at}");
                    assert_eq!(effect_log(&doc).len(), 3, "{boundary} at {at}: exactly one effect per event");
                }
            }
        }
        assert!(fired.iter().all(|&n| n > 0), "every boundary fired somewhere: {fired:?}");
    }

    fn a_crash_rolls_back_what_the_process_had_not_committed() {
        let cases = [
            (Boundary::ProducerAfterState, 0, 0, 0),
            (Boundary::ProducerAfterOutbox, 0, 0, 0),
            (Boundary::ProducerAfterCommit, 1, 0, 0),
            (Boundary::ReceiveAfterInsert, 1, 0, 0),
            (Boundary::ReceiveAfterCommit, 1, 1, 0),
            (Boundary::RelayAfterMark, 1, 1, 0),
            (Boundary::RelayAfterMarkCommit, 1, 1, 0),
            (Boundary::ApplyAfterProjection, 1, 1, 0),
            (Boundary::ApplyAfterEffect, 1, 1, 0),
            (Boundary::ApplyAfterCommit, 1, 1, 1),
        ];
        for (boundary, outbox, inbox, effects) in cases {
            let steps = [advance("A", 1), relay(None), process_all()];
            let steps: Vec<_> = steps.into_iter().map(|s| s.with_crash_at(Some(boundary))).collect();
            let mut session = Session::create(&Location::memory(), strict()).unwrap();
            for step in &steps {
                if session.step(step).result == CRASHED {
                    break;
                }
            }
            let snap = session.snapshot().unwrap();
            let accepted = snap.producer.outbox.first().map(|r| r.accepted).unwrap_or(0);
            assert_eq!((snap.producer.outbox.len(), snap.consumer.inbox.len(), snap.consumer.effect.len()),
                (outbox, inbox, effects), "{boundary}");
            assert_eq!(snap.producer.flow.len(), outbox, "{boundary}: state and outbox together");
            let want_accepted = i64::from(boundary == Boundary::RelayAfterMarkCommit
                || boundary >= Boundary::ApplyAfterProjection);
            assert_eq!(accepted, want_accepted, "{boundary}");
            assert_eq!(snap.consumer.projection.len(), effects, "{boundary}: projection and effect together");
        }
    }

    fn an_unreached_boundary_is_reported() {
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        let report = session.step(&relay(None).with_crash_at(Some(Boundary::ReceiveAfterInsert)));
        assert_eq!((report.result, report.crash), (IDLE, Some(CrashMark::NotReached)));
        // The unsafe dual write exits on its own before any later boundary: crashed, and not reached.
        let unsafe_step = advance("A", 1).into_unsafe_dual_write().with_crash_at(Some(Boundary::ApplyAfterCommit));
        let report = session.step(&unsafe_step);
        assert_eq!((report.result, report.boundary, report.crash), (CRASHED, None, Some(CrashMark::NotReached)));
        // It passes no boundary at all (TRACE.md, CHECKER.md), not even producer.after_state: armed there, it
        // still commits the state alone and exits on its own.
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        let armed = advance("A", 1).into_unsafe_dual_write().with_crash_at(Some(Boundary::ProducerAfterState));
        let report = session.step(&armed);
        assert_eq!((report.result, report.boundary, report.crash), (CRASHED, None, Some(CrashMark::NotReached)));
        assert!(report.passed.is_empty(), "{:?}", report.passed);
        let tables = session.snapshot().unwrap().producer;
        assert_eq!((tables.flow.len(), tables.outbox.len()), (1, 0));
    }

    fn injected_faults_roll_back_whole_and_report_the_sql_error() {
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        use outbox_core::protocol::FaultTarget;
        session.step(&Step::InjectFault { target: FaultTarget::OutboxInsert });
        let r = session.step(&advance("A", 1));
        assert_eq!(r.result, SQL_ERROR);
        assert!(r.message.unwrap().contains("outbox insert rejected"));
        assert!(session.snapshot().unwrap().producer.flow.is_empty(), "no state change left behind");
        session.step(&Step::ClearFault { target: FaultTarget::OutboxInsert });
        assert_eq!(session.step(&advance("A", 1)).result, COMMITTED);
        session.step(&relay(None));
        session.step(&Step::InjectFault { target: FaultTarget::EffectInsert });
        assert_eq!(session.step(&apply("A")).result, SQL_ERROR);
        let snap = session.snapshot().unwrap();
        assert!(snap.consumer.projection.is_empty() && snap.consumer.effect.is_empty());
        assert_eq!(snap.consumer.inbox[0].state, "pending");
        session.step(&Step::ClearFault { target: FaultTarget::EffectInsert });
        assert_eq!(session.step(&apply("A")).result, APPLIED);
    }

    fn flows_are_independent() {
        let mut steps: Vec<Step> = (1..=3).flat_map(|n| [advance("A", n), advance("B", n)]).collect();
        steps.extend([relay(Some("A1")), relay(Some("A3")), relay(Some("B3")), relay(Some("B2")), relay(Some("B1")), process_all()]);
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        let reports: Vec<_> = steps.iter().map(|s| session.step(s)).collect();
        let flows = reports.last().unwrap().flows.clone().unwrap();
        assert_eq!(flows.get("A"), Some(&FlowStop::Gap));
        assert_eq!(flows.get("B"), Some(&FlowStop::Idle));
        let doc = session.result(reports).unwrap();
        assert_eq!(final_projection(&doc, "A"), Some(("reserved".into(), 1, 3)));
        assert!(released(&doc, "B"));
    }

    fn the_twelve_experiments_reproduce() {
        let checks = experiments::check_all();
        assert_eq!(checks.len(), 12);
        for check in checks {
            let check = check.expect("experiment replays");
            assert!(check.ok(), "{} {}: {:?}", check.id, check.title, check.mismatches);
        }
    }

    fn an_altered_expectation_is_a_mismatch_at_that_field() {
        for experiment in experiments::ALL {
            let doc: Value = serde_json::from_str(experiment.text).unwrap();
            let expected = &doc["experiment"]["expected"];
            let mut paths = Vec::new();
            leaves(expected, String::new(), &mut paths);
            assert!(!paths.is_empty(), "{} expects something", experiment.file);
            // The whole check, as the CLI and the page run it, on a copy with its first field altered ...
            let copy = altered_at(&doc, &paths[0]);
            let text: &'static str = Box::leak(copy.to_string().into_boxed_str());
            let check = experiments::check(&experiments::Experiment {
                file: experiment.file,
                text,
            })
            .expect("the copy replays");
            assert!(!check.ok(), "{} reproduced with {} altered", experiment.file, paths[0]);
            assert!(
                check.mismatches.iter().any(|m| m.starts_with(&format!("{}: expected ", paths[0]))),
                "{}: {:?}",
                experiment.file,
                check.mismatches
            );
            // ... and the comparison of the same result with each of its fields altered in turn, and with a row
            // fewer in each list.
            let actual = check.result.to_value();
            for path in &paths {
                let copy = altered_at(&doc, path);
                let mut mismatches = Vec::new();
                experiments::compare(&copy["experiment"]["expected"], &actual, String::new(), &mut mismatches);
                assert_eq!(mismatches.len(), 1, "{} {path}: {mismatches:?}", experiment.file);
                assert!(mismatches[0].starts_with(&format!("{path}: expected ")), "{mismatches:?}");
            }
            let mut lists = Vec::new();
            lists_of(expected, String::new(), &mut lists);
            for path in lists {
                let mut copy = expected.clone();
                let list = copy.pointer_mut(&path).unwrap().as_array_mut().unwrap();
                let n = list.len();
                list.pop();
                let mut mismatches = Vec::new();
                experiments::compare(&copy, &actual, String::new(), &mut mismatches);
                assert!(
                    mismatches.contains(&format!("{path}: expected {} rows, got {n}", n - 1)),
                    "{} {path}: {mismatches:?}",
                    experiment.file
                );
            }
        }
    }

    fn an_experiment_that_expects_nothing_is_refused_not_passed() {
        // A file whose expectation is empty would reproduce whatever it did.
        let mut doc: Value = serde_json::from_str(experiments::ALL[2].text).unwrap();
        doc["experiment"]["expected"] = json!({});
        let text: &'static str = Box::leak(doc.to_string().into_boxed_str());
        let refused = experiments::check(&experiments::Experiment { file: "empty.json", text }).map(|c| c.ok());
        assert_eq!(refused, Err("empty.json: its `experiment.expected` names nothing to compare".to_owned()));
    }

    fn the_reproduced_result_reads_as_its_expectation() {
        // What the CLI prints beside each experiment: the result cut to the expectation's shape equals it.
        for check in experiments::check_all() {
            let check = check.unwrap();
            assert_eq!(check.got, check.expected, "{}", check.id);
            assert_eq!(experiments::digest(&check.got), experiments::digest(&check.expected));
        }
    }

    fn a_digest_folds_repeated_results_and_names_each_table() {
        let doc = json!({
            "steps": [
                { "result": "committed" }, { "result": "committed" },
                { "result": "crashed", "boundary": "apply.after_effect" }, { "result": "applied" }
            ],
            "producer": {
                "flow": [{ "flow_id": "A", "state": "released", "seq": 3 }],
                "outbox": [{ "event_id": "A1", "accepted": 1 }, { "event_id": "A2", "accepted": 0 }]
            },
            "consumer": {
                "inbox": [{ "event_id": "A1", "state": "applied" }],
                "projection": [{ "flow_id": "A", "state": "reserved", "last_seq": 1, "held": null }],
                "effect": [{ "event_id": "A1", "kind": "reserved" }]
            },
            "invariant": { "holds": false }
        });
        assert_eq!(
            experiments::digest(&doc),
            "steps committed×2 crashed@apply.after_effect applied · flow [A=released/3] · \
             outbox [A1:accepted=1 A2:accepted=0] · inbox [A1:applied] · projection [A=reserved/1/-] · \
             effect [A1:reserved] · invariant broken"
        );
        assert_eq!(
            experiments::digest(&json!({ "steps": [{ "result": "gap" }], "invariant": { "holds": true } })),
            "steps gap · invariant holds"
        );
        // A field the expectation leaves out reads `_`.
        assert_eq!(
            experiments::digest(&json!({ "consumer": { "projection": [{ "flow_id": "B" }] } })),
            "projection [B=_/_/_]"
        );
    }

    fn the_trace_md_example_gives_the_trace_md_result() {
        let text = r#"{
          "format": "outbox-playground-trace/1",
          "consumer": { "ordering": "strict", "support_v2": false },
          "steps": [
            { "op": "advance", "flow": "A", "event_id": "A1", "expected_seq": 0, "kind": "reserved", "schema": 1, "payload": { "amount": 3 } },
            { "op": "relay", "event_id": "A1", "crash_at": "receive.after_commit" },
            { "op": "relay" },
            { "op": "apply", "flow": "A" },
            { "op": "process_all" }
          ]
        }"#;
        let body = r#"{"event_id":"A1","flow_id":"A","kind":"reserved","payload":{"amount":3},"schema":1,"seq":1}"#;
        let want = json!({
          "format": "outbox-playground-result/1",
          "steps": [ { "op": "advance", "result": "committed" },
                     { "op": "relay", "result": "crashed", "boundary": "receive.after_commit" },
                     { "op": "relay", "result": "duplicate" },
                     { "op": "apply", "result": "applied" },
                     { "op": "process_all", "result": "done", "flows": { "A": "idle" } } ],
          "producer": { "flow": [ { "flow_id": "A", "seq": 1, "state": "reserved", "amount": 3 } ],
                        "outbox": [ { "event_id": "A1", "flow_id": "A", "seq": 1, "body": body, "accepted": 1 } ] },
          "consumer": { "support_v2": false,
                        "inbox": [ { "event_id": "A1", "flow_id": "A", "seq": 1, "body": body, "state": "applied", "reason": null } ],
                        "projection": [ { "flow_id": "A", "last_seq": 1, "state": "reserved", "held": 3 } ],
                        "effect": [ { "event_id": "A1", "flow_id": "A", "seq": 1, "kind": "reserved", "held": 3 } ] },
          "invariant": { "holds": true, "violations": [] }
        });
        assert_eq!(trace::replay_text(text).unwrap().to_value(), want);
    }

    fn bad_traces_are_refused_whole_with_the_step_and_field_named() {
        let step = |s: &str| format!(r#"{{"format":"outbox-playground-trace/1","steps":[{{"op":"relay"}},{s}]}}"#);
        let cases: Vec<(String, &str)> = vec![
            ("not json".into(), "not valid JSON"),
            ("[]".into(), "must be a JSON object"),
            (r#"{"steps":[]}"#.into(), "missing field `format`"),
            (r#"{"format":"outbox-playground-trace/2","steps":[]}"#.into(), "field `format`"),
            (r#"{"format":"outbox-playground-trace/1"}"#.into(), "missing field `steps`"),
            (r#"{"format":"outbox-playground-trace/1","steps":{}}"#.into(), "must be a list"),
            (r#"{"format":"outbox-playground-trace/1","steps":[],"x":1}"#.into(), "unknown field \"x\""),
            (r#"{"format":"outbox-playground-trace/1","consumer":{"ordering":"fifo"},"steps":[]}"#.into(), "field `consumer`: field `ordering` must be one of `strict`, `dedupe_only`, `greater_than`, `skip_blocked`, `effect_outside_tx`, `rule`, got \"fifo\""),
            (r#"{"format":"outbox-playground-trace/1","consumer":{"support_v2":1.5},"steps":[]}"#.into(), "field `support_v2` must be true or false, got 1.5"),
            (r#"{"format":"outbox-playground-trace/1","consumer":{"order":"strict"},"steps":[]}"#.into(), "unknown field `order`, expected `ordering`, `support_v2`, `rule` or `effect`"),
            (r#"{"format":"outbox-playground-trace/1","consumer":[],"steps":[]}"#.into(), "field `consumer`: must be an object"),
            (step(r#"{"op":"advnce"}"#), "step 2 (advnce)"),
            (step(r#"{"flow":"A"}"#), "step 2: missing field `op`"),
            (step(r#"7"#), "step 2: must be an object"),
            (step(r#"{"op":"apply"}"#), "missing field `flow`"),
            (step(r#"{"op":"apply","flow":""}"#), "field `flow` must be 1–64"),
            (step(r#"{"op":"apply","flow":"<img>"}"#), "field `flow` may hold only"),
            (step(r#"{"op":"relay","event_id":"x","crash_at":"apply.after"}"#), "field `crash_at` must be one of"),
            (step(r#"{"op":"relay","event_id":"A 1"}"#), "step 2 (relay): field `event_id` may hold only"),
            (step(r#"{"op":"set_support_v2","on":true,"crash_at":"apply.after_commit"}"#), "unknown field `crash_at`"),
            (step(r#"{"op":"advance","flow":"A","event_id":"A1","expected_seq":-1,"kind":"reserved","schema":1,"payload":{}}"#), "field `expected_seq`"),
            (step(r#"{"op":"advance","flow":"A","event_id":"A1","expected_seq":0,"kind":"reserved","schema":0,"payload":{}}"#), "field `schema`"),
            (step(r#"{"op":"advance","flow":"A","event_id":"A1","expected_seq":0,"kind":"reserved","schema":1,"payload":{"a":{"b":1}}}"#), "field `payload`"),
            (step(r#"{"op":"advance","flow":"A","event_id":"A1","expected_seq":0,"kind":"","schema":1,"payload":{}}"#), "field `kind`"),
            (step(r#"{"op":"process_all","limit":0}"#), "field `limit`"),
            (step(r#"{"op":"inject_fault","target":"inbox"}"#), "step 2 (inject_fault)"),
            // A required field set to null is there, and refused as what it is.
            (step(r#"{"op":"apply","flow":null}"#), "field `flow` must be a string, got null"),
            (r#"{"format":"outbox-playground-trace/1","consumer":{"ordering":null},"steps":[]}"#.into(), "field `consumer`: field `ordering` must be one of"),
            (r#"{"format":"outbox-playground-trace/1","consumer":{"support_v2":null},"steps":[]}"#.into(), "field `support_v2` must be true or false, got null"),
        ];
        for (text, needle) in cases {
            let err = trace::parse(&text).expect_err(&text).0;
            assert!(err.contains(needle), "{text}\n  gave: {err}\n  wanted: {needle}");
        }
        let huge = format!(r#"{{"format":"outbox-playground-trace/1","steps":[{}]}}"#, vec![r#"{"op":"relay"}"#; 10_001].join(","));
        let e = trace::parse(&huge).unwrap_err().0;
        assert!(e.contains("10001 steps; at most 10000"), "{e}");
        let big = format!(r#"{{"format":"outbox-playground-trace/1","steps":[],"experiment":"{}"}}"#, "x".repeat(1 << 20));
        assert!(trace::parse(&big).unwrap_err().0.contains("1 MiB"));
        // An optional field set to null is absent.
        let t = trace::parse(&step(r#"{"op":"relay","event_id":null,"crash_at":null}"#)).unwrap();
        assert_eq!(t.steps[1], relay(None));
    }

    fn a_receive_of_a_null_event_is_a_step_the_consumer_rejects() {
        // TRACE.md: a receive step's event is checked by the consumer at run time, so a malformed one arrives.
        let t = trace::parse(r#"{"format":"outbox-playground-trace/1","steps":[{"op":"receive","event":null}]}"#).unwrap();
        let doc = trace::replay(&t).unwrap();
        assert_eq!(doc.steps[0].result, REJECTED);
        assert!(doc.steps[0].message.as_deref().unwrap().contains("must be a JSON object, got null"));
    }

    // The checker runs in this build too (natively, and in wasm32 in Chromium): strict holds on a small
    // configuration, the dedupe-only control breaks the invariant with its three-step history, and the
    // effect outside the transaction leaves an effect without its apply at apply.after_effect.
    fn the_checker_searches_every_history_in_this_build() {
        use outbox_core::checker::{Config, Property, Search, Verdict};
        let small = Config { flows: 1, events: 2, resends: 1, crashes: 1, ..Config::default() };
        let mut search = Search::new(small.clone()).unwrap();
        while !search.run(50).unwrap() {}
        assert!(matches!(search.verdict(), Some(Verdict::Holds)));
        assert!(search.counts().states > 10);
        for (consumer, length, last) in [
            (Ordering::DedupeOnly, 3, ACCEPTED),
            (Ordering::EffectOutsideTx, 3, CRASHED),
        ] {
            let mut search = Search::new(Config { consumer, ..small.clone() }).unwrap();
            let Some(Verdict::Violated(c)) = search.finish().ok().cloned() else {
                panic!("{consumer:?} was not caught");
            };
            assert_eq!(c.violation.property, Property::ConsumerInvariant);
            assert_eq!(c.reports.len(), length, "{consumer:?}");
            assert_eq!(c.reports[length - 1].result, last);
        }
    }

    // The page's workers share a search with no shared memory (`checker::shard`): in this build too, two and
    // three of them find one thread's counts, and its counterexample move for move, with flows renamed away
    // by symmetry or not. (tests/checker.rs runs the larger configurations natively.)
    fn workers_sharing_a_search_find_what_one_thread_finds() {
        use outbox_core::checker::{shard, Config, Search, Verdict};
        let small = Config { flows: 2, events: 2, resends: 1, crashes: 1, ..Config::default() };
        let cases = [
            small.clone(),
            Config { symmetry: true, ..small.clone() },
            Config { consumer: Ordering::GreaterThan, ..small.clone() },
            Config { consumer: Ordering::EffectOutsideTx, ..small.clone() },
            Config { consumer: Ordering::SkipBlocked, schema2: Config::parse_schema2("A2"), ..small.clone() },
        ];
        for c in cases {
            let mut one = Search::new(c.clone()).unwrap();
            one.finish().unwrap();
            for workers in [2, 3] {
                let (counts, verdict, owned) = shard::run(&c, workers, c.symmetry).unwrap();
                assert_eq!(counts, one.counts(), "{c:?}, {workers} workers");
                // Every worker owns a share of the states: a search on every core, not on one.
                assert!(owned.iter().all(|&n| n * 2 * workers >= owned.iter().sum::<usize>()), "{c:?}: {owned:?}");
                // ... and each state is owned by exactly one.
                assert_eq!(owned.iter().sum::<usize>() as u64, counts.states, "{c:?}: {owned:?}");
                match (one.verdict().unwrap(), &verdict) {
                    (Verdict::Holds, Verdict::Holds) => {}
                    (Verdict::Violated(a), Verdict::Violated(b)) => {
                        assert_eq!((&a.violation, &a.moves), (&b.violation, &b.moves), "{c:?}, {workers} workers");
                    }
                    (a, b) => panic!("{c:?}, {workers} workers: one thread {}, workers {}", a.word(), b.word()),
                }
            }
        }
    }

    fn an_exported_trace_parses_back_to_the_same_steps() {
        let steps = vec![advance("A", 1), relay(None).with_crash_at(Some(Boundary::RelayAfterMark)), process_all(),
            Step::SetSupportV2 { on: true }];
        let t = trace::Trace::new(strict(), steps.clone());
        assert_eq!(trace::parse(&t.to_json_pretty().unwrap()).unwrap().steps, steps);
    }

    fn the_pretty_printer_writes_what_serde_json_writes() {
        // Nested and empty containers, escapes (a quote, a backslash, a newline) and punctuation inside strings.
        let value = json!({
            "a": [], "b": {}, "c": [1, [2, {}], {"d": "x\"y\\z\n,:{}[]"}], "e": null, "f": true, "g": -3,
        });
        let compact = serde_json::to_string(&value).unwrap();
        assert_eq!(trace::pretty(&compact), serde_json::to_string_pretty(&value).unwrap());
    }
}

/// The page writes traces by hand (serde's derived writer is native only, for this comparison): the same bytes
/// as serde_json for every op, every optional field present and absent, escapes, and every experiment file.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_hand_written_trace_writer_writes_what_serde_writes() {
    use outbox_core::protocol::FaultTarget;
    let mut payload = trace::schema_payload(2);
    payload.insert("note".into(), json!("a \"quote\", a \\ and 预留\n"));
    let steps = vec![
        with_payload(advance("A", 1), payload).with_crash_at(Some(Boundary::ProducerAfterOutbox)),
        advance("A\"1", 2).into_unsafe_dual_write(),
        relay(None),
        relay(Some("A1")).with_crash_at(Some(Boundary::RelayAfterMark)),
        receive(json!({"event_id": "A2", "seq": 2, "payload": {"amount": 3}})),
        apply("A"),
        Step::process_all(Some(7)).with_crash_at(Some(Boundary::ApplyAfterCommit)),
        process_all(),
        Step::SetSupportV2 { on: true },
        Step::SetSupportV2 { on: false },
        Step::InjectFault {
            target: FaultTarget::OutboxInsert,
        },
        Step::ClearFault {
            target: FaultTarget::EffectInsert,
        },
        Step::SetSynchronous {
            mode: outbox_core::protocol::Synchronous::Off,
        },
        Step::Checkpoint,
        Step::PowerCut {
            databases: vec![outbox_core::protocol::Role::Consumer],
        },
        Step::PowerCut {
            databases: vec![
                outbox_core::protocol::Role::Producer,
                outbox_core::protocol::Role::Consumer,
            ],
        },
    ];
    let setup = ConsumerSetup::builtin(Ordering::SkipBlocked, true);
    let mut traces = vec![
        trace::Trace::new(setup, steps),
        trace::Trace::new(strict(), vec![]),
    ];
    traces.extend(
        experiments::ALL
            .iter()
            .map(|e| trace::parse(e.text).unwrap()),
    );
    for t in traces {
        assert_eq!(t.to_json().unwrap(), serde_json::to_string(&t).unwrap());
        assert_eq!(
            t.to_json_pretty().unwrap(),
            serde_json::to_string_pretty(&t).unwrap()
        );
    }
}

#[path = "core/rules.rs"]
mod rules;

#[path = "core/power.rs"]
mod power;

#[path = "core/actions.rs"]
mod actions;

#[cfg(not(target_arch = "wasm32"))]
#[path = "core/native.rs"]
mod native;

// What the page's controls show of a session's consumer (its ordering, schema 2 support, the trace's setup)
// follows the session from its start through a reset.
both! {
    fn a_session_tells_the_consumer_it_runs() {
        let first = ConsumerSetup {
            ordering: Ordering::DedupeOnly,
            rule: None,
            support_v2: true,
        };
        let mut session = Session::create(&Location::memory(), first.clone()).unwrap();
        assert_eq!((session.ordering(), session.support_v2()), (Ordering::DedupeOnly, true));
        assert_eq!(session.setup(), first);
        session.reset(strict()).unwrap();
        assert_eq!((session.ordering(), session.support_v2()), (Ordering::Strict, false));
        assert_eq!(session.setup(), strict());
    }
}

/// Every leaf of `v` with its path as `experiments::compare` names it (`/steps/2/result`, a JSON pointer).
fn leaves(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| leaves(x, format!("{path}/{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| leaves(x, format!("{path}/{i}"), out)),
        _ => out.push(path),
    }
}

/// The path of every non-empty list in `v`.
fn lists_of(v: &Value, path: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => m
            .iter()
            .for_each(|(k, x)| lists_of(x, format!("{path}/{k}"), out)),
        Value::Array(a) => {
            if !a.is_empty() {
                out.push(path.clone());
            }
            a.iter()
                .enumerate()
                .for_each(|(i, x)| lists_of(x, format!("{path}/{i}"), out));
        }
        _ => {}
    }
}

/// A copy of the experiment file `doc` whose expected field at `path` says something else.
fn altered_at(doc: &Value, path: &str) -> Value {
    let mut copy = doc.clone();
    let field = copy
        .pointer_mut(&format!("/experiment/expected{path}"))
        .unwrap();
    *field = match &*field {
        Value::String(s) => Value::String(format!("{s}?")),
        Value::Number(n) => json!(n.as_i64().expect("whole numbers") + 1),
        Value::Bool(b) => Value::Bool(!b),
        _ => json!("?"),
    };
    copy
}
