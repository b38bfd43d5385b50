//! The protocol's vocabulary as types: the ten boundaries, the consumers, and every result a step can have.
//! Each is a TRACE.md word only where it is written or read (`name()`, `Display`, `Serialize`); the code
//! compares variants.

use serde::Serialize;
use std::fmt;

words! {
    /// The ten commit boundaries of §8, in the order a three-step delivery crosses them.
    pub enum Boundary {
        ProducerAfterState = "producer.after_state",
        ProducerAfterOutbox = "producer.after_outbox",
        ProducerAfterCommit = "producer.after_commit",
        ReceiveAfterInsert = "receive.after_insert",
        ReceiveAfterCommit = "receive.after_commit",
        RelayAfterMark = "relay.after_mark",
        RelayAfterMarkCommit = "relay.after_mark_commit",
        ApplyAfterProjection = "apply.after_projection",
        ApplyAfterEffect = "apply.after_effect",
        ApplyAfterCommit = "apply.after_commit",
    }
}

impl Boundary {
    /// The boundary's number in the article's table (§8), 1 to 10: its place in [`Boundary::ALL`].
    pub fn number(self) -> usize {
        self as usize + 1
    }
}

words! {
    /// Which consumer runs: the protocol, or one of the article's wrong turns (CHECKER.md), each a real
    /// implementation on the same tables.
    #[derive(Default)]
    pub enum Ordering {
        /// The protocol: apply exactly `last_seq + 1`, block on what it cannot take.
        #[default]
        Strict = "strict",
        /// §5's wrong control: dedupe by id, overwrite in arrival order on receive.
        DedupeOnly = "dedupe_only",
        /// §5: "3 is greater than 0, so apply it" — the smallest pending seq above `last_seq`, no transition
        /// check.
        GreaterThan = "greater_than",
        /// §6: a blocked event goes to a dead-letter queue and the flow moves past it.
        SkipBlocked = "skip_blocked",
        /// §5: the effect is an outside call, written outside the apply transaction.
        EffectOutsideTx = "effect_outside_tx",
        /// The reader's own SQL rule (RULE.md), carried by the consumer's setup.
        Rule = "rule",
    }
}

words! {
    /// Why an apply stopped at an event it cannot take (§6). The event is never skipped.
    pub enum BlockReason {
        UnsupportedSchema = "unsupported_schema",
        InvalidPayload = "invalid_payload",
        InvalidTransition = "invalid_transition",
        /// A reader's rule answered `block` (or `skip`) for a row whose strict checks pass (RULE.md).
        Rule = "rule",
    }
}

words! {
    /// Producer results (PROTOCOL.md §4).
    pub enum AdvanceResult {
        Committed = "committed",
        Existing = "existing",
        Conflict = "conflict",
        Stale = "stale",
        InvalidTransition = "invalid_transition",
    }
}

words! {
    /// What the consumer's inbox answered a delivery (PROTOCOL.md §5).
    pub enum Receipt {
        Accepted = "accepted",
        Duplicate = "duplicate",
        IdConflict = "id_conflict",
        SequenceConflict = "sequence_conflict",
    }
}

/// Consumer receive results: the inbox's receipt, or the transport's refusal of a malformed event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReceiveResult {
    Receipt(Receipt),
    Rejected(String),
}

impl ReceiveResult {
    pub const ACCEPTED: ReceiveResult = ReceiveResult::Receipt(Receipt::Accepted);
    pub const DUPLICATE: ReceiveResult = ReceiveResult::Receipt(Receipt::Duplicate);
    pub const ID_CONFLICT: ReceiveResult = ReceiveResult::Receipt(Receipt::IdConflict);
    pub const SEQUENCE_CONFLICT: ReceiveResult = ReceiveResult::Receipt(Receipt::SequenceConflict);

    /// The step outcome this result reports.
    pub fn outcome(&self) -> Outcome {
        match self {
            ReceiveResult::Receipt(r) => Outcome::Received(*r),
            ReceiveResult::Rejected(_) => Outcome::Rejected,
        }
    }
}

/// One apply attempt at `last_seq + 1` (PROTOCOL.md §7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ApplyResult {
    Applied,
    Gap,
    Idle,
    Blocked(BlockReason),
    /// A reader's rule answered something the engine cannot carry out, or was stopped (RULE.md); nothing was
    /// written. The message is the step report's.
    RuleError,
}

/// Why `process_all` stopped working on a flow: the apply result that ended it, or the attempt limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowStop {
    Idle,
    Gap,
    Blocked(BlockReason),
    Limit,
    RuleError,
}

impl FlowStop {
    /// Every stop, each block reason included (for the i18n test and the docs).
    pub fn all() -> Vec<FlowStop> {
        let mut all = vec![
            FlowStop::Idle,
            FlowStop::Gap,
            FlowStop::Limit,
            FlowStop::RuleError,
        ];
        all.extend(BlockReason::ALL.iter().map(|r| FlowStop::Blocked(*r)));
        all
    }
}

