//! `experiments power --dir DIR --seconds S --workers W --synchronous full|normal|off --seed N`: rounds of
//! W workers take random protocol steps on the two files through the layer that forgets unsynced writes
//! ([`super::unsynced`]); at a random moment the parent cuts the power — every worker of the round is killed
//! at once (one SIGKILL to their process group), then each file keeps what the cut leaves it — and checks what
//! survived: the invariant, nothing lost (every committed transition has its outbox row, every accepted row is
//! in the inbox), and every step a worker was told had committed. At the end one fresh process recovers and
//! the parent checks completion, as `soak` does. Exit 0 when nothing was lost, 1 when something was.

use super::checks::{
    check_completion, check_invariant, check_transitions, final_recovery, verdict,
};
use super::{read_files, worker_command, Error, Flags, Rng, Run};
use crate::protocol::location::{CONSUMER_FILE, PRODUCER_FILE};
use crate::protocol::unsynced;
use crate::protocol::{Outcome, Receipt, Snapshot, Synchronous};
use crate::trace::Op;
use serde_json::Value;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// What a worker was told had committed: an advance of this event, or a relay that delivered this event.
#[derive(Debug)]
enum Claim {
    Committed(String),
    Delivered(String),
}

pub fn main(args: &[String], watch: &dyn super::Watch) -> Run {
    let flags = Flags::parse(
        args,
        &[
            "dir",
            "seconds",
            "workers",
            "flows",
            "seed",
            "synchronous",
            "tear",
        ],
    )?
    .for_watch(watch);
    let synchronous = match flags.text("synchronous") {
        None => Synchronous::Full,
        Some(name) => Synchronous::from_name(name).ok_or_else(|| {
            Error::Usage(format!(
                "--synchronous must be one of {}, got `{name}`",
                <Synchronous as crate::words::Word>::listed()
            ))
        })?,
    };
    let tear = match flags.text("tear") {
        None | Some("yes") => true,
        Some("no") => false,
        Some(other) => {
            return Err(Error::Usage(format!(
                "--tear must be `yes` or `no`, got `{other}`"
            )))
        }
    };
    let seconds = flags.number("seconds", 10, 1, 3600)?;
    let workers = flags.number("workers", 3, 1, 32)?;
    let flows = flags.number("flows", 200, 1, 100_000)?;
    let seed = flags.seed()?;
    let (db_dir, log_dir) = flags.run_dirs()?;
    let files: Vec<PathBuf> = [PRODUCER_FILE, CONSUMER_FILE]
        .iter()
        .flat_map(|f| [db_dir.join(f), db_dir.join(format!("{f}-wal"))])
        .collect();

    let mut out = super::Report::new(watch);
    let _ = writeln!(
        out,
        "power: {seconds} s, {workers} workers a round, {flows} flows, synchronous={}, torn writes {}, seed {seed}; \
         files in {}, worker logs in {}",
        synchronous.name(),
        if tear { "yes" } else { "no" },
        db_dir.display(),
        log_dir.display()
    );
    let mut rng = Rng::new(seed);
    let mut problems: Vec<String> = Vec::new();
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let (mut cuts, mut steps, mut claims_checked) = (0u64, 0usize, 0usize);
    // What the files held after the last cut: everything in it was durable then, so no later cut may take it.
    let mut previous: Option<Snapshot> = None;
    while Instant::now() < end && problems.is_empty() {
        let round = cuts;
        let logs = run_round(
            &db_dir,
            &log_dir,
            round,
            workers,
            flows,
            seed,
            synchronous,
            &mut rng,
        )?;
        cuts += 1;
        let kept = unsynced::power_cut(&files, &mut |n| rng.below(n), tear)?;
        let after = match read_files(&db_dir) {
            Ok(s) => s,
            Err(e) => {
                problems.push(format!(
                    "after cut {cuts}: the files cannot be opened ({}): {e}",
                    unreadable(&db_dir)
                ));
                history(&mut out, cuts, &kept, &[]);
                break;
            }
        };
        let claims = read_claims(&logs, &mut steps)?;
        claims_checked += claims.len();
        let mark = problems.len();
        let when = format!("after cut {cuts}");
        check_invariant(&after, &when, &mut problems);
        check_transitions(&after, &when, &mut problems);
        let lost: Vec<&(usize, Claim)> = claims.iter().filter(|(_, c)| !holds(&after, c)).collect();
        if let Some(before) = &previous {
            regressions(before, &after, &when, &mut problems);
        }
        for (w, c) in &lost {
            problems.push(format!(
                "{when}: worker {w} was told `{c}`, and the files no longer hold it"
            ));
        }
        if problems.len() > mark {
            history(&mut out, cuts, &kept, &lost);
        }
        previous = Some(after);
        watch.at(start.elapsed().as_secs(), seconds, &|| {
            format!("{cuts} power cuts, {claims_checked} claims checked")
        });
    }
    watch.at(seconds, seconds, &|| "checking what the files hold".into());
    let _ = writeln!(
        out,
        "{cuts} cuts in {:.1} s: {steps} steps, {claims_checked} of them told the worker a commit or a delivery",
        start.elapsed().as_secs_f64()
    );

    if problems.is_empty() {
        let after = final_recovery(&db_dir, flows, &mut out, &mut problems)?;
        let mark = problems.len();
        check_completion(&after, flows, &mut problems);
        let _ = writeln!(out, "completion: {}", verdict(problems.len() == mark));
    }
    let _ = writeln!(out, "nothing lost: {}", verdict(problems.is_empty()));
    if problems.is_empty() {
        return Ok(true);
    }
    for p in problems.iter().take(20) {
        let _ = writeln!(out, "LOST {p}");
    }
    let _ = writeln!(
        out,
        "the same flags (--seconds {seconds} --workers {workers} --flows {flows} --seed {seed} --synchronous {}) \
         give a similar run, not the same one: the moments of the cuts, and so what each file has to lose, \
         differ from run to run",
        synchronous.name()
    );
    Ok(false)
}

