use super::{Outcome1, Scenario};
use crate::protocol::{Outcome, Snapshot};
use crate::real::steps::a1;
use crate::trace::{ConsumerSetup, Step};

use crate::real::after;

fn answers(words: &[(&str, usize, Option<&str>)]) -> Vec<Outcome1> {
    words
        .iter()
        .map(|(word, applied, message)| Outcome1 {
            result: Outcome::from_name(word),
            word: (*word).to_owned(),
            applied: *applied,
            message: message.map(str::to_owned),
        })
        .collect()
}

fn advance(id: &str, expected: i64, kind: &str) -> Step {
    Step::advance("A", id, expected, kind, 1)
}

#[test]
fn a_race_with_other_than_one_winner_or_an_unexpected_answer_fails() {
    let produced = after(ConsumerSetup::default(), &[advance("A1", 0, "reserved")]);
    let check = |words: &[(&str, usize, Option<&str>)]| {
        Scenario::SameEvent.check(&answers(words), &produced)
    };
    assert!(check(&[("committed", 0, None), ("existing", 0, None)]).is_empty());
    assert_eq!(
        check(&[("committed", 0, None), ("committed", 0, None)]),
        ["2 processes got `committed`, not exactly one"]
    );
    assert_eq!(
        check(&[("existing", 0, None)]),
        ["0 processes got `committed`, not exactly one"]
    );
    // A process that gave up waiting may have been the one: then the records judge.
    assert!(check(&[("busy", 0, None), ("existing", 0, None)]).is_empty());
    assert_eq!(
        check(&[
            ("committed", 0, None),
            ("sql_error", 0, Some("disk I/O error")),
            ("garbage", 0, None)
        ]),
        [
            "a process answered `sql_error` (disk I/O error)",
            "a process answered `garbage`"
        ]
    );
}

#[test]
fn a_race_that_left_the_wrong_records_fails() {
    let one = [("committed", 0, None)];
    let two = after(
        ConsumerSetup::default(),
        &[advance("A1", 0, "reserved"), advance("A2", 1, "confirmed")],
    );
    assert_eq!(
        Scenario::NewIds.check(&answers(&one), &two),
        ["2 outbox rows and flow [(2, \"confirmed\")]: not one transition"]
    );
    // Each half alone fails: a state change without its outbox row (the unsafe dual write's loss), and one
    // outbox row under a flow that moved twice.
    let mut lost = after(ConsumerSetup::default(), &[advance("A1", 0, "reserved")]);
    lost.producer.outbox.clear();
    assert_eq!(
        Scenario::SameEvent.check(&answers(&one), &lost),
        ["0 outbox rows and flow [(1, \"reserved\")]: not one transition"]
    );
    let mut moved = after(ConsumerSetup::default(), &[advance("A1", 0, "reserved")]);
    moved.producer.flow[0].seq = 2;
    assert_eq!(
        Scenario::NewIds.check(&answers(&one), &moved),
        ["1 outbox rows and flow [(2, \"reserved\")]: not one transition"]
    );
    let accepted = [("accepted", 0, None)];
    assert_eq!(
        Scenario::Receive.check(&answers(&accepted), &after(ConsumerSetup::default(), &[])),
        ["0 inbox rows, not one"]
    );
    let received = Step::Receive {
        event: a1().to_json(),
        crash_at: None,
    };
    let unmarked = after(
        ConsumerSetup::default(),
        &[advance("A1", 0, "reserved"), received],
    );
    assert_eq!(
        Scenario::Relay.check(&answers(&accepted), &unmarked),
        ["the outbox row is not marked accepted"]
    );
    let relayed = after(
        ConsumerSetup::default(),
        &[advance("A1", 0, "reserved"), Step::relay(None)],
    );
    assert!(Scenario::Relay
        .check(&answers(&accepted), &relayed)
        .is_empty());
    // Records that break the invariant: the dedupe-only consumer's 3, 1, 2.
    let mut steps = vec![
        advance("A1", 0, "reserved"),
        advance("A2", 1, "confirmed"),
        advance("A3", 2, "released"),
    ];
    steps.extend(["A3", "A1", "A2"].map(|id| Step::relay(Some(id))));
    let setup = ConsumerSetup {
        ordering: crate::protocol::Ordering::DedupeOnly,
        ..ConsumerSetup::default()
    };
    let problems = Scenario::Receive.check(&answers(&accepted), &after(setup, &steps));
    assert_eq!(problems[0], "3 inbox rows, not one");
    assert!(
        problems[1..].iter().all(|p| p.starts_with("invariant: ")) && problems.len() > 1,
        "{problems:?}"
    );
}

#[test]
fn an_apply_race_is_judged_by_its_applies_effects_and_projection() {
    let mut steps = vec![
        advance("A1", 0, "reserved"),
        advance("A2", 1, "confirmed"),
        advance("A3", 2, "released"),
    ];
    steps.extend([Step::relay(None), Step::relay(None), Step::relay(None)]);
    let once = after(
        ConsumerSetup::default(),
        &[&steps[..], &[Step::apply("A")]].concat(),
    );
    steps.push(Step::process_all(None));
    let done = after(ConsumerSetup::default(), &steps);
    let check = |words: &[(&str, usize, Option<&str>)], s: &Snapshot| {
        Scenario::Apply.check(&answers(words), s)
    };
    assert!(check(&[("done", 3, None), ("done", 0, None)], &done).is_empty());
    assert!(check(&[("done", 1, None), ("done", 2, None)], &done).is_empty());
    assert_eq!(
        check(&[("done", 2, None)], &done),
        ["2 applies in all, not 3"]
    );
    assert!(check(&[("done", 2, None), ("busy", 0, None)], &done).is_empty());
    assert_eq!(
        check(&[("done", 3, None)], &once),
        [
            "effects [\"A1\"], not A1, A2, A3 once each",
            "projection Some((1, \"reserved\", 3)), not released last_seq=3 held=0",
        ]
    );
}

#[test]
fn a_process_all_answer_says_how_many_it_applied() {
    let labels: Vec<String> =
        answers(&[("done", 3, None), ("done", 0, None), ("existing", 0, None)])
            .iter()
            .map(Outcome1::label)
            .collect();
    assert_eq!(labels, ["done (applied 3)", "done (applied 0)", "existing"]);
}
