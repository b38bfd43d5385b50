//! `experiments interleave` against PostgreSQL 15's own isolation tester: for each plain-SQL spec in
//! `specs/isolation/`, the runner's output is the tester's, line for line; and a bad spec, a step that never ends
//! and a bad flag are refused naming what is wrong. Needs a server (`OUTBOX_PG_URL`, or `pg_virtualenv`'s
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

fn specs() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/specs/isolation");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".spec"))
        .collect();
    files.sort();
    assert!(files.len() >= 3, "{files:?}");
    files
}

#[test]
fn each_plain_spec_prints_what_postgresqls_isolationtester_prints() {
    let url = url();
    let tester = isolationtester();
    for spec in specs() {
        let theirs = Command::new(&tester)
            .arg(&url)
            .stdin(Stdio::from(std::fs::File::open(&spec).unwrap()))
            .output()
            .expect("isolationtester starts");
        assert!(
            theirs.status.success(),
            "{spec}: {}",
            String::from_utf8_lossy(&theirs.stderr)
        );
        let theirs = String::from_utf8_lossy(&theirs.stdout).into_owned();
        assert!(
            theirs.contains("<waiting ...>"),
            "{spec} has a step that waits: {theirs}"
        );
        let (code, out, err) = ours(&[&spec, "--store", &url]);
        assert_eq!(code, 0, "{spec}: {err}");
        assert_eq!(out, theirs, "{spec}");
    }
}

#[test]
fn a_bad_spec_a_step_that_never_ends_and_bad_flags_exit_2_naming_why() {
    let url = url();
    let dir = std::env::temp_dir().join(format!("outbox-specs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
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
        (vec![endless.as_str()], "give --store postgres"),
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
    let _ = std::fs::remove_dir_all(&dir);
}
