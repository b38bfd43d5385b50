//! The breadth-first search of CHECKER.md over the real protocol code on real SQLite. Each state is loaded back
//! into the databases directly ([`crate::protocol::System::load`]), never replayed from the start; each action is
//! one TRACE.md step run by the one engine, [`Session`]. The search runs in slices (`run(budget)`), so the page
//! can yield between them; natively, several searches of one level run on threads.

use super::actions::{actions, Action, Move};
use super::config::Config;
use super::properties::{self, Property, Violation};
use super::state::State;
use crate::protocol::Boundary;
use crate::trace::{Session, StepReport, Trace};
use std::collections::HashSet;

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

/// Runs moves on one pair of databases: enter a state, run a step, read the state it leads to.
struct Runner {
    config: Config,
    session: Session,
    /// The rows of the state the moves start from.
    entered: crate::protocol::Snapshot,
    /// Every event's body (see [`Config::bodies`]).
    bodies: Vec<String>,
    /// What the databases hold now, when known (then restoring writes only the rows that differ).
    holds: Option<crate::protocol::Snapshot>,
    /// The databases hold exactly the entered state (no move has run since).
    fresh: bool,
}

impl Runner {
    fn new(config: &Config) -> Result<Runner, String> {
        let mut session = Session::new(config.setup())?;
        session.set_quick_restart(true);
        let bodies = config.bodies();
        Ok(Runner {
            config: config.clone(),
            session,
            entered: State::default().to_snapshot(&bodies),
            bodies,
            holds: None,
            fresh: false,
        })
    }

    /// Puts `s`'s rows into the databases and copies them aside: each move from `s` starts from that copy.
    fn enter(&mut self, s: &State) -> Result<(), String> {
        let rows = s.to_snapshot(&self.bodies);
        match self.holds.take() {
            Some(now) => self.session.load_changes(&now, &rows)?,
            None => self.session.load(&rows)?,
        }
        // The databases hold the entered rows: a later enter restores from them, not from SQLite's snapshot.
        self.holds = Some(rows.clone());
        self.entered = rows;
        self.fresh = true;
        Ok(())
    }

    /// From the entered state `from`, runs `m`; returns the state it leads to and the step's report.
    fn run(&mut self, from: &State, m: Move) -> Result<(State, StepReport), String> {
        if !self.fresh {
            let now = self
                .holds
                .take()
                .ok_or_else(|| "the checker lost track of the databases".to_owned())?;
            self.session.load_changes(&now, &self.entered)?;
        }
        self.fresh = false;
        let report = self.session.step(&m.step(&self.config));
        let (r, c) = m.cost();
        let after = State::from_snapshot(
            &self.config,
            &self.session.rows_without_bodies()?,
            from.resends_used + r,
            from.crashes_used + c,
        )?;
        self.holds = Some(after.to_snapshot(&self.bodies));
        Ok((after, report))
    }

    /// Every move from `s`, in order, with the state each leads to.
    fn expand(&mut self, s: &State) -> Result<Vec<(Move, State)>, String> {
        self.enter(s)?;
        let mut out = Vec::new();
        for action in actions(&self.config, s) {
            let m = Move {
                action,
                crash: None,
            };
            let (after, report) = self.run(s, m)?;
            out.push((m, after));
            let crashable = matches!(
                action,
                Action::Advance(_) | Action::Relay(_) | Action::Apply(_)
            );
            if crashable && s.crashes_used < self.config.crashes {
                // Each boundary the step crossed, once, in the order of the ten.
                let passed = Boundary::ALL
                    .into_iter()
                    .filter(|b| report.passed.contains(b));
                for b in passed {
                    let m = Move {
                        action,
                        crash: Some(b),
                    };
                    let (after, _) = self.run(s, m)?;
                    out.push((m, after));
                }
            }
        }
        Ok(out)
    }

