//! What a block answers and how a run ends, on either store: the types the driver (`engine.rs`), the stores and
//! the protocol's operations (`ops.rs`) all speak, in a leaf of their own so that none of them imports another
//! for them.

use super::print::{result_set, ResultSet};
use serde::Serialize;

/// What a step's statements answered: their result sets, then the error that stopped them, if any
/// (`ERROR:  message`, as the tester prints it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Answer {
    pub sets: Vec<ResultSet>,
    pub error: Option<String>,
    /// The notifications that came with it (`LISTEN`/`NOTIFY`): the sender's process id, the channel and the
    /// payload, as the server sent them.
    #[serde(skip)]
    pub notifies: Vec<(i32, String, String)>,
    /// The same as the tester prints them (`s1: NOTIFY "c1" with payload "" from s2`), once the store has named
    /// the sessions.
    #[serde(skip)]
    pub notified: Vec<String>,
}

impl Answer {
    /// As the tester prints it.
    pub fn printed(&self) -> String {
        let mut out: String = self.sets.iter().map(result_set).collect();
        if let Some(e) = &self.error {
            out.push_str(e);
            out.push('\n');
        }
        for line in &self.notified {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// Why a run stopped before its end: the message names the step or the block (exit 2 in the CLI).
#[derive(Debug)]
pub struct Stopped(pub String);

/// How a step sent to its session stands: answered, or waiting on another session (PostgreSQL's lock, SQLite's
/// one writer).
pub enum Now {
    Answered(Answer),
    Waiting,
}
