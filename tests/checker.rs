//! The checker of CHECKER.md: the protocol holds over every required configuration, each of the article's wrong
//! turns is caught on the property it breaks with its shortest history, that history replays (in the library
//! and through `experiments replay`) to tables that break the same property, and counts do not depend on the
//! number of threads. The CLI's `check` as a user runs it.
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::checker::properties::{self, Property};
use outbox_core::checker::state::State;
use outbox_core::checker::{Config, Search, Verdict};
use outbox_core::protocol::{Ordering, Snapshot, WriteMode};
use outbox_core::trace;
use serde_json::Value;

mod common;
use common::cli;

fn config(flows: u8, events: u8, resends: u8, crashes: u8) -> Config {
    Config {
        flows,
        events,
        resends,
        crashes,
        ..Config::default()
    }
}

fn run(config: Config, threads: usize) -> Search {
    let mut search = Search::new(config)
        .expect("a valid configuration")
        .with_threads(threads);
    search.finish().expect("the search runs");
    search
}

#[test]
fn strict_holds_on_every_required_configuration() {
    let mut configs = Vec::new();
    for resends in 0..=2 {
        for crashes in 0..=2 {
            configs.push(config(1, 3, resends, crashes));
        }
    }
    configs.push(config(2, 2, 2, 2));
    configs.push(config(2, 3, 1, 1));
    // Schema 2 on the middle event: strict blocks it (support_v2 is off) and waits, which completion accepts.
    configs.push(Config {
        schema2: Config::parse_schema2("A2"),
        ..config(1, 3, 1, 1)
    });
    configs.push(Config {
        schema2: Config::parse_schema2("A2,B2"),
        ..config(2, 3, 0, 1)
    });
    for c in configs {
        let label = format!("{c:?}");
        let search = run(c, 2);
        assert!(
            matches!(search.verdict(), Some(Verdict::Holds)),
            "{label}: {:?}",
            search.verdict()
        );
        let counts = search.counts();
        assert!(
            counts.states > 1 && counts.transitions >= counts.states - 1,
            "{label}: {counts:?}"
        );
        assert!(
            counts.quiescent >= 1,
            "{label}: no quiescent state reached: {counts:?}"
        );
    }
}

#[test]
fn counts_do_not_depend_on_the_number_of_threads() {
    let c = config(2, 2, 2, 2);
    let one = run(c.clone(), 1).counts();
    let two = run(c.clone(), 2).counts();
    let four = run(c, 4).counts();
    assert_eq!(one, two);
    assert_eq!(one, four);
}

/// The page's default configuration gives the counts it gave when every transition restored and read back
/// every row (before the checker learned from SQLite's hooks which tables a step changed): reading back too
/// little would merge states, restoring too little would reach others.
#[test]
fn the_default_configuration_keeps_the_counts_of_reading_every_row() {
    let expected = outbox_core::checker::Counts {
        states: 10_464,
        transitions: 83_424,
        depth: 19,
        quiescent: 80,
    };
    assert_eq!(run(Config::default(), 1).counts(), expected);
    assert_eq!(run(Config::default(), 2).counts(), expected);
}

