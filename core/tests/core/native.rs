//! The core's native paths, which the page never takes and the CLI's real processes do: database files in a
//! directory, the write lock another process holds, a worker's exit at its boundary, and the JSON the CLI prints.
//! Here so that the core's own tests reach them (the mutation run's first phase runs only these).

use super::*;
use outbox_core::protocol::types::Event;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::Duration;

fn files(dir: &std::path::Path) -> Location {
    Location::files(dir).with_wait(Duration::ZERO)
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("outbox-core-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn sessions_on_the_same_files_see_each_others_commits_through_a_wal() {
    let dir = fresh_dir("files");
    files(&dir).create().unwrap();
    let mut producer = Session::open(&files(&dir), strict()).unwrap();
    let mut relay_process = Session::open(&files(&dir), strict()).unwrap();
    assert_eq!(producer.step(&advance("A", 1)).result, COMMITTED);
    assert_eq!(relay_process.step(&relay(None)).result, ACCEPTED);
    let seen = producer.snapshot().unwrap();
    assert_eq!(seen.consumer.inbox[0].event_id, "A1");
    assert_eq!(seen.producer.outbox[0].accepted, 1);
    for file in ["producer.db", "consumer.db"] {
        let conn = rusqlite::Connection::open(dir.join(file)).unwrap();
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal", "{file}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_directory_without_the_files_is_refused_naming_the_file() {
    let dir = fresh_dir("empty");
    let Err(message) = Session::open(&files(&dir), strict()) else {
        panic!("opened a directory without database files");
    };
    assert_eq!(
        message,
        format!(
            "{}: no such database file",
            dir.join("producer.db").display()
        )
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing created"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Another process holds the producer's write lock: the step is `busy`, not an SQL error, and nothing is written.
#[test]
fn a_write_lock_held_elsewhere_is_busy() {
    let dir = fresh_dir("busy");
    files(&dir).create().unwrap();
    let mut session = Session::open(&files(&dir), strict()).unwrap();
    let other = rusqlite::Connection::open(dir.join("producer.db")).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let report = session.step(&advance("A", 1));
    assert_eq!(report.result, Outcome::Busy);
    assert_eq!(report.message.as_deref(), Some("database is locked"));
    other.execute_batch("ROLLBACK").unwrap();
    assert!(session.snapshot().unwrap().producer.flow.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A worker's exit: the hook ends the process where it stands (here a panic stands in for `_exit`).
fn exit() -> ! {
    std::panic::panic_any("the process exits")
}

/// A session whose process died at `boundary` of A1's write, through the exit hook, then reset.
fn reset_after_an_exit_at(boundary: Boundary) -> Session {
    let mut session = Session::create(&Location::memory(), strict()).unwrap();
    session.set_exit_hook(exit);
    let crashing = advance("A", 1).with_crash_at(Some(boundary));
    let died = catch_unwind(AssertUnwindSafe(|| session.step(&crashing)));
    assert!(died.is_err(), "the hook ended the step at {boundary}");
    session.reset(strict()).unwrap();
    session
}

/// A reset after a process died mid-transaction (before its commit, or after it with the exit still armed)
/// starts clean: the same write commits, crossing its three boundaries once.
#[test]
fn a_reset_after_a_process_died_at_a_boundary_starts_clean() {
    for boundary in [Boundary::ProducerAfterOutbox, Boundary::ProducerAfterCommit] {
        let mut session = reset_after_an_exit_at(boundary);
        assert!(
            session.snapshot().unwrap().producer.flow.is_empty(),
            "{boundary}"
        );
        let report = session.step(&advance("A", 1));
        assert_eq!(report.result, COMMITTED, "{boundary}: {:?}", report.message);
        assert_eq!(
            report.passed,
            [
                Boundary::ProducerAfterState,
                Boundary::ProducerAfterOutbox,
                Boundary::ProducerAfterCommit
            ],
            "{boundary}"
        );
    }
}

#[test]
fn the_cli_prints_events_and_results_as_serde_writes_them() {
    let event = json!({
        "event_id": "A2", "flow_id": "A", "seq": 2, "kind": "confirmed", "schema": 1,
        "payload": {"amount": 30, "note": "预留"}
    });
    assert_eq!(Event::from_json(&event).unwrap().to_json(), event);

    let (_, doc) = run(strict(), &[advance("A", 1), relay(None), process_all()]);
    assert_eq!(
        doc.to_json_pretty().unwrap(),
        serde_json::to_string_pretty(&doc).unwrap()
    );
}
