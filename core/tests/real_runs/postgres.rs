//! `crash-real` and `race` on PostgreSQL (`--store URL`): each worker a process with its own connections, an
//! exit a dropped connection. The same verdicts as on SQLite's files, held to the same assertions. Needs a server
//! (`OUTBOX_PG_URL`, or `pg_virtualenv`'s variables): without one, these fail and say what to run.

use crate::unix::{
    assert_crash_real_fails_outside, assert_crash_real_passes, assert_race_holds, cli,
};
use outbox_core::protocol::pg::server::url_from_env;

pub const TESTS: [(&str, fn()); 3] = [
    ("crash_real_on_postgres_gives_sqlites_table", crash_real),
    ("race_on_postgres_one_winner_every_round", race),
    (
        "a_postgres_url_that_cannot_serve_exits_2_naming_why",
        bad_urls,
    ),
];

fn url() -> String {
    url_from_env().unwrap_or_else(|| {
        panic!(
            "no PostgreSQL server: run the tests through scripts/test.sh, or under `pg_virtualenv cargo test …`, \
             or set OUTBOX_PG_URL=postgres://USER@HOST/DATABASE"
        )
    })
}

/// The run's lines after its header (which names where the databases are).
fn body(out: &str) -> Vec<&str> {
    out.lines().skip(2).collect()
}

fn crash_real() {
    let url = url();
    let (code, out, err) = cli(&["crash-real", "--store", &url]);
    assert_crash_real_passes(code, &out, &err);
    assert!(
        out.contains("two schemas on the PostgreSQL server"),
        "{out}"
    );
    let sqlite = crate::unix::Scratch::new("crash-vs-postgres");
    let (_, on_files, _) = cli(&["crash-real", "--dir", sqlite.path()]);
    assert_eq!(body(&out), body(&on_files), "the same table on both stores");

    let (code, out, err) = cli(&[
        "crash-real",
        "--store",
        &url,
        "--consumer",
        "effect_outside_tx",
    ]);
    assert_crash_real_fails_outside(code, &out, &err);
}

fn race() {
    let url = url();
    let (code, out, err) = cli(&["race", "--store", &url, "--processes", "6", "--rounds", "3"]);
    assert_race_holds(code, &out, &err);
}

fn bad_urls() {
    let url = url();
    let refused = |args: &[&str], names: &str| {
        let (code, out, err) = cli(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
        assert!(err.contains(names), "{args:?} should name {names}: {err}");
        assert!(out.is_empty(), "nothing run: {out}");
    };
    // Nothing listens there.
    refused(
        &[
            "crash-real",
            "--store",
            "postgres://nobody@127.0.0.1:9/none",
        ],
        "cannot connect",
    );
    // A database that holds a table of its own is not written to.
    // The table goes again however this test ends: left behind, it would refuse every later test on this server.
    struct Theirs(postgres::Client);
    impl Drop for Theirs {
        fn drop(&mut self) {
            let _ = self.0.batch_execute("DROP SCHEMA IF EXISTS theirs CASCADE");
        }
    }
    let mut theirs =
        Theirs(postgres::Client::connect(&url, postgres::NoTls).expect("the test server"));
    let client = &mut theirs.0;
    client
        .batch_execute(
            "CREATE SCHEMA IF NOT EXISTS theirs; CREATE TABLE IF NOT EXISTS theirs.orders(id int)",
        )
        .expect("a table of the reader's");
    let before: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'outbox\\_%'",
            &[],
        )
        .and_then(|r| r.try_get(0))
        .expect("count");
    refused(&["race", "--store", &url], "theirs.orders");
    let after: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'outbox\\_%'",
            &[],
        )
        .and_then(|r| r.try_get(0))
        .expect("count");
    drop(theirs);
    assert_eq!(before, after, "no schema written");
    // Files and a server at once.
    refused(
        &["crash-real", "--store", &url, "--dir", "/tmp/x"],
        "--dir is for SQLite",
    );
}
