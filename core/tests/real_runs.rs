//! Real processes on real files, as a reader runs them: `crash-real`, `race` with a few rounds, a kill -9 `soak`,
//! the power cuts, and the arguments they refuse. This binary is its own CLI (`real_runs soak --dir …` with
//! `OUTBOX_REAL_RUNS_AS_CLI` set, through the same [`real::command`] as `experiments`) and its own workers, so the
//! core's tests, and its mutation run, reach the real commands without building the root package. Unix only.
//!
//! `OUTBOX_REAL_RUNS=0` skips them (the mutation run, outside the `real` group); `OUTBOX_REAL_SECONDS=N` runs
//! each timed command for N seconds instead of its usual few.

#[cfg(not(unix))]
fn main() {}

#[cfg(unix)]
fn main() -> std::process::ExitCode {
    unix::main()
}

#[cfg(unix)]
#[path = "real_runs/workers.rs"]
mod workers;

#[cfg(all(unix, feature = "postgres"))]
#[path = "real_runs/postgres.rs"]
mod postgres;

#[cfg(unix)]
mod unix {
    use crate::workers;
    use outbox_core::protocol::Boundary;
    use outbox_core::real;
    use std::path::PathBuf;
    use std::process::{Command, ExitCode};

    const COMMANDS: [&str; 5] = ["crash-real", "race", "soak", "power", "worker"];
    pub(crate) const AS_CLI: &str = "OUTBOX_REAL_RUNS_AS_CLI";
    /// The race's scenarios, as its lines name them.
    pub(crate) const SCENARIOS: [&str; 5] = [
        "produce_same_event",
        "produce_new_ids",
        "receive_same_event",
        "apply_same_flow",
        "relay_same_row",
    ];

