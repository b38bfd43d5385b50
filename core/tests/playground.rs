//! The playground's façade as the page drives it: commands in, the tables, the wire and the log out. Native
//! only: the façade is plain Rust over the same engine the wasm32 core tests exercise in Chromium.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::playground::{Command, Notice, Playground, Replay};
use outbox_core::protocol::{Boundary, Outcome, Receipt};
use outbox_core::trace::{ConsumerSetup, Step, Trace};

fn fresh() -> Playground {
    Playground::new(ConsumerSetup::default()).expect("in-memory databases open")
}

fn lane(pg: &Playground) -> Vec<&str> {
    pg.lane.iter().map(|c| c.event_id.as_str()).collect()
}

fn results(pg: &Playground) -> Vec<Outcome> {
    pg.entries[..pg.pos]
        .iter()
        .map(|e| e.report.result)
        .collect()
}

fn effects(pg: &Playground) -> Vec<&str> {
    pg.snapshot
        .consumer
        .effect
        .iter()
        .map(|e| e.event_id.as_str())
        .collect()
}

/// A1–A3 produced, delivered in order and applied: nine steps.
fn happy(pg: &mut Playground) {
    for _ in 0..3 {
        pg.apply(Command::Advance("A".into()));
    }
    pg.apply(Command::DeliverAll);
    pg.apply(Command::ProcessAll);
}

fn long_trace(flows: usize) -> Trace {
    let mut steps = Vec::new();
    for f in 0..flows {
        let flow = format!("F{f}");
        for (n, kind) in ["reserved", "confirmed", "released"]
            .into_iter()
            .enumerate()
        {
            steps.push(Step::advance(
                &flow,
                &format!("{flow}.{}", n + 1),
                n as i64,
                kind,
                1,
            ));
            steps.push(Step::relay(None));
        }
    }
    steps.push(Step::process_all(None));
    Trace::new(ConsumerSetup::default(), steps)
}

#[test]
fn advancing_puts_a_card_on_the_wire_and_delivering_takes_it_off() {
    let mut pg = fresh();
    pg.apply(Command::Advance("A".into()));
    pg.apply(Command::Advance("A".into()));
    assert_eq!(lane(&pg), ["A1", "A2"]);
    assert_eq!(results(&pg), [Outcome::COMMITTED, Outcome::COMMITTED]);
    pg.apply(Command::DeliverNext);
    assert_eq!(lane(&pg), ["A2"]);
    assert_eq!(pg.last().unwrap().report.result, Outcome::ACCEPTED);
    assert_eq!(pg.snapshot.consumer.inbox.len(), 1);
}

#[test]
fn the_article_arrival_order_312_waits_at_the_gap_then_applies_in_order() {
    let mut pg = fresh();
    pg.apply(Command::Order("312"));
    assert_eq!(lane(&pg), ["A3", "A1", "A2"]);
    pg.apply(Command::DeliverNext);
    pg.apply(Command::Apply("A".into()));
    assert_eq!(pg.last().unwrap().report.result, Outcome::GAP);
    pg.apply(Command::DeliverAll);
    pg.apply(Command::ProcessAll);
    assert_eq!(effects(&pg), ["A1", "A2", "A3"]);
    assert!(pg.invariant.holds);
}

#[test]
fn a_crash_takes_the_process_down_and_restart_resends_what_was_not_accepted() {
    let mut pg = fresh();
    pg.apply(Command::Advance("A".into()));
    pg.apply(Command::Arm(Some(Boundary::ReceiveAfterCommit)));
    pg.apply(Command::DeliverNext);
    let last = &pg.last().unwrap().report;
    assert_eq!(
        (last.result, last.boundary),
        (Outcome::Crashed, Some(Boundary::ReceiveAfterCommit))
    );
    assert_eq!(pg.down, Some(Some(Boundary::ReceiveAfterCommit)));
    assert_eq!(pg.armed, None, "a crash disarms");
    // The inbox committed the row, the relay never marked it accepted: the card stays for the resend.
    assert_eq!(lane(&pg), ["A1"]);
    pg.apply(Command::Restart);
    assert_eq!(
        pg.notice,
        Some(Notice::Restarted(Some(Boundary::ReceiveAfterCommit)))
    );
    assert_eq!(pg.down, None);
    pg.apply(Command::DeliverNext);
    assert_eq!(
        pg.last().unwrap().report.result,
        Outcome::Received(Receipt::Duplicate)
    );
    pg.apply(Command::ProcessAll);
    assert_eq!(effects(&pg), ["A1"]);
}

