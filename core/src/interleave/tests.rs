use super::print::{result_set, ResultSet};
use super::*;

const SPEC: &str = r#"
# Two updates of one row.
setup { CREATE TABLE t (id int PRIMARY KEY, v text); INSERT INTO t VALUES (1, 'a'); }
setup { SELECT 1; }
teardown { DROP TABLE t; }
session s1
setup { SET lock_timeout = '5s'; }
step s1b { BEGIN; }
step "s1 u" { UPDATE t SET v = '{b}' WHERE id = 1; }
step s1c { COMMIT; }
teardown { SELECT 2; }
session s2
step s2u {
  UPDATE t SET v = 'c' WHERE id = 1;
}
permutation s1b "s1 u" s2u
  s1c
permutation s2u s1b "s1 u" s1c
"#;

#[test]
fn a_spec_reads_as_the_isolation_tester_reads_it() {
    let spec = parse(SPEC).unwrap();
    assert_eq!(spec.setup.len(), 2);
    assert_eq!(spec.teardown.as_deref(), Some("DROP TABLE t;"));
    assert_eq!(spec.sessions.len(), 2);
    let s1 = &spec.sessions[0];
    assert_eq!(s1.setup.as_deref(), Some("SET lock_timeout = '5s';"));
    assert_eq!(s1.steps[1].name, "s1 u");
    // Braces inside the block are its own; spaces after `{` and before `}` are dropped, as the tester's scanner
    // drops them, and its line breaks kept: the tester prints a step from its first character.
    assert_eq!(s1.steps[1].sql, "UPDATE t SET v = '{b}' WHERE id = 1;");
    assert_eq!(
        spec.sessions[1].steps[0].sql,
        "\n  UPDATE t SET v = 'c' WHERE id = 1;\n"
    );
    assert_eq!(
        spec.permutations,
        vec![
            vec!["s1b", "s1 u", "s2u", "s1c"],
            vec!["s2u", "s1b", "s1 u", "s1c"]
        ]
    );
}

#[test]
fn without_permutations_every_interleaving_runs_in_the_testers_order() {
    let spec = parse(
        "session a\nstep a1 { SELECT 1; }\nstep a2 { SELECT 2; }\nsession b\nstep b1 { SELECT 3; }\n",
    )
    .unwrap();
    assert_eq!(
        spec.permutations(),
        vec![
            vec!["a1", "a2", "b1"],
            vec!["a1", "b1", "a2"],
            vec!["b1", "a1", "a2"]
        ]
    );
}

#[test]
fn a_bad_spec_is_refused_naming_its_line() {
    for (text, line, says) in [
        (
            "session s\nstep a { SELECT 1; }\nfrobnicate { x }\n",
            3,
            "unknown or misplaced `frobnicate`",
        ),
        (
            "setup { CREATE TABLE t(i int);\nsession s\n",
            1,
            "never closed",
        ),
        (
            "session s\nstep a { SELECT 1; }\npermutation a b\n",
            3,
            "names step `b`, which no session has",
        ),
        (
            "session s\nstep a { SELECT 1; }\npermutation a(b)\n",
            3,
            "names step `b`",
        ),
        (
            "session s\nstep a { SELECT 1; }\nstep b { SELECT 2; }\npermutation a b(a)\n",
            4,
            "a step of its own session",
        ),
        (
            "session s\nstep a { SELECT 1; }\npermutation a(a notices)\n",
            3,
            "`notices` without a count",
        ),
        (
            "session s\nstep a { SELECT 1; }\npermutation a(*\n",
            3,
            "step marker",
        ),
        (
            "session s\nstep a { SELECT 1; }\nstep a { SELECT 2; }\n",
            3,
            "a second step named `a`",
        ),
        ("setup { SELECT 1; }\n", 1, "no session"),
        ("session s\nstep a\n", 2, "needs an SQL block"),
        (
            "session s\nstep a { SELECT 1; } }\n",
            2,
            "a `}` with no `{`",
        ),
        (
            "session s\nstep a { SELECT 1; }\nsession s\nstep b { SELECT 1; }\n",
            3,
            "a second session",
        ),
        // The protocol's operations: each refused with its line and what is wrong.
        (
            "session s\nstep a { @apply }\n",
            2,
            "`@apply` is not an operation",
        ),
        (
            "session s\nstep a { @apply A until apply.after_commit }\n",
            2,
            "apply.after_commit is not inside apply's transaction (apply.after_projection, apply.after_effect)",
        ),
        (
            "session s\nstep a { @apply A until nowhere }\n",
            2,
            "`nowhere` is not a boundary",
        ),
        (
            "session s\nstep a { @apply A until apply.after_effect; @apply A }\n",
            2,
            "`until` ends a step",
        ),
        (
            "setup { @tables }\nsetup { @advance A 1 until producer.after_state }\nsession s\nstep a { @apply A }\n",
            2,
            "only a step may stop inside a transaction",
        ),
        (
            "session s\nstep a { @advance A 4 }\n",
            2,
            "the seq is 1 to 3",
        ),
        (
            "session s\nstep a { @advance A 1 A/1 }\n",
            2,
            "field `event_id` may hold only A–Z a–z 0–9 _ . : -, found '/'",
        ),
    ] {
        let e = parse(text).unwrap_err();
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(e.message.contains(says), "{text:?}: {e}");
    }
}

