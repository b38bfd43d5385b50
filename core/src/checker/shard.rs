//! One search shared by workers that share no memory (the page's Web Workers): each owns the states whose
//! fingerprint falls to it, and a level is exchanged by message. A worker expands the states it owns and sends
//! each successor to its owner ([`Shard::expand`]); an owner takes what every worker sent ([`Shard::take`]) and
//! keeps each new state once ([`Shard::merge`]). Each state carries its history: the positions of its moves in
//! the lists of [`super::actions`], whose order (shortest first, then lexicographic) is the order in which one
//! sequential search first reaches states. An owner keeps the first history, so the counts and the
//! counterexample are exactly those of [`super::Search`] on one thread, however many workers there are.

use super::actions::Move;
use super::config::Config;
use super::properties::Violation;
use super::runner::Runner;
use super::search::{Counterexample, Counts, KeyHasher, Verdict, Visited};
use super::state::State;
use std::collections::HashMap;
use std::hash::Hasher;

/// A state's history: for each move, its position in its parent's list and its code ([`Move::code`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct History {
    /// Positions first: histories compare as one search reaches them.
    places: Vec<u8>,
    moves: Vec<[u8; 2]>,
}

impl History {
    fn then(&self, place: usize, m: Move) -> Result<History, String> {
        let mut h = self.clone();
        // A place past 255 would tie with another and break "the first history wins".
        h.places
            .push(u8::try_from(place).map_err(|_| "a state has more than 256 moves".to_owned())?);
        h.moves.push(m.code());
        Ok(h)
    }

    fn moves(&self) -> Result<Vec<Move>, String> {
        self.moves
            .iter()
            .map(|c| Move::from_code(*c).ok_or_else(|| "a history names no move".to_owned()))
            .collect()
    }
}

/// What one worker found at one level.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LevelReport {
    /// Transitions run expanding the previous level's states.
    pub transitions: u64,
    /// New states this worker owns, and how many of them are quiescent.
    pub states: u64,
    pub quiescent: u64,
    /// The first state (by history) that breaks a property: its violation, history and state.
    pub broken: Option<Broken>,
}

impl LevelReport {
    /// The report as bytes, for the other workers (each adds up every report itself).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for n in [self.transitions, self.states, self.quiescent] {
            out.extend(n.to_le_bytes());
        }
        if let Some(b) = &self.broken {
            let name = b.violation.property.name().as_bytes();
            out.push(name.len() as u8);
            out.extend(name);
            let message = b.violation.message.as_bytes();
            out.extend((message.len() as u32).to_le_bytes());
            out.extend(message);
            let key = b.state.key();
            out.push(key.len() as u8);
            out.extend(key.iter());
            out.push(b.history.places.len() as u8);
            out.extend(&b.history.places);
            out.extend(b.history.moves.iter().flatten());
        }
        out
    }

    /// The report [`LevelReport::to_bytes`] wrote.
    pub fn from_bytes(config: &Config, bytes: &[u8]) -> Result<LevelReport, String> {
        let mut r = Reader {
            rest: bytes,
            what: "a worker's report",
        };
        let mut report = LevelReport {
            transitions: r.number()?,
            states: r.number()?,
            quiescent: r.number()?,
            broken: None,
        };
        if !r.rest.is_empty() {
            let n = r.byte()?;
            let name = String::from_utf8_lossy(r.take(n)?).into_owned();
            let property = super::Property::from_name(&name)
                .ok_or_else(|| format!("a worker named no known property `{name}`"))?;
            let n = u32::from_le_bytes(r.array()?) as usize;
            let message = String::from_utf8_lossy(r.take(n)?).into_owned();
            let n = r.byte()?;
            let state = State::from_key(config, r.take(n)?)?;
            report.broken = Some(Broken {
                violation: Violation { property, message },
                history: r.history()?,
                state,
            });
        }
        if !r.rest.is_empty() {
            return Err("a worker's report has bytes after its end".into());
        }
        Ok(report)
    }
}

