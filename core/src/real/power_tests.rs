use super::{holds, read_claims, regressions, unreadable, Claim};
use crate::protocol::Location;
use crate::protocol::Snapshot;
use crate::trace::{ConsumerSetup, Session, Step};
use serde_json::json;

fn after(steps: &[Step]) -> Snapshot {
    crate::real::after(ConsumerSetup::default(), steps)
}

fn produce(flow: &str) -> Step {
    Step::advance(flow, &format!("{flow}1"), 0, "reserved", 1)
}

#[test]
fn a_workers_log_says_what_it_was_told() {
    // As a power worker writes it: each step, then its result; the last line of a killed worker cut short.
    let steps = [
        produce("A"),
        Step::advance("A", "A9", 0, "reserved", 1),
        Step::relay(None),
        Step::relay(None),
        Step::apply("A"),
    ];
    let mut session = Session::create(&Location::memory(), ConsumerSetup::default()).unwrap();
    let mut log = String::new();
    for (n, step) in steps.iter().enumerate() {
        let report = session.step(step);
        log += &format!("{}\n", json!({ "n": n, "step": step }));
        log += &format!(
            "{}\n",
            json!({ "n": n, "result": report.result, "relayed": report.relayed })
        );
    }
    log += r#"{"n":5,"st"#;
    let path = std::env::temp_dir().join(format!("outbox-power-log-{}.jsonl", std::process::id()));
    std::fs::write(&path, log).unwrap();
    let mut counted = 0;
    let claims = read_claims(&[(2, path.clone())], &mut counted);
    std::fs::remove_file(&path).unwrap();
    let claims: Vec<(usize, String)> = claims
        .unwrap()
        .iter()
        .map(|(w, c)| (*w, c.to_string()))
        .collect();
    // The stale advance, the idle relay and the apply tell the worker nothing the files must keep.
    assert_eq!(
        claims,
        [
            (2, "advance A1 → committed".to_owned()),
            (2, "relay A1 → delivered".to_owned())
        ]
    );
    assert_eq!(counted, 5);
}

#[test]
fn a_claim_holds_only_where_the_files_keep_it() {
    let committed = Claim::Committed("A1".into());
    let delivered = Claim::Delivered("A1".into());
    let produced = after(&[produce("A")]);
    assert!(holds(&produced, &committed) && !holds(&produced, &delivered));
    let relayed = after(&[produce("A"), Step::relay(None)]);
    assert!(holds(&relayed, &committed) && holds(&relayed, &delivered));
    assert!(!holds(&after(&[produce("B")]), &committed));
    assert!(!holds(
        &after(&[produce("B"), Step::relay(None)]),
        &delivered
    ));
}

#[test]
fn a_cut_that_takes_what_an_earlier_cut_left_is_named() {
    let check = |before: &Snapshot, now: &Snapshot| {
        let mut problems = Vec::new();
        regressions(before, now, "after cut 2", &mut problems);
        problems
    };
    let applied = after(&[produce("A"), Step::relay(None), Step::apply("A")]);
    let gone =
        |what: &str| format!("after cut 2: the previous cut had left {what}, and it is gone");
    assert_eq!(
        check(&applied, &after(&[])),
        [
            gone("flow A at seq 1"),
            gone("outbox row A1 (accepted 1)"),
            gone("inbox row A1"),
            gone("projection A at last_seq 1"),
            gone("1 of 1 effects"),
        ]
    );
    // Only what went is named: an accepted mark, or a flow another flow's rows cannot stand for.
    let relayed = after(&[produce("A"), Step::relay(None)]);
    assert_eq!(
        check(&relayed, &after(&[produce("A")])),
        [gone("outbox row A1 (accepted 1)"), gone("inbox row A1")]
    );
    let other = after(&[produce("B"), Step::relay(None), Step::apply("B")]);
    assert_eq!(
        check(&applied, &other),
        [
            gone("flow A at seq 1"),
            gone("outbox row A1 (accepted 1)"),
            gone("inbox row A1"),
            gone("projection A at last_seq 1"),
        ]
    );
    // The same rows, or more, take nothing.
    assert!(check(&applied, &applied).is_empty());
    let further = after(&[
        produce("A"),
        Step::relay(None),
        Step::apply("A"),
        Step::advance("A", "A2", 1, "confirmed", 1),
    ]);
    assert!(check(&applied, &further).is_empty());
}

#[test]
fn a_file_sqlite_cannot_read_is_named() {
    let dir = std::env::temp_dir().join(format!("outbox-power-unreadable-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    crate::real::create_files(&dir).unwrap();
    let fine = unreadable(&dir);
    std::fs::write(
        dir.join(crate::protocol::location::CONSUMER_FILE),
        vec![0x5a; 8192],
    )
    .unwrap();
    let torn = unreadable(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(fine, "both pass quick_check");
    assert_eq!(torn, "consumer.db fails quick_check");
}
