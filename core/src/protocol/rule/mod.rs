//! The reader's rule (`../shared/spec/RULE.md`): one SQL `SELECT` over a relation `waiting` that decides what
//! `apply` does for a flow. [`Rule::new`] refuses what RULE.md refuses, before anything runs; the consumer
//! ([`crate::protocol::consumer`]) fills `waiting` inside its apply transaction, asks [`answer`], and carries
//! the answer out. Plain Rust over rusqlite: natively and in wasm32, with the same verdicts.

mod engine;
pub mod lex;

use crate::protocol::results::{BlockReason, Ordering};
use std::sync::Arc;

pub use engine::{COLUMNS, FUNCTIONS, MAX_CALLS};

words! {
    /// Where a rule's effect is written: with the projection (`inside`), or as an outside call (`outside`,
    /// exactly as `effect_outside_tx`).
    #[derive(Default)]
    pub enum RuleEffect {
        #[default]
        Inside = "inside",
        Outside = "outside",
    }
}

/// What a rule answered for the event it named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Act {
    Apply,
    Block,
    Skip,
}

/// One row of `waiting`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitingRow {
    pub event_id: String,
    pub seq: i64,
    pub kind: String,
    pub schema: i64,
    pub state: String,
    pub reason: Option<String>,
    pub last_seq: i64,
    pub flow_state: String,
    pub held: i64,
    pub problem: Option<&'static str>,
    pub arrival: i64,
    /// The stored body, for the apply (not a column).
    pub body: String,
}

/// Why a rule was refused before it ran: what is wrong, and the byte offset SQLite or the text check names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRefusal {
    pub message: String,
    pub offset: Option<usize>,
}

impl RuleRefusal {
    /// The message with its place in the rule's text, when known: `… (line 1, column 8)`.
    pub fn located(&self, sql: &str) -> String {
        match self.offset {
            Some(at) => {
                let (line, column) = lex::line_column(sql, at);
                format!("{} (line {line}, column {column})", self.message)
            }
            None => self.message.clone(),
        }
    }
}

/// An accepted rule: its text, its effect's placement, and what SQLite said it reads.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    sql: String,
    effect: RuleEffect,
    reads_arrival: bool,
}

impl Rule {
    /// Checks `sql` as RULE.md says (text first, then SQLite's own prepare under the authorizer) and keeps it
    /// prepared for this thread.
    // Out of line: a trace's reader runs at start-up, and its rule check must not join the first load.
    #[cold]
    #[inline(never)]
    pub fn new(sql: &str, effect: RuleEffect) -> Result<Arc<Rule>, RuleRefusal> {
        let refuse = |(message, offset): (String, Option<usize>)| RuleRefusal { message, offset };
        lex::check(sql).map_err(refuse)?;
        let reads_arrival = engine::prepare(sql).map_err(refuse)?;
        Ok(Arc::new(Rule {
            sql: sql.to_owned(),
            effect,
            reads_arrival,
        }))
    }

    pub fn sql(&self) -> &str {
        &self.sql
    }

    pub fn effect(&self) -> RuleEffect {
        self.effect
    }

    /// Whether the rule reads `arrival` (SQLite's authorizer said so as it prepared the rule).
    pub fn reads_arrival(&self) -> bool {
        self.reads_arrival
    }

    /// The same text with another effect.
    pub fn with_effect(&self, effect: RuleEffect) -> Arc<Rule> {
        Arc::new(Rule {
            sql: self.sql.clone(),
            effect,
            reads_arrival: self.reads_arrival,
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Rule", 2)?;
        st.serialize_field("rule", &self.sql)?;
        st.serialize_field("effect", &self.effect)?;
        st.end()
    }
}

/// Asks `rule` what to do with `rows` (one flow's `pending` and `blocked` inbox rows): the row it names and its
/// action, or `None` for no row. An answer the engine cannot carry out, or a rule stopped at run time, is an
/// `Err` whose message says what the rule returned.
pub fn answer(rule: &Rule, rows: &[WaitingRow]) -> Result<Option<(usize, Act)>, String> {
    engine::answer(&rule.sql, rows)
}

/// The block reason an answered `block` or `skip` writes: the row's problem, or `rule`.
pub fn block_reason(problem: Option<&str>) -> BlockReason {
    problem
        .and_then(BlockReason::from_name)
        .unwrap_or(BlockReason::Rule)
}

/// The strict consumer as a rule (RULE.md).
pub const STRICT: &str = "SELECT event_id,\n       CASE WHEN problem IS NULL THEN 'apply' ELSE 'block' END\nFROM waiting\nWHERE seq = last_seq + 1";
/// `greater_than` as a rule (on the checker's configurations, where support_v2 is off).
pub const GREATER_THAN: &str = "SELECT event_id,\n       CASE WHEN problem IN ('unsupported_schema', 'invalid_payload')\n            THEN 'block' ELSE 'apply' END\nFROM waiting\nWHERE state = 'pending' AND seq > last_seq\nORDER BY seq\nLIMIT 1";
/// `skip_blocked` as a rule.
pub const SKIP_BLOCKED: &str = "SELECT event_id,\n       CASE WHEN problem IS NULL THEN 'apply' ELSE 'skip' END\nFROM waiting\nWHERE seq = last_seq + 1";
/// The queue that follows arrival order: the article's first story, which no built-in has.
pub const ARRIVAL_ORDER: &str =
    "SELECT event_id, 'apply'\nFROM waiting\nWHERE state = 'pending'\nORDER BY arrival\nLIMIT 1";

/// A built-in consumer as a rule with its effect, where RULE.md gives one (`dedupe_only` has none: it writes
/// on receive, which no rule can).
pub fn builtin(ordering: Ordering) -> Option<(&'static str, RuleEffect)> {
    match ordering {
        Ordering::Strict => Some((STRICT, RuleEffect::Inside)),
        Ordering::GreaterThan => Some((GREATER_THAN, RuleEffect::Inside)),
        Ordering::SkipBlocked => Some((SKIP_BLOCKED, RuleEffect::Inside)),
        Ordering::EffectOutsideTx => Some((STRICT, RuleEffect::Outside)),
        Ordering::DedupeOnly | Ordering::Rule => None,
    }
}