/// Reads what a worker wrote, naming it when it ends early.
struct Reader<'a> {
    rest: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.rest.len() < n {
            return Err(format!("{} ends early", self.what));
        }
        let (part, rest) = self.rest.split_at(n);
        self.rest = rest;
        Ok(part)
    }

    fn byte(&mut self) -> Result<usize, String> {
        Ok(usize::from(self.take(1)?[0]))
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn number(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// A history: its depth, the places, then the moves' codes.
    fn history(&mut self) -> Result<History, String> {
        let depth = self.byte()?;
        let places = self.take(depth)?.to_vec();
        let moves = self
            .take(2 * depth)?
            .chunks(2)
            .map(|c| [c[0], c[1]])
            .collect();
        Ok(History { places, moves })
    }
}

/// A state that breaks a property, with what it takes to rebuild its counterexample.
#[derive(Clone, Debug, PartialEq)]
pub struct Broken {
    pub violation: Violation,
    history: History,
    state: State,
}

impl Broken {
    /// The counterexample: the history replayed on fresh databases.
    pub fn counterexample(&self, config: &Config) -> Result<Counterexample, String> {
        Counterexample::replay(
            config,
            self.history.moves()?,
            self.violation.clone(),
            &self.state,
        )
    }
}

/// One worker's part of a search.
pub struct Shard {
    config: Config,
    index: usize,
    shards: usize,
    runner: Runner,
    symmetries: Vec<[u8; 3]>,
    /// The fingerprints of the states this worker owns.
    seen: Visited,
    /// This worker's states of the current level, with their histories, in the order one search reaches them.
    frontier: Vec<(State, History)>,
    /// What arrived for the next level, by fingerprint: the state with the first history.
    arriving: HashMap<Box<[u8]>, (State, History)>,
    transitions: u64,
}

/// Which of `shards` workers owns a fingerprint.
fn owner(key: &[u8], shards: usize) -> usize {
    let mut h = KeyHasher::default();
    h.write(key);
    // The high bits: the low ones also pick a lock in the threads' set of fingerprints.
    (h.finish() >> 32) as usize % shards
}

impl Shard {
    /// Worker `index` of `shards`; `symmetry` as [`super::Search::with_symmetry`]. The initial state's owner
    /// judges it: the report is level 0's.
    pub fn new(
        config: Config,
        index: usize,
        shards: usize,
        symmetry: bool,
    ) -> Result<(Shard, LevelReport), String> {
        config.validate()?;
        if index >= shards {
            return Err(format!("no worker {index} of {shards}"));
        }
        let renamings = config.symmetries();
        let symmetries = if symmetry && renamings.len() > 1 {
            renamings
        } else {
            Vec::new()
        };
        let mut shard = Shard {
            runner: Runner::new(&config)?,
            config,
            index,
            shards,
            symmetries,
            seen: Visited::default(),
            frontier: Vec::new(),
            arriving: HashMap::new(),
            transitions: 0,
        };
        let root = State::initial(&shard.config);
        let key = root.fingerprint(&shard.symmetries);
        let mut report = LevelReport::default();
        if owner(&key, shards) == index {
            shard.arriving.insert(key, (root, History::default()));
            report = shard.merge()?;
        }
        Ok((shard, report))
    }

    /// How many states this worker owns (has kept), all levels so far.
    pub fn owned(&self) -> usize {
        self.seen.len()
    }

    /// Expands this worker's states of the current level: each successor, as a record of the bundle for its
    /// owner (`bundles[owner]`). `progress` hears the transitions run so far.
    pub fn expand(&mut self, mut progress: impl FnMut(u64)) -> Result<Vec<Vec<u8>>, String> {
        let mut bundles = vec![Vec::new(); self.shards];
        for (state, history) in std::mem::take(&mut self.frontier) {
            for (place, (m, after)) in self.runner.expand(&state)?.into_iter().enumerate() {
                self.transitions += 1;
                let key = after.fingerprint(&self.symmetries);
                let out = &mut bundles[owner(&key, self.shards)];
                let history = history.then(place, m)?;
                let state_key = after.key();
                out.push(state_key.len() as u8);
                out.extend_from_slice(&state_key);
                out.push(history.places.len() as u8);
                out.extend_from_slice(&history.places);
                out.extend(history.moves.iter().flatten());
            }
            progress(self.transitions);
        }
        Ok(bundles)
    }

    /// Takes a bundle a worker sent this one for the next level.
    pub fn take(&mut self, bundle: &[u8]) -> Result<(), String> {
        let mut r = Reader {
            rest: bundle,
            what: "a bundle of states",
        };
        while !r.rest.is_empty() {
            let n = r.byte()?;
            let state = State::from_key(&self.config, r.take(n)?)?;
            let history = r.history()?;
            let key = state.fingerprint(&self.symmetries);
            if owner(&key, self.shards) != self.index {
                return Err("a state was sent to a worker that does not own it".into());
            }
            if self.seen.contains(&key) {
                continue;
            }
            match self.arriving.get_mut(&key) {
                Some(first) if first.1 <= history => {}
                Some(first) => *first = (state, history),
                None => {
                    self.arriving.insert(key, (state, history));
                }
            }
        }
        Ok(())
    }

    /// Once every worker's bundle for the next level is taken: keeps the new states, judges each, and reports
    /// the level. The new states are the next level's, in the order one search reaches them.
    pub fn merge(&mut self) -> Result<LevelReport, String> {
        let mut new: Vec<_> = self.arriving.drain().collect();
        new.sort_by(|a, b| a.1 .1.cmp(&b.1 .1));
        let mut report = LevelReport {
            transitions: std::mem::take(&mut self.transitions),
            ..LevelReport::default()
        };
        for (key, (state, history)) in new {
            self.seen.insert(key);
            report.states += 1;
            let (violation, quiescent) = self.runner.judge(&state)?;
            report.quiescent += u64::from(quiescent);
            match violation {
                // The first by history: the one a single search stops at.
                Some(violation) => {
                    if report.broken.is_none() {
                        report.broken = Some(Broken {
                            violation,
                            history,
                            state,
                        });
                    }
                }
                None => self.frontier.push((state, history)),
            }
        }
        Ok(report)
    }
}

/// Adds up the workers' reports, level by level, into the counts and the verdict of one search.
#[derive(Debug, Default)]
pub struct Tally {
    pub counts: Counts,
    level: u32,
    reports: Vec<LevelReport>,
}

/// Where a search shared by workers stands after a level.
#[derive(Debug)]
pub enum Next {
    /// Every worker expands its new states.
    Expand,
    /// Done: no new state (holds), or the first state that breaks a property.
    Holds,
    Violated(Box<Broken>),
}

impl Tally {
    /// A worker's report of the current level; `Some` once all `shards` are in.
    pub fn add(&mut self, report: LevelReport, shards: usize) -> Option<Next> {
        self.reports.push(report);
        if self.reports.len() < shards {
            return None;
        }
        let mut new = 0;
        let mut broken = Vec::new();
        for r in std::mem::take(&mut self.reports) {
            self.counts.transitions += r.transitions;
            self.counts.states += r.states;
            self.counts.quiescent += r.quiescent;
            new += r.states;
            broken.extend(r.broken);
        }
        // The first by history: the one a single search stops at (histories of distinct states differ).
        let first = broken.into_iter().min_by(|a, b| a.history.cmp(&b.history));
        if new > 0 {
            self.counts.depth = self.level;
        }
        self.level += 1;
        Some(match first {
            Some(b) => Next::Violated(Box::new(b)),
            None if new == 0 => Next::Holds,
            None => Next::Expand,
        })
    }
}

/// A whole search by `shards` workers in turn, in one thread: what the page's workers do, without them, their
/// bundles and reports as bytes.
/// Returns the counts, the verdict, and how many states each worker owned.
pub fn run(
    config: &Config,
    shards: usize,
    symmetry: bool,
) -> Result<(Counts, Verdict, Vec<usize>), String> {
    let mut tally = Tally::default();
    let mut workers = Vec::new();
    let mut next = None;
    for index in 0..shards {
        let (shard, report) = Shard::new(config.clone(), index, shards, symmetry)?;
        workers.push(shard);
        // Through bytes, as between the page's workers.
        next = tally.add(LevelReport::from_bytes(config, &report.to_bytes())?, shards);
    }
    loop {
        match next.ok_or("a level ended without every report")? {
            Next::Expand => {}
            end => {
                let verdict = match end {
                    Next::Violated(b) => Verdict::Violated(Box::new(b.counterexample(config)?)),
                    _ => Verdict::Holds,
                };
                let owned = workers.iter().map(Shard::owned).collect();
                return Ok((tally.counts, verdict, owned));
            }
        }
        let mut bundles = Vec::new();
        for w in &mut workers {
            bundles.push(w.expand(|_| {})?);
        }
        for from in bundles {
            for (to, bundle) in from.into_iter().enumerate() {
                workers[to].take(&bundle)?;
            }
        }
        next = None;
        for w in &mut workers {
            let report = w.merge()?.to_bytes();
            next = tally.add(LevelReport::from_bytes(config, &report)?, shards);
        }
    }
}
