//! A checker configuration played move by move, as a break-it level is (issue 56): the moves the checker takes
//! from where the reader stands (its own actions and exits, never anything else), the referee's verdict after
//! each, taking moves back, and a hint searched from the reader's position, not from the start.

use super::actions::{Action, Move};
use super::config::Config;
use super::properties::Violation;
use super::runner::Runner;
use super::search::{Search, Verdict};
use super::state::State;
use crate::trace::Trace;

/// What a hint found from the reader's position.
#[derive(Clone, Debug, PartialEq)]
pub enum Hint {
    /// A shortest history from here breaks `violation`: `next` is its first move, `moves` its length.
    Break {
        violation: Violation,
        next: Move,
        moves: usize,
        /// The whole history from the start, the reader's moves and the hint's (the win's trace).
        trace: Trace,
    },
    /// Nothing within the bounds breaks a property from here: every state reachable was checked, over
    /// `transitions` moves (`experiments check`'s counts on the same bounds, from the start).
    Safe { states: u64, transitions: u64 },
}

/// A game in progress: the reader's moves so far, the state they lead to and the moves offered there.
pub struct Play {
    config: Config,
    runner: Runner,
    /// Each move made and the state it led to.
    made: Vec<(Move, State)>,
    start: State,
    /// The moves offered where the reader stands, with the state each leads to.
    offered: Vec<(Move, State)>,
    /// The property the position breaks, once a move broke one: the game is over.
    broken: Option<Violation>,
}

impl Play {
    pub fn new(config: Config) -> Result<Play, String> {
        config.validate()?;
        let mut runner = Runner::new(&config)?;
        let start = State::initial(&config);
        let offered = runner.expand(&start)?;
        Ok(Play {
            config,
            runner,
            made: Vec::new(),
            start,
            offered,
            broken: None,
        })
    }

    /// Where the reader stands.
    pub fn state(&self) -> &State {
        self.made.last().map_or(&self.start, |(_, s)| s)
    }

    /// The moves made so far.
    pub fn history(&self) -> Vec<Move> {
        self.made.iter().map(|(m, _)| *m).collect()
    }

    /// The moves offered here, in CHECKER.md's order (none once a property is broken).
    pub fn moves(&self) -> Vec<Move> {
        if self.broken.is_some() {
            return Vec::new();
        }
        self.offered.iter().map(|(m, _)| *m).collect()
    }

    /// The moves offered here that change nothing where the reader stands (an apply with nothing to apply): the
    /// page offers them saying so.
    pub fn idle(&self) -> Vec<Move> {
        let here = self.state();
        self.offered
            .iter()
            .filter(|(_, after)| after == here)
            .map(|(m, _)| *m)
            .collect()
    }

    /// The property the last move broke, if one did.
    pub fn broken(&self) -> Option<&Violation> {
        self.broken.as_ref()
    }

    /// Makes move `m`, one of [`Play::moves`]; the referee's verdict: the property it broke, if any.
    pub fn make(&mut self, m: Move) -> Result<Option<Violation>, String> {
        if self.broken.is_some() {
            return Err("the game is over: take a move back or start over".into());
        }
        let Some((_, after)) = self.offered.iter().find(|(o, _)| *o == m).cloned() else {
            return Err(format!(
                "`{}` is not a move here",
                super::describe(&m.step(&self.config))
            ));
        };
        let (violation, _) = self.runner.judge(&after)?;
        self.offered = match violation {
            Some(_) => Vec::new(),
            None => self.runner.expand(&after)?,
        };
        self.made.push((m, after));
        self.broken = violation.clone();
        Ok(violation)
    }

    /// Takes moves back to the first `n` (time travel; `0` starts over).
    pub fn back_to(&mut self, n: usize) -> Result<(), String> {
        self.made.truncate(n);
        self.broken = None;
        let here = self.state().clone();
        let (violation, _) = self.runner.judge(&here)?;
        self.offered = match &violation {
            Some(_) => Vec::new(),
            None => self.runner.expand(&here)?,
        };
        self.broken = violation;
        Ok(())
    }

    /// The reader's history as a trace: what the player replays, `set_synchronous` first for a power level.
    pub fn trace(&self) -> Trace {
        let mut steps = self.config.prelude();
        steps.extend(self.made.iter().map(|(m, _)| m.step(&self.config)));
        Trace::new(self.config.setup(), steps)
    }

    /// A hint from where the reader stands: the shortest history on from here that breaks a property, or that
    /// none does. Following each hint's `next` wins in the fewest moves possible from here.
    pub fn hint(&self) -> Result<Hint, String> {
        let mut search = self.hinter()?;
        search.finish()?;
        self.hint_of(&search)
    }

    /// The hint's search, for a caller that runs it a slice at a time ([`Search::run`]) off the reader's way;
    /// [`Play::hint_of`] reads the hint from it once it is done.
    pub fn hinter(&self) -> Result<Search, String> {
        Search::after(self.config.clone(), self.history())
    }

    /// The hint a finished [`Play::hinter`] search gives from where the reader stands.
    pub fn hint_of(&self, search: &Search) -> Result<Hint, String> {
        Ok(match search.verdict() {
            Some(Verdict::Violated(c)) => {
                let here = self.made.len();
                Hint::Break {
                    violation: c.violation.clone(),
                    next: *c
                        .moves
                        .get(here)
                        .ok_or("the position itself breaks a property")?,
                    moves: c.moves.len() - here,
                    trace: c.trace.clone(),
                }
            }
            Some(Verdict::Holds) => Hint::Safe {
                states: search.counts().states,
                transitions: search.counts().transitions,
            },
            None => return Err("the hint's search is not done".into()),
        })
    }
}

impl Move {
    /// The kind of move, the hint's second word: `advance`, `unsafe_dual_write`, `relay`, `resend`, `apply`,
    /// `exit` (any step with `crash_at`), `checkpoint` or `power_cut`.
    pub fn kind(&self) -> &'static str {
        if self.crash.is_some() {
            return "exit";
        }
        match self.action {
            Action::Advance(_) => "advance",
            Action::UnsafeDualWrite(_) => "unsafe_dual_write",
            Action::Relay(_) => "relay",
            Action::Resend(_) => "resend",
            Action::Apply(_) => "apply",
            Action::Checkpoint => "checkpoint",
            Action::PowerCut(_) => "power_cut",
        }
    }
}
