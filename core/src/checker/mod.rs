//! The checker (`../shared/spec/CHECKER.md`): a breadth-first search of every history within bounds — every
//! interleaving of produces, deliveries, resends, applies and exits — over the real protocol code on real
//! SQLite. It proves that the properties hold in every reachable state, or returns the shortest history that
//! breaks one, as a trace the player and `experiments replay` reproduce. Plain Rust: natively and in wasm32.

pub mod actions;
pub mod config;
pub mod play;
pub mod properties;
pub mod report;
mod rows;
mod runner;
pub mod search;
pub mod shard;
pub mod state;

pub use actions::{actions, Action, Move};
pub use config::Config;
pub use play::{Hint, Play};
pub use properties::{Property, Violation};
pub use report::{Finding, Outcome};
pub use search::{Counterexample, Counts, Search, Verdict};

use crate::protocol::{Ordering, Synchronous, WriteMode};
use crate::trace::StepReport;

/// One sentence saying why a counterexample's history is wrong: the step that broke the property, what it left
/// in the tables, and what the protocol does instead.
pub fn why(config: &Config, c: &Counterexample) -> String {
    let n = c.reports.len();
    let last = c.trace.steps.last().map(describe).unwrap_or_default();
    let result = c
        .reports
        .last()
        .map(StepReport::summary)
        .unwrap_or_default();
    let cut = matches!(
        c.trace.steps.last(),
        Some(crate::trace::Step::PowerCut { .. })
    );
    let instead = if c.violation.property == properties::Property::NoLoss
        && config.producer == WriteMode::UnsafeDualWrite
    {
        "the atomic producer commits the state change and its outbox row in one transaction, so an exit leaves both or neither"
    } else if cut && config.synchronous == Synchronous::Normal {
        "under synchronous=normal a cut takes back every commit since the last checkpoint, acknowledged or not; under full (the protocol's setting) a commit is on disk before it is answered, and a cut loses nothing"
    } else {
        match config.consumer {
            Ordering::Strict => "the strict consumer is meant to hold here: this is a bug in the protocol code",
            Ordering::DedupeOnly => {
                "deduplicating by id stops copies, not reordering: the strict consumer applies only last_seq + 1 and waits at a gap"
            }
            Ordering::GreaterThan => {
                "the strict consumer applies only last_seq + 1, answers gap while an earlier event is missing, and waits"
            }
            Ordering::SkipBlocked => {
                "the strict consumer leaves a blocked event where it is and waits; moving past it records a last_seq that no effect backs"
            }
            Ordering::EffectOutsideTx => {
                "the strict consumer writes the effect in the same transaction as the projection and the applied mark, so an exit leaves all three or none"
            }
            Ordering::Rule if c.violation.property == properties::Property::RuleAnswers => {
                "the engine carries out only 'apply', 'block' or 'skip' of a row of waiting, or no row at all"
            }
            Ordering::Rule => {
                "the strict rule applies only last_seq + 1 with every check passed, blocks what fails a check, and waits at a gap"
            }
        }
    };
    format!(
        "Step {n} ({last} → {result}) broke {} — {}: {}; {instead}.",
        c.violation.property.name(),
        search::property_words(c.violation.property),
        c.violation.message
    )
}

/// A step in a few words: `relay A2`, `apply A`, `advance A1 (crash_at …)`.
pub fn describe(step: &crate::trace::Step) -> String {
    use crate::trace::Step;
    let base = match step {
        Step::Advance(w) | Step::UnsafeDualWrite(w) => format!("{} {}", step.op(), w.event_id),
        Step::Relay { event_id, .. } => format!("relay {}", event_id.as_deref().unwrap_or("")),
        Step::Apply { flow, .. } => format!("apply {flow}"),
        Step::PowerCut { databases } => format!(
            "power_cut {}",
            databases
                .iter()
                .map(|r| r.name())
                .collect::<Vec<_>>()
                .join("+")
        ),
        Step::SetSynchronous { mode } => format!("set_synchronous {}", mode.name()),
        other => other.op().name().to_owned(),
    };
    match step.crash_at() {
        Some(b) => format!("{base}, crash_at {}", b.name()),
        None => base,
    }
}