#[test]
fn restart_after_the_producer_died_after_committing_puts_the_row_on_the_wire() {
    let mut pg = fresh();
    pg.apply(Command::Arm(Some(Boundary::ProducerAfterCommit)));
    pg.apply(Command::Advance("A".into()));
    assert_eq!(pg.last().unwrap().report.result, Outcome::Crashed);
    assert!(lane(&pg).is_empty(), "the card never reached the wire");
    pg.apply(Command::Restart);
    assert_eq!(
        lane(&pg),
        ["A1"],
        "the restarted relay reads the outbox again"
    );
    pg.apply(Command::Restart);
    assert_eq!(pg.notice, Some(Notice::CleanRestart));
    assert_eq!(lane(&pg), ["A1"], "no second card for the same row");
}

#[test]
fn time_travel_back_shows_the_tables_then_and_forward_again_restores_them() {
    let mut pg = fresh();
    happy(&mut pg);
    let end = pg.entries.len();
    assert_eq!(effects(&pg), ["A1", "A2", "A3"]);
    pg.apply(Command::Seek(3));
    assert_eq!(pg.pos, 3);
    assert_eq!(pg.entries.len(), end, "the future stays for going forward");
    assert!(effects(&pg).is_empty());
    assert_eq!(
        lane(&pg),
        ["A1", "A2", "A3"],
        "the wire holds what the relay would still send"
    );
    pg.apply(Command::Seek(end));
    assert_eq!(pg.pos, end);
    assert_eq!(effects(&pg), ["A1", "A2", "A3"]);
    assert!(lane(&pg).is_empty());
}

#[test]
fn acting_from_the_past_starts_a_new_branch() {
    let mut pg = fresh();
    happy(&mut pg);
    pg.apply(Command::Seek(2));
    pg.apply(Command::Apply("A".into()));
    assert_eq!(pg.entries.len(), 3, "the old future is cut off");
    assert_eq!(pg.pos, 3);
    assert_eq!(pg.last().unwrap().report.result, Outcome::IDLE);
    assert_eq!(pg.trace().steps.len(), 3);
}

#[test]
fn a_sliced_load_runs_step_by_step_and_a_dropped_one_changes_nothing() {
    let mut pg = fresh();
    pg.apply(Command::Advance("A".into()));
    let trace = long_trace(80);
    let mut loader = pg.loader(trace.clone()).unwrap();
    let mut slices = 0;
    while !loader.step_once().unwrap() {
        slices += 1;
    }
    assert_eq!(slices, trace.steps.len() - 1);
    assert_eq!(loader.progress(), (trace.steps.len(), trace.steps.len()));
    let loaded = loader.finish().over(&pg);
    assert_eq!(loaded.entries.len(), trace.steps.len());
    assert_eq!(loaded.snapshot.consumer.effect.len(), 240);
    assert!(loaded.flows.iter().any(|f| f == "F79"));

    // Cancelled half-way: the live playground is untouched.
    let mut cancelled = pg.loader(trace).unwrap();
    for _ in 0..100 {
        cancelled.step_once().unwrap();
    }
    drop(cancelled);
    assert_eq!(pg.entries.len(), 1);
    assert_eq!(lane(&pg), ["A1"]);
    pg.apply(Command::DeliverNext);
    assert_eq!(
        pg.last().unwrap().report.result,
        Outcome::ACCEPTED,
        "the live session still runs"
    );
}

