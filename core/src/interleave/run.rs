//! What a run of a spec says, on either store: each permutation's lines as the isolation tester prints them, kept
//! too (the table of `--all` and the page's recording are made from them), and each permutation's end state
//! checked when the spec's tables are the protocol's.

use super::answer::Answer;
use super::check::{Check, OutboxCheck};
use super::{Block, Step};
use serde::Serialize;
use std::io::Write;

/// One line of a permutation's run (with the answer printed under it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "line")]
pub enum Line {
    /// A step sent to its session: its answer, or `None` while it waits on another session.
    Step {
        session: String,
        step: String,
        sql: String,
        answer: Option<String>,
    },
    /// A step that waited, answered.
    Completed {
        session: String,
        step: String,
        answer: String,
    },
    /// A step this store cannot run in this order (SQLite: its session waits for the one writer, which the
    /// permutation releases only later); the permutation stops there.
    Cannot {
        session: String,
        step: String,
        why: String,
    },
}

/// One permutation's run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Permutation {
    pub steps: Vec<String>,
    pub lines: Vec<Line>,
    /// The end state's check: none when the spec's tables are not the protocol's, or the permutation stopped.
    pub check: Option<Check>,
    /// The spec's own outbox checked (its `committed` and `delivered`): none when it declares none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outbox: Option<OutboxCheck>,
}

impl Permutation {
    pub fn breaks(&self) -> bool {
        self.check.as_ref().is_some_and(|c| !c.holds())
            || self.outbox.as_ref().is_some_and(|c| !c.holds())
    }

    pub fn stopped(&self) -> bool {
        self.lines.iter().any(|l| matches!(l, Line::Cannot { .. }))
    }
}

/// Prints a run as it goes (a step that waits shows at once) and keeps it.
pub struct Transcript<'o> {
    out: &'o mut dyn Write,
    pub permutations: Vec<Permutation>,
}

impl<'o> Transcript<'o> {
    pub fn new(out: &'o mut dyn Write) -> Transcript<'o> {
        Transcript {
            out,
            permutations: Vec::new(),
        }
    }

    fn say(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    pub fn parsed(&mut self, sessions: usize) {
        self.say(&format!("Parsed test spec with {sessions} sessions\n"));
    }

    pub fn begin(&mut self, steps: &[String]) {
        self.say(&format!("\nstarting permutation: {}\n", steps.join(" ")));
        self.permutations.push(Permutation {
            steps: steps.to_vec(),
            lines: Vec::new(),
            check: None,
            outbox: None,
        });
    }

    fn push(&mut self, line: Line) {
        if let Some(p) = self.permutations.last_mut() {
            p.lines.push(line);
        }
    }

    /// A setup's or teardown's output (printed, not kept: the same for every permutation). One of the
    /// protocol's operations says nothing when it succeeds: it would repeat, a line each, before every permutation.
    pub fn block(&mut self, block: &Block, answer: &Answer) {
        if !(matches!(block, Block::Ops { .. }) && answer.error.is_none()) {
            self.say(&answer.printed());
        }
    }

    pub fn answered(&mut self, session: &str, step: &Step, answer: &Answer) {
        let printed = answer.printed();
        self.say(&format!(
            "step {}: {}\n{printed}",
            step.name,
            step.sql.text()
        ));
        self.push(Line::Step {
            session: session.to_owned(),
            step: step.name.clone(),
            sql: step.sql.text().to_owned(),
            answer: Some(printed),
        });
    }

    pub fn waiting(&mut self, session: &str, step: &Step) {
        self.say(&format!(
            "step {}: {} <waiting ...>\n",
            step.name,
            step.sql.text()
        ));
        self.push(Line::Step {
            session: session.to_owned(),
            step: step.name.clone(),
            sql: step.sql.text().to_owned(),
            answer: None,
        });
    }

    pub fn completed(&mut self, session: &str, step: &Step, answer: &Answer) {
        let printed = answer.printed();
        self.say(&format!("step {}: <... completed>\n{printed}", step.name));
        self.push(Line::Completed {
            session: session.to_owned(),
            step: step.name.clone(),
            answer: printed,
        });
    }

    pub fn cannot(&mut self, session: &str, step: &Step, why: &str) {
        self.say(&format!("step {}: cannot run: {why}\n", step.name));
        self.push(Line::Cannot {
            session: session.to_owned(),
            step: step.name.clone(),
            why: why.to_owned(),
        });
    }

    /// What a session's server said besides its answers (a warning, a notice), printed, not kept.
    pub fn notice(&mut self, session: &str, text: &str) {
        self.say(&format!("{session}: {text}"));
    }

    pub fn checked(&mut self, check: Check) {
        self.say(&format!("{check}\n"));
        if let Some(p) = self.permutations.last_mut() {
            p.check = Some(check);
        }
    }

    pub fn checked_outbox(&mut self, check: OutboxCheck) {
        self.say(&format!("{check}\n"));
        if let Some(p) = self.permutations.last_mut() {
            p.outbox = Some(check);
        }
    }
}
