//! `experiments race --dir DIR --processes 6 --rounds N`: the article's races (§8, experiment 11) with real
//! processes. In each round, on fresh files, every process opens the files, says `ready` and blocks on one pipe
//! they all share; the parent closes it, and all of them run their step at the same moment. SQLite's write
//! lock (`BEGIN IMMEDIATE`), or on PostgreSQL the schema's advisory lock, is all that orders them.

use super::steps::Scenario;
use super::{failed, worker_command, Error, Flags, Run};
use crate::protocol::invariant;
use crate::protocol::Location;
use crate::protocol::{AdvanceResult, Outcome, Receipt, Snapshot};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Stdio;

impl Scenario {
    fn title(self) -> &'static str {
        match self {
            Scenario::SameEvent => "produce the same event A1",
            Scenario::NewIds => "produce new ids at expected_seq=0",
            Scenario::Receive => "receive the same event A1",
            Scenario::Apply => "apply flow A (A1, A2, A3 pending)",
            Scenario::Relay => "relay the unaccepted row A1",
        }
    }

    /// The one result exactly one process must get (the others lose the race), and what the losers may get.
    fn winner_and_losers(self) -> (Outcome, Vec<Outcome>) {
        let existing = Outcome::Advanced(AdvanceResult::Existing);
        let stale = Outcome::Advanced(AdvanceResult::Stale);
        let duplicate = Outcome::Received(Receipt::Duplicate);
        match self {
            Scenario::SameEvent => (Outcome::COMMITTED, vec![existing]),
            Scenario::NewIds => (Outcome::COMMITTED, vec![stale]),
            Scenario::Receive => (Outcome::ACCEPTED, vec![duplicate]),
            Scenario::Apply => (Outcome::ProcessAll { done: true }, vec![]),
            Scenario::Relay => (Outcome::ACCEPTED, vec![duplicate, Outcome::IDLE]),
        }
    }

    /// Checks one round: the results and the records the round left.
    fn check(self, results: &[Outcome1], snapshot: &Snapshot) -> Vec<String> {
        let mut problems = Vec::new();
        let (winner, losers) = self.winner_and_losers();
        let count = |o: Outcome| results.iter().filter(|r| r.result == Some(o)).count();
        // A process that gave up waiting wrote nothing in the transaction that waited, but may have committed
        // an earlier one (a relay's receive, a process_all's first applies): then only the records judge.
        let busy = count(Outcome::Busy) > 0;
        for r in results {
            let expected = |o: Outcome| o == winner || losers.contains(&o) || o == Outcome::Busy;
            if !r.result.is_some_and(expected) {
                problems.push(format!(
                    "a process answered `{}`{}",
                    r.word,
                    r.message_suffix()
                ));
            }
        }
        let p = &snapshot.producer;
        let c = &snapshot.consumer;
        match self {
            Scenario::Apply => {
                let applied: usize = results.iter().map(|r| r.applied).sum();
                if applied != 3 && !busy {
                    problems.push(format!("{applied} applies in all, not 3"));
                }
                let effects: Vec<&str> = c.effect.iter().map(|e| e.event_id.as_str()).collect();
                if effects != ["A1", "A2", "A3"] {
                    problems.push(format!("effects {effects:?}, not A1, A2, A3 once each"));
                }
            }
            _ => {
                if count(winner) > 1 || (count(winner) == 0 && !busy) {
                    problems.push(format!(
                        "{} processes got `{winner}`, not exactly one",
                        count(winner)
                    ));
                }
            }
        }
        match self {
            Scenario::SameEvent | Scenario::NewIds => {
                if p.outbox.len() != 1 || p.flow.len() != 1 || p.flow[0].seq != 1 {
                    problems.push(format!(
                        "{} outbox rows and flow {:?}: not one transition",
                        p.outbox.len(),
                        p.flow.iter().map(|f| (f.seq, &f.state)).collect::<Vec<_>>()
                    ));
                }
            }
            Scenario::Receive | Scenario::Relay => {
                if c.inbox.len() != 1 {
                    problems.push(format!("{} inbox rows, not one", c.inbox.len()));
                }
                if self == Scenario::Relay && p.outbox.iter().any(|r| r.accepted != 1) {
                    problems.push("the outbox row is not marked accepted".into());
                }
            }
            Scenario::Apply => {
                let done = c
                    .projection
                    .first()
                    .map(|r| (r.last_seq, r.state.as_str(), r.held));
                if done != Some((3, "released", 0)) {
                    problems.push(format!(
                        "projection {done:?}, not released last_seq=3 held=0"
                    ));
                }
            }
        }
        let inv = invariant::check(snapshot);
        problems.extend(
            inv.violations
                .into_iter()
                .map(|v| format!("invariant: {v}")),
        );
        problems
    }
}

/// One process's answer in one round.
struct Outcome1 {
    /// The answer as the worker wrote it, and as the outcome it names (`None`: not a result word).
    word: String,
    result: Option<Outcome>,
    applied: usize,
    message: Option<String>,
}

impl Outcome1 {
    fn message_suffix(&self) -> String {
        self.message
            .as_ref()
            .map(|m| format!(" ({m})"))
            .unwrap_or_default()
    }

