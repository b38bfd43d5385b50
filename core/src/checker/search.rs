//! The breadth-first search of CHECKER.md over the real protocol code on real SQLite. Each state's rows are
//! written back into the databases directly (only those that differ, [`super::runner`]), never replayed from
//! the start; each action is one TRACE.md step run by the one engine, [`Session`]. The search runs in slices
//! (`run(budget)`); natively, a level is shared by threads. (The page's workers share one with
//! [`super::shard`].)

use super::actions::Move;
use super::config::Config;
use super::properties::{Property, Violation};
use super::runner::Runner;
use super::state::State;
use crate::protocol::Location;
use crate::trace::{Session, StepReport, Trace};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

/// CHECKER.md's "What a run reports" (elapsed time is the caller's: the core has no clock on every target).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub states: u64,
    pub transitions: u64,
    pub depth: u32,
    pub quiescent: u64,
}

/// The shortest history that breaks a property: its moves, as a trace, with each step's result.
#[derive(Clone, Debug)]
pub struct Counterexample {
    pub violation: Violation,
    pub moves: Vec<Move>,
    pub trace: Trace,
    /// Each step's report, from replaying the trace on fresh databases.
    pub reports: Vec<StepReport>,
}

#[derive(Clone, Debug)]
pub enum Verdict {
    Holds,
    Violated(Box<Counterexample>),
}

impl Verdict {
    /// `holds` or `violated`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Violated(_) => "violated",
        }
    }
}

/// The fingerprints seen, hashed by [`KeyHasher`].
pub(super) type Visited = HashSet<Box<[u8]>, BuildHasherDefault<KeyHasher>>;

/// rustc's FxHash: a fingerprint is a short byte string the checker makes itself, so the standard hasher's
/// defence against chosen keys buys nothing, and its cost is a large share of merging a level.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl KeyHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The fingerprints seen, in shards each behind its own lock: natively, threads insert side by side, and the
/// thread that inserts a state first is the one that judges and queues it.
struct Seen {
    shards: Vec<std::sync::Mutex<Visited>>,
}

impl Seen {
    const SHARDS: u64 = 64;

    fn new() -> Seen {
        Seen {
            shards: (0..Seen::SHARDS).map(|_| Default::default()).collect(),
        }
    }

    /// `true` when `key` is new.
    fn insert(&self, key: Box<[u8]>) -> bool {
        let mut h = KeyHasher::default();
        h.write(&key);
        let shard = &self.shards[(h.finish() % Seen::SHARDS) as usize];
        // A poisoned lock is a thread that panicked: its set is still whole (an insert does not half-happen).
        shard.lock().unwrap_or_else(|e| e.into_inner()).insert(key)
    }
}

/// A breadth-first search, run a slice at a time.
pub struct Search {
    config: Config,
    runner: Runner,
    seen: Seen,
    /// For each state id: its parent's id and the move that first reached it (the root: `None`).
    parents: Vec<Option<(u32, Move)>>,
    frontier: Vec<(u32, State)>,
    cursor: usize,
    next: Vec<(u32, State)>,
    level: u32,
    counts: Counts,
    verdict: Option<Verdict>,
    /// The first state of the current level that breaks a property (the level is finished first, so that the
    /// counts at a stop are whole levels', the same however the level was shared out).
    broken: Option<(u32, Violation, State)>,
    /// The history the root was reached by ([`Search::after`]).
    prefix: Vec<Move>,
    threads: usize,
    /// The databases of the other threads, natively, kept for the whole search.
    #[cfg(not(target_arch = "wasm32"))]
    helpers: Vec<Runner>,
    /// Renamings of interchangeable flows, when the symmetry reduction is on (else empty).
    symmetries: Vec<[u8; 3]>,
}

impl Search {
    /// Checks the configuration (a refusal names the knob) and judges the initial state.
    pub fn new(config: Config) -> Result<Search, String> {
        Search::after(config, Vec::new())
    }

    /// The same search from where `history` leads (a reader's position, for a hint): its last state is the
    /// root, and a counterexample starts with `history`. A move the checker does not offer is refused.
    pub fn after(config: Config, history: Vec<Move>) -> Result<Search, String> {
        config.validate()?;
        let mut runner = Runner::new(&config)?;
        let mut root = State::initial(&config);
        for m in &history {
            root = runner.follow(&root, *m)?;
        }
        let (violation, quiescent) = runner.judge(&root)?;
        let seen = Seen::new();
        seen.insert(root.key());
        let mut search = Search {
            config,
            runner,
            seen,
            parents: vec![None],
            frontier: vec![(0, root.clone())],
            cursor: 0,
            next: Vec::new(),
            level: 0,
            counts: Counts {
                states: 1,
                transitions: 0,
                depth: 0,
                quiescent: u64::from(quiescent),
            },
            verdict: None,
            broken: None,
            prefix: history,
            threads: 1,
            #[cfg(not(target_arch = "wasm32"))]
            helpers: Vec::new(),
            symmetries: Vec::new(),
        };
        if let Some(v) = violation {
            search.stop(0, v, &root)?;
        }
        let symmetry = search.config.symmetry;
        Ok(search.with_symmetry(symmetry))
    }