    pub fn main() -> ExitCode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        // As the CLI (and its workers, which inherit the variable): not from a filter word that names a command.
        if std::env::var_os(AS_CLI).is_some() {
            if let Some(command) = args.first().filter(|a| COMMANDS.contains(&a.as_str())) {
                if command == "worker" {
                    if let Some(exit) = workers::worker(&args[1..]) {
                        return exit;
                    }
                }
                return real::command(command, &args[1..]);
            }
        }
        if std::env::var("OUTBOX_REAL_RUNS").as_deref() == Ok("0") {
            println!("real_runs: skipped (OUTBOX_REAL_RUNS=0)");
            return ExitCode::SUCCESS;
        }
        // cargo test's filter, as a harness reads it: run the tests whose name contains any word given.
        let words: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
        // The PostgreSQL tests join with the core's `postgres` feature.
        #[cfg_attr(not(feature = "postgres"), allow(unused_mut))]
        let mut tests: Vec<(&str, fn())> = vec![
            (
                "crash_real_exits_at_every_boundary_and_matches_section_8",
                crash_real,
            ),
            ("race_six_real_processes_one_winner_every_round", race),
            ("soak_of_kill_9_loses_nothing", soak),
            ("soak_catches_the_unsafe_dual_write", soak_unsafe),
            ("power_cuts_under_full_lose_nothing", power_full),
            (
                "power_cuts_under_normal_and_off_lose_what_a_worker_was_told",
                power_lossy,
            ),
            (
                "bad_arguments_exit_2_with_one_line_and_touch_nothing",
                bad_arguments,
            ),
            (
                "crash_real_fails_a_worker_that_misses_its_boundary",
                workers::crash_real,
            ),
            ("race_fails_workers_that_all_claim_the_win", workers::race),
            ("soak_fails_a_worker_that_ends_by_itself", workers::soak),
            (
                "a_worker_started_wrongly_says_why_and_exits",
                workers::worker_arguments,
            ),
            (
                "power_stops_at_a_worker_that_ends_by_itself",
                workers::power,
            ),
            ("a_worker_whose_parent_is_gone_stops", workers::orphans),
            (
                "a_worker_waits_out_files_locked_past_the_busy_timeout",
                workers::locked_files,
            ),
        ];
        #[cfg(feature = "postgres")]
        tests.extend(crate::postgres::TESTS);
        let mut failed = Vec::new();
        let mut ran = 0;
        for (name, test) in tests {
            if !words.is_empty() && !words.iter().any(|w| name.contains(w.as_str())) {
                continue;
            }
            ran += 1;
            if std::panic::catch_unwind(test).is_ok() {
                println!("test {name} ... ok");
            } else {
                println!("test {name} ... FAILED");
                failed.push(name);
            }
        }
        let verdict = if failed.is_empty() { "ok" } else { "FAILED" };
        println!(
            "\ntest result: {verdict}. {} passed; {} failed",
            ran - failed.len(),
            failed.len()
        );
        if failed.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        }
    }

    /// Runs this binary as the CLI: its exit code, stdout and stderr.
    pub(crate) fn cli(args: &[&str]) -> (i32, String, String) {
        cli_with(args, &[])
    }

    /// As [`cli`], with more environment variables (which its workers inherit).
    pub(crate) fn cli_with(args: &[&str], vars: &[(&str, &str)]) -> (i32, String, String) {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(args)
            .env(AS_CLI, "1")
            .envs(vars.iter().copied())
            .output()
            .expect("the binary starts");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// A timed command's seconds: `usual`, or `OUTBOX_REAL_SECONDS`.
    pub(crate) fn seconds(usual: u64) -> String {
        std::env::var("OUTBOX_REAL_SECONDS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(usual)
            .to_string()
    }

    /// A directory that does not exist yet (the commands create it), removed when the test is done.
    pub(crate) struct Scratch(pub(crate) PathBuf);

    impl Scratch {
        pub(crate) fn new(name: &str) -> Scratch {
            let dir = std::env::temp_dir()
                .join(format!("outbox-real-runs-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            Scratch(dir)
        }

        pub(crate) fn path(&self) -> &str {
            self.0.to_str().expect("a UTF-8 temp dir")
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn crash_real() {
        let dir = Scratch::new("crash");
        let (code, out, err) = cli(&["crash-real", "--dir", dir.path()]);
        assert_crash_real_passes(code, &out, &err);
        // Each boundary's files are kept for the reader to open.
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 10);

        // The check fails where §8 does: the effect written outside the apply's transaction survives the exit
        // after it, and the retry cannot apply past it.
        let dir = Scratch::new("crash-outside");
        let (code, out, err) = cli(&[
            "crash-real",
            "--dir",
            dir.path(),
            "--consumer",
            "effect_outside_tx",
        ]);
        assert_crash_real_fails_outside(code, &out, &err);
    }

    /// `crash-real`'s output for the protocol: every boundary reached and matching §8.
    pub(crate) fn assert_crash_real_passes(code: i32, out: &str, err: &str) {
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
    }

    /// `crash-real --consumer effect_outside_tx`: §8 fails at `apply.after_effect` only, and says how.
    pub(crate) fn assert_crash_real_fails_outside(code: i32, out: &str, err: &str) {
        assert_eq!(code, 1, "{out}{err}");
        let failed: Vec<&str> = out.lines().filter(|l| l.starts_with("FAILED")).collect();
        assert_eq!(failed.len(), 1, "{out}");
        assert!(
            failed[0].contains(" 9 apply.after_effect ") && failed[0].contains("exited with 73"),
            "{out}"
        );
        let row: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("FAILED"))
            .take(6)
            .collect();
        assert_eq!(
            row[1..],
            [
                "         before recovery: flow reserved seq 1, outbox accepted=1, inbox pending, projection -, effects 1",
                "         expected (§8):   flow reserved seq 1, outbox accepted=1, inbox pending, projection -, effects 0",
                "         recovery:        advance existing, relay idle, process_all sql_error",
                "         after recovery:  flow reserved seq 1, outbox accepted=1, inbox pending, projection -, effects 1",
                "         expected (§8):   flow reserved seq 1, outbox accepted=1, inbox applied, projection reserved last_seq=1 held=3, effects 1",
            ],
            "{out}"
        );
        assert!(out.contains("consumer effect_outside_tx:"), "{out}");
        assert!(
            out.contains("9 of 10 boundaries match PROTOCOL.md §8"),
            "{out}"
        );
    }

    fn race() {
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
        assert_race_holds(code, &out, &err);
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 0);
    }

    /// `race` with 6 processes and 3 rounds: every scenario has one winner a round.
    pub(crate) fn assert_race_holds(code: i32, out: &str, err: &str) {
        assert_eq!(code, 0, "{out}{err}");
        let line = |name: &str| {
            out.lines()
                .find(|l| l.contains(name))
                .unwrap_or_else(|| panic!("no line for {name}: {out}"))
                .to_owned()
        };
        for name in SCENARIOS {
            assert!(line(name).starts_with("ok "), "{out}");
        }
        for (name, title) in [
            ("produce_same_event", "produce the same event A1: "),
            ("produce_new_ids", "produce new ids at expected_seq=0: "),
            ("receive_same_event", "receive the same event A1: "),
            ("apply_same_flow", "apply flow A (A1, A2, A3 pending): "),
            ("relay_same_row", "relay the unaccepted row A1: "),
        ] {
            assert!(line(name).contains(title), "{out}");
        }
        // Three events applied a round, whichever processes applied them: `done (applied N) ×M`.
        let applied: usize = line("apply_same_flow")
            .split("(applied ")
            .skip(1)
            .filter_map(|part| {
                let (n, rest) = part.split_once(") ×")?;
                let m: String = rest.chars().take_while(char::is_ascii_digit).collect();
                Some(n.parse::<usize>().ok()? * m.parse::<usize>().ok()?)
            })
            .sum();
        assert_eq!(applied, 9, "{out}");
        assert!(line("produce_same_event").contains("committed ×3"), "{out}");
        assert!(line("produce_new_ids").contains("committed ×3"), "{out}");
        assert!(line("receive_same_event").contains("accepted ×3"), "{out}");
        assert!(line("relay_same_row").contains("accepted ×3"), "{out}");
    }

    fn soak() {
        let dir = Scratch::new("soak");
        let seconds = seconds(10);
        let args = [
            "soak",
            "--dir",
            dir.path(),
            "--seconds",
            &seconds,
            "--workers",
            "4",
            "--flows",
            "300",
            "--seed",
            "42",
        ];
        let (code, out, err) = cli(&args);
        assert_eq!(code, 0, "{out}{err}");
        let kills = number_before(&out, " killed with SIGKILL");
        assert!(kills >= 1, "no kill in {seconds} s: {out}");
        // Every worker started is one of the four, or one started after a kill; each wrote its steps.
        assert_eq!(number_before(&out, " workers; "), 4 + kills, "{out}");
        assert!(number_before(&out, " steps by ") > 0, "{out}");
        assert!(!out.contains("exited by themselves"), "{out}");
        // None is left running once the soak has given its verdict.
        let left: Vec<String> = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
            .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
            .filter(|c| c.contains(dir.path()))
            .collect();
        assert!(left.is_empty(), "{left:?}");
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

    fn soak_unsafe() {
        let dir = Scratch::new("soak-unsafe");
        let seconds = seconds(3);
        let args = [
            "soak",
            "--dir",
            dir.path(),
            "--seconds",
            &seconds,
            "--flows",
            "40",
            "--seed",
            "5",
            "--producer",
            "unsafe_dual_write",
        ];
        let (code, out, err) = cli(&args);
        assert_eq!(code, 1, "{out}{err}");
        let phrase = " workers exited by themselves between the state commit and the outbox write";
        assert!(number_before(&out, phrase) > 0, "{out}");
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

    /// The number printed just before `phrase`: `… 12 killed with SIGKILL …`.
    fn number_before(out: &str, phrase: &str) -> u64 {
        out.split(phrase)
            .next()
            .and_then(|head| head.rsplit([' ', '\n']).next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no number before {phrase:?}: {out}"))
    }

    fn cuts(out: &str) -> u64 {
        number_before(out, " cuts in ")
    }

    fn power_full() {
        let dir = Scratch::new("power-full");
        let seconds = seconds(5);
        let (code, out, err) = cli(&[
            "power",
            "--dir",
            dir.path(),
            "--seconds",
            &seconds,
            "--synchronous",
            "full",
            "--seed",
            "42",
        ]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(cuts(&out) >= 1, "{out}");
        for check in [
            "completion: holds",
            "nothing lost: holds",
            "synchronous=full",
            "seed 42",
        ] {
            assert!(out.contains(check), "{check}: {out}");
        }
        assert!(!out.contains("LOST"), "{out}");
        // Each step a worker was told had committed was checked after its cut, and no cut's history is printed
        // where nothing was lost.
        assert!(number_before(&out, " of them told the worker") > 0, "{out}");
        assert!(!out.lines().any(|l| l.starts_with("cut ")), "{out}");
    }

    fn power_lossy() {
        for mode in ["normal", "off"] {
            let dir = Scratch::new(&format!("power-{mode}"));
            let seconds = seconds(5);
            let (code, out, err) = cli(&[
                "power",
                "--dir",
                dir.path(),
                "--seconds",
                &seconds,
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

    fn bad_arguments() {
        let dir = Scratch::new("bad");
        let d = dir.path();
        for (args, says) in [
            (
                vec!["race", "--dir", d, "--processes", "1"],
                "--processes must be a whole number from 2 to 64, got `1`",
            ),
            (
                vec!["soak", "--dir", d, "--seconds", "ten"],
                "--seconds must be a whole number",
            ),
            (
                vec!["soak", "--dir", d, "--speed", "9"],
                "unknown argument `--speed`",
            ),
            (
                vec!["soak", "--dir", d, "--producer", "fast"],
                "--producer must be `atomic` or `unsafe_dual_write`, got `fast`",
            ),
            (
                vec!["power", "--dir", d, "--synchronous", "extra"],
                "--synchronous must be one of `full`, `normal`, `off`, got `extra`",
            ),
            (
                vec!["power", "--dir", d, "--tear", "maybe"],
                "--tear must be `yes` or `no`, got `maybe`",
            ),
            (vec!["crash-real", "--dir", d, "--consumer", "rule"], "--consumer must be one of `strict`, `dedupe_only`, `greater_than`, `skip_blocked`, `effect_outside_tx`, got `rule`"),
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
            assert!(!dir.0.exists(), "{args:?} created {d}");
        }
        // A directory with a reader's file in it is never written to.
        std::fs::create_dir_all(&dir.0).unwrap();
        let file = dir.0.join("notes.txt");
        std::fs::write(&file, "mine").unwrap();
        for command in ["crash-real", "race", "soak", "power"] {
            let (code, _, err) = cli(&[command, "--dir", d]);
            assert_eq!(code, 2, "{command}");
            assert!(err.contains("not an empty directory"), "{err}");
        }
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 1);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    }
}
