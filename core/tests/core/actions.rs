//! CHECKER.md's action list, computed by this file alone from each state's rows, against what the checker
//! offers and counts — with a rule that reads `arrival`, whose states keep the inbox's rows in arrival order
//! (A1, B1, A2), and one that does not. The states are found by a search of this file's own: each history
//! replayed from the start in a fresh session, a state named by its rows.

use std::collections::HashSet;

use outbox_core::checker::{self, shard, Action, Config, Search, Verdict};
use outbox_core::protocol::{Location, Ordering, Snapshot};
use outbox_core::rule::{Rule, RuleEffect};
use outbox_core::trace::{Session, Step};

/// The rule: strict's answer, in arrival order.
const BY_ARRIVAL: &str = "SELECT event_id, CASE WHEN problem IS NULL THEN 'apply' ELSE 'block' END FROM waiting WHERE seq = last_seq + 1 ORDER BY arrival LIMIT 1";
/// The same answer, with no word of arrival.
const BY_SEQ: &str = "SELECT event_id, CASE WHEN problem IS NULL THEN 'apply' ELSE 'block' END FROM waiting WHERE seq = last_seq + 1";
const FLOWS: [&str; 3] = ["A", "B", "C"];

fn ruled(flows: u8, events: u8, sql: &str) -> Config {
    Config {
        flows,
        events,
        resends: 0,
        crashes: 0,
        consumer: Ordering::Rule,
        rule: Some(Rule::new(sql, RuleEffect::Inside).expect("the rule is accepted")),
        ..Config::default()
    }
}

/// A state's name: its rows (bodies are fixed by the ids), and the inbox's arrival order when the rule reads it.
fn name(snap: &Snapshot, arrival: bool) -> String {
    let mut consumer = snap.consumer.clone();
    consumer.inbox.sort_by(|a, b| a.event_id.cmp(&b.event_id));
    let mut order = snap.consumer.inbox.clone();
    order.sort_by_key(|r| r.arrival);
    let order: Vec<&str> = order.iter().map(|r| r.event_id.as_str()).collect();
    format!(
        "{} {} {:?}",
        serde_json::to_string(&snap.producer).unwrap(),
        serde_json::to_string(&consumer).unwrap(),
        if arrival { order } else { Vec::new() }
    )
}

/// CHECKER.md's list (1, 2 and 4; no resend or crash budget here), each as its step's words.
fn listed(config: &Config, snap: &Snapshot) -> Vec<String> {
    let mut out = Vec::new();
    for flow in &FLOWS[..usize::from(config.flows)] {
        let seq = snap
            .producer
            .flow
            .iter()
            .find(|r| r.flow_id == *flow)
            .map_or(0, |r| r.seq);
        if seq < i64::from(config.events) {
            out.push(format!("advance {flow}{}", seq + 1));
        }
    }
    let mut unsent: Vec<&str> = snap
        .producer
        .outbox
        .iter()
        .filter(|r| r.accepted == 0)
        .map(|r| r.event_id.as_str())
        .collect();
    unsent.sort();
    out.extend(unsent.into_iter().map(|id| format!("relay {id}")));
    for flow in &FLOWS[..usize::from(config.flows)] {
        if snap.consumer.inbox.iter().any(|r| r.flow_id == *flow) {
            out.push(format!("apply {flow}"));
        }
    }
    out
}

/// The checker's actions from the same rows, in the same words.
fn offered(config: &Config, snap: &Snapshot) -> Vec<String> {
    let state = checker::state::State::from_snapshot(config, snap, 0, 0).unwrap();
    checker::actions(config, &state)
        .into_iter()
        .map(|a| match a {
            Action::Advance(ev) => format!("advance {}", ev.id()),
            Action::Relay(ev) => format!("relay {}", ev.id()),
            Action::Apply(flow) => format!("apply {}", FLOWS[usize::from(flow)]),
            other => panic!("{other:?} with no budget for it"),
        })
        .collect()
}

fn step_of(config: &Config, words: &str) -> Step {
    let (verb, what) = words.split_once(' ').unwrap();
    match verb {
        "advance" => config.advance(config.parse_event(what).unwrap()),
        "relay" => Step::relay(Some(what)),
        _ => Step::apply(what),
    }
}

/// The rows after `history`, run from fresh databases.
fn rows_after(config: &Config, history: &[Step]) -> Snapshot {
    let mut session = Session::create(&Location::memory(), config.setup()).unwrap();
    for step in history {
        session.step(step);
    }
    session.snapshot().unwrap()
}

/// This file's breadth-first search: `(states, transitions)`, checking at every state that the checker offers
/// CHECKER.md's list.
fn count(config: &Config) -> (u64, u64) {
    let arrival = config.arrival_matters();
    let mut seen = HashSet::from([name(&rows_after(config, &[]), arrival)]);
    let mut level: Vec<Vec<Step>> = vec![Vec::new()];
    let mut transitions = 0;
    while !level.is_empty() {
        let mut next = Vec::new();
        for history in level {
            let snap = rows_after(config, &history);
            let list = listed(config, &snap);
            assert_eq!(
                offered(config, &snap),
                list,
                "{} after {history:?}",
                config.to_query()
            );
            transitions += list.len() as u64;
            for words in &list {
                let mut longer = history.clone();
                longer.push(step_of(config, words));
                if seen.insert(name(&rows_after(config, &longer), arrival)) {
                    next.push(longer);
                }
            }
        }
        level = next;
    }
    (seen.len() as u64, transitions)
}

both! {
    // Two and three flows, a rule that reads arrival and one that does not: at every state the checker offers
    // CHECKER.md's actions, each apply once per flow, and its counts are this file's — natively and in the
    // wasm32 build, on one thread and shared by the page's workers.
    fn the_checker_offers_checkers_list_from_every_state_in_arrival_order_too() {
        for (flows, events) in [(2, 2), (3, 1)] {
            for sql in [BY_ARRIVAL, BY_SEQ] {
                let config = ruled(flows, events, sql);
                let (states, transitions) = count(&config);
                let mut search = Search::new(config.clone()).unwrap();
                assert!(matches!(search.finish().unwrap(), Verdict::Holds));
                let counts = search.counts();
                assert_eq!((counts.states, counts.transitions), (states, transitions), "{}", config.to_query());
                let (shared, _, _) = shard::run(&config, 2, false).unwrap();
                assert_eq!(shared, counts, "{} in two workers", config.to_query());
                if (flows, events, sql) == (2, 2, BY_ARRIVAL) {
                    // The independent reference's numbers for the command.
                    assert_eq!((states, transitions), (841, 2_136));
                }
            }
        }
    }
}