    /// Natively, expand each level on up to `threads` threads (counts do not depend on it).
    pub fn with_threads(mut self, threads: usize) -> Search {
        self.threads = threads.max(1);
        self
    }

    /// Counts states up to renaming of interchangeable flows (CHECKER.md's flows with the same events): the
    /// verdict, the property and the counterexample's length stay exact; `states`, `transitions` and
    /// `quiescent` count classes of states. Call before the first [`Search::run`].
    pub fn with_symmetry(mut self, on: bool) -> Search {
        let renamings = self.config.symmetries();
        // Only the identity: no two flows are interchangeable, nothing to reduce.
        self.symmetries = if on && renamings.len() > 1 {
            renamings
        } else {
            Vec::new()
        };
        // The root was seen under its plain key; before the search starts it is keyed as every later state is,
        // or a move back to a root that is not its class's smallest renaming would count it again.
        if self.counts.transitions == 0 {
            if let Some((_, root)) = self.frontier.first() {
                self.seen = Seen::new();
                self.seen.insert(root.fingerprint(&self.symmetries));
            }
        }
        self
    }

    pub fn symmetry(&self) -> bool {
        !self.symmetries.is_empty()
    }

    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// States found and not yet expanded: the rest of this level and the next one so far (the frontier).
    pub fn waiting(&self) -> usize {
        self.frontier.len() - self.cursor + self.next.len()
    }

    /// The verdict, once the search is done.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.verdict.as_ref()
    }

    /// Expands states until about `budget` transitions have run or the search is done; `Ok(true)` when done.
    pub fn run(&mut self, budget: u64) -> Result<bool, String> {
        let until = self.counts.transitions.saturating_add(budget);
        while self.verdict.is_none() && self.counts.transitions < until {
            if self.cursor == self.frontier.len() {
                // The level is done: its first state that breaks a property ends the search.
                if let Some((id, violation, state)) = self.broken.take() {
                    self.stop(id, violation, &state)?;
                    break;
                }
                if self.next.is_empty() {
                    self.verdict = Some(Verdict::Holds);
                    break;
                }
                self.frontier = std::mem::take(&mut self.next);
                self.cursor = 0;
                self.level += 1;
            }
            if self.threads > 1 && cfg!(not(target_arch = "wasm32")) {
                self.run_level_parallel()?;
                continue;
            }
            let (id, state) = self.frontier[self.cursor].clone();
            self.cursor += 1;
            for (m, after) in self.runner.expand(&state)? {
                self.counts.transitions += 1;
                let key = after.fingerprint(&self.symmetries);
                self.offer(id, m, after, key)?;
            }
        }
        Ok(self.verdict.is_some())
    }

    /// Runs to the end.
    pub fn finish(&mut self) -> Result<&Verdict, String> {
        while !self.run(u64::MAX)? {}
        self.verdict
            .as_ref()
            .ok_or_else(|| "the search ended without a verdict".to_owned())
    }

    /// A state reached by `m` from `parent`: a new one is judged and queued, or, the first of its level to
    /// break a property, kept to end the search when the level is done.
    fn offer(&mut self, parent: u32, m: Move, after: State, key: Box<[u8]>) -> Result<(), String> {
        if !self.seen.insert(key) {
            return Ok(());
        }
        let id = self.parents.len() as u32;
        self.parents.push(Some((parent, m)));
        self.counts.states += 1;
        self.counts.depth = self.level + 1;
        let (violation, quiescent) = self.runner.judge(&after)?;
        self.counts.quiescent += u64::from(quiescent);
        match violation {
            Some(v) if self.broken.is_none() => self.broken = Some((id, v, after)),
            Some(_) => {}
            None => self.next.push((id, after)),
        }
        Ok(())
    }

    /// The rest of the current level on threads, each with its own databases (kept from level to level), taking
    /// a few states at a time so that no thread waits while another has work. A thread that reaches a state
    /// first (the shared set of fingerprints says so) judges it and queues it: each state is judged once and
    /// nothing is merged afterwards. The next level's order, and so the states' ids, then depend on the threads;
    /// the counts do not, and breadth first, neither does the counterexample's length.
    #[cfg(not(target_arch = "wasm32"))]
    fn run_level_parallel(&mut self) -> Result<(), String> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        /// What one thread found: its new states (parent, move, state, quiescent), the transitions it ran, and
        /// the first violation it met.
        #[derive(Default)]
        struct Found {
            new: Vec<(u32, Move, State, bool)>,
            transitions: u64,
            broken_states: u64,
            broken_quiescent: u64,
            violation: Option<Broken>,
        }
        /// A violation by its place in the level (frontier index, move index), its parent, move and state.
        type Broken = ((usize, usize), u32, Move, State, Violation);
        while self.helpers.len() + 1 < self.threads {
            self.helpers.push(Runner::new(&self.config)?);
        }
        let work = &self.frontier[self.cursor..];
        let seen = &self.seen;
        let symmetries = &self.symmetries;
        let taken = AtomicUsize::new(0);
        let threads = self.threads;
        let expand = |runner: &mut Runner| -> Result<Found, String> {
            let mut found = Found::default();
            // A share of what is left (guided scheduling): long runs of neighbouring states, which differ in few
            // rows, while there is much to do; single states at the end, so the threads end together.
            while let Ok(start) = taken.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |t| {
                (t < work.len()).then(|| t + ((work.len() - t) / (4 * threads)).clamp(1, 64))
            }) {
                let end = start + ((work.len() - start) / (4 * threads)).clamp(1, 64);
                for (i, (id, state)) in work.iter().enumerate().take(end).skip(start) {
                    for (c, (m, after)) in runner.expand(state)?.into_iter().enumerate() {
                        found.transitions += 1;
                        if !seen.insert(after.fingerprint(symmetries)) {
                            continue;
                        }
                        match runner.judge(&after)? {
                            (Some(v), quiescent) => {
                                // Counted as one search counts it, but not expanded.
                                found.broken_states += 1;
                                found.broken_quiescent += u64::from(quiescent);
                                if found.violation.as_ref().is_none_or(|f| (i, c) < f.0) {
                                    found.violation = Some(((i, c), *id, m, after, v));
                                }
                            }
                            (None, quiescent) => found.new.push((*id, m, after, quiescent)),
                        }
                    }
                }
            }
            Ok(found)
        };
        let runners = std::iter::once(&mut self.runner).chain(self.helpers.iter_mut());
        let results: Vec<Result<Found, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = runners
                .map(|runner| scope.spawn(|| expand(runner)))
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a checker thread failed".into()))
                })
                .collect()
        });
        self.cursor = self.frontier.len();
        let mut first: Option<Broken> = None;
        for found in results {
            let found = found?;
            self.counts.transitions += found.transitions;
            self.counts.states += found.broken_states;
            self.counts.quiescent += found.broken_quiescent;
            if found.broken_states > 0 {
                self.counts.depth = self.level + 1;
            }
            for (parent, m, after, quiescent) in found.new {
                self.parents.push(Some((parent, m)));
                self.counts.states += 1;
                self.counts.depth = self.level + 1;
                self.counts.quiescent += u64::from(quiescent);
                self.next.push((self.parents.len() as u32 - 1, after));
            }
            if let Some(v) = found.violation {
                if first.as_ref().is_none_or(|f| v.0 < f.0) {
                    first = Some(v);
                }
            }
        }
        if let Some((_, parent, m, after, violation)) = first {
            let id = self.parents.len() as u32;
            self.parents.push(Some((parent, m)));
            self.broken = Some((id, violation, after));
        }
        Ok(())
    }

    #[cfg(target_arch = "wasm32")]
    fn run_level_parallel(&mut self) -> Result<(), String> {
        self.threads = 1;
        Ok(())
    }

    /// Stops at state `id` (`reached`): rebuilds its history from the parents and replays it.
    fn stop(&mut self, id: u32, violation: Violation, reached: &State) -> Result<(), String> {
        let mut moves = Vec::new();
        let mut at = id;
        while let Some((parent, m)) = self.parents[at as usize] {
            moves.push(m);
            at = parent;
        }
        moves.reverse();
        let moves = [self.prefix.clone(), moves].concat();
        let c = Counterexample::replay(&self.config, moves, violation, reached)?;
        self.verdict = Some(Verdict::Violated(Box::new(c)));
        Ok(())
    }
}