#[test]
fn a_result_set_prints_as_pqprint_does() {
    let set = ResultSet {
        columns: vec!["id".into(), "v".into(), "n".into(), "b".into()],
        rows: vec![
            vec![
                Some("1".into()),
                Some("a".into()),
                Some("1.5".into()),
                Some("t".into()),
            ],
            vec![Some("22".into()), None, None, Some("f".into())],
        ],
    };
    // What PostgreSQL 15's isolationtester printed for the same rows.
    assert_eq!(
        result_set(&set),
        "id|v|  n|b\n--+-+---+-\n 1|a|1.5|t\n22| |   |f\n(2 rows)\n\n"
    );
    let empty = ResultSet {
        columns: vec!["pg_sleep".into()],
        rows: vec![vec![Some(String::new())]],
    };
    assert_eq!(
        result_set(&empty),
        "pg_sleep\n--------\n        \n(1 row)\n\n"
    );
    let text = ResultSet {
        columns: vec!["headerlong".into(), "n".into()],
        rows: vec![vec![Some("longer text value".into()), Some("3".into())]],
    };
    assert_eq!(
        result_set(&text),
        "headerlong       |n\n-----------------+-\nlonger text value|3\n(1 row)\n\n"
    );
    assert_eq!(result_set(&ResultSet::default()), "");
}

#[test]
fn a_holding_cell_draws_the_checked_interleaving_in_which_most_steps_waited() {
    use super::check::Check;
    use super::run::{Line, Permutation};
    let waited = Line::Completed {
        session: "w2".into(),
        step: "w2_apply".into(),
        answer: String::new(),
    };
    let run = |waits: usize, checked: bool| Permutation {
        steps: vec![],
        lines: vec![waited.clone(); waits],
        check: checked.then_some(Check {
            consumer_invariant: None,
            no_loss: None,
        }),
        outbox: None,
    };
    // The second waited most but was not checked (it could not run): the third, of the checked, is drawn.
    let cell = table::cell(
        "read-committed",
        vec![run(0, true), run(2, false), run(1, true), run(0, true)],
    )
    .unwrap();
    assert_eq!((cell.verdict, cell.shown), (table::Verdict::Holds, 3));
    let broken = Permutation {
        check: Some(Check {
            consumer_invariant: None,
            no_loss: Some("A1 lost".into()),
        }),
        ..run(0, true)
    };
    let cell = table::cell("sqlite", vec![run(1, true), broken]).unwrap();
    assert_eq!((cell.verdict, cell.shown), (table::Verdict::Breaks, 2));
}

#[test]
fn a_permutations_step_markers_are_read_as_the_tester_reads_them() {
    let spec = parse(
        "session s1\nstep a { SELECT 1; }\nstep b { SELECT 2; }\nsession s2\nstep c { SELECT 3; }\n\
         permutation a(*) c(a, a notices 2) b\n",
    )
    .unwrap();
    assert_eq!(spec.permutations, vec![vec!["a", "c", "b"]]);
    assert_eq!(
        spec.markers,
        vec![vec![
            vec![Marker::Now],
            vec![Marker::Step("a".into()), Marker::Notices("a".into(), 2)],
            vec![]
        ]]
    );
}

#[test]
fn an_outbox_is_judged_for_loss_duplicates_and_order_by_its_rows() {
    use super::check::judge;
    let rows = |r: &[(&str, i64)]| -> Vec<(String, i64)> {
        r.iter().map(|(s, p)| (s.to_string(), *p)).collect()
    };
    let committed = rows(&[("A", 1), ("A", 2), ("B", 1)]);
    assert!(judge(&committed, &rows(&[("B", 1), ("A", 1), ("A", 2)])).holds());
    let c = judge(&committed, &rows(&[("A", 2), ("A", 1), ("A", 2)]));
    assert_eq!(c.loss.as_deref(), Some("B/1 committed, never delivered"));
    assert_eq!(c.duplicates.as_deref(), Some("A/2 delivered 2 times"));
    assert_eq!(c.order.as_deref(), Some("stream A: 1 delivered after 2"));
    assert_eq!(
        c.to_string(),
        "check: loss breaks: B/1 committed, never delivered; duplicates breaks: A/2 delivered 2 times; \
         order breaks: stream A: 1 delivered after 2"
    );
    // A declaration with one query of the two is refused at its line.
    let e = parse("committed { SELECT 'A', 1; }\nsession s\nstep a { SELECT 1; }\n").unwrap_err();
    assert_eq!(e.line, 1);
    assert!(e.message.contains("needs a `delivered` block"), "{e}");
    let spec = parse(
        "committed { SELECT s, p FROM o; }\ndelivered { SELECT s, p FROM d ORDER BY n; }\nsession s\nstep a { SELECT 1; }\n",
    )
    .unwrap();
    assert_eq!(
        spec.outbox,
        Some(Outbox {
            committed: "SELECT s, p FROM o;".into(),
            delivered: "SELECT s, p FROM d ORDER BY n;".into()
        })
    );
}

#[test]
fn a_spec_without_permutations_counts_its_interleavings_and_samples_them_reproducibly() {
    let spec = parse(
        "session a\nstep a1 { SELECT 1; }\nstep a2 { SELECT 1; }\nsession b\nstep b1 { SELECT 1; }\n\
         step b2 { SELECT 1; }\nstep b3 { SELECT 1; }\nsession c\nstep c1 { SELECT 1; }\n",
    )
    .unwrap();
    // 6! / (2! 3! 1!) = 60, as many as the tester would run.
    assert_eq!(spec.interleavings(), 60);
    assert_eq!(spec.permutations().len(), 60);
    let drawn = spec.sampled(20, 7);
    assert_eq!(drawn, spec.sampled(20, 7), "the same seed draws the same");
    assert_ne!(drawn, spec.sampled(20, 8));
    for p in &drawn {
        assert!(
            spec.permutations().contains(p),
            "{p:?} keeps each session's order"
        );
    }
}
