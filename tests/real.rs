//! The CLI's real processes, as a reader starts them: `experiments crash-real` runs its workers as `experiments
//! worker …` and a bad flag is one line. The commands themselves (race, soak, power, every refusal) are the core's
//! tests/real_runs.rs, which runs them through the same `outbox_core::real::command`. Unix only.
#![cfg(unix)]

use outbox_core::protocol::Boundary;
use std::path::PathBuf;

mod common;
use common::cli;

/// A directory that does not exist yet (the commands create it), removed when the test is done.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("outbox-real-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Scratch(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().expect("a UTF-8 temp dir")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn crash_real_exits_at_every_boundary_and_matches_section_8() {
    let dir = Scratch::new("crash");
    let (code, out, err) = cli(&["crash-real", "--dir", dir.path()]);
    assert_eq!(code, 0, "{out}{err}");
    for b in Boundary::ALL {
        let row = out
            .lines()
            .find(|l| l.contains(&format!(" {} ", b.name())))
            .unwrap_or_else(|| panic!("no row for {b}: {out}"));
        assert!(row.starts_with("ok "), "{row}");
        assert!(row.contains("exited with 73 at the boundary"), "{row}");
    }
    assert!(
        out.contains("10 of 10 boundaries match PROTOCOL.md §8"),
        "{out}"
    );
    // Each boundary's files are kept for the reader to open.
    let kept = std::fs::read_dir(&dir.0).unwrap().count();
    assert_eq!(kept, 10);
}

#[test]
fn a_bad_flag_exits_2_with_one_line() {
    let (code, out, err) = cli(&["soak", "--dir", "unused", "--seconds", "ten"]);
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(err.trim(), "experiments soak: --seconds must be a whole number from 1 to 3600, got `ten`");
}
