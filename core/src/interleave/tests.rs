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
    // Braces inside the block are its own; the block is trimmed as the tester prints it.
    assert_eq!(s1.steps[1].sql, "UPDATE t SET v = '{b}' WHERE id = 1;");
    assert_eq!(
        spec.sessions[1].steps[0].sql,
        "UPDATE t SET v = 'c' WHERE id = 1;"
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
            "step markers",
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