#[test]
fn settings_changed_during_a_sliced_replay_survive_it() {
    let mut live = fresh();
    let mut loader = live.loader(long_trace(40)).unwrap();
    loader.step_once().unwrap();
    // Meanwhile the reader arms a crash, switches schema 2 on and adds flow B.
    live.apply(Command::Arm(Some(Boundary::ApplyAfterEffect)));
    live.apply(Command::SetSchema2(true));
    live.apply(Command::AddFlow("B".into()));
    while !loader.step_once().unwrap() {}
    let pg = loader.finish().over(&live);
    assert_eq!(pg.armed, Some(Boundary::ApplyAfterEffect));
    assert!(pg.schema2);
    assert!(pg.flows.iter().any(|f| f == "B"));
    assert!(
        pg.flows.iter().any(|f| f == "F0"),
        "the replay's own flows stay"
    );

    // Time travel too.
    let mut live = fresh();
    happy(&mut live);
    let mut seeker = live.seeker(1, false).unwrap();
    live.apply(Command::Arm(Some(Boundary::RelayAfterMark)));
    while !seeker.step_once().unwrap() {}
    let pg = seeker.finish().over(&live);
    assert_eq!(pg.pos, 1);
    assert_eq!(pg.armed, Some(Boundary::RelayAfterMark));
}

#[test]
fn a_load_leaves_settings_nobody_touched_as_a_load_always_did() {
    let mut pg = fresh();
    pg.apply(Command::Arm(Some(Boundary::ApplyAfterEffect)));
    pg.apply(Command::SetSchema2(true));
    pg.apply(Command::Load(Box::new(long_trace(1))));
    assert_eq!(pg.armed, None, "a loaded trace starts unarmed");
    assert!(
        pg.schema2,
        "the schema switch is the reader's, not the trace's"
    );
    assert_eq!(pg.entries.len(), 7);
}

#[test]
fn presets_compare_the_live_result_with_the_article() {
    let mut pg = fresh();
    for index in 0..outbox_core::experiments::ALL.len() {
        pg.apply(Command::LoadPreset(index));
        let preset = pg.preset.clone().expect("a preset loads");
        assert!(
            preset.ok,
            "experiment {}: {:?}",
            index + 1,
            preset.mismatches
        );
        assert_eq!(preset.expected, preset.got);
        assert!(pg.pos > 0 && pg.pos == pg.entries.len());
    }
    pg.apply(Command::LoadPreset(99));
    assert_eq!(
        pg.notice,
        Some(Notice::Error("there is no experiment 100".into()))
    );
}

#[test]
fn the_wire_can_be_reordered_duplicated_and_pruned_without_touching_the_databases() {
    let mut pg = fresh();
    for _ in 0..3 {
        pg.apply(Command::Advance("A".into()));
    }
    let steps = pg.entries.len();
    pg.apply(Command::MoveCard { from: 2, to: 0 });
    assert_eq!(lane(&pg), ["A3", "A1", "A2"]);
    pg.apply(Command::DuplicateCard(0));
    assert_eq!(lane(&pg), ["A3", "A3", "A1", "A2"]);
    assert_ne!(pg.lane[0].key, pg.lane[1].key, "a resend is its own card");
    pg.apply(Command::RemoveCard(3));
    pg.apply(Command::MoveCard { from: 9, to: 0 });
    pg.apply(Command::RemoveCard(9));
    assert_eq!(lane(&pg), ["A3", "A3", "A1"]);
    assert_eq!(pg.entries.len(), steps);
    for c in [
        Command::MoveCard { from: 0, to: 1 },
        Command::DuplicateCard(0),
        Command::Arm(None),
    ] {
        assert!(!c.touches_db());
    }
    assert!(Command::DeliverNext.touches_db());
}

#[test]
fn reset_starts_over_keeping_the_reader_s_flows_and_consumer() {
    let mut pg = fresh();
    pg.apply(Command::AddFlow("B".into()));
    pg.apply(Command::SetMode(
        outbox_core::protocol::Ordering::GreaterThan,
    ));
    happy(&mut pg);
    pg.apply(Command::Reset);
    assert!(pg.entries.is_empty());
    assert_eq!(pg.ordering(), outbox_core::protocol::Ordering::GreaterThan);
    assert_eq!(pg.flows, ["A", "B"]);
    assert!(pg.snapshot.producer.flow.is_empty());
}

