//! `experiments interleave` against PostgreSQL 15's own isolation tester: for each plain-SQL spec in
//! `specs/isolation/`, the runner's output is the tester's, line for line; the hazards' table is what the public
//! record says, and what the repository keeps for the page (`specs/isolation/interleavings.json`) is what the
//! server answers today; and a bad spec, a step that never ends and a bad flag are refused naming what is wrong. Needs a server (`OUTBOX_PG_URL`, or `pg_virtualenv`'s
//! variables) and the tester (`isolationtester`, in Debian's `postgresql-client-NN`).
#![cfg(not(target_arch = "wasm32"))]

mod common;
use std::process::{Command, Stdio};

use common::pg_url as url;

/// PostgreSQL's own tester: Debian ships it for extensions' isolation tests (PGXS).
fn isolationtester() -> std::path::PathBuf {
    let found = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("lib/pgxs/src/test/isolation/isolationtester"))
        .filter(|p| p.is_file())
        .max();
    found.unwrap_or_else(|| {
        panic!("no isolationtester: run scripts/setup.sh (Debian's postgresql-client-15 ships it)")
    })
}

/// `experiments interleave ARGS…`.
fn ours(args: &[&str]) -> (i32, String, String) {
    common::cli(&[&["interleave"], args].concat())
}

/// A temporary directory of specs, removed when dropped, pass or fail.
struct Specs(std::path::PathBuf);

