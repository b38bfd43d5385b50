//! The child side: `experiments worker JOB …`, started by `crash-real`, `race`, `soak` and `power`, not by hand.
//! Each job opens the two files in its directory (or, for `crash` and `race` on PostgreSQL, the two schemas its
//! argument names) as a [`Session`] and prints one JSON line per step it runs.

use super::steps::{self, Scenario};
use super::{Rng, EXIT_CODE};
use crate::protocol::Location;
use crate::protocol::{Boundary, Ordering, Outcome, KINDS};
use crate::trace::{ConsumerSetup, Session, Step, StepReport};
use serde_json::json;
use std::io::{Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The process ends right here, its transaction open and nothing cleaned up: no destructor runs, no buffer is
/// flushed, no `ROLLBACK` is sent. The operating system closes the files; SQLite's WAL then holds no commit
/// record for the open transaction, so the next process to open the files never sees it. On PostgreSQL it closes
/// the connection's socket, and the server rolls the transaction back.
fn exit_here() -> ! {
    // SAFETY: `_exit` takes no pointers and never returns; ending the process without running any Rust or C
    // clean-up is its whole purpose.
    unsafe { libc::_exit(EXIT_CODE) }
}

/// One step's outcome as a JSON line: the result word, the events it applied, and any message.
pub fn report_line(report: &StepReport) -> String {
    json!({
        "op": report.op,
        "result": report.result,
        "applied": report.applied,
        "message": report.message,
    })
    .to_string()
}

pub fn main(args: &[String]) -> ExitCode {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["crash", dir, boundary, consumer] => crash_job(dir, boundary, consumer),
        ["recover", dir, consumer] => recover_job(dir, consumer),
        ["race", dir, scenario, index] => race_job(dir, scenario, index),
        ["soak", dir, flows, seed, log, seconds, producer] => {
            soak_job(Path::new(dir), flows, seed, log, seconds, producer)
        }
        ["finish", dir, flows] => finish_job(Path::new(dir), flows),
        ["power", dir, flows, seed, log, seconds, synchronous] => {
            power_job(Path::new(dir), flows, seed, log, seconds, synchronous)
        }
        _ => {
            eprintln!("experiments worker: crash|recover|race|soak|finish|power …, started by crash-real, race, soak and power");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("worker: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Opens the session, trying again a few times: under contention a fresh process can wait past the busy
/// timeout just to open the files (the WAL's recovery after a kill holds a lock).
fn open(dir: &Path) -> Result<Session, String> {
    open_as(&dir.to_string_lossy(), ConsumerSetup::default())
}

/// `place`: a directory of files, or a PostgreSQL place ([`Location::arg`]).
fn open_as(place: &str, consumer: ConsumerSetup) -> Result<Session, String> {
    let location = Location::parse(place)?;
    let mut tries = 0;
    loop {
        match Session::open(&location, consumer.clone()) {
            Ok(session) => return Ok(session),
            Err(e) if tries >= 3 => return Err(e),
            Err(_) => tries += 1,
        }
    }
}

fn number(text: &str, what: &str) -> Result<u64, String> {
    text.parse()
        .map_err(|_| format!("{what} must be a whole number, got `{text}`"))
}

fn run(session: &mut Session, step: &Step) -> StepReport {
    let report = session.step(step);
    println!("{}", report_line(&report));
    report
}

/// The consumer a crash or recovery job runs, by its name in TRACE.md.
fn consumer(name: &str) -> Result<ConsumerSetup, String> {
    let ordering = Ordering::from_name(name).ok_or_else(|| format!("unknown consumer `{name}`"))?;
    Ok(ConsumerSetup {
        ordering,
        ..ConsumerSetup::default()
    })
}

/// Runs the article's first step of flow A up to `boundary` and exits there (PROTOCOL.md §8).
fn crash_job(dir: &str, boundary: &str, consumer_name: &str) -> Result<(), String> {
    let boundary =
        Boundary::from_name(boundary).ok_or_else(|| format!("unknown boundary `{boundary}`"))?;
    let mut session = open_as(dir, consumer(consumer_name)?)?;
    session.set_exit_hook(exit_here);
    for step in steps::steps_to(boundary) {
        run(&mut session, &step);
    }
    // Still here: the boundary was never reached. The parent sees exit status 0, not 73.
    Ok(())
}

/// A fresh process recovers from what was committed: resubmit, resend until idle, process.
fn recover_job(dir: &str, consumer_name: &str) -> Result<(), String> {
    let mut session = open_as(dir, consumer(consumer_name)?)?;
    for step in steps::recovery() {
        run(&mut session, &step);
    }
    relay_until_idle(&mut session, 16)?;
    run(&mut session, &Step::process_all(None));
    Ok(())
}

/// The default relay, again and again, until it has nothing left to send (or `most` times). Anything but a
/// delivery or `idle` (a `busy`, an SQL error) ends recovery with that report.
fn relay_until_idle(session: &mut Session, most: usize) -> Result<(), String> {
    for _ in 0..most {
        let report = run(session, &Step::relay(None));
        if report.relayed.is_none() {
            return if report.result == Outcome::IDLE {
                Ok(())
            } else {
                Err(format!("resending: {}", report_line(&report)))
            };
        }
    }
    Ok(())
}

/// Opens the files, says `ready`, waits for the parent to close the shared pipe, then runs one step at once.
fn race_job(dir: &str, scenario: &str, index: &str) -> Result<(), String> {
    let scenario =
        Scenario::from_name(scenario).ok_or_else(|| format!("unknown scenario `{scenario}`"))?;
    let index = number(index, "the process index")?;
    let step = scenario.step(index);
    let mut session = open_as(dir, ConsumerSetup::default())?;
    println!("ready");
    let mut rest = Vec::new();
    // EOF on the shared pipe is the starting gun: the parent closes it once every worker is ready.
    std::io::stdin()
        .read_to_end(&mut rest)
        .map_err(|e| format!("waiting for the start: {e}"))?;
    run(&mut session, &step);
    Ok(())
}

/// Random protocol steps on the shared files until killed (or, should the parent be gone, until `seconds`
/// have passed). Every step is written to `log` before it runs, and its result after: a killed step is the
/// one without a result.
fn soak_job(
    dir: &Path,
    flows: &str,
    seed: &str,
    log: &str,
    seconds: &str,
    producer: &str,
) -> Result<(), String> {
    let flows = number(flows, "flows")?;
    let producer = crate::protocol::WriteMode::from_name(producer)
        .ok_or_else(|| format!("unknown producer `{producer}`"))?;
    let seed = number(seed, "seed")?;
    let deadline = Instant::now() + Duration::from_secs(number(seconds, "seconds")?);
    let mut write = step_log(log)?;
    write(json!({ "seed": seed, "flows": flows }).to_string());
    let mut session = open(dir)?;
    // The unsafe dual write's exit is a real one here too.
    session.set_exit_hook(exit_here);
    let mut seqs = steps::SeqReader::open(&Location::files(dir))?;
    let mut rng = Rng::new(seed);
    let mut n = 0u64;
    let parent = std::os::unix::process::parent_id();
    // Until killed; should the parent be gone (re-parented), or the deadline pass, the worker stops by itself.
    while Instant::now() < deadline && std::os::unix::process::parent_id() == parent {
        let step = steps::random_step(&mut rng, flows, &mut seqs, producer);
        write(json!({ "n": n, "step": step }).to_string());
        let report = session.step(&step);
        write(json!({ "n": n, "result": report.result }).to_string());
        n += 1;
    }
    Ok(())
}

/// The power run's worker: random steps through the layer that forgets unsynced writes, with `synchronous`
/// set as asked, until the parent cuts the power. Each step is logged before it runs and its result (and the
/// event a relay sent) once it has returned: what the worker was told was committed.
fn power_job(
    dir: &Path,
    flows: &str,
    seed: &str,
    log: &str,
    seconds: &str,
    synchronous: &str,
) -> Result<(), String> {
    let flows = number(flows, "flows")?;
    let seed = number(seed, "seed")?;
    let synchronous = crate::protocol::Synchronous::from_name(synchronous)
        .ok_or_else(|| format!("unknown synchronous `{synchronous}`"))?;
    let deadline = Instant::now() + Duration::from_secs(number(seconds, "seconds")?);
    let mut write = step_log(log)?;
    let location = Location::files(dir).with_power(synchronous);
    let mut session = Session::open(&location, ConsumerSetup::default())?;
    let mut seqs = steps::SeqReader::open(&location)?;
    let mut rng = Rng::new(seed);
    let parent = std::os::unix::process::parent_id();
    let mut n = 0u64;
    while Instant::now() < deadline && std::os::unix::process::parent_id() == parent {
        let step = steps::random_step(
            &mut rng,
            flows,
            &mut seqs,
            crate::protocol::WriteMode::Atomic,
        );
        write(json!({ "n": n, "step": step }).to_string());
        let report = session.step(&step);
        write(json!({ "n": n, "result": report.result, "relayed": report.relayed }).to_string());
        n += 1;
    }
    Ok(())
}

/// A worker's log of its steps: one write per line, straight to the file, so a SIGKILL loses no line
/// already written.
fn step_log(path: &str) -> Result<impl FnMut(String), String> {
    let mut log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("{path}: {e}"))?;
    Ok(move |line: String| {
        let _ = log.write_all(format!("{line}\n").as_bytes());
    })
}

/// The soak's final recovery, in one fresh process: resubmit every transition a flow still lacks, resend
/// until the relay is idle, then process everything.
fn finish_job(dir: &Path, flows: &str) -> Result<(), String> {
    let flows = number(flows, "flows")?;
    let mut session = open(dir)?;
    let mut seqs = steps::SeqReader::open(&Location::files(dir))?;
    for f in 0..flows {
        let flow = steps::flow_name(f);
        let mut seq = seqs.seq(&flow);
        while seq < KINDS.len() as i64 {
            let step = steps::produce(&flow, seq);
            let report = run(&mut session, &step);
            if report.result == Outcome::COMMITTED {
                seq += 1;
            } else {
                return Err(format!("resubmitting {flow}: {}", report_line(&report)));
            }
        }
    }
    relay_until_idle(&mut session, (flows as usize + 1) * KINDS.len() + 16)?;
    run(
        &mut session,
        &Step::process_all(Some(crate::trace::MAX_PROCESS_LIMIT)),
    );
    Ok(())
}