impl Counterexample {
    /// The history `moves` as a trace, replayed on fresh databases with real exits, for the reports — and to
    /// check that the replay reaches exactly the rows the search saw (`reached`).
    pub fn replay(
        config: &Config,
        moves: Vec<Move>,
        violation: Violation,
        reached: &State,
    ) -> Result<Counterexample, String> {
        let mut steps = config.prelude();
        steps.extend(moves.iter().map(|m| m.step(config)));
        let trace = Trace::new(config.setup(), steps);
        let mut session = Session::create(&Location::memory(), trace.consumer.clone())?;
        let reports = trace.steps.iter().map(|s| session.step(s)).collect();
        let replayed = State::from_snapshot(config, &session.rows_without_bodies()?, 0, 0)?;
        if !replayed.same_rows(reached) {
            return Err(format!(
                // (No dump of the two states: their Debug code would ride along into the page's module.)
                "the counterexample does not replay to the state that broke {} (a bug in the checker); its trace: {}",
                violation.property.name(),
                trace.to_json()?
            ));
        }
        Ok(Counterexample {
            violation,
            moves,
            trace,
            reports,
        })
    }
}

/// What the property means in words, for a reader who sees it broken.
pub fn property_words(p: Property) -> &'static str {
    match p {
        Property::ConsumerInvariant => {
            "the consumer's effects are not a legal, contiguous prefix of its events"
        }
        Property::NoLoss => "a committed transition or an acknowledged message was lost",
        Property::Completion => "the system went quiet with work left undone",
        Property::RuleAnswers => "the rule answered something the engine cannot carry out",
    }
}