/// The page's workers share no memory: each owns the states whose fingerprint falls to it and a level is
/// exchanged by message (`checker::shard`). However many share the search, the counts and the counterexample
/// are exactly those of one thread: the same moves, not only the same length. A search ends with the level of
/// its first broken state, so the counts at a stop are whole levels', the same for threads and for workers.
#[test]
fn a_search_shared_by_workers_finds_what_one_thread_finds() {
    use outbox_core::checker::shard;
    let mut cases = vec![(Config::default(), false), (config(3, 2, 1, 0), true)];
    for (consumer, producer, schema2) in [
        (Ordering::DedupeOnly, WriteMode::Atomic, ""),
        (Ordering::GreaterThan, WriteMode::Atomic, ""),
        (Ordering::SkipBlocked, WriteMode::Atomic, "A2"),
        (Ordering::EffectOutsideTx, WriteMode::Atomic, ""),
        (Ordering::Strict, WriteMode::UnsafeDualWrite, ""),
    ] {
        let c = Config {
            consumer,
            producer,
            schema2: Config::parse_schema2(schema2),
            ..config(2, 3, 1, 1)
        };
        cases.push((c, false));
    }
    for (c, symmetry) in cases {
        let mut one = Search::new(c.clone())
            .unwrap()
            .with_threads(1)
            .with_symmetry(symmetry);
        one.finish().unwrap();
        for workers in [1, 2, 3] {
            let label = format!("{c:?}, {workers} workers, symmetry {symmetry}");
            let (counts, verdict, _) = shard::run(&c, workers, symmetry).expect(&label);
            match (one.verdict().unwrap(), &verdict) {
                (Verdict::Holds, Verdict::Holds) => assert_eq!(counts, one.counts(), "{label}"),
                (Verdict::Violated(a), Verdict::Violated(b)) => {
                    assert_eq!(counts, one.counts(), "{label}");
                    assert_eq!(run(c.clone(), 2).counts(), counts, "{label}, two threads");
                    assert_eq!(a.violation, b.violation, "{label}");
                    assert_eq!(a.moves, b.moves, "{label}");
                    assert_eq!(a.trace, b.trace, "{label}");
                }
                (a, b) => panic!("{label}: one thread {}, workers {}", a.word(), b.word()),
            }
        }
    }
}

/// The rows a result document shows, as the checker's state (budgets aside).
fn state_of(doc: &trace::ResultDoc, c: &Config) -> State {
    let snapshot = Snapshot {
        producer: doc.producer.clone(),
        consumer: doc.consumer.clone(),
    };
    State::from_snapshot(c, &snapshot, 0, 0).unwrap()
}

fn broken(c: &Config, s: &State, p: Property) -> bool {
    match p {
        Property::ConsumerInvariant => properties::consumer_invariant(s).is_some(),
        Property::NoLoss => properties::no_loss(c, s).is_some(),
        Property::Completion => properties::completion(c, s).is_some(),
        // Not a property of the rows: the rule's answer, checked by the search itself.
        Property::RuleAnswers => false,
    }
}

/// Each wrong turn of the article, on a configuration where its fault can arise: the property it breaks, and
/// the length of the shortest history that breaks it — argued step by step, since BFS must find exactly it.
#[test]
fn each_wrong_turn_is_caught_with_its_shortest_history() {
    let cases = [
        // advance A1, advance A2, relay A2: the control applies A2 on arrival, last_seq 2 with one effect.
        (
            Ordering::DedupeOnly,
            WriteMode::Atomic,
            config(1, 2, 0, 0),
            "",
            Property::ConsumerInvariant,
            3,
        ),
        // advance A1, advance A2, relay A2, apply A: A2 is "greater than 0", applied before A1.
        (
            Ordering::GreaterThan,
            WriteMode::Atomic,
            config(1, 2, 0, 0),
            "",
            Property::ConsumerInvariant,
            4,
        ),
        // advance A1, advance A2, relay A1, relay A2, apply (A1), apply (A2 blocked, skipped): last_seq 2,
        // one effect.
        (
            Ordering::SkipBlocked,
            WriteMode::Atomic,
            config(1, 3, 0, 0),
            "A2",
            Property::ConsumerInvariant,
            6,
        ),
        // advance A1, relay A1, apply A with an exit at apply.after_effect: the effect without its apply.
        (
            Ordering::EffectOutsideTx,
            WriteMode::Atomic,
            config(1, 2, 0, 1),
            "",
            Property::ConsumerInvariant,
            3,
        ),
        // unsafe_dual_write A1: the state change committed, its outbox row never written.
        (
            Ordering::Strict,
            WriteMode::UnsafeDualWrite,
            config(1, 2, 0, 1),
            "",
            Property::NoLoss,
            1,
        ),
    ];
    for (consumer, producer, base, schema2, property, length) in cases {
        let c = Config {
            consumer,
            producer,
            schema2: Config::parse_schema2(schema2),
            ..base
        };
        let search = run(c.clone(), 1);
        let Some(Verdict::Violated(cx)) = search.verdict() else {
            panic!(
                "{consumer:?}/{producer:?}: not caught: {:?}",
                search.verdict()
            );
        };
        assert_eq!(
            cx.violation.property, property,
            "{consumer:?}: {}",
            cx.violation.message
        );
        assert_eq!(
            cx.trace.steps.len(),
            length,
            "{consumer:?}: {:?}",
            cx.trace.steps
        );
        assert_eq!(cx.reports.len(), length);
        // The history replays on fresh databases to tables that break the same property.
        let doc = trace::replay(&cx.trace).unwrap();
        assert!(
            broken(&c, &state_of(&doc, &c), property),
            "{consumer:?}: the replay does not break it"
        );
        // The sentence names the step and what the protocol does instead.
        let why = outbox_core::checker::why(&c, cx);
        assert!(why.starts_with(&format!("Step {length} (")), "{why}");
        // The wrong turn holds where its fault cannot arise (CHECKER.md): with the fault's ingredient removed.
        let harmless = match consumer {
            Ordering::DedupeOnly | Ordering::GreaterThan => config(2, 1, 1, 1),
            Ordering::SkipBlocked => config(1, 3, 1, 1),
            Ordering::EffectOutsideTx => config(1, 3, 1, 0),
            Ordering::Strict | Ordering::Rule => config(1, 2, 0, 0),
        };
        let harmless = Config {
            consumer,
            producer,
            ..harmless
        };
        let label = format!("{harmless:?}");
        assert!(
            matches!(run(harmless, 2).verdict(), Some(Verdict::Holds)),
            "{label}"
        );
    }
}

