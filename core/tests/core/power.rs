//! Power loss in the page's model (TRACE.md `set_synchronous`, `checkpoint`, `power_cut`): under FULL a cut
//! loses nothing committed; under NORMAL what the last checkpoint had not synced; under OFF everything since
//! the start. Natively and in the browser, like the rest of this file.

use super::*;
use outbox_core::lang::Lang;
use outbox_core::protocol::{Role, Synchronous};

fn sync(mode: Synchronous) -> Step {
    Step::SetSynchronous { mode }
}

fn cut(databases: &[Role]) -> Step {
    Step::PowerCut {
        databases: databases.to_vec(),
    }
}

/// A1 produced and delivered: the consumer's inbox holds it and the producer marked it accepted.
fn delivered() -> Vec<Step> {
    vec![advance("A", 1), relay(None)]
}

fn accepted(doc: &ResultDoc) -> Vec<(String, i64)> {
    doc.producer
        .outbox
        .iter()
        .map(|r| (r.event_id.clone(), r.accepted))
        .collect()
}

fn inbox(doc: &ResultDoc) -> Vec<String> {
    doc.consumer
        .inbox
        .iter()
        .map(|r| r.event_id.clone())
        .collect()
}

fn badge(doc: &ResultDoc) -> invariant::Invariant {
    invariant::check_with_loss(&outbox_core::protocol::Snapshot {
        producer: doc.producer.clone(),
        consumer: doc.consumer.clone(),
    })
}