/// §5's comparison: the same arrival under strict and under dedupe-only. Switching the consumer replays the
/// history under the new one at the same position (the reader's wire, crash and flows kept, the steps after
/// the position dropped and counted), and the consumer before stays to compare with.
#[test]
fn a_consumer_switch_replays_the_same_history_and_keeps_the_one_before_to_compare() {
    use outbox_core::playground::FlowOutcome;
    use outbox_core::protocol::Ordering;
    let mut pg = fresh();
    pg.apply(Command::AddFlow("B".into()));
    pg.apply(Command::Order("312"));
    pg.apply(Command::DeliverAll);
    pg.apply(Command::ProcessAll);
    pg.apply(Command::Advance("B".into()));
    pg.apply(Command::DuplicateCard(0));
    pg.apply(Command::Advance("B".into()));
    // B1 delivered: its copy left on the wire is a resend of an accepted event, put behind B2.
    pg.apply(Command::DeliverNext);
    pg.apply(Command::MoveCard { from: 0, to: 1 });
    pg.apply(Command::Arm(Some(Boundary::ApplyAfterEffect)));
    assert_eq!(
        pg.compare(),
        None,
        "nothing to compare with before a switch"
    );
    let steps = pg.pos;
    pg.apply(Command::SetMode(Ordering::DedupeOnly));
    assert_eq!(pg.ordering(), Ordering::DedupeOnly);
    assert_eq!(pg.pos, steps, "the same position");
    assert_eq!(pg.notice, Some(Notice::Switched { steps, dropped: 0 }));
    // Dedupe-only wrote the projection in arrival order: A3, then A1, then A2, and B1 as it arrived.
    assert_eq!(effects(&pg), ["A3", "A1", "A2", "B1"]);
    assert_eq!(
        lane(&pg),
        ["B2", "B1"],
        "the wire as the reader left it, the resend too"
    );
    assert_eq!(pg.armed, Some(Boundary::ApplyAfterEffect));
    assert_eq!(pg.flows, ["A", "B"]);
    let (before, flows) = pg.compare().unwrap().unwrap();
    assert_eq!(before.ordering, Ordering::Strict);
    let a = FlowOutcome {
        flow_id: "A".into(),
        state: "released".into(),
        last_seq: 3,
        held: 0,
        effects: 3,
    };
    assert_eq!(flows, [a]);

    // From a past position: the steps after it are dropped, and the notice says how many.
    pg.apply(Command::Seek(2));
    pg.apply(Command::SetMode(Ordering::Strict));
    assert_eq!((pg.pos, pg.entries.len()), (2, 2));
    assert_eq!(
        pg.notice,
        Some(Notice::Switched {
            steps: 2,
            dropped: steps - 2
        })
    );
    assert_eq!(pg.previous.as_ref().unwrap().ordering, Ordering::DedupeOnly);
    // The same consumer again runs nothing, and keeps the one to compare with.
    pg.apply(Command::SetMode(Ordering::Strict));
    assert_eq!((pg.pos, pg.entries.len()), (2, 2));
    assert_eq!(pg.previous.as_ref().unwrap().ordering, Ordering::DedupeOnly);
}

/// The article's punch line, in the tables: once nothing is in flight, dedupe-only's flow ends `confirmed` where
/// the producer says `released`; strict's ends where the producer is.
#[test]
fn a_flow_that_ran_backwards_is_named_once_nothing_is_in_flight() {
    use outbox_core::protocol::Ordering;
    let mut pg = fresh();
    pg.apply(Command::SetMode(Ordering::DedupeOnly));
    pg.apply(Command::Order("312"));
    pg.apply(Command::DeliverNext);
    assert!(pg.backwards().is_empty(), "A1 and A2 are still on the wire");
    pg.apply(Command::DeliverAll);
    let back = pg.backwards();
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].producer_state, "released");
    assert_eq!(
        (back[0].consumer.state.as_str(), back[0].consumer.last_seq),
        ("confirmed", 2)
    );
    pg.apply(Command::SetMode(Ordering::Strict));
    pg.apply(Command::ProcessAll);
    assert!(pg.backwards().is_empty());
    assert!(pg.invariant.holds);
}