/// The symmetry reduction keeps what CHECKER.md says it must: the verdict, the property and the shortest
/// counterexample's length, with fewer states to visit.
#[test]
fn symmetry_reduction_keeps_the_verdict_and_the_shortest_length() {
    let cases = [
        Config {
            consumer: Ordering::Strict,
            ..config(2, 2, 1, 1)
        },
        Config {
            consumer: Ordering::GreaterThan,
            ..config(2, 2, 0, 0)
        },
        Config {
            consumer: Ordering::EffectOutsideTx,
            ..config(2, 2, 0, 1)
        },
        Config {
            consumer: Ordering::SkipBlocked,
            schema2: Config::parse_schema2("A2,B2"),
            ..config(2, 2, 0, 0)
        },
        // Flows that differ (A2 in schema 2, B2 not) are not interchangeable: nothing to reduce.
        Config {
            consumer: Ordering::SkipBlocked,
            schema2: Config::parse_schema2("A2"),
            ..config(2, 2, 0, 0)
        },
    ];
    for c in cases {
        let label = format!("{c:?}");
        let plain = run(c.clone(), 1);
        let mut reduced = Search::new(c.clone()).unwrap().with_symmetry(true);
        reduced.finish().unwrap();
        let length = |s: &Search| match s.verdict() {
            Some(Verdict::Violated(cx)) => Some((cx.violation.property, cx.trace.steps.len())),
            _ => None,
        };
        assert_eq!(length(&plain), length(&reduced), "{label}");
        if c.symmetries().len() > 1 {
            assert!(reduced.counts().states < plain.counts().states, "{label}");
        } else {
            assert_eq!(reduced.counts(), plain.counts(), "{label}");
        }
    }
}