impl Specs {
    fn new(name: &str) -> Specs {
        let dir = std::env::temp_dir().join(format!("outbox-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Specs(dir)
    }

    /// Writes the spec `name`, and gives its path.
    fn write(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    }
}

impl Drop for Specs {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn specs() -> Vec<String> {
    let files = common::files("specs/isolation", "spec");
    assert!(files.len() >= 3, "{files:?}");
    files
}

/// What PostgreSQL's own tester prints for `spec` on `url`'s server.
fn theirs(spec: &str, url: &str) -> String {
    let theirs = Command::new(isolationtester())
        .arg(url)
        .stdin(Stdio::from(std::fs::File::open(spec).unwrap()))
        .output()
        .expect("isolationtester starts");
    assert!(
        theirs.status.success(),
        "{spec}: {}",
        String::from_utf8_lossy(&theirs.stderr)
    );
    String::from_utf8_lossy(&theirs.stdout).into_owned()
}

#[test]
fn each_plain_spec_prints_what_postgresqls_isolationtester_prints() {
    let url = url();
    for spec in specs() {
        let theirs = theirs(&spec, &url);
        assert!(
            theirs.contains("<waiting ...>"),
            "{spec} has a step that waits: {theirs}"
        );
        let (code, out, err) = ours(&[&spec, "--store", &url]);
        assert_eq!(code, 0, "{spec}: {err}");
        assert_eq!(out, theirs, "{spec}");
    }
}

/// What a runner could change by being there, or leave out (issue 67): a snapshot opened in a session's setup
/// and taken at the spec's first query, a step over several lines printed from its first character, the step
/// markers, notifications, and a session that switches role (the tables in `public`, as the tester has them:
/// `--public`; the specs' tables are named `fid_*` so as not to meet the plain specs', which the tester runs in
/// the same database at the same time). Each printed otherwise, or was refused, before issue 67.
#[test]
fn each_fidelity_spec_prints_what_postgresqls_isolationtester_prints() {
    let url = url();
    let files = common::files("specs/isolation/fidelity", "spec");
    assert!(files.len() >= 6, "{files:?}");
    for spec in files {
        let theirs = theirs(&spec, &url);
        let (code, out, err) = ours(&[&spec, "--store", &url, "--public"]);
        assert_eq!(code, 0, "{spec}: {err}");
        assert_eq!(out, theirs, "{spec}");
    }
}

#[test]
fn a_bad_spec_a_step_that_never_ends_and_bad_flags_exit_2_naming_why() {
    let url = url();
    let dir = Specs::new("specs");
    let write = |name: &str, text: &str| dir.write(name, text);
    let unknown = write(
        "unknown.spec",
        "session s\nstep a { SELECT 1; }\nfrobnicate { x }\n",
    );
    let open = write("open.spec", "session s\nstep a { SELECT 1;\n");
    let missing = write(
        "missing.spec",
        "session s\nstep a { SELECT 1; }\npermutation a b\n",
    );
    let endless = write(
        "endless.spec",
        "setup { CREATE TABLE e (i int); }\nteardown { DROP TABLE e; }\nsession s1\nstep s1 { SELECT pg_sleep(600); }\n",
    );
    for (args, says) in [
        (
            vec![unknown.as_str(), "--store", &url],
            "unknown.spec: line 3: unknown or misplaced `frobnicate`",
        ),
        (
            vec![open.as_str(), "--store", &url],
            "open.spec: line 2: the `{` here is never closed",
        ),
        (
            vec![missing.as_str(), "--store", &url],
            "missing.spec: line 3: the permutation names step `b`",
        ),
        (
            vec![endless.as_str(), "--store", &url, "--isolation", "snapshot"],
            "--isolation must be",
        ),
        (vec![endless.as_str()], "which store?"),
        (
            vec![
                endless.as_str(),
                "--store",
                "sqlite",
                "--isolation",
                "serializable",
            ],
            "--isolation is PostgreSQL's",
        ),
        (
            vec!["--all", dir.0.to_str().unwrap(), "--store", &url],
            "missing.spec: line 3",
        ),
        (
            vec!["--all", "--store", "sqlite"],
            "--all runs on SQLite and PostgreSQL",
        ),
        (
            vec![
                "--all",
                "--store",
                &url,
                "--record",
                "/nonexistent/dir/t.json",
            ],
            "cannot write /nonexistent/dir/t.json",
        ),
        (
            vec![endless.as_str(), "--store", &url, "--json"],
            "--json and --record go with --all",
        ),
    ] {
        let (code, _, err) = ours(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?} should say {says}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    // A step that never ends: named, cancelled, and its run's schema (named by the run's process id) dropped.
    let run = Command::new(env!("CARGO_BIN_EXE_experiments"))
        .args([
            "interleave",
            &endless,
            "--store",
            &url,
            "--step-timeout",
            "1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the CLI starts");
    let pid = run.id();
    let out = run.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("step s1 timed out after 1 seconds"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let left: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname LIKE $1",
            &[&format!("outbox\\_{pid}\\_%")],
        )
        .and_then(|r| r.try_get(0))
        .unwrap();
    assert_eq!(left, 0, "the run's schema left behind");
}

const KEPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/specs/isolation/interleavings.json"
);

#[test]
fn the_hazards_table_breaks_each_wrong_form_where_the_record_says_and_the_kept_recording_is_todays()
{
    let url = url();
    let fresh =
        std::env::temp_dir().join(format!("outbox-interleavings-{}.json", std::process::id()));
    let (code, out, err) = ours(&[
        "--all",
        "--store",
        &url,
        "--record",
        fresh.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("hazard "), "{out}");
    let read = |path: &std::path::Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let table = read(&fresh);
    let _ = std::fs::remove_file(&fresh);
    let verdicts = |row: &serde_json::Value| -> Vec<String> {
        row["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["verdict"].as_str().unwrap().to_owned())
            .collect()
    };
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(
        rows.len(),
        13,
        "four hazards in two forms, the inbox's ON CONFLICT, three public outbox designs and the protocol's relay"
    );
    for row in rows {
        let hazard = row["hazard"].as_str().unwrap();
        let columns: Vec<&str> = row["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["column"].as_str().unwrap())
            .collect();
        assert_eq!(
            columns,
            [
                "sqlite",
                "read-committed",
                "repeatable-read",
                "serializable"
            ]
        );
        // SQLite's one writer makes every wrong form wait instead; a cursor relay loses a late commit at every
        // level (a sequence is outside transactions); the others are READ COMMITTED's.
        let expected: &[&str] = match hazard {
            h if h.ends_with("-protocol") => &["holds", "holds", "holds", "holds"],
            "late-commit-wrong" => &["holds", "breaks", "breaks", "breaks"],
            "double-apply-wrong" | "mark-by-predicate-wrong" | "max-seq-wrong" => {
                &["holds", "breaks", "holds", "holds"]
            }
            // The public designs (specs/isolation/designs), checked by their own `committed` and `delivered`:
            // an id taken before its commit loses a row or reorders a stream at every level, and SQLite's one
            // writer keeps the late commit out; two relays without a claim deliver twice on both stores.
            "cursor-relay-wrong" | "past-uncommitted-wrong" => {
                &["holds", "breaks", "breaks", "breaks"]
            }
            "two-relays-wrong" => &["breaks", "breaks", "breaks", "breaks"],
            other => panic!("a hazard the test does not know: {other}"),
        };
        assert_eq!(verdicts(row), expected, "{hazard}");
        for cell in row["cells"].as_array().unwrap() {
            // The protocol's forms are its own operations interleaved (the inbox's is one statement's answer).
            if hazard.ends_with("-protocol") && hazard != "inbox-conflict-protocol" {
                let lines = cell["run"]["lines"].as_array().unwrap();
                assert!(
                    lines
                        .iter()
                        .any(|l| l["sql"].as_str().is_some_and(|s| s.starts_with('@'))),
                    "{hazard}: {cell}"
                );
            }
            // A broken cell's drawn permutation is the one whose end state broke, named in the check: the
            // protocol's properties, or a design's loss, duplicates or order as its sources report them.
            if cell["verdict"] == "breaks" {
                let check = &cell["run"]["check"];
                let outbox = &cell["run"]["outbox"];
                let named = match hazard {
                    "cursor-relay-wrong" => outbox["loss"].is_string(),
                    "past-uncommitted-wrong" => outbox["order"].is_string(),
                    "two-relays-wrong" => outbox["duplicates"].is_string(),
                    _ => check["consumer_invariant"].is_string() || check["no_loss"].is_string(),
                };
                assert!(named, "{hazard}: {cell}");
            }
        }
    }
    // The inbox's ON CONFLICT under two receivers: blocks, then a duplicate (nothing inserted) under READ
    // COMMITTED, a serialization failure at the stricter levels, whose retry answers the duplicate.
    let inbox = rows
        .iter()
        .find(|r| r["hazard"] == "inbox-conflict-protocol")
        .unwrap();
    let lines = |column: &str| -> String {
        let cell = inbox["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["column"] == column)
            .unwrap();
        serde_json::to_string(&cell["run"]["lines"]).unwrap()
    };
    assert!(
        lines("read-committed").contains(r#""answer":null"#),
        "{}",
        lines("read-committed")
    );
    assert!(lines("read-committed").contains("(0 rows)"));
    assert!(
        lines("repeatable-read").contains("could not serialize access due to concurrent update")
    );
    assert!(lines("serializable").contains("could not serialize access"));
    // What the page shows is what the server answers today (its version aside, said if it differs).
    let kept = read(std::path::Path::new(KEPT));
    let versions = (&kept["postgresql"], &table["postgresql"]);
    let cells = |t: &serde_json::Value| -> Vec<(String, serde_json::Value)> {
        let rows = t["rows"].as_array().cloned().unwrap_or_default();
        rows.iter()
            .flat_map(|r| {
                let hazard = r["hazard"].as_str().unwrap_or("").to_owned();
                let head = serde_json::json!([r["title"], r["sessions"]]);
                let cells = r["cells"].as_array().cloned().unwrap_or_default();
                std::iter::once((hazard.clone(), head)).chain(cells.into_iter().map(move |c| {
                    (
                        format!("{hazard} on {}", c["column"].as_str().unwrap_or("")),
                        c,
                    )
                }))
            })
            .collect()
    };
    let (before, now) = (cells(&kept), cells(&table));
    let differs: Vec<&String> = before
        .iter()
        .zip(&now)
        .filter(|(a, b)| a != b)
        .map(|(a, _)| &a.0)
        .collect();
    assert!(
        differs.is_empty() && before.len() == now.len() && kept["sqlite"] == table["sqlite"],
        "specs/isolation/interleavings.json (recorded on {}) differs from today's run (on {}) in {differs:?}: \
         record it again with `experiments interleave --all --store postgres --record specs/isolation/interleavings.json`",
        versions.0, versions.1
    );
}

#[test]
fn on_sqlite_a_step_that_needs_the_writer_waits_and_an_order_the_writer_forbids_is_said() {
    let spec = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/specs/isolation/hazards/double-apply.wrong.spec"
    );
    let (code, out, err) = ours(&[spec, "--store", "sqlite"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("Parsed test spec with 2 sessions\n"),
        "{out}"
    );
    assert_eq!(out.matches("starting permutation:").count(), 3, "{out}");
    // The second worker's BEGIN is busy while the first holds the writer, and goes through once it commits.
    assert!(
        out.contains("FROM projection WHERE flow_id = 'A';\n <waiting ...>\n"),
        "{out}"
    );
    assert!(
        out.contains("step w1_commit: COMMIT; DROP TABLE seen;\nstep w2_read: <... completed>\n"),
        "{out}"
    );
    // The lost update's order cannot happen here: said, and that permutation is not checked.
    assert!(
        out.contains("step w2_apply: cannot run: session w2 still waits for the writer"),
        "{out}"
    );
    assert_eq!(
        out.matches("check: consumer_invariant holds; no_loss holds")
            .count(),
        2,
        "{out}"
    );
}

#[test]
fn an_order_only_a_later_step_could_free_is_said_at_once_but_a_lock_timeout_is_waited_for() {
    let url = url();
    let dir = Specs::new("specs-order");
    // Two sessions wait on a third, which is idle: the first's next step cannot run in this order.
    let chain = dir.write(
        "chain.spec",
        "setup { CREATE TABLE r (i int); INSERT INTO r VALUES (1); }\nteardown { DROP TABLE r; }\n\
         session c\nstep c_lock { BEGIN; SELECT i FROM r FOR UPDATE; }\nstep c_end { COMMIT; }\n\
         session a\nstep a_lock { BEGIN; SELECT i FROM r FOR UPDATE; }\nstep a_end { COMMIT; }\n\
         session b\nstep b_lock { BEGIN; SELECT i FROM r FOR UPDATE; }\nstep b_end { COMMIT; }\n\
         permutation c_lock a_lock b_lock a_end c_end b_end\npermutation c_lock a_lock c_end a_end b_lock b_end\n",
    );
    let started = std::time::Instant::now();
    let (code, out, err) = ours(&[&chain, "--store", &url, "--step-timeout", "30"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        started.elapsed().as_secs() < 20,
        "said at once, not after the step timeout: {out}"
    );
    assert!(out.contains("step a_end: cannot run: session a still waits on a lock that this permutation frees only later"), "{out}");
    // The next permutation starts from its setup, and runs whole: a waits, then completes once c commits.
    let second = &out[out.rfind("starting permutation").unwrap()..];
    assert!(
        second.contains("<waiting ...>") && second.contains("step a_lock: <... completed>"),
        "{second}"
    );
    assert!(!second.contains("cannot run"), "{second}");
    // A session with a lock timeout is freed by it: the tester waits, and so does the runner.
    let timeout = dir.write(
        "timeout.spec",
        "setup { CREATE TABLE r (i int); INSERT INTO r VALUES (1); }\nteardown { DROP TABLE r; }\n\
         session c\nstep c_lock { BEGIN; SELECT i FROM r FOR UPDATE; }\nstep c_end { COMMIT; }\n\
         session a\nsetup { SET lock_timeout = '300ms'; }\nstep a_lock { BEGIN; SELECT i FROM r FOR UPDATE; }\nstep a_end { COMMIT; }\n\
         permutation c_lock a_lock a_end c_end\n",
    );
    let (code, out, err) = ours(&[&timeout, "--store", &url]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "step a_lock: <... completed>\nERROR:  canceling statement due to lock timeout"
        ),
        "{out}"
    );
    assert!(!out.contains("cannot run"), "{out}");
}

#[test]
fn the_protocols_operations_answer_alike_on_both_stores_and_refuse_a_transaction_left_open() {
    let dir = Specs::new("ops");
    let spec = dir.write(
        "ops.spec",
        "setup { @tables }\n\
         setup { @advance A 1; @advance A 2; @receive; @mark }\n\
         teardown { DROP TABLE flow; DROP TABLE outbox; DROP TABLE inbox; DROP TABLE projection; DROP TABLE effect; }\n\
         session relay\n\
         step send { @receive; @mark; @mark A2 }\n\
         step open { BEGIN; SELECT count(*) AS n FROM inbox; }\n\
         step refused { @apply A }\n\
         step close { ROLLBACK; }\n\
         step apply { @apply A; @apply A; @apply A }\n\
         session worker\n\
         step held { @apply A until apply.after_projection }\n\
         step undo { ROLLBACK; }\n\
         permutation held send undo open refused close apply\n",
    );
    let (code, lite, err) = ours(&[&spec, "--store", "sqlite"]);
    assert_eq!(code, 0, "{err}");
    let (code, pg, err) = ours(&[&spec, "--store", &url()]);
    assert_eq!(code, 0, "{err}");
    for line in [
        // The worker stopped inside its transaction holds the consumer's writer: the relay's receive waits for
        // it (PostgreSQL's lock, SQLite's one writer), and goes on when it is rolled back.
        "step held: @apply A until apply.after_projection\napply",
        "step send: @receive; @mark; @mark A2 <waiting ...>\n",
        "step send: <... completed>\nreceive    \n-----------\nA2 accepted\n",
        // A mark that finds its row already accepted writes nothing, and says so.
        "mark        \n------------\nA2 unchanged\n",
        "step refused: @apply A\nERROR:  a protocol operation runs in a transaction of its own, and this session's is still open: end it with COMMIT or ROLLBACK first\n",
        "step apply: @apply A; @apply A; @apply A\napply  \n-------\napplied\n(1 row)\n\napply  \n-------\napplied\n(1 row)\n\napply\n-----\nidle \n",
        "check: consumer_invariant holds; no_loss holds\n",
    ] {
        assert!(lite.contains(line), "SQLite: {line:?} not in:\n{lite}");
        assert!(pg.contains(line), "PostgreSQL: {line:?} not in:\n{pg}");
    }
    // On the two stores the same protocol answers the same, line for line.
    assert_eq!(lite, pg);
}

#[test]
fn a_transaction_a_spec_leaves_open_is_rolled_back_before_its_teardown_on_both_stores() {
    let dir = Specs::new("open");
    let spec = dir.write(
        "open.spec",
        "setup { CREATE TABLE t (i integer); }\nteardown { DROP TABLE t; }\n\
         session s\nstep b { BEGIN; INSERT INTO t VALUES (1); }\n",
    );
    let url = url();
    for store in ["sqlite", url.as_str()] {
        // Without the rollback the teardown's DROP waits on the session's lock: PostgreSQL's own tester would
        // wait for ever; here the timeout would end the run with exit 2.
        let mut args = vec![spec.as_str(), "--store", store];
        if store != "sqlite" {
            args.extend(["--step-timeout", "5"]);
        }
        let (code, out, err) = ours(&args);
        assert_eq!(code, 0, "{store}: {err}");
        assert!(
            out.ends_with("step b: BEGIN; INSERT INTO t VALUES (1);\n"),
            "{store}: {out}"
        );
    }
}

/// A spec that lists no permutation runs every interleaving, as the tester does; more than a run takes whole is
/// refused with the count, unless sampled, and the same seed draws the same interleavings.
#[test]
fn too_many_interleavings_are_refused_with_their_count_and_a_sample_is_reproducible() {
    let dir = Specs::new("sample");
    let steps = |s: &str, n: usize| -> String {
        (1..=n)
            .map(|i| format!("step {s}{i} {{ SELECT {i}; }}\n"))
            .collect()
    };
    let spec = dir.write(
        "big.spec",
        &format!(
            "session a\n{}session b\n{}session c\n{}",
            steps("a", 5),
            steps("b", 5),
            steps("c", 2)
        ),
    );
    let (code, _, err) = ours(&[&spec, "--store", "sqlite"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("16632 interleavings: more than the 1000"),
        "{err}"
    );
    let (code, once, err) = ours(&[&spec, "--store", "sqlite", "--sample", "4", "--seed", "9"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("16632 interleavings; 4 drawn with seed 9"),
        "{err}"
    );
    assert_eq!(once.matches("starting permutation:").count(), 4, "{once}");
    let (_, again, _) = ours(&[&spec, "--store", "sqlite", "--sample", "4", "--seed", "9"]);
    assert_eq!(once, again);
    let (code, _, err) = ours(&[&spec, "--store", "sqlite", "--sample", "0"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--sample must be a whole number from 1 to 1000, got `0`"),
        "{err}"
    );
}
