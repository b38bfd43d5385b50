//! The reader's rule in the checker (RULE.md): each built-in consumer written as a rule gives the built-in's
//! counts and verdict on the page's default configuration; the arrival-order queue is caught with its shortest
//! history. And `experiments check --rule`. (An answer the engine cannot carry out: core/tests/checker.rs.)
#![cfg(not(target_arch = "wasm32"))]

use outbox_core::checker::{Config, Property, Search, Verdict};
use outbox_core::protocol::Ordering;
use outbox_core::rule::{self, Rule, RuleEffect};
use serde_json::Value;

mod common;
use common::cli;

fn run(config: Config) -> Search {
    let mut search = Search::new(config)
        .expect("a valid configuration")
        .with_threads(2);
    search.finish().expect("the search runs");
    search
}

fn with_rule(base: &Config, sql: &str, effect: RuleEffect) -> Config {
    Config {
        consumer: Ordering::Rule,
        rule: Some(Rule::new(sql, effect).expect("the rule is accepted")),
        ..base.clone()
    }
}

/// The verdict as (property, history length), or `None` for holds.
fn verdict(search: &Search) -> Option<(Property, usize)> {
    match search.verdict().expect("a verdict") {
        Verdict::Holds => None,
        Verdict::Violated(c) => Some((c.violation.property, c.moves.len())),
    }
}

#[test]
fn each_built_in_as_a_rule_gives_the_built_ins_counts() {
    let default = Config::default();
    let small = |flows, events, resends, crashes, schema2: &str| Config {
        flows,
        events,
        resends,
        crashes,
        schema2: Config::parse_schema2(schema2),
        ..Config::default()
    };
    let cases = [
        (Ordering::Strict, default.clone()),
        (Ordering::Strict, small(1, 3, 1, 1, "A2")),
        (Ordering::GreaterThan, small(1, 2, 0, 0, "")),
        (Ordering::SkipBlocked, small(1, 3, 0, 0, "A2")),
        (Ordering::EffectOutsideTx, small(1, 1, 0, 1, "")),
        // Where each wrong turn holds (CHECKER.md), so that its counts are defined and compared too.
        (Ordering::GreaterThan, small(2, 1, 1, 1, "")),
        (Ordering::SkipBlocked, small(1, 3, 1, 1, "")),
        (Ordering::EffectOutsideTx, small(1, 3, 1, 0, "")),
    ];
    let mut compared = 0;
    for (ordering, base) in cases {
        let builtin = run(Config {
            consumer: ordering,
            ..base.clone()
        });
        let (sql, effect) = rule::builtin(ordering).expect("a built-in with a rule");
        let ruled = run(with_rule(&base, sql, effect));
        let label = format!("{ordering:?} on {}", base.to_query());
        assert_eq!(verdict(&ruled), verdict(&builtin), "{label}");
        if verdict(&builtin).is_none() {
            assert_eq!(ruled.counts(), builtin.counts(), "{label}");
            compared += 1;
        }
    }
    assert_eq!(
        compared, 5,
        "every built-in's counts compared where it holds"
    );
}

#[test]
fn the_arrival_order_queue_is_caught_and_its_state_holds_the_arrival_order() {
    let base = Config {
        flows: 1,
        events: 3,
        resends: 0,
        crashes: 0,
        ..Config::default()
    };
    let search = run(with_rule(&base, rule::ARRIVAL_ORDER, RuleEffect::Inside));
    // advance A1, advance A2, relay A2, apply A: A2 (confirmed) applied on arrival, before A1.
    assert_eq!(verdict(&search), Some((Property::ConsumerInvariant, 4)));
    // A rule that reads arrival sees orders the built-ins' state leaves out: more states than strict's.
    let strict_like = "SELECT event_id, 'apply' FROM waiting WHERE state = 'pending' AND seq = last_seq + 1 ORDER BY arrival";
    let ordered = run(with_rule(&base, strict_like, RuleEffect::Inside));
    let plain = run(Config {
        consumer: Ordering::Strict,
        ..base.clone()
    });
    assert_eq!(verdict(&ordered), None);
    assert!(
        ordered.counts().states > plain.counts().states,
        "{:?} against {:?}",
        ordered.counts(),
        plain.counts()
    );
}

#[test]
fn the_cli_checks_a_rule_file_and_refuses_a_bad_one_in_one_line() {
    let dir = std::env::temp_dir().join(format!("outbox-rule-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let strict = dir.join("strict.sql");
    std::fs::write(&strict, rule::STRICT).unwrap();
    let args = [
        "check",
        "--flows",
        "1",
        "--events",
        "3",
        "--crashes",
        "1",
        "--json",
    ];
    let builtin: Value = serde_json::from_str(&cli(&args).1).unwrap();
    let mut ruled_args = args.to_vec();
    let path = strict.to_str().unwrap();
    ruled_args.extend(["--rule", path]);
    let (code, stdout, stderr) = cli(&ruled_args);
    assert_eq!(code, 0, "{stderr}");
    let ruled: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(ruled["counts"], builtin["counts"]);
    assert_eq!(ruled["verdict"], "holds");
    assert_eq!(ruled["config"]["consumer"], "rule");
    assert_eq!(ruled["config"]["rule"], rule::STRICT);
    assert_eq!(ruled["config"]["effect"], "inside");

    let arrival = dir.join("arrival.sql");
    std::fs::write(&arrival, rule::ARRIVAL_ORDER).unwrap();
    let (code, stdout, _) = cli(&[
        "check",
        "--flows",
        "1",
        "--events",
        "3",
        "--rule",
        arrival.to_str().unwrap(),
        "--effect",
        "outside",
    ]);
    assert_eq!(code, 1, "a violation exits 1: {stdout}");
    assert!(stdout.contains("consumer_invariant"), "{stdout}");

    let bad = dir.join("bad.sql");
    std::fs::write(&bad, "SELECT event_id, 'apply' FROM inbox").unwrap();
    let (code, _, err) = cli(&["check", "--rule", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no such table: inbox"), "{err}");
    let (code, _, err) = cli(&["check", "--effect", "sideways", "--rule", path]);
    assert_eq!(code, 2);
    assert!(err.contains("effect must be one of"), "{err}");
    let (code, _, err) = cli(&["check", "--rule", dir.join("missing.sql").to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("cannot read"), "{err}");
    // Each built-in's rule, as a starting point.
    let (code, out, _) = cli(&["rule", "greater_than"]);
    assert_eq!((code, out.trim()), (0, rule::GREATER_THAN));
    let (code, _, err) = cli(&["rule", "dedupe_only"]);
    assert_eq!(code, 2);
    assert!(err.contains("has no rule"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