    /// The word counted in the distribution (`process_all` also says how many events this process applied).
    fn label(&self) -> String {
        if self.applied > 0 || self.result == Some(Outcome::ProcessAll { done: true }) {
            format!("{} (applied {})", self.word, self.applied)
        } else {
            self.word.clone()
        }
    }
}

pub fn main(args: &[String], watch: &dyn super::Watch) -> Run {
    let flags = Flags::parse(args, &["dir", "processes", "rounds", "store"])?.for_watch(watch);
    let processes = flags.number("processes", 6, 2, 64)?;
    let rounds = flags.number("rounds", 10, 1, 10_000)?;
    let target = flags.target()?;
    let dir = &target.location;
    let mut out = super::Report::new(watch);
    let _ = writeln!(
        out,
        "{processes} real processes per round, released together through one pipe; {rounds} rounds per race, \
         each on fresh databases: {}:",
        dir.describe()
    );
    let mut all_ok = true;
    let total = rounds * Scenario::ALL.len() as u64;
    for (done, scenario) in (0..).step_by(rounds as usize).zip(Scenario::ALL) {
        let mut distribution: BTreeMap<String, usize> = BTreeMap::new();
        let mut failures = Vec::new();
        for round in 1..=rounds {
            watch.at(done + round - 1, total, &|| {
                format!("{}, round {round} of {rounds}", scenario.name())
            });
            let round_dir = dir
                .child(scenario.name())
                .child(&format!("round-{round:04}"));
            let results = run_round(&round_dir, scenario, processes)?;
            for r in &results {
                *distribution.entry(r.label()).or_default() += 1;
            }
            let problems = scenario.check(&results, &round_dir.read().map_err(failed(&round_dir))?);
            if problems.is_empty() {
                // A round that passed leaves nothing worth keeping; a failed one stays for inspection.
                let _ = round_dir.remove();
            } else {
                failures.push(format!(
                    "round {round} ({}): {}",
                    round_dir.label(),
                    problems.join("; ")
                ));
            }
        }
        // Gone when every round passed (`remove_dir` leaves a directory that still holds a failed round).
        dir.child(scenario.name()).remove_if_empty();
        let mark = if failures.is_empty() { "ok" } else { "FAILED" };
        let spread = distribution
            .iter()
            .map(|(word, n)| format!("{word} ×{n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(
            out,
            "{mark:<6} {:<20} {}: {spread}",
            scenario.name(),
            scenario.title()
        );
        for f in &failures {
            let _ = writeln!(out, "         {f}");
        }
        all_ok &= failures.is_empty();
    }
    watch.at(total, total, &|| "done".into());
    let _ = writeln!(
        out,
        "`busy` counts a process that gave up waiting for the write lock after {} s; it is never a success.",
        super::BUSY_TIMEOUT.as_secs()
    );
    Ok(all_ok)
}

fn run_round(dir: &Location, scenario: Scenario, processes: u64) -> Result<Vec<Outcome1>, Error> {
    dir.create().map_err(failed(dir))?;
    {
        let mut session = crate::trace::Session::open(dir, crate::trace::ConsumerSetup::default())
            .map_err(Error::Run)?;
        for step in scenario.setup() {
            let report = session.step(&step);
            if ![Outcome::COMMITTED, Outcome::ACCEPTED].contains(&report.result) {
                return Err(Error::Run(format!(
                    "setting up {}: {} answered {}{}",
                    scenario.name(),
                    step.op(),
                    report.result,
                    report
                        .message
                        .map(|m| format!(" ({m})"))
                        .unwrap_or_default()
                )));
            }
        }
    }
    let dir_text = dir.arg();
    let (gun, trigger) = std::io::pipe()?;
    let mut children = super::Children::default();
    for index in 0..processes {
        let child = worker_command(&["race", &dir_text, scenario.name(), &index.to_string()])?
            .stdin(Stdio::from(gun.try_clone()?))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        children.0.push(child);
    }
    drop(gun);
    let mut readers = Vec::new();
    for child in &mut children.0 {
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| Error::Run("no stdout".into()))?;
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim() != "ready" {
            return Err(Error::Run(format!("a worker did not get ready: {line:?}")));
        }
        readers.push(reader);
    }
    // Every worker is open and blocked on the pipe: closing it releases all of them at once.
    drop(trigger);
    let mut results = Vec::new();
    for (mut reader, child) in readers.into_iter().zip(&mut children.0) {
        let mut text = String::new();
        reader.read_to_string(&mut text)?;
        let status = child.wait()?;
        if !status.success() {
            return Err(Error::Run(format!("a race worker failed: {status}")));
        }
        let line: Value = serde_json::from_str(text.trim())
            .map_err(|e| Error::Run(format!("a race worker answered {text:?}: {e}")))?;
        let word = line["result"].as_str().unwrap_or_default().to_owned();
        results.push(Outcome1 {
            result: Outcome::from_name(&word),
            word,
            applied: line["applied"].as_u64().unwrap_or(0) as usize,
            message: line["message"].as_str().map(str::to_owned),
        });
    }
    Ok(results)
}

/// A round's check, shown catching each thing it names (a real race that goes wrong cannot be summoned).
#[cfg(test)]
#[path = "race_tests.rs"]
mod tests;
