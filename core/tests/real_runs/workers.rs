//! Workers gone wrong, started wrongly, kept out of their files, or left without their parent. A real worker
//! cannot be made to go wrong on demand, so this binary fakes one: `OUTBOX_REAL_RUNS_BROKEN=JOB`, set by a test
//! and inherited by the command's workers, names the worker job (`crash`, `race`, `soak`, `power`) it then
//! fakes instead of running, and each real command's own check is seen failing on it.

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
        // Fails at once, as a worker that cannot go on would.
        "power" => Some(ExitCode::FAILURE),
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
/// failure of the soak, not one of the unsafe producer's exits. With no step run, the final recovery alone
/// produces, sends and applies every flow.
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
            "40",
        ],
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("ended by itself: exit status: 73"), "{out}");
    assert!(!out.contains("exited by themselves"), "{out}");
    assert!(
        out.contains("final recovery (one fresh process): advance committed ×120, process_all done ×1, relay accepted ×120, relay idle ×1, 120 events applied"),
        "{out}"
    );
    assert!(
        out.contains("completion: holds (40 flows, 120 effects)"),
        "{out}"
    );
}

/// A power worker that ends before the cut leaves the run unable to say what the cut took: the run stops there
/// and says which worker, and why.
pub fn power() {
    let dir = crate::unix::Scratch::new("power-broken");
    let (code, out, err) = run_broken("power", &["power", "--dir", dir.path(), "--seconds", "2"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        err.starts_with("experiments power: cut 1: worker 0 ended by itself before the cut (exit status: 1); its log is ")
            && err.trim_end().ends_with("cut-00001-worker-0.jsonl"),
        "{err}"
    );
}

/// A soak or power worker whose parent is gone (the command killed, its terminal closed) stops by itself after
/// the step it is in, long before its own deadline.
pub fn orphans() {
    let dir = crate::unix::Scratch::new("orphans");
    let exe = std::env::current_exe().unwrap();
    let mut script = String::new();
    for (job, last) in [("soak", "atomic"), ("power", "full")] {
        let files = dir.0.join(job);
        outbox_core::real::create_files(&files).unwrap();
        let log = dir.0.join(format!("{job}.jsonl"));
        // In the background, its pid printed; the shell then lives 2 s more, long enough for the worker to note
        // its parent, and ends.
        script.push_str(&format!(
            "'{}' worker {job} '{}' 3 1 '{}' 60 {last} >/dev/null 2>&1 & echo $!\n",
            exe.display(),
            files.display(),
            log.display()
        ));
    }
    script.push_str("sleep 2\n");
    let shell = std::process::Command::new("sh")
        .args(["-c", &script])
        .env(crate::unix::AS_CLI, "1")
        .output()
        .expect("sh starts");
    let pids: Vec<i32> = String::from_utf8_lossy(&shell.stdout)
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{shell:?}");
    // Gone, or a zombie no one reaps: either way it has stopped.
    let running = |pid: i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(") ")
                .next()
                .is_some_and(|rest| !rest.starts_with('Z'))
        })
    };
    wait_until(15, || !pids.iter().any(|p| running(*p)));
    let left: Vec<i32> = pids.iter().copied().filter(|p| running(*p)).collect();
    for pid in &left {
        // SAFETY: a signal to a process this test started; no pointers.
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    assert!(
        left.is_empty(),
        "still running 15 s after their parent ended: {left:?}"
    );
    // Each logged its steps, numbered from 0, each result under its step's number.
    for job in ["soak", "power"] {
        let log = std::fs::read_to_string(dir.0.join(format!("{job}.jsonl"))).unwrap();
        let numbers: Vec<(u64, bool)> = log
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|v| Some((v["n"].as_u64()?, v.get("step").is_some())))
            .collect();
        let expected: Vec<(u64, bool)> = (0..numbers.len() as u64 / 2)
            .flat_map(|n| [(n, true), (n, false)])
            .collect();
        assert!(numbers.len() >= 4, "{job} ran one step or none: {log}");
        assert_eq!(numbers, expected, "{job}: {log}");
    }
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
        let out = ended(worker_by_hand(&args), 20, &format!("{args:?}"));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err, format!("worker: {says}\n"), "{args:?}");
    }
    let _ = std::fs::remove_file(log);
}

/// A worker that finds its files locked past the busy timeout (as a fresh process can while another recovers
/// the WAL after a kill) tries again, and runs once the lock is gone.
pub fn locked_files() {
    use outbox_core::protocol::location::PRODUCER_FILE;
    use outbox_core::real::BUSY_TIMEOUT;
    let dir = crate::unix::Scratch::new("locked");
    outbox_core::real::create_files(&dir.0).unwrap();
    // An exclusive lock that a connection in exclusive locking mode keeps until it closes: every other
    // connection's read waits out its busy timeout and fails.
    let holder = rusqlite::Connection::open(dir.0.join(PRODUCER_FILE)).unwrap();
    holder
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;")
        .unwrap();
    let mut child = worker_by_hand(&["recover", dir.path(), "strict"]);
    // Held two seconds past one busy timeout, well short of the four the worker waits in all.
    let held = BUSY_TIMEOUT.as_secs() + 2;
    let ended_early = wait_until(held, || child.try_wait().unwrap().is_some());
    drop(holder);
    let out = ended(child, 30, "the worker once the lock was gone");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !ended_early && out.status.success(),
        "the worker ended {} the lock was gone ({}): {err}",
        if ended_early { "before" } else { "after" },
        out.status
    );
}

/// `worker ARGS…` started as a person would, its stderr piped.
fn worker_by_hand(args: &[&str]) -> std::process::Child {
    std::process::Command::new(std::env::current_exe().unwrap())
        .arg("worker")
        .args(args)
        .env(crate::unix::AS_CLI, "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// What `child` left once it ended; killed, and the test failed, if it still runs after `seconds`.
fn ended(mut child: std::process::Child, seconds: u64, what: &str) -> std::process::Output {
    if !wait_until(seconds, || child.try_wait().unwrap().is_some()) {
        let _ = child.kill();
        panic!("{what}: still running after {seconds} s");
    }
    child.wait_with_output().unwrap()
}

/// Polls `done` until it holds (true) or `seconds` have passed (false).
fn wait_until(seconds: u64, mut done: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while !done() {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}
