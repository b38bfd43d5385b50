//! The CLI's `--store` on PostgreSQL as a reader runs it: the twelve experiments and every experiment's result
//! document the same as on SQLite, a power step and bad values refused. Needs a server: `OUTBOX_PG_URL`, or the
//! `PGHOST`… variables `pg_virtualenv` sets (the test command runs the native tests under it).
#![cfg(not(target_arch = "wasm32"))]

mod common;
use common::cli;
use std::process::Command;

use common::pg_url as url;

fn experiment_files() -> Vec<String> {
    common::files("experiments", "json")
}

#[test]
fn check_on_postgres_reproduces_all_twelve() {
    let (code, out, err) = cli(&["--check", "--store", &url()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(
        out.lines().filter(|l| l.starts_with("ok ")).count(),
        12,
        "{out}"
    );
    assert_eq!(out.lines().last(), Some("12 passed, 0 failed"));
}

#[test]
fn replay_on_postgres_prints_sqlites_document_for_every_experiment() {
    let url = url();
    for file in experiment_files() {
        let (code, on_sqlite, err) = cli(&["replay", &file]);
        assert_eq!(code, 0, "{file}: {err}");
        let (code, on_postgres, err) = cli(&["replay", "--store", &url, &file]);
        assert_eq!(code, 0, "{file}: {err}");
        assert_eq!(on_sqlite, on_postgres, "{file}");
    }
}

#[test]
fn postgres_refuses_a_power_step_and_a_bad_store_in_one_line() {
    let url = url();
    let power = r#"{"format":"outbox-playground-trace/1","consumer":{"ordering":"strict"},"steps":[
        {"op":"advance","flow":"A","event_id":"A1","expected_seq":0,"kind":"reserved","schema":1,"payload":{"amount":3}},
        {"op":"set_synchronous","mode":"normal"}]}"#;
    let path = std::env::temp_dir().join(format!("outbox-power-{}.json", std::process::id()));
    std::fs::write(&path, power).unwrap();
    let path = path.to_string_lossy().into_owned();
    let (code, _, _) = cli(&["replay", &path]);
    assert_eq!(code, 0, "SQLite runs it");
    for (args, names) in [
        (
            vec!["replay", "--store", &url, &path],
            "step 2 (set_synchronous): power loss is SQLite's layer",
        ),
        (
            vec!["replay", "--store", "postgres", &path],
            "step 2 (set_synchronous)",
        ),
        (
            vec!["--check", "--store", "oracle://x"],
            "--store must be sqlite, postgres or a postgres:// URL",
        ),
        (vec!["--check", "--store"], "--store needs a value"),
        (
            vec!["--check", "--store", "postgres://nobody@127.0.0.1:9/x"],
            "cannot connect",
        ),
        (
            vec!["replay", "--explain", "--store", &url, &path],
            "--explain and --svg run on SQLite",
        ),
    ] {
        let (code, out, err) = cli(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(names), "{args:?} should say {names}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(out.is_empty(), "{out}");
    }
    let _ = std::fs::remove_file(&path);
}

/// A command killed outright (SIGKILL: no drop runs) leaves no server behind: its reaper stops it and removes
/// its directory once the command's end closes their pipe.
#[test]
fn a_killed_command_leaves_no_throw_away_server() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_experiments"))
        .args(["race", "--store", "postgres", "--rounds", "10000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the CLI starts");
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(
        line.contains("a throw-away PostgreSQL server, started"),
        "{line}"
    );
    let prefix = format!("outbox-pg-{}-", child.id());
    let dirs = || {
        std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.starts_with(&prefix))
            .count()
    };
    assert_eq!(dirs(), 1, "the server's directory while it runs");
    child.kill().unwrap();
    child.wait().unwrap();
    // Waits for what it expects: the directory gone (the server stops first), within a generous bound.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while dirs() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(dirs(), 0, "the reaper removed the server's directory");
    let running = Command::new("sh")
        .args([
            "-c",
            &format!("ps -eo args | grep -c '[p]ostgres -D /tmp/{prefix}' || true"),
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&running.stdout).trim(),
        "0",
        "no server left running"
    );
}
