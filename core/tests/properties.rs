//! Property tests: random histories over three flows — advances (right, stale, illegal, schema 2), default and
//! explicit relays, resends, injected conflicting events, `support_v2` switches and crashes at random
//! boundaries. The strict consumer must keep the invariant after every step; the dedupe-only control must be
//! caught breaking it. A failure prints the trace that reproduces it (`experiments replay FILE`).
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::protocol::Location;
use outbox_core::protocol::{invariant, Boundary, Ordering, Outcome, Role, Synchronous};
use outbox_core::trace::{ConsumerSetup, Session, Step, Trace};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};
use serde_json::json;

const FLOWS: [&str; 3] = ["A", "B", "C"];
const KINDS: [&str; 4] = ["reserved", "confirmed", "released", "cancelled"];
/// Histories per full run: the strict property plus the dedupe-only search (issue: at least 10,000).
/// `PROPERTY_HISTORIES` lowers it for the mutation run's thousands of runs (scripts/mutants.sh), as FUZZ_INPUTS does.
fn strict_histories() -> u32 {
    std::env::var("PROPERTY_HISTORIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}
const DEDUPE_HISTORIES: u32 = 500;

fn flow() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&FLOWS[..])
}

fn boundary() -> impl Strategy<Value = Option<Boundary>> {
    prop_oneof![
        6 => Just(None),
        1 => prop::sample::select(&Boundary::ALL[..]).prop_map(Some),
    ]
}

fn advance() -> impl Strategy<Value = Step> {
    (
        flow(),
        1..=3i64,
        -1..=1i64,
        0..10u8,
        prop_oneof![4 => Just(1i64), 1 => Just(2i64)],
        0..10u8,
    )
        .prop_map(|(flow, n, off, kind_roll, schema, id_roll)| {
            // Mostly the right next step; sometimes a stale expected_seq, an illegal kind or a second id.
            let expected = if off != 0 && kind_roll < 3 {
                (n - 1 + off).max(0)
            } else {
                n - 1
            };
            let kind = if kind_roll == 9 {
                KINDS[3]
            } else {
                KINDS[(n - 1) as usize]
            };
            let id = if id_roll == 9 {
                format!("{flow}{n}x")
            } else {
                format!("{flow}{n}")
            };
            Step::advance(flow, &id, expected, kind, schema)
        })
}

fn injected() -> impl Strategy<Value = Step> {
    (flow(), 1..=3i64, 0..3u8).prop_map(|(flow, n, which)| {
        let kind = KINDS[(n - 1) as usize];
        let (id, payload) = match which {
            // Same id as the producer's, different body: id_conflict for the relay later.
            0 => (format!("{flow}{n}"), json!({"amount": 5})),
            // Another id for the same (flow, seq): sequence_conflict.
            1 => (format!("{flow}{n}z"), json!({"amount": 3})),
            // A correct schema-2 event straight from the transport.
            _ => (format!("{flow}{n}"), json!({"units": 3})),
        };
        let schema = if which == 2 { 2 } else { 1 };
        Step::Receive {
            event: json!({"event_id": id, "flow_id": flow, "seq": n, "kind": kind, "schema": schema, "payload": payload}),
            crash_at: None,
        }
    })
}

fn step() -> impl Strategy<Value = Step> {
    let plain = prop_oneof![
        5 => advance(),
        // The article's unsafe dual write (§2): the state commits, the process exits before the outbox write.
        1 => advance().prop_map(Step::into_unsafe_dual_write),
        4 => Just(Step::relay(None)),
        3 => (flow(), 1..=3i64).prop_map(|(f, n)| Step::relay(Some(&format!("{f}{n}")))),
        1 => injected(),
        3 => flow().prop_map(Step::apply),
        2 => prop::option::of(1..6i64).prop_map(Step::process_all),
        1 => any::<bool>().prop_map(|on| Step::SetSupportV2 { on }),
        // Power loss: a cut puts a database back to what its disk synced, a consistent committed state.
        1 => prop::sample::select(&Synchronous::ALL[..]).prop_map(|mode| Step::SetSynchronous { mode }),
        1 => Just(Step::Checkpoint),
        1 => prop::sample::select(vec![
            vec![Role::Producer],
            vec![Role::Consumer],
            vec![Role::Producer, Role::Consumer],
        ])
        .prop_map(|databases| Step::PowerCut { databases }),
    ];
    (plain, boundary()).prop_map(|(s, b)| s.with_crash_at(b))
}