/// The page draws a fresh playground before SQLite has run: what it shows then is what the databases hold once
/// opened, for every setup, and they open on the first action that needs them, or when asked.
#[test]
fn an_unopened_playground_shows_what_fresh_databases_hold_and_opens_on_first_use() {
    use outbox_core::protocol::Ordering;
    for ordering in [Ordering::Strict, Ordering::DedupeOnly] {
        for support_v2 in [false, true] {
            let setup = ConsumerSetup::builtin(ordering, support_v2);
            let unopened = Playground::unopened(setup.clone());
            assert!(!unopened.is_open());
            let opened = Playground::new(setup.clone()).unwrap();
            assert!(opened.is_open());
            assert_eq!(*unopened.snapshot, *opened.snapshot, "{setup:?}");
            assert_eq!(unopened.invariant, opened.invariant);
            assert_eq!(unopened.support_v2(), support_v2);
            unopened.open().unwrap();
            assert!(unopened.is_open());
        }
    }

    // A first action opens them, and runs as it would on databases opened at start.
    let mut lazy = Playground::unopened(ConsumerSetup::default());
    let mut eager = fresh();
    for pg in [&mut lazy, &mut eager] {
        happy(pg);
    }
    assert!(lazy.is_open());
    assert_eq!(results(&lazy), results(&eager));
    assert_eq!(lazy.snapshot, eager.snapshot);
    assert_eq!(effects(&lazy), ["A1", "A2", "A3"]);

    // A preset replays into databases of its own: the unopened ones are never opened for it.
    let mut preset = Playground::unopened(ConsumerSetup::default());
    let kept = preset.clone();
    preset.apply(Command::LoadPreset(1));
    assert!(preset.is_open());
    assert!(
        !kept.is_open(),
        "the first playground's databases stay closed"
    );
    assert!(!preset.entries.is_empty());
}

/// The badge checks no_loss beside the consumer's invariant: experiment 1's unsafe dual write is red from its
/// first step, although the consumer's tables are fine.
#[test]
fn the_badge_turns_red_on_a_loss_the_consumer_cannot_see() {
    let mut pg = fresh();
    pg.apply(Command::LoadPreset(0));
    assert!(!pg.invariant.holds);
    assert_eq!(
        pg.invariant.violations,
        ["no_loss: flow A committed seq 1 but the outbox holds 0 of its events"]
    );
    assert_eq!(pg.broke_at, Some(0));
    // Every other experiment's badge is what its consumer's invariant says: none of them loses anything.
    for i in 1..outbox_core::experiments::ALL.len() {
        let mut pg = fresh();
        pg.apply(Command::LoadPreset(i));
        let consumer = outbox_core::protocol::invariant::check(&pg.snapshot);
        assert_eq!(pg.invariant, consumer, "experiment {}", i + 1);
    }
}

