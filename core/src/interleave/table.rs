//! `interleave --all`: every hazard spec on SQLite and at each of PostgreSQL's isolation levels, as one table of
//! verdicts. A cell breaks with the first permutation whose end state breaks a property, holds when every end
//! state checked holds, and is unchecked when none was. The document (`--json`, `--record FILE`) keeps, for each
//! cell, one permutation's run to draw ([`cell`]).

use super::run::{Line, Permutation};
use serde::Serialize;

words! {
    /// A cell's verdict.
    pub enum Verdict {
        Holds = "holds",
        Breaks = "breaks",
        /// No permutation's end state was checked: the spec's tables are not the protocol's, or no order ran
        /// to its end on this store.
        Unchecked = "unchecked",
    }
}

/// Where a spec ran: SQLite, or PostgreSQL at a level (a column of the table, named as the flags name it).
pub const COLUMNS: [&str; 4] = [
    "sqlite",
    "read-committed",
    "repeatable-read",
    "serializable",
];

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cell {
    pub column: String,
    pub verdict: Verdict,
    /// How many permutations ran, and how many of those could not run in their order on this store.
    pub permutations: usize,
    pub cannot: usize,
    /// The permutation drawn: its number (1-based, in the spec's order) and its run.
    pub shown: usize,
    pub run: Permutation,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    /// The spec's file name without `.spec`, dots as dashes: `late-commit-wrong`.
    pub hazard: String,
    /// The spec's first comment line.
    pub title: String,
    pub sessions: Vec<String>,
    pub cells: Vec<Cell>,
}

/// The whole table, with what it ran on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Table {
    pub postgresql: String,
    pub sqlite: String,
    pub rows: Vec<Row>,
}

/// A cell from a spec's permutations on one store or level. The permutation drawn is the first that breaks,
/// else, of those whose end state was checked, the one in which most steps waited (the last of equals): a
/// holding cell shows the interleaving that tested it most, not one that ran its sessions one after another.
pub fn cell(column: &str, runs: Vec<Permutation>) -> Option<Cell> {
    let permutations = runs.len();
    let cannot = runs.iter().filter(|p| p.stopped()).count();
    let breaking = runs.iter().position(Permutation::breaks);
    let waits = |p: &Permutation| {
        p.lines
            .iter()
            .filter(|l| matches!(l, Line::Completed { .. }))
            .count()
    };
    let checked = runs
        .iter()
        .enumerate()
        .filter(|(_, p)| p.check.is_some() || p.outbox.is_some())
        .max_by_key(|(i, p)| (waits(p), *i))
        .map(|(i, _)| i);
    let verdict = match (breaking, checked) {
        (Some(_), _) => Verdict::Breaks,
        (None, Some(_)) => Verdict::Holds,
        (None, None) => Verdict::Unchecked,
    };
    let shown = breaking.or(checked).unwrap_or(permutations.checked_sub(1)?);
    Some(Cell {
        column: column.to_owned(),
        verdict,
        permutations,
        cannot,
        shown: shown + 1,
        run: runs.into_iter().nth(shown)?,
    })
}

/// The hazard's name for a spec file: `late-commit.wrong.spec` → `late-commit-wrong`.
pub fn hazard_name(file: &std::path::Path) -> String {
    let stem = file
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    stem.trim_end_matches(".spec").replace('.', "-")
}

/// A spec's title: its first comment line, without the `#`.
pub fn title(text: &str) -> String {
    text.lines()
        .find_map(|l| l.trim().strip_prefix('#'))
        .map_or_else(String::new, |t| t.trim().to_owned())
}

impl Table {
    /// The table as text: a line a hazard, a column a store or level, then what each broken cell broke on.
    pub fn text(&self) -> String {
        let width = self
            .rows
            .iter()
            .map(|r| r.hazard.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let mut out = format!("{:width$}", "hazard");
        for c in COLUMNS {
            out.push_str(&format!("  {c:<16}"));
        }
        out = out.trim_end().to_owned();
        out.push('\n');
        for row in &self.rows {
            let mut line = format!("{:width$}", row.hazard);
            for cell in &row.cells {
                let said = match cell.verdict {
                    Verdict::Breaks => format!("breaks (#{})", cell.shown),
                    other => other.to_string(),
                };
                line.push_str(&format!("  {said:<16}"));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        for row in &self.rows {
            for cell in row.cells.iter().filter(|c| c.verdict == Verdict::Breaks) {
                // What broke: the protocol's properties, or the spec's own outbox's.
                let check = match (&cell.run.check, &cell.run.outbox) {
                    (Some(c), _) if !c.holds() => c.to_string(),
                    (_, Some(o)) => o.to_string(),
                    (Some(c), None) => c.to_string(),
                    (None, None) => String::new(),
                };
                let check = check.trim_start_matches("check: ");
                out.push_str(&format!(
                    "\n{} on {}: permutation #{} ({}): {check}",
                    row.hazard,
                    cell.column,
                    cell.shown,
                    cell.run.steps.join(" ")
                ));
            }
        }
        out.push_str(&format!(
            "\n\nPostgreSQL {}, SQLite {}\n",
            self.postgresql, self.sqlite
        ));
        out
    }
}