fn history() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(step(), 1..40)
}

/// Runs a history, checking the invariant after every step; returns the first violation with its step.
fn first_violation(ordering: Ordering, steps: &[Step]) -> Option<(usize, Vec<String>)> {
    let mut session = Session::create(&Location::memory(), ConsumerSetup::builtin(ordering, false))
        .expect("databases open");
    let rows = |c: &outbox_core::protocol::system::ConsumerTables| {
        (c.inbox.clone(), c.projection.clone(), c.effect.clone())
    };
    let mut before = rows(&session.snapshot().expect("snapshot").consumer);
    for (i, s) in steps.iter().enumerate() {
        let report = session.step(s);
        assert_ne!(
            report.result,
            Outcome::SqlError,
            "no SQL error without an injected fault: {:?}",
            report.message
        );
        let snapshot = session.snapshot().expect("snapshot");
        // The explorer checks the invariant only after steps that may change the consumer's rows.
        if !s.may_change_consumer_rows() {
            assert_eq!(
                rows(&snapshot.consumer),
                before,
                "{} changed the consumer's rows",
                s.op()
            );
        }
        before = rows(&snapshot.consumer);
        let check = invariant::check(&snapshot);
        if !check.holds {
            return Some((i + 1, check.violations));
        }
    }
    None
}

fn reproducer(ordering: Ordering, steps: &[Step]) -> String {
    Trace::new(ConsumerSetup::builtin(ordering, false), steps.to_vec())
        .to_json_pretty()
        .unwrap()
}

proptest! {
    #![proptest_config(Config { cases: strict_histories(), failure_persistence: None, ..Config::default() })]

    #[test]
    fn strict_consumer_keeps_the_invariant_after_every_step(steps in history()) {
        if let Some((at, violations)) = first_violation(Ordering::Strict, &steps) {
            prop_assert!(false, "invariant broken at step {at}: {violations:?}\nreproduce with `experiments replay`:\n{}",
                reproducer(Ordering::Strict, &steps));
        }
    }
}

#[test]
fn dedupe_only_consumer_is_caught_breaking_the_invariant() {
    let mut runner = TestRunner::deterministic();
    let strategy = history();
    let mut broken = 0;
    let mut example = None;
    for _ in 0..DEDUPE_HISTORIES {
        let steps = strategy.new_tree(&mut runner).expect("generate").current();
        if let Some((_, violations)) = first_violation(Ordering::DedupeOnly, &steps) {
            broken += 1;
            example.get_or_insert(violations);
        }
    }
    println!("dedupe-only: {broken} of {DEDUPE_HISTORIES} random histories break the invariant, e.g. {example:?}");
    assert!(broken > 0, "the wrong control must be shown wrong");
}

/// The step (0-based) after which the badge (invariant and `no_loss`) first fails, checking every flow after
/// every step: what a page's import must find with its cheaper checks.
fn first_red(setup: &ConsumerSetup, steps: &[Step]) -> Option<usize> {
    let mut session = Session::create(&Location::memory(), setup.clone()).expect("databases open");
    steps.iter().position(|s| {
        session.step(s);
        !invariant::check_with_loss(&session.snapshot().expect("snapshot")).holds
    })
}

/// The history with each advance made the flow's next legal one (and dropped after the third), no unsafe write.
fn legal_advances(steps: Vec<Step>) -> Vec<Step> {
    let mut seq = std::collections::BTreeMap::new();
    steps
        .into_iter()
        .filter_map(|s| match s {
            Step::UnsafeDualWrite(_) => None,
            Step::Advance(w) => {
                let n: &mut i64 = seq.entry(w.flow.clone()).or_default();
                *n += 1;
                let kind = KINDS[(*n - 1).min(2) as usize];
                (*n <= 3)
                    .then(|| Step::advance(&w.flow, &format!("{}{n}", w.flow), *n - 1, kind, 1))
            }
            s => Some(s),
        })
        .collect()
}

