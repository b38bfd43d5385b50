//! `experiments soak --dir DIR --seconds S --workers W --flows F --seed N`: W worker processes take random
//! protocol steps (produce, relay, resend, apply) on F flows of the two shared files while the parent kills
//! random workers with SIGKILL at random moments and starts new ones. At the end, one fresh process recovers
//! (resubmit, resend, process) and the parent checks the invariant, that nothing was lost, and completion.

use super::checks::{
    check_accepted, check_completion, check_invariant, check_transitions, final_recovery, verdict,
};
use super::{read_files, worker_command, Error, Flags, Rng, Run};
use crate::protocol::WriteMode;
use serde_json::Value;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

struct Worker {
    child: Child,
    number: u64,
}

/// The running workers: killed and reaped when dropped, however the run ends.
struct Pool(Vec<Worker>);

impl Drop for Pool {
    fn drop(&mut self) {
        for w in &mut self.0 {
            let _ = w.child.kill();
            let _ = w.child.wait();
        }
    }
}

pub fn main(args: &[String], watch: &dyn super::Watch) -> Run {
    let flags = Flags::parse(
        args,
        &["dir", "seconds", "workers", "flows", "seed", "producer"],
    )?
    .for_watch(watch);
    let producer = match flags.text("producer") {
        None => WriteMode::Atomic,
        Some(name) => WriteMode::from_name(name).ok_or_else(|| {
            Error::Usage(format!(
                "--producer must be `atomic` or `unsafe_dual_write`, got `{name}`"
            ))
        })?,
    };
    let seconds = flags.number("seconds", 10, 1, 3600)?;
    let workers = flags.number("workers", 4, 1, 32)?;
    let flows = flags.number("flows", 1000, 1, 100_000)?;
    let seed = flags.seed()?;
    let (db_dir, log_dir) = flags.run_dirs()?;

    let mut out = super::Report::new(watch);
    let _ = writeln!(
        out,
        "soak: {seconds} s, {workers} workers, {flows} flows, seed {seed}; files in {}, worker logs in {}",
        db_dir.display(),
        log_dir.display()
    );
    let mut rng = Rng::new(seed);
    let mut started = 0u64;
    let mut problems = Vec::new();
    let spawn = |started: &mut u64| -> Result<Worker, Error> {
        let number = *started;
        *started += 1;
        let log = log_dir.join(format!("worker-{number:05}.jsonl"));
        let err = File::create(log_dir.join(format!("worker-{number:05}.stderr")))?;
        let child = worker_command(&[
            "soak",
            &db_dir.to_string_lossy(),
            &flows.to_string(),
            &(seed.wrapping_mul(1_000_003).wrapping_add(number) % (u64::MAX / 2)).to_string(),
            &log.to_string_lossy(),
            // A worker whose parent is gone stops by itself a little after the run would have ended.
            &(seconds + 30).to_string(),
            producer.name(),
        ])?
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(err))
        .spawn()?;
        Ok(Worker { child, number })
    };
    let mut pool = Pool(Vec::new());
    for _ in 0..workers {
        pool.0.push(spawn(&mut started)?);
    }

    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let mut kills = 0u64;
    let mut self_exits = 0u64;
    while Instant::now() < end {
        // A kill every 150 ms on average, at a random moment: mid-transaction, mid-fsync, mid-start-up.
        let pause = Duration::from_millis(20 + rng.below(260));
        std::thread::sleep(pause.min(end.saturating_duration_since(Instant::now())));
        for w in &mut pool.0 {
            match w.child.try_wait()? {
                None => {}
                // The unsafe dual write's own exit: a real `_exit(73)` right after its lone commit.
                Some(status)
                    if producer == WriteMode::UnsafeDualWrite
                        && status.code() == Some(super::EXIT_CODE) =>
                {
                    self_exits += 1;
                    *w = spawn(&mut started)?;
                }
                Some(status) => {
                    problems.push(format!("worker {} ended by itself: {status}", w.number));
                    *w = spawn(&mut started)?;
                }
            }
        }
        if Instant::now() >= end {
            break;
        }
        let victim = &mut pool.0[rng.below(workers) as usize];
        // One that already ended by itself is left for the next look above, not counted as a kill.
        if victim.child.try_wait()?.is_none() {
            victim.child.kill()?; // SIGKILL
            victim.child.wait()?;
            kills += 1;
            *victim = spawn(&mut started)?;
        }
        watch.at(start.elapsed().as_secs(), seconds, &|| {
            format!("{kills} killed, {started} workers started")
        });
    }
    watch.at(seconds, seconds, &|| "checking what the files hold".into());
    let at_the_end = pool.0.len();
    drop(pool);
    let elapsed = start.elapsed();

    let (steps, busy, inside) = count_steps(&log_dir)?;
    let _ = writeln!(
        out,
        "ran {:.1} s: {steps} steps by {started} workers; {kills} killed with SIGKILL mid-run (+{} at the end), \
         {inside} of them inside a step; {busy} busy answers",
        elapsed.as_secs_f64(),
        at_the_end
    );
    if producer == WriteMode::UnsafeDualWrite {
        let _ = writeln!(
            out,
            "producer unsafe_dual_write: {self_exits} workers exited by themselves between the state commit \
             and the outbox write"
        );
    }

    let before = read_files(&db_dir)?;
    let mark = problems.len();
    check_invariant(&before, "as the kills left it", &mut problems);
    check_transitions(&before, "as the kills left it", &mut problems);
    let _ = writeln!(
        out,
        "as the kills left it: {} (the invariant; every committed transition has its outbox row; every \
         accepted row is in the inbox)",
        verdict(problems.len() == mark)
    );

    let after = final_recovery(&db_dir, flows, &mut out, &mut problems)?;
    let mark = problems.len();
    check_invariant(&after, "after recovery", &mut problems);
    let _ = writeln!(out, "invariant: {}", verdict(problems.len() == mark));
    let mark = problems.len();
    check_transitions(&after, "after recovery", &mut problems);
    check_accepted(&after, &mut problems);
    let _ =
        writeln!(
        out,
        "nothing lost: {} ({} committed transitions, {} outbox rows, {} accepted; {} inbox rows)",
        verdict(problems.len() == mark),
        after.producer.flow.iter().map(|f| f.seq).sum::<i64>(),
        after.producer.outbox.len(),
        after.producer.outbox.iter().filter(|r| r.accepted == 1).count(),
        after.consumer.inbox.len()
    );
    let mark = problems.len();
    check_completion(&after, flows, &mut problems);
    let _ = writeln!(
        out,
        "completion: {} ({} flows, {} effects)",
        verdict(problems.len() == mark),
        after.consumer.projection.len(),
        after.consumer.effect.len()
    );
    if problems.is_empty() {
        return Ok(true);
    }
    for p in problems.iter().take(20) {
        let _ = writeln!(out, "VIOLATION {p}");
    }
    let _ = writeln!(
        out,
        "each worker's steps and results, in order, are in {}; the kills' timing differs from run to run, so the \
         same flags (--seconds {seconds} --workers {workers} --flows {flows} --seed {seed} --producer {}) give a \
         similar run, not the same one",
        log_dir.display(),
        producer.name()
    );
    Ok(false)
}

/// From every worker's log: steps that finished (a result line), how many of them answered `busy`, and how
/// many workers died inside a step (their last line is a step without its result).
fn count_steps(log_dir: &Path) -> Result<(u64, u64, u64), Error> {
    let (mut steps, mut busy, mut inside) = (0, 0, 0);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(log_dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    logs.sort();
    for log in logs {
        let mut open_step = false;
        for line in std::fs::read_to_string(&log)?.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue; // The last line of a killed worker may be cut short.
            };
            open_step = v.get("step").is_some();
            if let Some(result) = v.get("result").and_then(Value::as_str) {
                steps += 1;
                busy += u64::from(
                    crate::protocol::Outcome::from_name(result)
                        == Some(crate::protocol::Outcome::Busy),
                );
            }
        }
        inside += u64::from(open_step);
    }
    Ok((steps, busy, inside))
}

#[cfg(test)]
#[path = "soak_tests.rs"]
mod tests;