both! {
    fn under_full_a_power_cut_loses_nothing_committed() {
        let mut steps = delivered();
        steps.push(cut(&[Role::Producer, Role::Consumer]));
        let (results, doc) = run(strict(), &steps);
        assert_eq!(results, [COMMITTED, ACCEPTED, Outcome::Ok]);
        assert_eq!(doc.steps[2].lost_rows, 0);
        assert_eq!(inbox(&doc), ["A1"]);
        assert_eq!(accepted(&doc), [("A1".to_owned(), 1)]);
        assert!(badge(&doc).holds);
    }

    fn under_normal_the_consumers_cut_loses_an_acknowledged_event() {
        let mut steps = vec![sync(Synchronous::Normal)];
        steps.extend(delivered());
        steps.push(cut(&[Role::Consumer]));
        // The relay has nothing left to resend: the producer believes A1 delivered.
        steps.push(relay(None));
        let (results, doc) = run(strict(), &steps);
        assert_eq!(results, [Outcome::Ok, COMMITTED, ACCEPTED, Outcome::Ok, IDLE]);
        assert_eq!(doc.steps[3].lost_rows, 1);
        assert!(inbox(&doc).is_empty());
        assert_eq!(accepted(&doc), [("A1".to_owned(), 1)]);
        let b = badge(&doc);
        assert!(!b.holds);
        assert_eq!(
            b.violations,
            ["no_loss: A1 is marked accepted but the inbox does not hold it"]
        );
        // The consumer's own invariant cannot see it: only no_loss does.
        assert!(doc.invariant.holds);

        let trace = trace::Trace::new(strict(), steps[..4].to_vec());
        let x = outbox_core::explain::explain(&trace, Lang::En).unwrap().unwrap();
        assert_eq!(x.step, Some(3));
        assert_eq!(x.steps, [2, 3]);
        assert!(x.text.contains("Step 4 (power cut)"), "{}", x.text);
        assert!(x.text.contains("under synchronous=NORMAL SQLite syncs its WAL only at a checkpoint"), "{}", x.text);
        assert!(x.text.contains("at step 3 (relay A1)"), "{}", x.text);
        let zh = outbox_core::explain::explain(&trace, Lang::Zh).unwrap().unwrap();
        assert!(zh.text.contains("第 4 步（断电）"), "{}", zh.text);
    }

    fn under_normal_a_checkpoint_syncs_and_the_cut_keeps_it() {
        let mut steps = vec![sync(Synchronous::Normal)];
        steps.extend(delivered());
        steps.push(Step::Checkpoint);
        steps.push(advance("A", 2));
        steps.push(cut(&[Role::Producer, Role::Consumer]));
        let (results, doc) = run(strict(), &steps);
        assert_eq!(results[5], Outcome::Ok);
        // A1 and its delivery were checkpointed; A2 was committed after the checkpoint and is gone, with its
        // outbox row: a committed step lost, which no resend brings back.
        assert_eq!(inbox(&doc), ["A1"]);
        assert_eq!(accepted(&doc), [("A1".to_owned(), 1)]);
        assert_eq!(doc.producer.flow[0].seq, 1);
        assert_eq!(doc.steps[5].lost_rows, 2, "A2's flow row back to seq 1, and its outbox row gone");
        assert!(badge(&doc).holds);
    }

    fn under_off_nothing_is_ever_synced_not_even_at_a_checkpoint() {
        let mut steps = vec![sync(Synchronous::Off)];
        steps.extend(delivered());
        steps.push(Step::Checkpoint);
        steps.push(cut(&[Role::Consumer]));
        let (_, doc) = run(strict(), &steps);
        assert!(inbox(&doc).is_empty());
        assert!(!badge(&doc).holds);
        let x = outbox_core::explain::explain(&trace::Trace::new(strict(), steps), Lang::En)
            .unwrap()
            .unwrap();
        assert!(x.text.contains("under synchronous=OFF SQLite never syncs"), "{}", x.text);
    }

    fn back_to_full_syncs_and_a_cut_only_of_the_producer_keeps_the_consumer() {
        let mut steps = vec![sync(Synchronous::Normal)];
        steps.extend(delivered());
        steps.push(sync(Synchronous::Full));
        steps.push(cut(&[Role::Consumer]));
        let (_, doc) = run(strict(), &steps);
        assert_eq!(inbox(&doc), ["A1"]);

        let mut steps = vec![sync(Synchronous::Normal)];
        steps.extend(delivered());
        steps.push(cut(&[Role::Producer]));
        let (_, doc) = run(strict(), &steps);
        // The producer forgets A1 altogether (its flow row and its outbox row: two rows); the consumer's
        // disk is untouched and still holds it.
        assert_eq!(doc.steps[3].lost_rows, 2);
        assert_eq!(inbox(&doc), ["A1"]);
        assert!(doc.producer.outbox.is_empty());
        assert!(badge(&doc).holds);
    }

    fn the_power_steps_read_and_write_as_trace_md_spells_them() {
        let text = r#"{"format":"outbox-playground-trace/1","consumer":{"ordering":"strict","support_v2":false},"steps":[{"op":"set_synchronous","mode":"normal"},{"op":"checkpoint"},{"op":"power_cut","databases":["consumer","producer"]}]}"#;
        let t = trace::parse(text).unwrap();
        assert_eq!(
            t.steps,
            [
                sync(Synchronous::Normal),
                Step::Checkpoint,
                cut(&[Role::Consumer, Role::Producer])
            ]
        );
        assert_eq!(t.to_json().unwrap(), text);
    }

    fn a_bad_power_step_is_refused_naming_the_field() {
        let refused = |step: &str| {
            let text = format!(
                r#"{{"format":"outbox-playground-trace/1","steps":[{step}]}}"#
            );
            trace::parse(&text).unwrap_err().0
        };
        assert_eq!(
            refused(r#"{"op":"power_cut"}"#),
            "step 1 (power_cut): missing field `databases` (a list of one or two of `producer`, `consumer`)"
        );
        assert_eq!(
            refused(r#"{"op":"power_cut","databases":[]}"#),
            "step 1 (power_cut): field `databases` is empty; expected a list of one or two of `producer`, `consumer`"
        );
        assert_eq!(
            refused(r#"{"op":"power_cut","databases":"consumer"}"#),
            "step 1 (power_cut): field `databases` must be a list of one or two of `producer`, `consumer`, got a string"
        );
        assert_eq!(
            refused(r#"{"op":"power_cut","databases":["disk"]}"#),
            "step 1 (power_cut): field `databases`: \"disk\" is not one of `producer`, `consumer`"
        );
        assert_eq!(
            refused(r#"{"op":"power_cut","databases":["consumer","consumer"]}"#),
            "step 1 (power_cut): field `databases` names `consumer` twice"
        );
        assert!(refused(r#"{"op":"set_synchronous","mode":"fast"}"#)
            .starts_with("step 1 (set_synchronous): field `mode`"));
        assert_eq!(
            refused(r#"{"op":"checkpoint","crash_at":"apply.after_commit"}"#),
            "step 1 (checkpoint): unknown field `crash_at`, expected no fields"
        );
    }
}

/// Flow `F{i}`'s first event (a flow of one event): its commit writes the flow row, the outbox row and their
/// indexes.
fn first_of_flow(i: usize) -> Step {
    Step::advance(&format!("F{i}"), &format!("F{i}.1"), 0, "reserved", 1)
}

/// Under NORMAL, 400 flows' first events (`again`: with NORMAL chosen once more after the 200th), then a cut of
/// the producer: the flows its disk kept, and the report's count of lost rows.
fn producer_after_400_commits(again: bool) -> (usize, usize) {
    let mut session = Session::create(&Location::memory(), strict()).unwrap();
    session.step(&sync(Synchronous::Normal));
    for i in 0..400 {
        if again && i == 200 {
            session.step(&sync(Synchronous::Normal));
        }
        assert_eq!(session.step(&first_of_flow(i)).result, COMMITTED);
    }
    let report = session.step(&cut(&[Role::Producer]));
    (
        session.snapshot().unwrap().producer.flow.len(),
        report.lost_rows,
    )
}

both! {
    fn under_normal_sqlite_checkpoints_by_itself_once_the_wal_holds_a_thousand_pages() {
        let (kept, lost) = producer_after_400_commits(false);
        assert!(kept > 0, "an automatic checkpoint synced some of the 400 commits");
        assert!(kept < 400, "and not the commits after it");
        assert_eq!(lost, 2 * (400 - kept), "each lost flow takes its outbox row along");
        // Choosing the mode it already has changes nothing: the WAL keeps its count.
        assert_eq!(producer_after_400_commits(true), (kept, lost));
    }

    fn the_consumers_wal_is_checkpointed_by_itself_too() {
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        session.step(&sync(Synchronous::Normal));
        for i in 0..400 {
            session.step(&first_of_flow(i));
            assert_eq!(session.step(&relay(Some(&format!("F{i}.1")))).result, ACCEPTED);
        }
        session.step(&cut(&[Role::Consumer]));
        let kept = session.snapshot().unwrap().consumer.inbox.len();
        assert!(kept > 0, "an automatic checkpoint synced some of the 400 deliveries");
        assert!(kept < 400, "and not the deliveries after it");
    }

    fn the_pages_written_under_full_do_not_count_toward_normals_checkpoint() {
        // A commit here writes about 7 pages: 120 or 100 of them stay under the 1,000 of a checkpoint, the 220
        // together would not.
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        for i in 0..120 {
            session.step(&first_of_flow(i));
        }
        session.step(&sync(Synchronous::Normal));
        for i in 120..220 {
            session.step(&first_of_flow(i));
        }
        let report = session.step(&cut(&[Role::Producer]));
        // FULL synced the 120 as they committed; the 100 under NORMAL were never checkpointed and are gone.
        assert_eq!(report.lost_rows, 200);
        assert_eq!(session.snapshot().unwrap().producer.flow.len(), 120);
    }
}

both! {
    fn after_a_cut_the_next_effects_are_reported_though_their_ids_are_reused() {
        let mut session = Session::create(&Location::memory(), strict()).unwrap();
        session.set_effect_log(true);
        let mut effects = Vec::new();
        for step in [sync(Synchronous::Normal), advance("A", 1), relay(None), process_all(), cut(&[Role::Consumer]), relay(Some("A1")), process_all()] {
            effects.push(session.step(&step).effects.len());
        }
        assert_eq!(effects, [0, 0, 0, 1, 0, 0, 1], "the effect applied again after the cut is drawn");
    }
}