/// A long import checks only the flows each step wrote (`Loader`); every flow after a `receive` or a power cut.
/// On random histories under every consumer, with and without those steps, it must name the same first red step
/// as a check of every flow after every step.
#[test]
fn an_import_finds_the_badge_red_at_the_same_step_as_a_full_check() {
    use outbox_core::playground::{Playground, Replay};
    use outbox_core::rule::{Rule, RuleEffect};
    let by_arrival = Rule::new(
        "SELECT event_id, 'apply' FROM waiting WHERE state = 'pending' ORDER BY arrival",
        RuleEffect::Inside,
    )
    .expect("the rule is accepted");
    let mut setups: Vec<ConsumerSetup> = [
        Ordering::Strict,
        Ordering::DedupeOnly,
        Ordering::GreaterThan,
        Ordering::SkipBlocked,
        Ordering::EffectOutsideTx,
    ]
    .into_iter()
    .map(|o| ConsumerSetup::builtin(o, false))
    .collect();
    setups.push(ConsumerSetup::with_rule(by_arrival, false));
    let pg = Playground::new(ConsumerSetup::default()).expect("databases open");
    let mut runner = TestRunner::deterministic();
    let strategy = history();
    let (mut red, mut cheap) = (0, 0);
    for n in 0..300 {
        let mut steps = strategy.new_tree(&mut runner).expect("generate").current();
        // Two thirds without the steps that check every flow; one of them with only legal advances (no unsafe
        // dual write, which turns most histories red at once), so that relays out of order break the wrong turns.
        if n % 3 > 0 {
            steps.retain(|s| !matches!(s, Step::Receive { .. } | Step::PowerCut { .. }));
            cheap += 1;
        }
        if n % 3 == 2 {
            steps = legal_advances(steps);
        }
        for setup in &setups {
            let trace = Trace::new(setup.clone(), steps.clone());
            let mut loader = pg.loader(trace.clone()).expect("a loader");
            while !loader.step_once().expect("a step") {}
            let loaded = loader.finish().over(&pg);
            let want = first_red(setup, &steps);
            red += usize::from(want.is_some());
            assert_eq!(
                loaded.broke_at,
                want,
                "the import's first red step differs from a full check's under {:?}:\n{}",
                setup.ordering,
                trace.to_json_pretty().unwrap()
            );
        }
    }
    println!(
        "{red} of {} imports turned red ({cheap} histories without receive or power cut)",
        300 * setups.len()
    );
    assert!(
        red > 100,
        "the comparison must see red badges, not only green ones"
    );
}

/// The consumers the differential run draws from: every built-in, and two rules (strict's own, and the arrival
/// queue of RULE.md, whose `arrival` is read through a window over the inbox's rowid).
#[cfg(feature = "postgres")]
fn differential_setups() -> Vec<ConsumerSetup> {
    use outbox_core::rule::{self, Rule, RuleEffect};
    let mut setups: Vec<ConsumerSetup> = Ordering::ALL
        .iter()
        .filter(|o| **o != Ordering::Rule)
        .map(|o| ConsumerSetup::builtin(*o, false))
        .collect();
    let (strict, effect) = rule::builtin(Ordering::Strict).expect("strict has a rule");
    let arrival =
        "SELECT event_id, 'apply' FROM waiting WHERE state = 'pending' ORDER BY arrival LIMIT 1";
    for (sql, effect) in [(strict, effect), (arrival, RuleEffect::Inside)] {
        setups.push(ConsumerSetup {
            ordering: Ordering::Rule,
            rule: Some(Rule::new(sql, effect).expect("the rule compiles")),
            support_v2: false,
        });
    }
    setups
}

/// The same random histories (the property run's generator, without the power steps, which are SQLite's layer,
/// with fault triggers) on SQLite and on PostgreSQL: every result document equal. Needs a server: `OUTBOX_PG_URL`, or libpq's
/// `PGHOST`/`PGPORT`/`PGUSER`/`PGPASSWORD` (the test command runs it under `pg_virtualenv`).
#[cfg(feature = "postgres")]
#[test]
fn sqlite_and_postgres_give_the_same_result_documents() {
    let url = outbox_core::protocol::pg::server::url_from_env().unwrap_or_else(|| {
        panic!(
            "no PostgreSQL server for the differential test: run it through scripts/test.sh, or under \
             `pg_virtualenv cargo test …`, or set OUTBOX_PG_URL=postgres://USER@HOST/DATABASE"
        )
    });
    let histories: u32 = std::env::var("DIFFERENTIAL_HISTORIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    // Two threads, each with its own sessions: while one waits for the server, the other computes.
    let (compared, steps_run) = std::thread::scope(|scope| {
        let parts: Vec<_> = [histories / 2, histories - histories / 2]
            .into_iter()
            .map(|n| {
                let url = &url;
                scope.spawn(move || differential_part(url, n, |s| s.clone()))
            })
            .collect();
        parts.into_iter().fold((0, 0), |(c, s), part| {
            let (pc, ps) = part
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))
                .unwrap_or_else(|difference| panic!("{difference}"));
            (c + pc, s + ps)
        })
    });
    eprintln!(
        "{compared} histories ({steps_run} steps) gave the same result document on both stores"
    );
}

