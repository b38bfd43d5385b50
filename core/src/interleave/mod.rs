//! `experiments interleave`: statements of concurrent sessions interleaved on real connections, in the style of
//! PostgreSQL's isolation tester (`src/test/isolation/`). This module reads its spec format (the subset below),
//! each block read once as SQL or the protocol's operations ([`Block`]), and lists the permutations; `engine.rs`
//! runs them, the same loop on either store (`pg.rs` on a PostgreSQL server, its output what PostgreSQL 15's own
//! `isolationtester` prints for the same spec; `lite.rs` on SQLite), and `print.rs` writes result sets as the
//! tester does (libpq's `PQprint`).
//!
//! The subset: `setup { SQL }` (any number), `teardown { SQL }`, then sessions (`session NAME`, an optional
//! `setup { SQL }`, one or more `step NAME { SQL }`, an optional `teardown { SQL }`), then `permutation STEP …`
//! lines (every interleaving of the sessions' steps when there are none). Names are identifiers or `"quoted"`;
//! `#` starts a comment. A block whose text starts with `@` calls the protocol's own operations (`ops.rs`). Anything else — a step marker such as `s1(s2)`, an unknown word — is refused with the line
//! it is on.

pub mod answer;
pub mod check;
mod engine;
pub mod lite;
mod lite_sql;
pub mod ops;
mod parse;
mod permutations;
#[cfg(feature = "postgres")]
pub mod pg;
#[cfg(feature = "postgres")]
mod pg_session;
pub mod print;
pub mod run;
pub mod table;

pub use parse::parse;

/// The isolation level every session's transactions run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    ReadCommitted,
    RepeatableRead,
    Serializable,
}

impl Isolation {
    pub const ALL: [Isolation; 3] = [
        Isolation::ReadCommitted,
        Isolation::RepeatableRead,
        Isolation::Serializable,
    ];

    /// The flag's word: `read-committed`, `repeatable-read`, `serializable`.
    pub fn name(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "read-committed",
            Isolation::RepeatableRead => "repeatable-read",
            Isolation::Serializable => "serializable",
        }
    }

    pub fn from_name(name: &str) -> Option<Isolation> {
        Isolation::ALL.into_iter().find(|i| i.name() == name)
    }

    /// As PostgreSQL's `SET … ISOLATION LEVEL` spells it.
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadCommitted => "READ COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }
}

/// A setup's, teardown's or step's block, read once as the spec is parsed: SQL for the store, or the protocol's
/// operations (`ops.rs`), so that no runner has to tell them apart from the text again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    Sql(String),
    Ops { text: String, ops: Vec<ops::Op> },
}

impl Block {
    /// The block's text as the tester prints it: spaces and tabs trimmed at both ends, line breaks kept.
    pub fn text(&self) -> &str {
        match self {
            Block::Sql(text) | Block::Ops { text, .. } => text,
        }
    }
}

/// A block reads as its text, which is what a reader of the spec wrote and what the output prints.
impl std::ops::Deref for Block {
    type Target = str;

    fn deref(&self) -> &str {
        self.text()
    }
}

impl PartialEq<&str> for Block {
    fn eq(&self, other: &&str) -> bool {
        self.text() == *other
    }
}

/// A parsed spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub setup: Vec<Block>,
    pub teardown: Option<Block>,
    pub sessions: Vec<Session>,
    /// Each a list of step names; empty: every interleaving ([`Spec::permutations`]).
    pub permutations: Vec<Vec<String>>,
    /// Each permutation's steps' markers (`s1(s2)`, `s1(*)`, `s1(s2 notices 1)`), in the same shape; a step
    /// without any has an empty list.
    pub markers: Vec<Vec<Vec<Marker>>>,
    /// What the spec's own outbox committed and its relay delivered, when it declares them: every permutation's
    /// end state is then checked for loss, duplicates and order ([`check::outbox`]).
    pub outbox: Option<Outbox>,
}

/// A spec's declaration of its outbox (`committed { … }` and `delivered { … }`, before its sessions): two
/// queries over its own tables, each answering `(stream, position)` rows, the second in delivery order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outbox {
    pub committed: String,
    pub delivered: String,
}

/// A condition on a permutation's step, as the tester's: the step is reported `<waiting ...>` and not as
/// completed until it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Marker {
    /// `*`: reported waiting as soon as it is sent, whatever happens after.
    Now,
    /// `other`: not reported complete while the step `other` is still running.
    Step(String),
    /// `other notices N`: not before `other`'s session has sent N notices since this step was sent.
    Notices(String, usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    pub name: String,
    pub setup: Option<Block>,
    pub steps: Vec<Step>,
    pub teardown: Option<Block>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub name: String,
    pub sql: Block,
}

/// Where a spec is refused: its line (1-based) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for SpecError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
