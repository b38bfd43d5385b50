//! Real processes on real files, as a reader runs them: `crash-real`, `race` with a few rounds, a 10-second
//! kill -9 `soak`, and the arguments they refuse. Unix only; the page's simulated exits are tested elsewhere.
#![cfg(unix)]

use outbox_core::protocol::Boundary;
use outbox_core::real::crash::{steps_to, Visible};
use outbox_core::trace::{ConsumerSetup, Session};
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

/// The table `crash-real` holds the real files to is the one the page's simulated exits produce: the same
/// steps, run on in-memory databases with a dropped connection for the exit, leave the same rows visible.
#[test]
fn section_8_table_agrees_with_the_simulated_exits() {
    for b in Boundary::ALL {
        let mut session = Session::new(ConsumerSetup::default()).unwrap();
        let reports: Vec<_> = steps_to(b).iter().map(|s| session.step(s)).collect();
        assert_eq!(reports.last().unwrap().boundary, Some(b));
        let visible = Visible::of(&session.snapshot().unwrap());
        assert_eq!(visible, Visible::expected_before(b), "{b}");
    }
}

#[test]
fn race_six_real_processes_one_winner_every_round() {
    let dir = Scratch::new("race");
    let (code, out, err) = cli(&[
        "race",
        "--dir",
        dir.path(),
        "--processes",
        "6",
        "--rounds",
        "3",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let line = |name: &str| {
        out.lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no line for {name}: {out}"))
            .to_owned()
    };
    for name in [
        "produce_same_event",
        "produce_new_ids",
        "receive_same_event",
        "apply_same_flow",
        "relay_same_row",
    ] {
        assert!(line(name).starts_with("ok "), "{out}");
    }
    // One winner per round, three rounds: exactly three wins, whatever the losers answered.
    assert!(line("produce_same_event").contains("committed ×3"), "{out}");
    assert!(line("produce_new_ids").contains("committed ×3"), "{out}");
    assert!(line("receive_same_event").contains("accepted ×3"), "{out}");
    assert!(line("relay_same_row").contains("accepted ×3"), "{out}");
    // Rounds that passed leave nothing behind.
    assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 0);
}

#[test]
fn soak_ten_seconds_of_kill_9_loses_nothing() {
    let dir = Scratch::new("soak");
    let (code, out, err) = cli(&[
        "soak",
        "--dir",
        dir.path(),
        "--seconds",
        "10",
        "--workers",
        "4",
        "--flows",
        "300",
        "--seed",
        "42",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let kills: u64 = out
        .split(" killed with SIGKILL")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no kill count: {out}"));
    assert!(kills >= 10, "only {kills} kills in 10 s: {out}");
    for check in [
        "as the kills left it: holds",
        "invariant: holds",
        "nothing lost: holds",
        "completion: holds",
    ] {
        assert!(out.contains(check), "{check}: {out}");
    }
    assert!(out.contains("(300 flows, 900 effects)"), "{out}");
}

/// The same checks catch a producer that loses messages: with the article's unsafe dual write in the mix
/// (real `_exit`s between the state commit and the outbox write), the soak fails and says what was lost.
#[test]
fn soak_catches_the_unsafe_dual_write() {
    let dir = Scratch::new("soak-unsafe");
    let (code, out, err) = cli(&[
        "soak",
        "--dir",
        dir.path(),
        "--seconds",
        "3",
        "--flows",
        "40",
        "--seed",
        "5",
        "--producer",
        "unsafe_dual_write",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("workers exited by themselves between the state commit and the outbox write"),
        "{out}"
    );
    assert!(out.contains("nothing lost: VIOLATED"), "{out}");
    assert!(out.contains("completion: VIOLATED"), "{out}");
    assert!(
        out.contains("but has") && out.contains("outbox rows"),
        "{out}"
    );
    assert!(
        out.contains("--seed 5 --producer unsafe_dual_write"),
        "{out}"
    );
}

/// The number before ` cuts` in a power run's summary.
fn cuts(out: &str) -> u64 {
    out.split(" cuts in ")
        .next()
        .and_then(|head| head.rsplit('\n').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no cut count: {out}"))
}

/// With `synchronous=FULL`, the protocol's setting, a commit is synced before the worker hears of it: no
/// power cut takes anything a worker was told, and recovery completes every flow.
#[test]
fn power_cuts_under_full_lose_nothing() {
    let dir = Scratch::new("power-full");
    let (code, out, err) = cli(&[
        "power",
        "--dir",
        dir.path(),
        "--seconds",
        "5",
        "--synchronous",
        "full",
        "--seed",
        "42",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(cuts(&out) >= 10, "{out}");
    for check in [
        "completion: holds",
        "nothing lost: holds",
        "synchronous=full",
        "seed 42",
    ] {
        assert!(out.contains(check), "{check}: {out}");
    }
    assert!(!out.contains("LOST"), "{out}");
}

/// The same run with NORMAL and OFF must find what it exists to find: a step the worker was told had
/// committed, gone after the cut, with the history that led to it.
#[test]
fn power_cuts_under_normal_and_off_lose_what_a_worker_was_told() {
    for mode in ["normal", "off"] {
        let dir = Scratch::new(&format!("power-{mode}"));
        let (code, out, err) = cli(&[
            "power",
            "--dir",
            dir.path(),
            "--seconds",
            "5",
            "--synchronous",
            mode,
            "--seed",
            "42",
        ]);
        assert_eq!(code, 1, "{mode}: {out}{err}");
        assert!(cuts(&out) >= 1, "{out}");
        assert!(out.contains("nothing lost: VIOLATED"), "{mode}: {out}");
        // An acknowledged event no inbox holds, or a step a worker was told had committed gone; under OFF
        // also a file SQLite can no longer read (under NORMAL, WAL never corrupts: that would be the layer's bug).
        let mut losses = vec![
            "is marked accepted but the inbox does not hold it",
            "`, and the files no longer hold it",
        ];
        if mode == "off" {
            losses.push("the files cannot be opened");
        }
        assert!(
            out.lines()
                .any(|l| l.starts_with("LOST ") && losses.iter().any(|loss| l.contains(loss))),
            "{mode}: {out}"
        );
        // The history: what each file kept of its unsynced writes at that cut.
        assert!(out.contains("producer.db-wal kept "), "{mode}: {out}");
        assert!(
            out.contains(&format!("--seed 42 --synchronous {mode}")),
            "{mode}: {out}"
        );
    }
}

#[test]
fn bad_arguments_exit_2_with_one_line_and_touch_nothing() {
    let dir = Scratch::new("bad");
    for (args, says) in [
        (
            vec!["race", "--dir", dir.path(), "--processes", "1"],
            "--processes must be a whole number from 2 to 64, got `1`",
        ),
        (
            vec!["soak", "--dir", dir.path(), "--seconds", "ten"],
            "--seconds must be a whole number",
        ),
        (
            vec!["soak", "--dir", dir.path(), "--speed", "9"],
            "unknown argument `--speed`",
        ),
        (
            vec!["soak", "--dir", dir.path(), "--producer", "fast"],
            "--producer must be `atomic` or `unsafe_dual_write`, got `fast`",
        ),
        (
            vec!["power", "--dir", dir.path(), "--synchronous", "extra"],
            "--synchronous must be one of `full`, `normal`, `off`, got `extra`",
        ),
        (
            vec!["power", "--dir", dir.path(), "--tear", "maybe"],
            "--tear must be `yes` or `no`, got `maybe`",
        ),
        (vec!["crash-real"], "--dir DIR is required"),
        (
            vec!["crash-real", "--dir", ""],
            "--dir needs a directory name, got an empty one",
        ),
        (vec!["crash-real", "--dir"], "--dir needs a value"),
    ] {
        let (code, out, err) = cli(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!dir.0.exists(), "{args:?} created {}", dir.path());
    }

    // A directory with a reader's file in it is never written to.
    std::fs::create_dir_all(&dir.0).unwrap();
    let file = dir.0.join("notes.txt");
    std::fs::write(&file, "mine").unwrap();
    for command in ["crash-real", "race", "soak", "power"] {
        let (code, _, err) = cli(&[command, "--dir", dir.path()]);
        assert_eq!(code, 2, "{command}");
        assert!(err.contains("not an empty directory"), "{err}");
    }
    assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}
