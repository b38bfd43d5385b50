//! The parent's checks of what real processes left in the files, shared by `soak` and `power`: the invariant,
//! no committed transition without its event, everything acknowledged and complete after one final recovery.

use super::steps::flow_name;
use super::{read_files, worker_command, Error};
use crate::protocol::{invariant, Snapshot, KINDS};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

/// One fresh process recovers (resubmit, resend until idle, process everything); what the files hold after.
pub(super) fn final_recovery(
    db_dir: &Path,
    flows: u64,
    out: &mut impl Write,
    problems: &mut Vec<String>,
) -> Result<Snapshot, Error> {
    let finish = worker_command(&["finish", &db_dir.to_string_lossy(), &flows.to_string()])?
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()?;
    if !finish.status.success() {
        problems.push(format!("the final recovery failed: {}", finish.status));
    }
    let _ = writeln!(
        out,
        "final recovery (one fresh process): {}",
        summarize(&finish.stdout)
    );
    read_files(db_dir)
}

pub(super) fn verdict(ok: bool) -> &'static str {
    if ok {
        "holds"
    } else {
        "VIOLATED"
    }
}

/// The final recovery's results, counted by op and result word.
pub(super) fn summarize(stdout: &[u8]) -> String {
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut applied = 0;
    for line in String::from_utf8_lossy(stdout).lines() {
        if let Ok(v) = serde_json::from_str::<Value>(line) {
            let op = v["op"].as_str().unwrap_or("?").to_owned();
            let result = v["result"].as_str().unwrap_or("?").to_owned();
            applied += v["applied"].as_u64().unwrap_or(0);
            *counts.entry((op, result)).or_default() += 1;
        }
    }
    let mut parts: Vec<String> = counts
        .into_iter()
        .map(|((op, result), n)| format!("{op} {result} ×{n}"))
        .collect();
    parts.push(format!("{applied} events applied"));
    parts.join(", ")
}

pub(super) fn check_invariant(s: &Snapshot, when: &str, problems: &mut Vec<String>) {
    for v in invariant::check(s).violations {
        problems.push(format!("invariant, {when}: {v}"));
    }
}

/// No committed transition without its event: every flow's seq equals its number of outbox rows, and every
/// row the outbox says the consumer accepted is in the inbox.
pub(super) fn check_transitions(s: &Snapshot, when: &str, problems: &mut Vec<String>) {
    let mut rows: BTreeMap<&str, i64> = BTreeMap::new();
    for r in &s.producer.outbox {
        *rows.entry(r.flow_id.as_str()).or_default() += 1;
    }
    for f in &s.producer.flow {
        let n = rows.get(f.flow_id.as_str()).copied().unwrap_or(0);
        if n != f.seq {
            problems.push(format!(
                "lost, {when}: flow {} committed seq {} but has {n} outbox rows",
                f.flow_id, f.seq
            ));
        }
    }
    let inbox: BTreeSet<&str> = s
        .consumer
        .inbox
        .iter()
        .map(|r| r.event_id.as_str())
        .collect();
    for r in s.producer.outbox.iter().filter(|r| r.accepted == 1) {
        if !inbox.contains(r.event_id.as_str()) {
            problems.push(format!(
                "lost, {when}: {} is marked accepted but the inbox does not hold it",
                r.event_id
            ));
        }
    }
}

/// After the final resend, nothing is left unacknowledged.
pub(super) fn check_accepted(s: &Snapshot, problems: &mut Vec<String>) {
    for r in s.producer.outbox.iter().filter(|r| r.accepted != 1) {
        problems.push(format!(
            "after recovery, {} is still not accepted",
            r.event_id
        ));
    }
}

/// Every flow produced in full and applied exactly once per event, in order.
pub(super) fn check_completion(s: &Snapshot, flows: u64, problems: &mut Vec<String>) {
    let mut effects: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in &s.consumer.effect {
        effects
            .entry(e.flow_id.as_str())
            .or_default()
            .push(e.kind.as_str());
    }
    let projections: BTreeMap<&str, (i64, &str, i64)> = s
        .consumer
        .projection
        .iter()
        .map(|p| (p.flow_id.as_str(), (p.last_seq, p.state.as_str(), p.held)))
        .collect();
    for n in 0..flows {
        let flow = flow_name(n);
        let projection = projections.get(flow.as_str());
        let kinds = effects
            .get(flow.as_str())
            .map(Vec::as_slice)
            .unwrap_or_default();
        if projection != Some(&(3, "released", 0)) || kinds != KINDS {
            problems.push(format!(
                "incomplete: flow {flow} ends at {projection:?} with effects {kinds:?}"
            ));
        }
    }
}