#[test]
fn cli_check_prints_counts_and_the_verdict_and_saves_a_replayable_counterexample() {
    let (code, out, err) = cli(&[
        "check",
        "--flows",
        "1",
        "--events",
        "3",
        "--resends",
        "1",
        "--crashes",
        "1",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let library = run(config(1, 3, 1, 1), 1).counts();
    assert!(
        out.contains(&format!(
            "{} states, {} transitions, depth {}, {} quiescent",
            library.states, library.transitions, library.depth, library.quiescent
        )),
        "{out}"
    );
    assert!(
        out.contains("holds: consumer_invariant, no_loss and completion hold in every one of"),
        "{out}"
    );

    let file = std::env::temp_dir().join(format!("outbox-check-{}.json", std::process::id()));
    let path = file.to_str().unwrap();
    let (code, out, err) = cli(&[
        "check",
        "--flows",
        "1",
        "--events",
        "3",
        "--resends",
        "0",
        "--crashes",
        "0",
        "--consumer",
        "skip_blocked",
        "--schema2",
        "A2",
        "--save",
        path,
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(
            "violated: consumer_invariant — the shortest history that breaks it has 6 steps:"
        ),
        "{out}"
    );
    assert!(
        out.contains("   6. apply A") && out.contains("→ blocked:unsupported_schema"),
        "{out}"
    );
    assert!(
        out.contains("why: Step 6 (apply A → blocked:unsupported_schema)"),
        "{out}"
    );
    // The page's paragraph, from the CLI too: the step, and what a correct consumer does there.
    assert!(
        out.contains("explained: Step 6 (apply A) marked A2 blocked (unsupported_schema)")
            && out.contains("never moves past a blocked event"),
        "{out}"
    );
    let (code, replayed, err) = cli(&["replay", path]);
    let saved = trace::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let _ = std::fs::remove_file(&file);
    assert_eq!(code, 0, "{err}");
    // What the CLI's replay prints is the document of the saved history, and its tables break the property.
    let doc = trace::replay(&saved).unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(&replayed).unwrap(),
        doc.to_value()
    );
    let c = Config {
        consumer: Ordering::SkipBlocked,
        schema2: Config::parse_schema2("A2"),
        ..config(1, 3, 0, 0)
    };
    assert!(broken(&c, &state_of(&doc, &c), Property::ConsumerInvariant));
    assert!(!doc.invariant.holds, "the page's badge agrees: {replayed}");
}

#[test]
fn cli_check_json_is_one_document() {
    let (code, out, _) = cli(&[
        "check",
        "--flows",
        "1",
        "--events",
        "2",
        "--resends",
        "0",
        "--crashes",
        "1",
        "--producer",
        "unsafe_dual_write",
        "--json",
    ]);
    assert_eq!(code, 1);
    let doc: Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(doc["format"], "outbox-playground-check/1");
    assert_eq!(doc["config"]["producer"], "unsafe_dual_write");
    assert_eq!(doc["verdict"], "violated");
    assert_eq!(doc["property"], "no_loss");
    assert_eq!(doc["counterexample"]["steps"][0]["op"], "unsafe_dual_write");
    assert!(doc["counts"]["states"].as_u64().unwrap() >= 2);
    let trace_text = doc["counterexample"].to_string();
    assert!(
        trace::parse(&trace_text).is_ok(),
        "the counterexample is a valid trace"
    );
}

#[test]
fn cli_check_refuses_bad_arguments_with_one_line() {
    for (args, says) in [
        (vec!["--flows", "4"], "--flows must be a whole number from 1 to 3, got `4`"),
        (vec!["--crashes", "-1"], "--crashes must be a whole number from 0 to 3, got `-1`"),
        (vec!["--consumer", "lax"], "--consumer must be one of strict, dedupe_only, greater_than, skip_blocked, effect_outside_tx, rule, got `lax`"),
        (vec!["--flows", "1", "--schema2", "B1"], "--schema2 names `B1`, which is not an event of 1 flow(s) × 3 event(s)"),
        (vec!["--events", "2", "--schema2", "A3"], "--schema2 names `A3`"),
        (vec!["--producer", "eventual"], "--producer must be atomic or unsafe_dual_write"),
        (vec!["--threads", "0"], "--threads must be a whole number from 1 to 64"),
        (vec!["--fast"], "unknown argument `--fast`"),
    ] {
        let mut full = vec!["check"];
        full.extend(args.iter().copied());
        let (code, out, err) = cli(&full);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