/// One round: `workers` processes in one process group, killed together after a random 40–160 ms.
#[allow(clippy::too_many_arguments)]
fn run_round(
    db_dir: &Path,
    log_dir: &Path,
    round: u64,
    workers: u64,
    flows: u64,
    seed: u64,
    synchronous: Synchronous,
    rng: &mut Rng,
) -> Result<Vec<(usize, PathBuf)>, Error> {
    let mut children = super::Children::default();
    let mut logs = Vec::new();
    let mut group = 0i32;
    for w in 0..workers {
        let log = log_dir.join(format!("cut-{:05}-worker-{w}.jsonl", round + 1));
        let worker_seed =
            seed.wrapping_mul(1_000_003).wrapping_add(round * 64 + w) % (u64::MAX / 2);
        let mut command = worker_command(&[
            "power",
            &db_dir.to_string_lossy(),
            &flows.to_string(),
            &worker_seed.to_string(),
            &log.to_string_lossy(),
            "30",
            synchronous.name(),
        ])?;
        command
            .process_group(group)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let child = command.spawn()?;
        if group == 0 {
            group = child.id() as i32;
        }
        children.0.push(child);
        logs.push((w as usize, log));
    }
    std::thread::sleep(Duration::from_millis(40 + rng.below(120)));
    // SAFETY: a signal to a process group this parent made; no pointers.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    // Every worker runs until the cut: one that ended before it (an error, a panic) leaves the run unable to say
    // what the cut took.
    for ((w, log), child) in logs.iter().zip(&mut children.0) {
        let status = child.wait()?;
        if std::os::unix::process::ExitStatusExt::signal(&status) != Some(libc::SIGKILL) {
            let mut said = String::new();
            if let Some(mut err) = child.stderr.take() {
                let _ = err.read_to_string(&mut said);
            }
            return Err(Error::Run(format!(
                "cut {}: worker {w} ended by itself before the cut ({status}{}); its log is {}",
                round + 1,
                said.lines()
                    .next()
                    .map(|l| format!(": {l}"))
                    .unwrap_or_default(),
                log.display()
            )));
        }
    }
    Ok(logs)
}