/// The page's power cut: under NORMAL the acknowledged event the consumer's disk had not synced is gone and
/// the badge names it; under FULL nothing is lost and the page says why.
#[test]
fn a_power_cut_loses_what_was_not_synced_and_says_so() {
    use outbox_core::protocol::{Role, Synchronous};
    let deliver_and_cut = |mode: Synchronous| {
        let mut pg = fresh();
        pg.apply(Command::SetSynchronous(mode));
        pg.apply(Command::Advance("A".into()));
        pg.apply(Command::DeliverAll);
        pg.apply(Command::Arm(Some(Boundary::ApplyAfterEffect)));
        pg.apply(Command::PowerCut(vec![Role::Consumer]));
        pg
    };
    let pg = deliver_and_cut(Synchronous::Normal);
    assert_eq!(pg.synchronous(), Synchronous::Normal);
    assert_eq!(pg.notice, Some(Notice::PowerCut(Synchronous::Normal, 1)));
    assert_eq!(pg.armed, None, "the cut ended the process that was armed");
    assert!(pg.snapshot.consumer.inbox.is_empty());
    assert!(!pg.invariant.holds);
    assert_eq!(pg.broke_at, Some(3));
    let svg = outbox_core::diagram::svg(
        &outbox_core::diagram::Diagram::of(&pg, outbox_core::lang::Lang::En),
        outbox_core::diagram::Style::File { dark: false },
    );
    assert!(svg.contains(r#"<g data-kind="power_cut" data-databases="consumer" data-lost="1">"#));
    assert!(svg.contains("lost 1 unsynced row<"));
    // The trace carries the cut: replayed, the same loss.
    let doc = outbox_core::trace::replay(&pg.trace()).unwrap();
    assert!(doc.consumer.inbox.is_empty());

    // Applied too, the cut takes the inbox row, the projection and the effect: three rows, each counted once.
    let mut pg = fresh();
    pg.apply(Command::SetSynchronous(Synchronous::Normal));
    pg.apply(Command::Advance("A".into()));
    pg.apply(Command::DeliverAll);
    pg.apply(Command::ProcessAll);
    pg.apply(Command::PowerCut(vec![Role::Consumer]));
    assert_eq!(pg.notice, Some(Notice::PowerCut(Synchronous::Normal, 3)));
    assert!(pg.snapshot.consumer.effect.is_empty() && pg.snapshot.consumer.projection.is_empty());

    let pg = deliver_and_cut(Synchronous::Full);
    assert_eq!(pg.notice, Some(Notice::PowerCut(Synchronous::Full, 0)));
    assert_eq!(pg.snapshot.consumer.inbox.len(), 1);
    assert!(pg.invariant.holds);
}

/// The page redraws when its playground is not equal to the one before a command: every command that changes
/// what the page shows makes it unequal, and a copy of it is equal.
#[test]
fn the_page_redraws_after_each_command_that_changes_what_it_shows() {
    let mut pg = fresh();
    assert!(pg == pg.clone());
    let commands = [
        Command::Advance("A".into()),
        Command::Arm(Some(Boundary::ApplyAfterCommit)),
        Command::SetSchema2(true),
        Command::AddFlow("B".into()),
        Command::DeliverNext,
        Command::Error("the file could not be read".into()),
        Command::DismissNotice,
        Command::Seek(0),
        Command::SetMode(outbox_core::protocol::Ordering::DedupeOnly),
    ];
    for command in commands {
        let before = pg.clone();
        pg.apply(command.clone());
        assert!(pg != before, "{command:?} left the page as it was");
        assert!(pg == pg.clone(), "{command:?}");
    }
}

/// The fault switches show whether a rejecting trigger is installed at the position the tables show.
#[test]
fn a_fault_switch_shows_the_trigger_at_the_position_shown() {
    use outbox_core::protocol::system::FaultTarget::{EffectInsert, OutboxInsert};
    let mut pg = fresh();
    assert!(!pg.fault_active(OutboxInsert));
    pg.apply(Command::Fault(OutboxInsert, true));
    assert!(pg.fault_active(OutboxInsert) && !pg.fault_active(EffectInsert));
    pg.apply(Command::Advance("A".into()));
    assert!(
        pg.fault_active(OutboxInsert),
        "still installed after a step"
    );
    pg.apply(Command::Fault(OutboxInsert, false));
    assert!(!pg.fault_active(OutboxInsert));
    pg.apply(Command::Seek(1));
    assert!(pg.fault_active(OutboxInsert), "installed at step 1");
}

/// Reset starts over with the consumer as it was chosen, schema 2 support off, even when the reader chose the
/// consumer with it on.
#[test]
fn reset_turns_schema_2_support_off() {
    let mut pg = fresh();
    pg.apply(Command::SetSupportV2(true));
    pg.apply(Command::SetMode(
        outbox_core::protocol::Ordering::GreaterThan,
    ));
    assert!(pg.support_v2(), "a consumer switch keeps the support");
    pg.apply(Command::Reset);
    assert!(!pg.support_v2());
    assert_eq!(pg.ordering(), outbox_core::protocol::Ordering::GreaterThan);
    assert!(pg.entries.is_empty());
}

/// The badge is red from the step that broke the invariant: a new branch from before that step is green again,
/// one from after it stays red.
#[test]
fn a_new_branch_before_the_break_clears_the_badge_and_one_after_keeps_it() {
    let broken = || {
        let mut pg = fresh();
        pg.apply(Command::SetMode(
            outbox_core::protocol::Ordering::DedupeOnly,
        ));
        pg.apply(Command::Order("312"));
        pg.apply(Command::DeliverAll);
        assert!(!pg.invariant.holds);
        pg
    };
    let mut pg = broken();
    let at = pg.broke_at.expect("a break");
    pg.apply(Command::Seek(at));
    pg.apply(Command::Advance("B".into()));
    assert_eq!(pg.broke_at, None, "a branch from before the break");
    let mut pg = broken();
    let end = pg.pos;
    pg.apply(Command::Seek(end));
    pg.apply(Command::Advance("B".into()));
    assert_eq!(pg.broke_at, Some(at), "a branch from after the break");
}

/// A resend puts the copy right behind the card, as a new card (its own key): the reader sees it appear there.
#[test]
fn a_duplicated_card_appears_right_behind_its_original() {
    let mut pg = fresh();
    pg.apply(Command::Advance("A".into()));
    pg.apply(Command::Advance("A".into()));
    let original = pg.lane[0].key;
    pg.apply(Command::DuplicateCard(0));
    assert_eq!(lane(&pg), ["A1", "A1", "A2"]);
    assert_eq!(pg.lane[0].key, original);
    assert!(
        pg.lane.iter().filter(|c| c.key == pg.lane[1].key).count() == 1
            && pg.lane[1].key != original
    );
}

/// A loaded trace keeps each step's SQL for the diagram's hover when it is short, and only the last step's when
/// it is long (the SQL panel's).
#[test]
fn a_short_loaded_trace_keeps_each_steps_sql_and_a_long_one_does_not() {
    for (flows, kept) in [(2, true), (90, false)] {
        let mut pg = fresh();
        pg.apply(Command::Load(Box::new(long_trace(flows))));
        let with_sql = pg
            .entries
            .iter()
            .filter(|e| !e.report.sql.is_empty())
            .count();
        assert_eq!(
            with_sql == pg.entries.len(),
            kept,
            "{flows} flows: {with_sql} of {}",
            pg.entries.len()
        );
        assert!(!pg.sql.is_empty(), "{flows} flows: the last step's SQL");
    }
}

/// With schema 2 switched on, a flow's first event stays schema 1 and the ones after it are schema 2 (experiment
/// 6: the consumer meets v2 mid-flow).
#[test]
fn schema_2_starts_at_a_flows_second_event() {
    let mut pg = fresh();
    pg.apply(Command::SetSchema2(true));
    for _ in 0..3 {
        pg.apply(Command::Advance("A".into()));
    }
    let schemas: Vec<i64> = pg
        .entries
        .iter()
        .filter_map(|e| match &e.step {
            Step::Advance(w) => Some(w.schema),
            _ => None,
        })
        .collect();
    assert_eq!(schemas, [1, 2, 2]);
}

/// A switch turned off is that trigger's alone: the other stays installed.
#[test]
fn clearing_one_fault_leaves_the_other_installed() {
    use outbox_core::protocol::system::FaultTarget::{EffectInsert, OutboxInsert};
    let mut pg = fresh();
    pg.apply(Command::Fault(OutboxInsert, true));
    pg.apply(Command::Fault(EffectInsert, true));
    pg.apply(Command::Fault(EffectInsert, false));
    assert!(pg.fault_active(OutboxInsert));
    assert!(!pg.fault_active(EffectInsert));
}

/// A card index one past the wire (a stale drag, a hand-made command) changes nothing; every card keeps a key of
/// its own however many resends are made.
#[test]
fn a_card_index_past_the_wire_changes_nothing_and_every_card_has_its_own_key() {
    let mut pg = fresh();
    for _ in 0..3 {
        pg.apply(Command::Advance("A".into()));
    }
    for c in [
        Command::RemoveCard(3),
        Command::MoveCard { from: 3, to: 0 },
        Command::MoveCard { from: 0, to: 3 },
        Command::DuplicateCard(3),
    ] {
        pg.apply(c.clone());
        assert_eq!(lane(&pg), ["A1", "A2", "A3"], "{c:?}");
        assert_eq!(pg.notice, None, "{c:?}");
    }
    pg.apply(Command::DuplicateCard(0));
    pg.apply(Command::DuplicateCard(2));
    pg.apply(Command::Advance("B".into()));
    assert_eq!(lane(&pg), ["A1", "A1", "A2", "A2", "A3", "B1"]);
    let mut keys: Vec<u32> = pg.lane.iter().map(|c| c.key).collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(keys.len(), 6, "{:?}", pg.lane);
}

/// An order from the article's buttons rearranges A1–A3 where they already are on the wire once each, keeping the
/// rest of the session; otherwise it starts over with the consumer as it is, schema 2 support included.
#[test]
fn an_order_rearranges_the_wire_in_place_or_starts_over_with_the_consumer_as_it_is() {
    let mut pg = fresh();
    for flow in ["A", "A", "A", "B"] {
        pg.apply(Command::Advance(flow.into()));
    }
    pg.apply(Command::Order("312"));
    assert_eq!(lane(&pg), ["A3", "A1", "A2", "B1"]);
    assert_eq!(pg.entries.len(), 4, "nothing run again");

    let mut pg = fresh();
    pg.apply(Command::SetSupportV2(true));
    pg.apply(Command::Order("231"));
    assert_eq!(lane(&pg), ["A2", "A3", "A1"]);
    assert!(pg.support_v2(), "the consumer still reads schema 2");
}

/// An armed crash is the reader's choice: choosing an order after it keeps it (it does not fire in the produces
/// that set the order), it fires at the apply that crosses its boundary, and the fresh start says what it set
/// aside.
#[test]
fn an_armed_crash_survives_choosing_an_order() {
    let mut pg = fresh();
    pg.apply(Command::Advance("A".into()));
    pg.apply(Command::Arm(Some(Boundary::ApplyAfterEffect)));
    pg.apply(Command::Order("312"));
    assert_eq!(pg.armed, Some(Boundary::ApplyAfterEffect));
    assert_eq!(pg.notice, Some(Notice::StartedOver(1)));
    assert_eq!(lane(&pg), ["A3", "A1", "A2"]);
    pg.apply(Command::DeliverAll);
    pg.apply(Command::Apply("A".into()));
    let last = &pg.last().unwrap().report;
    assert_eq!(
        (last.result, last.boundary),
        (Outcome::Crashed, Some(Boundary::ApplyAfterEffect))
    );
    pg.apply(Command::Restart);
    assert_eq!(
        pg.notice,
        Some(Notice::Restarted(Some(Boundary::ApplyAfterEffect)))
    );

    // A producer boundary armed: the order's own produces do not fire it, the reader's next produce does.
    let mut pg = fresh();
    pg.apply(Command::Arm(Some(Boundary::ProducerAfterState)));
    pg.apply(Command::Order("213"));
    assert_eq!(results(&pg), [Outcome::COMMITTED; 3]);
    assert_eq!(pg.notice, None, "nothing was set aside");
    pg.apply(Command::Advance("B".into()));
    assert_eq!(pg.last().unwrap().report.result, Outcome::Crashed);
}

/// Only a power cut says what it took: a checkpoint or a synchronous switch leaves no notice.
#[test]
fn a_checkpoint_is_not_a_power_cut() {
    use outbox_core::protocol::Synchronous;
    let mut pg = fresh();
    pg.apply(Command::Advance("A".into()));
    pg.apply(Command::SetSynchronous(Synchronous::Normal));
    pg.apply(Command::Checkpoint);
    assert_eq!(pg.last().unwrap().report.result, Outcome::Ok);
    assert_eq!(pg.notice, None);
}

/// A consumer that is the reader's rule shows that rule; the built-in ones have none.
#[test]
fn a_rule_consumer_shows_its_rule() {
    use outbox_core::rule::{Rule, RuleEffect, STRICT};
    assert!(fresh().rule().is_none());
    let rule = Rule::new(STRICT, RuleEffect::Inside).unwrap();
    let pg = Playground::new(ConsumerSetup::with_rule(rule, false)).unwrap();
    assert_eq!(pg.rule().map(|r| r.sql()), Some(STRICT));
}

/// Time travel a slice at a time: its progress counts the steps replayed, and at the end the SQL panel shows the
/// step reached and the changed-row marks compare with the step before it.
#[test]
fn time_travel_reports_its_progress_and_shows_the_step_reached() {
    let mut pg = fresh();
    happy(&mut pg);
    let at = |n: usize| {
        let mut p = pg.clone();
        p.apply(Command::Seek(n));
        p
    };
    let (three, four) = (at(3), at(4));
    let mut seeker = pg.seeker(4, false).unwrap();
    let mut seen = vec![seeker.progress()];
    while !seeker.step_once().unwrap() {
        seen.push(seeker.progress());
    }
    seen.push(seeker.progress());
    assert_eq!(seen, [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]);
    let reached = seeker.finish().over(&pg);
    assert_eq!(reached.pos, 4);
    assert_eq!(*reached.before, *three.snapshot, "marks against step 3");
    assert_eq!(reached.snapshot, four.snapshot);
    assert!(!reached.sql.is_empty());
    assert_eq!(*reached.sql, pg.entries[3].report.sql, "step 4's SQL");
}