    /// Whether `s` is quiescent (CHECKER.md): produced in full, nothing unacknowledged, and no flow's apply
    /// changes a row.
    fn quiescent(&mut self, s: &State) -> Result<bool, String> {
        if !properties::producer_done(&self.config, s) {
            return Ok(false);
        }
        let mut entered = false;
        for action in actions(&self.config, s) {
            if let Action::Apply(_) = action {
                if !entered {
                    self.enter(s)?;
                    entered = true;
                }
                let m = Move {
                    action,
                    crash: None,
                };
                let (after, _) = self.run(s, m)?;
                if !after.same_rows(s) {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// RULE.md's `rule_answers`, for a rule consumer: at every flow `apply` is offered to, the rule's answer is
    /// one the engine can carry out.
    fn rule_answers(&mut self, s: &State) -> Result<Option<Violation>, String> {
        if self.config.rule.is_none() {
            return Ok(None);
        }
        let Some(rule) = &self.config.rule else {
            return Ok(None);
        };
        for action in actions(&self.config, s) {
            if let Action::Apply(flow) = action {
                let name = super::config::FLOW_IDS[flow as usize];
                // `waiting` from the state's rows, as the consumer builds it from the same rows in SQLite.
                if let Err(message) = crate::rule::answer(rule, &s.waiting(&self.config, flow)) {
                    return Ok(Some(Violation {
                        property: Property::RuleAnswers,
                        message: format!("apply {name}: {message}"),
                    }));
                }
            }
        }
        Ok(None)
    }

    /// The properties of a newly generated state, in CHECKER.md's order; `Ok(true)` when it is quiescent.
    fn judge(&mut self, s: &State) -> Result<(Option<Violation>, bool), String> {
        if let Some(v) = self.rule_answers(s)? {
            return Ok((Some(v), false));
        }
        if let Some(v) =
            properties::consumer_invariant(s).or_else(|| properties::no_loss(&self.config, s))
        {
            return Ok((Some(v), false));
        }
        let quiescent = self.quiescent(s)?;
        let v = if quiescent {
            properties::completion(&self.config, s)
        } else {
            None
        };
        Ok((v, quiescent))
    }
}

/// A breadth-first search, run a slice at a time.
pub struct Search {
    config: Config,
    runner: Runner,
    visited: HashSet<Box<[u8]>>,
    /// For each state id: its parent's id and the move that first reached it (the root: `None`).
    parents: Vec<Option<(u32, Move)>>,
    frontier: Vec<(u32, State)>,
    cursor: usize,
    next: Vec<(u32, State)>,
    level: u32,
    counts: Counts,
    verdict: Option<Verdict>,
    threads: usize,
    /// Renamings of interchangeable flows, when the symmetry reduction is on (else empty).
    symmetries: Vec<[u8; 3]>,
}

impl Search {
    /// Checks the configuration (a refusal names the knob) and judges the initial state.
    pub fn new(config: Config) -> Result<Search, String> {
        config.validate()?;
        let mut runner = Runner::new(&config)?;
        let root = State::default();
        let (violation, quiescent) = runner.judge(&root)?;
        let mut search = Search {
            config,
            runner,
            visited: HashSet::from([root.key()]),
            parents: vec![None],
            frontier: vec![(0, root)],
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
            threads: 1,
            symmetries: Vec::new(),
        };
        if let Some(v) = violation {
            search.stop(0, v, &State::default())?;
        }
        Ok(search)
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
        self
    }

    pub fn symmetry(&self) -> bool {
        !self.symmetries.is_empty()
    }

    pub fn counts(&self) -> Counts {
        self.counts
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
                if self.offer(id, m, after, None)? {
                    return Ok(true);
                }
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

    /// A state reached by `m` from `parent`: new ones are judged (or were, on another thread: `judged`) and
    /// queued. `Ok(true)` when it breaks a property and the search stops.
    fn offer(
        &mut self,
        parent: u32,
        m: Move,
        after: State,
        judged: Option<(Option<Violation>, bool)>,
    ) -> Result<bool, String> {
        if !self.visited.insert(after.fingerprint(&self.symmetries)) {
            return Ok(false);
        }
        let id = self.parents.len() as u32;
        self.parents.push(Some((parent, m)));
        self.counts.states += 1;
        self.counts.depth = self.level + 1;
        let (violation, quiescent) = match judged {
            Some(j) => j,
            None => self.runner.judge(&after)?,
        };
        self.counts.quiescent += u64::from(quiescent);
        if let Some(v) = violation {
            self.stop(id, v, &after)?;
            return Ok(true);
        }
        self.next.push((id, after));
        Ok(false)
    }

    /// The rest of the current level on threads, each with its own databases; results are merged in frontier
    /// order, so the states' ids, the counts and the verdict's property do not depend on the threads.
    #[cfg(not(target_arch = "wasm32"))]
    fn run_level_parallel(&mut self) -> Result<(), String> {
        let work = &self.frontier[self.cursor..];
        let chunk = work.len().div_ceil(self.threads).max(1);
        let known = &self.visited;
        let config = &self.config;
        let symmetries = &self.symmetries;
        type Expanded = Vec<(u32, Vec<(Move, State, Option<(Option<Violation>, bool)>)>)>;
        let results: Vec<Result<Expanded, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = work
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || -> Result<Expanded, String> {
                        let mut runner = Runner::new(config)?;
                        let mut judged_here = HashSet::new();
                        let mut out = Vec::new();
                        for (id, state) in part {
                            let mut children = Vec::new();
                            for (m, after) in runner.expand(state)? {
                                let key = after.fingerprint(symmetries);
                                // Judge what may be new (a state another thread also reaches is judged twice).
                                let judged = if !known.contains(&key) && judged_here.insert(key) {
                                    Some(runner.judge(&after)?)
                                } else {
                                    None
                                };
                                children.push((m, after, judged));
                            }
                            out.push((*id, children));
                        }
                        Ok(out)
                    })
                })
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
        for part in results {
            for (id, children) in part? {
                for (m, after, judged) in children {
                    self.counts.transitions += 1;
                    if self.offer(id, m, after, judged)? {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }

    #[cfg(target_arch = "wasm32")]
    fn run_level_parallel(&mut self) -> Result<(), String> {
        self.threads = 1;
        Ok(())
    }

    /// Stops at state `id` (`reached`): rebuilds its history as a trace and replays it on fresh databases with
    /// real exits, for the reports — and to check that the replay reaches exactly the rows the search saw.
    fn stop(&mut self, id: u32, violation: Violation, reached: &State) -> Result<(), String> {
        let mut moves = Vec::new();
        let mut at = id;
        while let Some((parent, m)) = self.parents[at as usize] {
            moves.push(m);
            at = parent;
        }
        moves.reverse();
        let trace = Trace::new(
            self.config.setup(),
            moves.iter().map(|m| m.step(&self.config)).collect(),
        );
        let mut session = Session::new(trace.consumer.clone())?;
        let reports = trace.steps.iter().map(|s| session.step(s)).collect();
        let replayed = State::from_snapshot(&self.config, &session.rows_without_bodies()?, 0, 0)?;
        if !replayed.same_rows(reached) {
            return Err(format!(
                // (No dump of the two states: their Debug code would ride along into the page's module.)
                "the counterexample does not replay to the state that broke {} (a bug in the checker); its trace: {}",
                violation.property.name(),
                trace.to_json()?
            ));
        }
        self.verdict = Some(Verdict::Violated(Box::new(Counterexample {
            violation,
            moves,
            trace,
            reports,
        })));
        Ok(())
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