/// Each worker's claims: the steps whose result it received (a commit, a delivery), in order.
fn read_claims(logs: &[(usize, PathBuf)], steps: &mut usize) -> Result<Vec<(usize, Claim)>, Error> {
    let mut claims = Vec::new();
    for (w, log) in logs {
        let Ok(text) = std::fs::read_to_string(log) else {
            continue; // Killed before it opened its log.
        };
        let mut last: Option<Value> = None;
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue; // The last line of a killed worker may be cut short.
            };
            if let Some(step) = v.get("step") {
                last = Some(step.clone());
                continue;
            }
            let (Some(step), Some(result)) = (last.take(), v.get("result").and_then(Value::as_str))
            else {
                continue;
            };
            *steps += 1;
            let outcome = Outcome::from_name(result);
            match (step["op"].as_str().and_then(Op::from_name), outcome) {
                (Some(Op::Advance), Some(Outcome::COMMITTED)) => {
                    if let Some(id) = step["event_id"].as_str() {
                        claims.push((*w, Claim::Committed(id.to_owned())));
                    }
                }
                // A duplicate is delivered too: the inbox held it already.
                (
                    Some(Op::Relay),
                    Some(Outcome::Received(Receipt::Accepted | Receipt::Duplicate)),
                ) => {
                    if let Some(id) = v["relayed"].as_str() {
                        claims.push((*w, Claim::Delivered(id.to_owned())));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(claims)
}

impl std::fmt::Display for Claim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Claim::Committed(id) => write!(f, "advance {id} → committed"),
            Claim::Delivered(id) => write!(f, "relay {id} → delivered"),
        }
    }
}

fn holds(s: &Snapshot, claim: &Claim) -> bool {
    match claim {
        Claim::Committed(id) => s.producer.outbox.iter().any(|r| &r.event_id == id),
        Claim::Delivered(id) => s.consumer.inbox.iter().any(|r| &r.event_id == id),
    }
}

/// What the last cut had left that this one no longer holds: a flow's seq, an outbox row or its accepted mark,
/// an inbox row, a projection's last_seq, an effect.
fn regressions(before: &Snapshot, now: &Snapshot, when: &str, problems: &mut Vec<String>) {
    let mut gone = Vec::new();
    for f in &before.producer.flow {
        if !now
            .producer
            .flow
            .iter()
            .any(|g| g.flow_id == f.flow_id && g.seq >= f.seq)
        {
            gone.push(format!("flow {} at seq {}", f.flow_id, f.seq));
        }
    }
    for r in &before.producer.outbox {
        if !now
            .producer
            .outbox
            .iter()
            .any(|g| g.event_id == r.event_id && g.accepted >= r.accepted)
        {
            gone.push(format!(
                "outbox row {} (accepted {})",
                r.event_id, r.accepted
            ));
        }
    }
    for r in &before.consumer.inbox {
        if !now.consumer.inbox.iter().any(|g| g.event_id == r.event_id) {
            gone.push(format!("inbox row {}", r.event_id));
        }
    }
    for p in &before.consumer.projection {
        if !now
            .consumer
            .projection
            .iter()
            .any(|g| g.flow_id == p.flow_id && g.last_seq >= p.last_seq)
        {
            gone.push(format!(
                "projection {} at last_seq {}",
                p.flow_id, p.last_seq
            ));
        }
    }
    if now.consumer.effect.len() < before.consumer.effect.len() {
        gone.push(format!(
            "{} of {} effects",
            before.consumer.effect.len() - now.consumer.effect.len(),
            before.consumer.effect.len()
        ));
    }
    for g in gone.into_iter().take(5) {
        problems.push(format!(
            "{when}: the previous cut had left {g}, and it is gone"
        ));
    }
}

/// Which database SQLite can no longer read after a cut.
fn unreadable(dir: &Path) -> String {
    let bad: Vec<&str> = [PRODUCER_FILE, CONSUMER_FILE]
        .into_iter()
        .filter(|f| {
            let ok = rusqlite::Connection::open(dir.join(f))
                .and_then(|c| c.query_row("PRAGMA quick_check", [], |r| r.get::<_, String>(0)));
            !matches!(ok.as_deref(), Ok("ok"))
        })
        .collect();
    if bad.is_empty() {
        "both pass quick_check".into()
    } else {
        format!("{} fails quick_check", bad.join(" and "))
    }
}

/// What led to a loss: the cut, what each file kept of its unsynced writes, and the claims it broke.
fn history(out: &mut impl Write, cut: u64, kept: &[unsynced::Kept], lost: &[&(usize, Claim)]) {
    let files: Vec<String> = kept.iter().map(|k| k.to_string()).collect();
    let _ = writeln!(out, "cut {cut}: {}", files.join("; "));
    for (w, c) in lost.iter().take(10) {
        let _ = writeln!(out, "  worker {w} of that round had been told `{c}`");
    }
}

/// The checks a cut is held to, each shown catching what it names (a real run's losses depend on its timing).
#[cfg(test)]
#[path = "power_tests.rs"]
mod tests;