/// A step's result: the word TRACE.md's result document writes in `result`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// `advance` and `unsafe_dual_write`.
    Advanced(AdvanceResult),
    /// `relay` and `receive`.
    Received(Receipt),
    /// The transport refused a malformed event, or the trace step could not run (`rejected`).
    Rejected,
    /// `apply`, and `relay` with nothing to send (`idle`).
    Apply(ApplyResult),
    /// `process_all` ran every flow to a stop (`done`) or hit its attempt limit (`limit`).
    ProcessAll { done: bool },
    /// A switch or a fault trigger took effect.
    Ok,
    /// The process exited at a boundary (or the unsafe dual write's own exit).
    Crashed,
    /// SQLite refused the statement; the transaction rolled back.
    SqlError,
    /// Another real process held the write lock past the busy timeout (the CLI's real processes only).
    Busy,
}

impl Outcome {
    pub const COMMITTED: Outcome = Outcome::Advanced(AdvanceResult::Committed);
    pub const ACCEPTED: Outcome = Outcome::Received(Receipt::Accepted);
    pub const APPLIED: Outcome = Outcome::Apply(ApplyResult::Applied);
    pub const GAP: Outcome = Outcome::Apply(ApplyResult::Gap);
    pub const IDLE: Outcome = Outcome::Apply(ApplyResult::Idle);

    /// Every outcome, each block reason included.
    pub fn all() -> Vec<Outcome> {
        let mut all: Vec<Outcome> = AdvanceResult::ALL
            .iter()
            .map(|a| Outcome::Advanced(*a))
            .collect();
        all.extend(Receipt::ALL.iter().map(|r| Outcome::Received(*r)));
        all.push(Outcome::Rejected);
        all.extend([
            Outcome::APPLIED,
            Outcome::GAP,
            Outcome::IDLE,
            Outcome::Apply(ApplyResult::RuleError),
        ]);
        all.extend(
            BlockReason::ALL
                .iter()
                .map(|r| Outcome::Apply(ApplyResult::Blocked(*r))),
        );
        all.extend([
            Outcome::ProcessAll { done: true },
            Outcome::ProcessAll { done: false },
            Outcome::Ok,
            Outcome::Crashed,
            Outcome::SqlError,
            Outcome::Busy,
        ]);
        all
    }

    /// The outcome a result word names (`blocked:invalid_payload` included), read back at an edge: a real
    /// worker's answer on its pipe.
    pub fn from_name(word: &str) -> Option<Outcome> {
        Outcome::all().into_iter().find(|o| o.to_string() == word)
    }

    /// The word without a block reason: `blocked` for every blocked apply (the log's colour class).
    pub fn head(self) -> &'static str {
        match self {
            Outcome::Advanced(a) => a.name(),
            Outcome::Received(r) => r.name(),
            Outcome::Rejected => "rejected",
            Outcome::Apply(a) => a.head(),
            Outcome::ProcessAll { done: true } => "done",
            Outcome::ProcessAll { done: false } => "limit",
            Outcome::Ok => "ok",
            Outcome::Crashed => "crashed",
            Outcome::SqlError => "sql_error",
            Outcome::Busy => "busy",
        }
    }

    /// The block reason, for a blocked apply.
    pub fn blocked(self) -> Option<BlockReason> {
        match self {
            Outcome::Apply(ApplyResult::Blocked(r)) => Some(r),
            _ => None,
        }
    }
}

impl ApplyResult {
    /// `applied`, `gap`, `idle` or `blocked`.
    pub fn head(self) -> &'static str {
        match self {
            ApplyResult::Applied => "applied",
            ApplyResult::Gap => "gap",
            ApplyResult::Idle => "idle",
            ApplyResult::Blocked(_) => "blocked",
            ApplyResult::RuleError => "rule_error",
        }
    }
}

impl FlowStop {
    pub fn head(self) -> &'static str {
        match self {
            FlowStop::Idle => "idle",
            FlowStop::Gap => "gap",
            FlowStop::Blocked(_) => "blocked",
            FlowStop::Limit => "limit",
            FlowStop::RuleError => "rule_error",
        }
    }

    fn blocked(self) -> Option<BlockReason> {
        match self {
            FlowStop::Blocked(r) => Some(r),
            _ => None,
        }
    }
}

/// `head`, then `:reason` when blocked: `blocked:unsupported_schema`.
fn write_word(f: &mut fmt::Formatter<'_>, head: &str, reason: Option<BlockReason>) -> fmt::Result {
    f.write_str(head)?;
    match reason {
        Some(r) => write!(f, ":{}", r.name()),
        None => Ok(()),
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_word(f, self.head(), self.blocked())
    }
}

impl fmt::Display for ApplyResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_word(f, self.head(), Outcome::Apply(*self).blocked())
    }
}

impl fmt::Display for FlowStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_word(f, self.head(), self.blocked())
    }
}

impl Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for FlowStop {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl From<AdvanceResult> for Outcome {
    fn from(a: AdvanceResult) -> Outcome {
        Outcome::Advanced(a)
    }
}

impl From<ApplyResult> for Outcome {
    fn from(a: ApplyResult) -> Outcome {
        Outcome::Apply(a)
    }
}

impl From<ApplyResult> for FlowStop {
    fn from(a: ApplyResult) -> FlowStop {
        match a {
            ApplyResult::Gap => FlowStop::Gap,
            ApplyResult::Blocked(r) => FlowStop::Blocked(r),
            ApplyResult::RuleError => FlowStop::RuleError,
            ApplyResult::Idle | ApplyResult::Applied => FlowStop::Idle,
        }
    }
}

words! {
    /// What the result document says of a `crash_at` the step never crossed.
    pub enum CrashMark {
        NotReached = "not_reached",
    }
}
