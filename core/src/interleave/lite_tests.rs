//! `lite.rs` and `lite_sql.rs`: PostgreSQL's words on SQLite.

/// What a spec prints on SQLite.
fn printed(spec: &str) -> String {
    let spec = super::super::parse(spec).unwrap();
    let mut out = Vec::new();
    super::run_spec(&spec, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn postgresqls_words_for_sequences_transactions_and_errors() {
    let out = printed(
        "setup { CREATE TABLE t (i integer); CREATE SEQUENCE s; }\n\
         teardown { DROP TABLE t; DROP SEQUENCE s; }\n\
         session a\n\
         step twice { CREATE SEQUENCE s; }\n\
         step missing { DROP SEQUENCE nothing; }\n\
         step options { CREATE SEQUENCE u START 100; }\n\
         step next { SELECT nextval('s') AS n; }\n\
         step block { INSERT INTO t VALUES (1); INSERT INTO nowhere VALUES (1); }\n\
         step begin { BEGIN; BEGIN; INSERT INTO t VALUES (2); }\n\
         step failed { SELECT missing FROM t; }\n\
         step after { SELECT 1 AS one; }\n\
         step commit { COMMIT; COMMIT; SELECT count(*) AS rows FROM t; }\n\
         step savepoint { SAVEPOINT p; }\n",
    );
    for line in [
        "step twice: CREATE SEQUENCE s;\nERROR:  relation \"s\" already exists\n",
        "ERROR:  sequence \"nothing\" does not exist\n",
        "ERROR:  CREATE SEQUENCE takes one name here, without options\n",
        "n\n-\n1\n(1 row)\n",
        // Two statements outside a transaction are one: the error undoes the first.
        "ERROR:  no such table: nowhere\n",
        // A second BEGIN is a warning only; the error ends the transaction; what follows is refused until
        // its end, which rolls back; a COMMIT outside a transaction is a warning only.
        "step begin: BEGIN; BEGIN; INSERT INTO t VALUES (2);\nstep failed",
        "step after: SELECT 1 AS one;\nERROR:  current transaction is aborted, commands ignored until end of transaction block\n",
        "rows\n----\n   0\n(1 row)\n",
        "ERROR:  savepoints are not supported on SQLite here\n",
    ] {
        assert!(out.contains(line), "{line:?} not in:\n{out}");
    }
}

#[test]
fn a_block_splits_at_semicolons_outside_quotes_and_comments() {
    assert_eq!(
        super::split("SELECT 'a;b'; -- c;d\n SELECT \"x;\" ;; BEGIN"),
        vec!["SELECT 'a;b'", "SELECT \"x;\"", "BEGIN"]
    );
}

#[test]
fn a_step_calls_the_protocols_operations_and_one_stopped_inside_its_transaction_waits_for_its_end()
{
    let out = printed(
        "setup { @tables }\n\
         setup { @advance A 1 }\n\
         teardown { DROP TABLE flow; DROP TABLE outbox; DROP TABLE inbox; DROP TABLE projection; DROP TABLE effect; }\n\
         session p\n\
         step open { @advance A 2 until producer.after_outbox }\n\
         step undo { ROLLBACK; SELECT seq FROM flow; }\n\
         session r\n\
         step send { @receive; @mark; @apply A; @receive }\n\
         step stale { @advance A 3 }\n\
         permutation open send undo stale\n",
    );
    for line in [
        // Stopped at its boundary, its transaction holds the one writer: the relay's receive waits for it.
        "step open: @advance A 2 until producer.after_outbox\nadvance",
        "paused at producer.after_outbox, its transaction open\n",
        "step send: @receive; @mark; @apply A; @receive <waiting ...>\n",
        // Rolled back, A2 was never committed: the flow is still at 1, and the relay finds only A1.
        "seq\n---\n  1\n(1 row)\n",
        "step send: <... completed>\nreceive    \n-----------\nA1 accepted\n(1 row)\n\nmark\n----\nA1  \n(1 row)\n\napply  \n-------\napplied\n(1 row)\n\nreceive        \n---------------\nnothing to send\n",
        // The producer's own check: it expected the flow at 2.
        "step stale: @advance A 3\nadvance\n-------\nstale  \n",
        "check: consumer_invariant holds; no_loss holds\n",
    ] {
        assert!(out.contains(line), "{line:?} not in:\n{out}");
    }
    // Setup's operations say nothing when they succeed.
    assert!(!out.contains("committed"), "{out}");
}
