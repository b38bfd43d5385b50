use crate::real::after;
use crate::trace::{ConsumerSetup, Step};

/// The run's summary line counts from the workers' logs: finished steps, `busy` answers, and the workers
/// that died inside a step (a step line with no result after it).
#[test]
fn the_logs_say_how_many_steps_finished_and_how_many_kills_landed_inside_one() {
    let dir = std::env::temp_dir().join(format!("outbox-soak-logs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let step = r#"{"n":0,"step":{"op":"relay"}}"#;
    let finished = format!("{step}\n{{\"n\":0,\"result\":\"committed\"}}\n{step}\n{{\"n\":1,\"result\":\"busy\"}}\n{{\"n\":2,\"st");
    std::fs::write(dir.join("worker-00000.jsonl"), finished).unwrap();
    std::fs::write(
        dir.join("worker-00001.jsonl"),
        format!("{step}\n{{\"n\":0,\"result\":\"accepted\"}}\n{step}\n"),
    )
    .unwrap();
    std::fs::write(dir.join("worker-00001.stderr"), format!("{step}\n")).unwrap();
    let counted = super::count_steps(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(counted.unwrap(), (3, 1, 1));
}

/// Flow F0 produced in full, and flow F1 to `f1` transitions; everything relayed and applied.
fn flows(f1: i64) -> Vec<Step> {
    let mut steps: Vec<Step> = (0..3)
        .map(|seq| crate::real::steps::produce("F0", seq))
        .collect();
    steps.extend((0..f1).map(|seq| crate::real::steps::produce("F1", seq)));
    steps.extend((0..3 + f1).map(|_| Step::relay(None)));
    steps.push(Step::process_all(None));
    steps
}

#[test]
fn the_final_checks_name_what_is_missing() {
    let mut problems = Vec::new();
    let partial = after(ConsumerSetup::default(), &flows(1));
    crate::real::checks::check_completion(&partial, 2, &mut problems);
    assert_eq!(
        problems,
        ["incomplete: flow F1 ends at Some((1, \"reserved\", 3)) with effects [\"reserved\"]"]
    );
    // The projection right, an effect twice: still incomplete.
    let mut twice = after(ConsumerSetup::default(), &flows(3));
    let mut problems = Vec::new();
    crate::real::checks::check_completion(&twice, 2, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    let again = twice.consumer.effect[0].clone();
    twice.consumer.effect.push(again);
    crate::real::checks::check_completion(&twice, 2, &mut problems);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .starts_with("incomplete: flow F0 ends at Some((3, \"released\", 0)) with effects"),
        "{problems:?}"
    );

    let mut problems = Vec::new();
    let unsent = after(
        ConsumerSetup::default(),
        &[crate::real::steps::produce("F0", 0)],
    );
    crate::real::checks::check_accepted(&unsent, &mut problems);
    assert_eq!(problems, ["after recovery, F0.1 is still not accepted"]);

    // The dedupe-only consumer's 3, 1, 2 breaks the invariant; the protocol's does not.
    let mut steps: Vec<Step> = (0..3)
        .map(|seq| crate::real::steps::produce("F0", seq))
        .collect();
    steps.extend(["F0.3", "F0.1", "F0.2"].map(|id| Step::relay(Some(id))));
    let dedupe = ConsumerSetup {
        ordering: crate::protocol::Ordering::DedupeOnly,
        ..ConsumerSetup::default()
    };
    let mut problems = Vec::new();
    crate::real::checks::check_invariant(
        &after(ConsumerSetup::default(), &steps),
        "at the end",
        &mut problems,
    );
    assert!(problems.is_empty(), "{problems:?}");
    crate::real::checks::check_invariant(&after(dedupe, &steps), "at the end", &mut problems);
    assert!(
        !problems.is_empty()
            && problems
                .iter()
                .all(|p| p.starts_with("invariant, at the end: ")),
        "{problems:?}"
    );
}

#[test]
fn the_final_recovery_is_summed_by_step_and_answer() {
    let lines = [
        r#"{"op":"relay","result":"accepted","applied":0,"message":null}"#,
        r#"{"op":"process_all","result":"done","applied":3,"message":null}"#,
        r#"{"op":"relay","result":"accepted","applied":0,"message":null}"#,
        r#"{"op":"process_all","result":"done","applied":2,"message":null}"#,
        "not json",
    ];
    assert_eq!(
        crate::real::checks::summarize(lines.join("\n").as_bytes()),
        "process_all done ×2, relay accepted ×2, 5 events applied"
    );
}

/// The unsafe producer writes about one transition in ten the unsafe way (its worker then exits), so that
/// between exits a worker runs long enough to mix in every other step; the atomic producer never does.
#[test]
fn the_unsafe_producer_writes_one_transition_in_ten_the_unsafe_way() {
    use crate::protocol::WriteMode;
    let dir = std::env::temp_dir().join(format!("outbox-soak-mix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    crate::real::create_files(&dir).unwrap();
    let mut seqs =
        crate::real::steps::SeqReader::open(&crate::protocol::Location::files(&dir)).unwrap();
    let mut count = |producer: WriteMode| {
        let mut rng = crate::real::Rng::new(7);
        let (mut unsafe_writes, mut produced) = (0, 0);
        for _ in 0..3000 {
            match crate::real::steps::random_step(&mut rng, 4, &mut seqs, producer) {
                Step::UnsafeDualWrite(_) => {
                    (unsafe_writes, produced) = (unsafe_writes + 1, produced + 1)
                }
                Step::Advance(_) => produced += 1,
                _ => {}
            }
        }
        (unsafe_writes, produced)
    };
    let (unsafe_writes, produced) = count(WriteMode::UnsafeDualWrite);
    assert!(
        (produced / 20..produced / 5).contains(&unsafe_writes),
        "{unsafe_writes} of {produced}"
    );
    assert_eq!(count(WriteMode::Atomic).0, 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
