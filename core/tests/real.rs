//! The real processes' command-line plumbing, in the core's own tests: the flags every command reads (a bad one
//! is one line naming it), the fresh `--dir` that never writes over a reader's files, and the soak's generator.
//! The runs themselves (workers, exits, SIGKILL) are tests/real_runs.rs; the table `crash-real` holds them to is
//! checked here against the simulated exits.
#![cfg(unix)]

use outbox_core::protocol::Boundary;
use outbox_core::protocol::Location;
use outbox_core::real::crash::Visible;
use outbox_core::real::steps::steps_to;
use outbox_core::real::{Error, Flags, Rng};
use outbox_core::trace::{ConsumerSetup, Session};

fn flags(args: &[&str]) -> Result<Flags, String> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    Flags::parse(&args, &["seed", "runs", "dir"]).map_err(usage)
}

fn usage(e: Error) -> String {
    match e {
        Error::Usage(m) => m,
        other => panic!("a usage error expected, got: {other}"),
    }
}

#[test]
fn a_number_flag_is_read_in_its_range_or_refused_naming_it() {
    let f = flags(&["--runs", "7", "--seed", "42"]).unwrap();
    assert_eq!(f.number("runs", 3, 1, 10).unwrap(), 7);
    assert_eq!(f.seed().unwrap(), 42);
    assert_eq!(f.text("runs"), Some("7"));
    assert_eq!(f.text("dir"), None);
    let absent = flags(&[]).unwrap();
    assert_eq!(absent.number("runs", 3, 1, 10).unwrap(), 3);
    assert!(
        absent.seed().unwrap() < 1_000_000,
        "a seed from the clock, short enough to retype"
    );
    for (value, min, max) in [
        ("0", 1, 10),
        ("11", 1, 10),
        ("-1", 0, 10),
        ("seven", 1, 10),
        ("", 1, 10),
    ] {
        let f = flags(&["--runs", value]).unwrap();
        assert_eq!(
            usage(f.number("runs", 3, min, max).unwrap_err()),
            format!("--runs must be a whole number from {min} to {max}, got `{value}`")
        );
    }
    assert_eq!(
        flags(&["--runs", "1"])
            .unwrap()
            .number("runs", 3, 1, 10)
            .unwrap(),
        1
    );
    assert_eq!(
        flags(&["--runs", "10"])
            .unwrap()
            .number("runs", 3, 1, 10)
            .unwrap(),
        10
    );
}

#[test]
fn a_bad_flag_is_one_line_naming_it() {
    assert_eq!(
        flags(&["--speed", "3"]).err().unwrap(),
        "unknown argument `--speed`; expected --seed, --runs, --dir"
    );
    assert_eq!(
        flags(&["runs", "3"]).err().unwrap(),
        "unknown argument `runs`; expected --seed, --runs, --dir"
    );
    assert_eq!(flags(&["--runs"]).err().unwrap(), "--runs needs a value");
    assert_eq!(
        flags(&["--runs", "1", "--runs", "2"]).err().unwrap(),
        "--runs is given twice"
    );
}

#[test]
fn the_dir_must_be_new_or_empty() {
    let base = std::env::temp_dir().join(format!("outbox-core-real-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let dir = base.join("run");
    let path = dir.to_str().unwrap();
    assert_eq!(
        usage(flags(&[]).unwrap().fresh_dir().unwrap_err()),
        "--dir DIR is required (an empty or absent directory)"
    );
    assert_eq!(
        usage(flags(&["--dir", ""]).unwrap().fresh_dir().unwrap_err()),
        "--dir needs a directory name, got an empty one"
    );
    // Absent: made. Empty: taken. Holding a file: refused, the file untouched.
    assert_eq!(flags(&["--dir", path]).unwrap().fresh_dir().unwrap(), dir);
    assert!(dir.is_dir());
    assert_eq!(flags(&["--dir", path]).unwrap().fresh_dir().unwrap(), dir);
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    assert_eq!(
        usage(flags(&["--dir", path]).unwrap().fresh_dir().unwrap_err()),
        format!("--dir {path}: not an empty directory; refusing to write over what is there")
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "mine"
    );
    // A file where the directory would be.
    let file = dir.join("notes.txt");
    assert!(usage(
        flags(&["--dir", file.to_str().unwrap()])
            .unwrap()
            .fresh_dir()
            .unwrap_err()
    )
    .ends_with("not an empty directory; refusing to write over what is there"));
    std::fs::remove_dir_all(&base).unwrap();
}

/// Whatever way a command leaves (an error, a panic), its workers go with it: dropped, `Children` kills and reaps
/// each one, so no process is left behind.
#[test]
fn dropped_children_are_killed_and_reaped() {
    let child = std::process::Command::new("sleep")
        .arg("30")
        .spawn()
        .unwrap();
    let proc = std::path::PathBuf::from(format!("/proc/{}", child.id()));
    assert!(proc.exists());
    drop(outbox_core::real::Children(vec![child]));
    assert!(
        !proc.exists(),
        "the worker still runs, or is a zombie nobody reaped"
    );
}

/// SplitMix64: a soak is replayed from its seed, so the sequence is the published one.
#[test]
fn the_generator_is_splitmix64() {
    let mut rng = Rng::new(0);
    assert_eq!(
        [rng.next_u64(), rng.next_u64(), rng.next_u64()],
        [
            0xE220_A839_7B1D_CDAF,
            0x6E78_9E6A_A1B9_65F4,
            0x06C4_5D18_8009_454F
        ]
    );
    let mut rng = Rng::new(7);
    let draws: Vec<u64> = (0..1000).map(|_| rng.below(6)).collect();
    assert!(draws.iter().all(|&d| d < 6));
    for face in 0..6 {
        assert!(draws.contains(&face), "{face} never drawn");
    }
}

/// The table `crash-real` holds the real files to is the one the page's simulated exits produce: the same
/// steps, run on in-memory databases with a dropped connection for the exit, leave the same rows visible.
#[test]
fn section_8_table_agrees_with_the_simulated_exits() {
    for b in Boundary::ALL {
        let mut session = Session::create(&Location::memory(), ConsumerSetup::default()).unwrap();
        let reports: Vec<_> = steps_to(b).iter().map(|s| session.step(s)).collect();
        assert_eq!(reports.last().unwrap().boundary, Some(b));
        let visible = Visible::of(&session.snapshot().unwrap());
        assert_eq!(visible, Visible::expected_before(b), "{b}");
    }
}
