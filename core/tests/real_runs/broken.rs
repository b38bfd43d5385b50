//! Workers that go wrong on purpose, so that each real command's own check is seen failing: no real worker can be
//! made to go wrong on demand. `OUTBOX_REAL_RUNS_BROKEN=JOB`, set by a test and inherited by the command's workers,
//! names the worker job (`crash`, `race`, `soak`) this binary then fakes instead of running.

use outbox_core::protocol::Boundary;
use std::io::Read;
use std::process::ExitCode;

pub const BROKEN: &str = "OUTBOX_REAL_RUNS_BROKEN";

/// The faked job's exit for `worker JOB ARGS…`, or `None` to let the real worker run.
pub fn worker(args: &[String]) -> Option<ExitCode> {
    let job = args.first()?;
    if std::env::var(BROKEN).ok()? != *job {
        return None;
    }
    match job.as_str() {
        // Writes nothing and exits 0: a worker that never reached its boundary.
        "crash" => Some(ExitCode::SUCCESS),
        // Gets ready and waits for the start like a real one, then claims to have won without writing anything.
        "race" => {
            println!("ready");
            let _ = std::io::stdin().read_to_end(&mut Vec::new());
            println!(r#"{{"op":"advance","result":"committed"}}"#);
            Some(ExitCode::SUCCESS)
        }
        // Exits with the unsafe dual write's code, 73, though the soak runs the atomic producer.
        "soak" => Some(ExitCode::from(73)),
        _ => None,
    }
}

/// The command `args` with its workers broken as `job`: its exit code, stdout and stderr.
fn run_broken(job: &str, args: &[&str]) -> (i32, String, String) {
    crate::unix::cli_with(args, &[(BROKEN, job)])
}

/// A worker that exits 0 before its boundary fails its row, though files with nothing committed look right
/// before recovery at the boundaries ahead of the first commit, and recovery completes the flow at every one.
pub fn crash_real() {
    let dir = crate::unix::Scratch::new("crash-broken");
    let (code, out, err) = run_broken("crash", &["crash-real", "--dir", dir.path()]);
    assert_eq!(code, 1, "{out}{err}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("FAILED") || l.starts_with("ok"))
        .collect();
    assert_eq!(rows.len(), 10, "{out}");
    for row in rows {
        assert!(
            row.starts_with("FAILED")
                && row.ends_with("the child exited with 0, not 73: the boundary was not reached"),
            "{row}"
        );
    }
    // The first two exit before the producer commits: the files look as §8 expects before and after recovery
    // (no `expected` line under them), and still the row fails.
    for boundary in &Boundary::ALL[..2] {
        let row: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.contains(&format!(" {boundary} ")))
            .take(4)
            .collect();
        assert!(
            row.len() == 4
                && row[1].starts_with("         before recovery: ")
                && row[2].starts_with("         recovery: ")
                && row[3].starts_with("         after recovery: "),
            "{boundary}: {out}"
        );
    }
    assert!(
        out.contains("0 of 10 boundaries match PROTOCOL.md §8"),
        "{out}"
    );
}

/// Workers that all claim the win, writing nothing, fail every race, and each failed round is kept to open.
pub fn race() {
    let dir = crate::unix::Scratch::new("race-broken");
    let (code, out, err) = run_broken(
        "race",
        &[
            "race",
            "--dir",
            dir.path(),
            "--processes",
            "2",
            "--rounds",
            "1",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    let line = |name: &str| out.lines().find(|l| l.contains(name)).unwrap_or_default();
    for name in crate::unix::SCENARIOS {
        assert!(line(name).starts_with("FAILED "), "{name}: {out}");
        assert!(
            dir.0.join(name).join("round-0001").is_dir(),
            "{name}: {out}"
        );
    }
    assert!(
        out.contains("2 processes got `committed`, not exactly one")
            && out.contains("0 outbox rows and flow []: not one transition"),
        "{out}"
    );
    assert!(out.contains("a process answered `committed`"), "{out}");
}

/// A worker that ends by itself under the atomic producer, even with the unsafe dual write's exit code, is a
/// failure of the soak, not one of the unsafe producer's exits.
pub fn soak() {
    let dir = crate::unix::Scratch::new("soak-broken");
    let seconds = crate::unix::seconds(2);
    let (code, out, err) = run_broken(
        "soak",
        &[
            "soak",
            "--dir",
            dir.path(),
            "--seconds",
            &seconds,
            "--flows",
            "5",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("ended by itself: exit status: 73"), "{out}");
    assert!(!out.contains("exited by themselves"), "{out}");
}

/// A worker started wrongly (by hand: the commands never do) names what is wrong in one line and exits 1, at
/// once: files that are not there are tried a few times, not forever.
pub fn worker_arguments() {
    let missing = "/nonexistent/outbox-real-runs";
    let log = std::env::temp_dir().join(format!("outbox-real-runs-{}-log", std::process::id()));
    let log = log.to_str().expect("a UTF-8 temp dir");
    let opened = format!("{missing}/producer.db: no such database file");
    for (args, says) in [
        (vec!["recover", missing, "strict"], opened.as_str()),
        (
            vec!["crash", missing, "producer.after_state", "strict"],
            &opened,
        ),
        (vec!["race", missing, "produce_same_event", "0"], &opened),
        (vec!["finish", missing, "3"], &opened),
        (vec!["soak", missing, "3", "1", log, "5", "atomic"], &opened),
        (vec!["power", missing, "3", "1", log, "5", "full"], &opened),
        (
            vec!["crash", missing, "x", "strict"],
            "unknown boundary `x`",
        ),
        (vec!["recover", missing, "nope"], "unknown consumer `nope`"),
        (
            vec!["race", missing, "nope", "0"],
            "unknown scenario `nope`",
        ),
        (
            vec!["finish", missing, "many"],
            "flows must be a whole number, got `many`",
        ),
        (
            vec!["soak", missing, "3", "1", log, "5", "fast"],
            "unknown producer `fast`",
        ),
        (
            vec!["power", missing, "3", "1", log, "5", "extra"],
            "unknown synchronous `extra`",
        ),
    ] {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .arg("worker")
            .args(&args)
            .env("OUTBOX_REAL_RUNS_AS_CLI", "1")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{args:?}: still running after 20 s");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err, format!("worker: {says}\n"), "{args:?}");
    }
    let _ = std::fs::remove_file(log);
}
