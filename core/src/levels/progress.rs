//! A reader's progress through the levels, as the page keeps it in the browser and writes it to a file: which
//! levels are solved, the best move count and the last bet. A file to import is untrusted: [`Progress::parse`]
//! refuses a bad one whole and names what is wrong.

use crate::checker::Property;
use crate::json::{json_type, short_str, Fields};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

pub const PROGRESS_FORMAT: &str = "outbox-playground-progress/1";

/// A reader's bet before playing a level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bet {
    Hold,
    /// It breaks, the property left open.
    Breaks,
    Break(Property),
    Skip,
}

impl Bet {
    /// `hold`, `break`, `break:<property>` or `skip`.
    pub fn name(&self) -> String {
        match self {
            Bet::Hold => "hold".into(),
            Bet::Breaks => "break".into(),
            Bet::Break(p) => format!("break:{}", p.name()),
            Bet::Skip => "skip".into(),
        }
    }

    pub fn from_name(text: &str) -> Option<Bet> {
        match text {
            "hold" => Some(Bet::Hold),
            "break" => Some(Bet::Breaks),
            "skip" => Some(Bet::Skip),
            _ => Property::from_name(text.strip_prefix("break:")?).map(Bet::Break),
        }
    }

    /// Whether the bet is right of a level that breaks `breaks` (or holds, when `None`); a skipped bet is
    /// neither.
    pub fn right(&self, breaks: Option<Property>) -> Option<bool> {
        match (self, breaks) {
            (Bet::Skip, _) => None,
            (Bet::Hold, b) => Some(b.is_none()),
            (Bet::Breaks, b) => Some(b.is_some()),
            (Bet::Break(p), b) => Some(b == Some(*p)),
        }
    }
}

/// One level's record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub solved: bool,
    /// The fewest moves the reader broke it in.
    pub best: Option<u32>,
    pub bet: Option<Bet>,
    /// The reader has seen whether the level breaks (a win, or the answer of *I give up*): only then is the bet
    /// counted, so that the count never gives an answer away.
    pub revealed: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// By level id.
    pub levels: BTreeMap<String, Record>,
}

impl Progress {
    /// Reads a progress file; every refusal names what is wrong.
    pub fn parse(text: &str) -> Result<Progress, String> {
        if text.len() > 256 * 1024 {
            return Err(format!(
                "{} bytes is too large for a progress file",
                text.len()
            ));
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        let mut f = Fields::new(value)?;
        if let Some(other) = f.unknown(&["format", "levels"]) {
            return Err(format!("unknown field `{}`", short_str(other)));
        }
        match f.take("format") {
            Some(Value::String(s)) if s == PROGRESS_FORMAT => {}
            _ => return Err(format!("field `format` must be \"{PROGRESS_FORMAT}\"")),
        }
        let mut progress = Progress::default();
        let levels = if f.has("levels") {
            f.object("levels")?
        } else {
            Map::new()
        };
        for (id, raw) in levels {
            let record = record(raw).map_err(|e| format!("level `{}`: {e}", short_str(&id)))?;
            progress.levels.insert(id, record);
        }
        Ok(progress)
    }

    pub fn to_json(&self) -> String {
        let levels: Map<String, Value> = self
            .levels
            .iter()
            .map(|(id, r)| {
                let mut o = Map::new();
                o.insert("solved".into(), r.solved.into());
                if let Some(best) = r.best {
                    o.insert("best".into(), best.into());
                }
                if let Some(bet) = r.bet {
                    o.insert("bet".into(), bet.name().into());
                }
                if r.revealed {
                    o.insert("revealed".into(), true.into());
                }
                (id.clone(), Value::Object(o))
            })
            .collect();
        json!({ "format": PROGRESS_FORMAT, "levels": levels }).to_string()
    }

    /// Adds what `other` holds: a level solved in either is solved, the best count is the fewer, and
    /// `other`'s bet replaces this one's.
    pub fn merge(&mut self, other: Progress) {
        for (id, theirs) in other.levels {
            let mine = self.levels.entry(id).or_default();
            mine.solved |= theirs.solved;
            mine.best = match (mine.best, theirs.best) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            mine.bet = theirs.bet.or(mine.bet);
            mine.revealed |= theirs.revealed;
        }
    }

    /// The bets placed (not skipped) on the levels `truth` names, by id with what each breaks (`None`: it
    /// holds), whose answer the reader has seen, and how many of them were right: `(right, decided)`.
    pub fn bets(&self, truth: &[(String, Option<Property>)]) -> (usize, usize) {
        truth
            .iter()
            .filter_map(|(id, breaks)| {
                let r = self.levels.get(id).filter(|r| r.solved || r.revealed)?;
                r.bet?.right(*breaks)
            })
            .fold((0, 0), |(right, placed), r| {
                (right + r as usize, placed + 1)
            })
    }

    pub fn record_bet(&mut self, id: &str, bet: Bet) {
        self.levels.entry(id.to_owned()).or_default().bet = Some(bet);
    }

    /// The reader has seen whether the level breaks.
    pub fn record_revealed(&mut self, id: &str) {
        self.levels.entry(id.to_owned()).or_default().revealed = true;
    }

    /// Solved without a count of moves: the unbreakable level, its proof confirming the reader's bet.
    pub fn record_solved(&mut self, id: &str) {
        self.levels.entry(id.to_owned()).or_default().solved = true;
    }

    /// A win in `moves` moves.
    pub fn record_win(&mut self, id: &str, moves: u32) {
        let r = self.levels.entry(id.to_owned()).or_default();
        r.solved = true;
        r.best = Some(r.best.map_or(moves, |b| b.min(moves)));
    }
}

fn record(raw: Value) -> Result<Record, String> {
    let mut f = Fields::new(raw)?;
    if let Some(other) = f.unknown(&["solved", "best", "bet", "revealed"]) {
        return Err(format!("unknown field `{}`", short_str(other)));
    }
    let solved = f.has("solved") && f.bool("solved")?;
    let revealed = f.has("revealed") && f.bool("revealed")?;
    let best = match f.take("best") {
        None => None,
        Some(Value::Number(n)) => Some(
            n.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("field `best` must be a count of moves, got {n}"))?,
        ),
        Some(other) => {
            return Err(format!(
                "field `best` must be a number, got {}",
                json_type(&other)
            ))
        }
    };
    let bet = match f.take("bet") {
        None => None,
        Some(Value::String(s)) => Some(Bet::from_name(&s).ok_or_else(|| {
            format!(
                "field `bet` must be `hold`, `break`, `break:<property>` or `skip`, got \"{}\"",
                short_str(&s)
            )
        })?),
        Some(other) => {
            return Err(format!(
                "field `bet` must be text, got {}",
                json_type(&other)
            ))
        }
    };
    Ok(Record {
        solved,
        best,
        bet,
        revealed,
    })
}
