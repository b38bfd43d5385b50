//! The CLI's real processes, as a reader starts them: `experiments crash-real` runs its workers as `experiments
//! worker …` and a bad flag is one line. The commands themselves (race, soak, power, every refusal) are the core's
//! tests/real_runs.rs, which runs them through the same `outbox_core::real::command`. Unix only.
#![cfg(unix)]

use outbox_core::protocol::Boundary;

mod common;
use common::cli;

/// The CLI's workers are the CLI itself: every exit is `experiments worker …` dying with 73 (what each row says is
/// core/tests/real_runs.rs's to check).
#[test]
fn experiments_crash_real_runs_its_own_workers() {
    let dir = std::env::temp_dir().join(format!("outbox-real-{}-crash", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (code, out, err) = cli(&["crash-real", "--dir", dir.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(code, 0, "{out}{err}");
    let exits = out
        .lines()
        .filter(|l| l.contains("exited with 73 at the boundary"))
        .count();
    assert_eq!(exits, Boundary::ALL.len(), "{out}");
    assert!(
        out.contains("10 of 10 boundaries match PROTOCOL.md §8"),
        "{out}"
    );
}

#[test]
fn a_bad_flag_exits_2_with_one_line() {
    let (code, out, err) = cli(&["soak", "--dir", "unused", "--seconds", "ten"]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(
        err.trim(),
        "experiments soak: --seconds must be a whole number from 1 to 3600, got `ten`"
    );
}