/// The comparison is shown catching a difference: PostgreSQL given the dedupe-only control where SQLite runs
/// each consumer, the first differing document is reported with its trace.
#[cfg(feature = "postgres")]
#[test]
fn the_differential_run_reports_a_store_that_answers_otherwise() {
    let Some(url) = outbox_core::protocol::pg::server::url_from_env() else {
        panic!("no PostgreSQL server: see sqlite_and_postgres_give_the_same_result_documents");
    };
    let dedupe = |_: &ConsumerSetup| ConsumerSetup::builtin(Ordering::DedupeOnly, false);
    let difference = differential_part(&url, 200, dedupe).expect_err("a difference is found");
    assert!(
        difference.contains("SQLite and PostgreSQL differ ("),
        "{difference}"
    );
    assert!(
        difference.contains("\"format\": \"outbox-playground-trace/1\""),
        "{difference}"
    );
}

/// `histories` random histories, each on both stores, the consumers taken in turn (PostgreSQL's as `on_pg` makes
/// it from SQLite's): how many and their steps, or the first difference with its trace.
#[cfg(feature = "postgres")]
fn differential_part(
    url: &str,
    histories: u32,
    on_pg: impl Fn(&ConsumerSetup) -> ConsumerSetup,
) -> Result<(u32, usize), String> {
    let setups = differential_setups();
    // One session per consumer on each store, reset between histories (as the explorer reuses its databases).
    let mut sessions: Vec<(Session, Session)> = setups
        .iter()
        .map(|s| {
            (
                Session::create(&Location::memory(), s.clone()).expect("SQLite opens"),
                Session::create(&Location::postgres(url), on_pg(s)).expect("PostgreSQL opens"),
            )
        })
        .collect();
    let mut runner = TestRunner::new(Config::default());
    // The property run's steps without the power steps, and experiment 10's rejecting triggers put in and taken
    // out, so that SQL errors and the triggers' messages are compared too.
    use outbox_core::protocol::FaultTarget;
    let fault = (
        prop::sample::select(vec![FaultTarget::OutboxInsert, FaultTarget::EffectInsert]),
        any::<bool>(),
    )
        .prop_map(|(target, on)| {
            if on {
                Step::InjectFault { target }
            } else {
                Step::ClearFault { target }
            }
        });
    let step = prop_oneof![12 => step(), 1 => fault];
    let without_power = prop::collection::vec(step, 1..40).prop_map(|steps| {
        steps
            .into_iter()
            .filter(|s| {
                !matches!(
                    s,
                    Step::SetSynchronous { .. } | Step::Checkpoint | Step::PowerCut { .. }
                )
            })
            .collect::<Vec<_>>()
    });
    let (mut compared, mut steps_run) = (0u32, 0usize);
    for n in 0..histories {
        let steps = without_power
            .new_tree(&mut runner)
            .expect("a history")
            .current();
        let which = n as usize % setups.len();
        let setup = &setups[which];
        let (lite, pg) = &mut sessions[which];
        let trace = Trace::new(setup.clone(), steps.clone());
        lite.reset(setup.clone()).expect("SQLite resets");
        pg.reset(on_pg(setup)).expect("PostgreSQL resets");
        let on_sqlite = replay_in_place(lite, &trace);
        let on_postgres = replay_in_place(pg, &trace);
        if on_sqlite != on_postgres {
            let mut differences = Vec::new();
            outbox_core::experiments::compare(
                &on_sqlite,
                &on_postgres,
                String::new(),
                &mut differences,
            );
            outbox_core::experiments::compare(
                &on_postgres,
                &on_sqlite,
                String::new(),
                &mut differences,
            );
            return Err(format!(
                "SQLite and PostgreSQL differ ({}) on this trace:\n{}",
                differences.join("; "),
                trace.to_json_pretty().unwrap_or_default()
            ));
        }
        compared += 1;
        steps_run += steps.len();
    }
    Ok((compared, steps_run))
}

/// A trace's result document from a session already reset, as JSON.
#[cfg(feature = "postgres")]
fn replay_in_place(session: &mut Session, trace: &Trace) -> serde_json::Value {
    let reports = trace.steps.iter().map(|s| session.step(s)).collect();
    session
        .result(reports)
        .expect("the result reads")
        .to_value()
}
