//! The one driver of a spec's permutations, on either store: the setups, each step sent to its session, the
//! steps waiting on another session (printed `<waiting ...>`, then `<... completed>` in the order they began to
//! wait), an order that only a later step could free ("cannot run"), the end state checked, and the teardowns.
//! What a store does differently (how a statement runs, how a wait is seen) is behind [`Store`], so that both
//! stores print the same lines at the same points.

use super::answer::{Answer, Now, Stopped};
use super::print::ResultSet;
use super::run::Transcript;
use super::{check, Block, Marker, Spec, Step};

/// What the driver asks of a store. Sessions are named by their index in the spec.
pub(super) trait Store {
    /// A new permutation begins: each session is a new process, which remembers nothing it delivered.
    fn forget(&mut self);

    /// A setup or teardown of the spec's own, run to its end; `what` names it where it cannot run. Its error,
    /// if any, is in the answer (the driver refuses the run on it).
    fn block(&mut self, block: &Block, what: &str) -> Result<Answer, Stopped>;

    /// Session `i`'s setup, run to its end: refused, in the store's words, when it fails or cannot run.
    fn setup(&mut self, i: usize, block: &Block) -> Result<Answer, Stopped>;

    /// Session `i`'s teardown, run to its end: `None` when the store cannot run it now (SQLite's writer is
    /// taken), and then nothing is printed for it.
    fn teardown(&mut self, i: usize, block: &Block) -> Result<Option<Answer>, Stopped>;

    /// The sessions are set up and the steps begin: a store reads here what a wait of theirs will mean.
    fn ready(&mut self) -> Result<(), Stopped> {
        Ok(())
    }

    /// Sends `step` to session `i`, whose answer [`Store::settle`] then waits for.
    fn send(&mut self, i: usize, step: &Step) -> Result<(), Stopped>;

    /// Session `i`'s step, answered, or waiting on another session (tried again on SQLite).
    fn settle(&mut self, i: usize, step: &Step) -> Result<Now, Stopped>;

    /// Whether session `i`'s wait can end only by a later step of the permutation, the `others` (indexes)
    /// waiting too: then this order cannot run here.
    fn freed_only_later(&mut self, i: usize, others: &[usize]) -> Result<bool, Stopped>;

    /// Session `i`'s waiting step's answer, however long it takes (within the store's timeout).
    fn wait(&mut self, i: usize, step: &Step) -> Result<Answer, Stopped>;

    /// A permutation that cannot go on: the steps of the `waiting` sessions given up.
    fn abandon(&mut self, waiting: &[usize]) -> Result<(), Stopped>;

    /// Every session's transaction rolled back, quietly, so that the next block starts from nothing open.
    fn roll_back(&mut self) -> Result<(), Stopped>;

    /// One query's rows, on a connection of no session's, for the end state's check.
    fn read(&mut self, sql: &str) -> Result<ResultSet, String>;

    /// What session `i`'s server said besides its answers since last asked (`WARNING:  …`), printed before its
    /// next line as the tester prints it. SQLite says nothing.
    fn notices(&mut self, _i: usize) -> Vec<String> {
        Vec::new()
    }

    /// Why session `who`'s step cannot run in this order, in the store's words; `at_end`: the permutation has
    /// no step left.
    fn cannot(&self, who: &str, at_end: bool) -> String;
}

/// Runs every permutation of `spec` on `store`, printing as the isolation tester prints.
pub(super) fn run(
    spec: &Spec,
    store: &mut impl Store,
    out: &mut Transcript<'_>,
) -> Result<(), Stopped> {
    out.parsed(spec.sessions.len());
    let mut driver = Driver {
        spec,
        store,
        out,
        notices: vec![0; spec.sessions.len()],
    };
    spec.permutations()
        .iter()
        .enumerate()
        .try_for_each(|(p, steps)| driver.permutation(p, steps))
}

/// A step sent and not yet reported complete: its session's index, the step, its markers, its answer once it
/// came while a marker still held it, and the notices a `notices N` marker waits for (a session's count).
struct Waiting<'s> {
    session: usize,
    step: &'s Step,
    markers: &'s [Marker],
    held: Option<Answer>,
    notices: Vec<(usize, usize)>,
}

/// Whether the permutation went on, or was abandoned (an order that cannot run here).
enum Went {
    On,
    Abandoned,
}

struct Driver<'a, 'o, S> {
    spec: &'a Spec,
    store: &'a mut S,
    out: &'a mut Transcript<'o>,
    /// Each session's notices so far, for the markers that count them.
    notices: Vec<usize>,
}

impl<'a, S: Store> Driver<'a, '_, S> {
    fn permutation(&mut self, p: usize, steps: &[String]) -> Result<(), Stopped> {
        let spec = self.spec;
        self.out.begin(steps);
        self.store.forget();
        for block in &spec.setup {
            self.block(block, "setup")?;
        }
        for (i, session) in spec.sessions.iter().enumerate() {
            if let Some(block) = &session.setup {
                let answer = self.store.setup(i, block)?;
                self.said(i);
                self.out.block(block, &answer);
            }
        }
        self.store.ready()?;
        // The steps not yet reported complete, in the order they were sent.
        let mut waiting: Vec<Waiting<'a>> = Vec::new();
        for (k, name) in steps.iter().enumerate() {
            let (session, step) = spec.step(name).expect("a parsed spec's step");
            let markers: &'a [Marker] = spec
                .markers
                .get(p)
                .and_then(|m| m.get(k))
                .map_or(&[], Vec::as_slice);
            // The session is still busy with an earlier step: that step must complete first.
            if let Some(at) = waiting.iter().position(|w| w.session == session) {
                if let Went::Abandoned = self.complete(&mut waiting, at, Some(step))? {
                    return self.abandon(&waiting);
                }
            }
            self.store.send(session, step)?;
            let notices = markers
                .iter()
                .filter_map(|m| match m {
                    Marker::Notices(other, n) => {
                        spec.step(other).map(|(s, _)| (s, self.notices[s] + n))
                    }
                    _ => None,
                })
                .collect();
            let mut sent = Waiting {
                session,
                step,
                markers,
                held: None,
                notices,
            };
            let who = &spec.sessions[session].name;
            let waits = if markers.contains(&Marker::Now) {
                // `*`: reported waiting at once, whatever comes.
                self.out.waiting(who, step);
                true
            } else {
                let now = self.store.settle(session, step)?;
                self.said(session);
                match now {
                    Now::Answered(answer) if self.held(&sent, &waiting) => {
                        self.out.waiting(who, step);
                        sent.held = Some(answer);
                        true
                    }
                    Now::Answered(answer) => {
                        self.out.answered(who, step, &answer);
                        false
                    }
                    Now::Waiting => {
                        self.out.waiting(who, step);
                        true
                    }
                }
            };
            // What this step released: each step waiting before it that has answered, in order. It is running (a
            // marker naming it holds), but not looked at again in this round, as the tester adds a step to its
            // waiting ones only after looking at those.
            if waits {
                waiting.push(sent);
                self.released_but(&mut waiting, 1)?;
            } else {
                self.released(&mut waiting)?;
            }
        }
        // The steps still waiting when the permutation ends, in order: each completes, or waits on what nothing
        // left in the permutation frees.
        while !waiting.is_empty() {
            // The first that no marker holds back (a marker names a step still running: that one goes first).
            let Some(at) = (0..waiting.len()).find(|&w| !self.held(&waiting[w], &waiting)) else {
                return Err(Stopped(
                    "the permutation's steps wait on each other's markers for ever".into(),
                ));
            };
            if let Went::Abandoned = self.complete(&mut waiting, at, None)? {
                return self.abandon(&waiting);
            }
        }
        self.check()?;
        self.teardowns()
    }

    /// Whether a marker of `w` still holds it back: a step it names still running (among `waiting`), or fewer
    /// notices than it waits for.
    fn held(&self, w: &Waiting<'_>, waiting: &[Waiting<'_>]) -> bool {
        let running = |name: &str| {
            waiting
                .iter()
                .any(|o| o.step.name == name && !std::ptr::eq(o.step, w.step))
        };
        w.markers.iter().any(|m| match m {
            Marker::Step(other) => running(other),
            _ => false,
        }) || w.notices.iter().any(|&(s, n)| self.notices[s] < n)
    }

    /// Completes `waiting[at]`, the steps its markers wait for first; `next`: the step of its session that
    /// needs it done (none at the permutation's end). Abandoned when it waits on what only a later step frees.
    fn complete(
        &mut self,
        waiting: &mut Vec<Waiting<'a>>,
        at: usize,
        next: Option<&Step>,
    ) -> Result<Went, Stopped> {
        self.complete_from(waiting, at, next, 0)
    }

    /// [`Driver::complete`], `depth` blockers deep: deeper than the steps waiting, the markers name each other.
    fn complete_from(
        &mut self,
        waiting: &mut Vec<Waiting<'a>>,
        at: usize,
        next: Option<&Step>,
        depth: usize,
    ) -> Result<Went, Stopped> {
        if depth > waiting.len() {
            return Err(Stopped(
                "the permutation's steps wait on each other's markers for ever".into(),
            ));
        }
        // A step its markers name, still running, completes first (the tester polls it until it has); only
        // notices holding it come with the session's next answers.
        if self.held(&waiting[at], waiting) {
            let blocker = (0..waiting.len()).find(|&o| {
                o != at
                    && waiting[at]
                        .markers
                        .iter()
                        .any(|m| matches!(m, Marker::Step(s) if *s == waiting[o].step.name))
            });
            if let Some(o) = blocker {
                let this = at_step(waiting, at);
                if let Went::Abandoned = self.complete_from(waiting, o, next, depth + 1)? {
                    return Ok(Went::Abandoned);
                }
                return self.complete_named(waiting, this, next, depth + 1);
            }
        }
        self.finish(waiting, at, next)
    }

    /// [`Driver::complete`] of the waiting step that was `step` before others were removed.
    fn complete_named(
        &mut self,
        waiting: &mut Vec<Waiting<'a>>,
        step: *const Step,
        next: Option<&Step>,
        depth: usize,
    ) -> Result<Went, Stopped> {
        match waiting.iter().position(|w| std::ptr::eq(w.step, step)) {
            Some(at) => self.complete_from(waiting, at, next, depth),
            None => Ok(Went::On),
        }
    }

    /// Takes `waiting[at]`'s answer (waiting for it as the tester does) and reports it complete.
    fn finish(
        &mut self,
        waiting: &mut Vec<Waiting<'a>>,
        at: usize,
        next: Option<&Step>,
    ) -> Result<Went, Stopped> {
        let (s, step) = (waiting[at].session, waiting[at].step);
        let who = &self.spec.sessions[s].name;
        let answer = match waiting[at].held.take() {
            Some(answer) => answer,
            None => match self.store.settle(s, step)? {
                Now::Answered(answer) => answer,
                // Waiting on what only a later step frees: this order cannot run here. Otherwise (on
                // PostgreSQL, held by a session that waits too, which a deadlock may free) waited for, as the
                // tester does.
                Now::Waiting => {
                    let others: Vec<usize> = waiting
                        .iter()
                        .enumerate()
                        .filter(|&(o, _)| o != at && (next.is_some() || o > at))
                        .map(|(_, w)| w.session)
                        .collect();
                    if self.store.freed_only_later(s, &others)? {
                        self.said(s);
                        let why = self.store.cannot(who, next.is_none());
                        self.out.cannot(who, next.unwrap_or(step), &why);
                        return Ok(Went::Abandoned);
                    }
                    self.store.wait(s, step)?
                }
            },
        };
        self.said(s);
        self.out.completed(who, step, &answer);
        waiting.remove(at);
        // Its answer may have released others (a deadlock's victim lets the other go on).
        self.released(waiting)?;
        Ok(Went::On)
    }

    /// A setup or teardown of the spec's: the run stops on its error.
    fn block(&mut self, block: &Block, what: &str) -> Result<(), Stopped> {
        let answer = self.store.block(block, what)?;
        if let Some(e) = &answer.error {
            return Err(Stopped(format!("{what} failed: {e}")));
        }
        self.out.block(block, &answer);
        Ok(())
    }

    /// What session `i`'s server said besides its answers, printed before its next line.
    fn said(&mut self, i: usize) {
        for text in self.store.notices(i) {
            self.notices[i] += 1;
            self.out.notice(&self.spec.sessions[i].name, &text);
        }
    }

    /// The waiting steps that have answered and that no marker holds back, reported in the order they were
    /// sent, pass after pass while one completes (one may free another's marker).
    fn released(&mut self, waiting: &mut Vec<Waiting<'a>>) -> Result<(), Stopped> {
        self.released_but(waiting, 0)
    }

    /// [`Driver::released`], the last `new` steps of `waiting` left alone (just sent, looked at already).
    fn released_but(&mut self, waiting: &mut Vec<Waiting<'a>>, new: usize) -> Result<(), Stopped> {
        loop {
            let before = waiting.len();
            // Whether a step left waiting was held back by a marker when it was looked at: the tester then
            // looks again once another step has completed.
            let mut marked = false;
            let mut w = 0;
            while w + new < waiting.len() {
                if waiting[w].held.is_none() {
                    let (s, step) = (waiting[w].session, waiting[w].step);
                    if let Now::Answered(answer) = self.store.settle(s, step)? {
                        self.said(s);
                        waiting[w].held = Some(answer);
                    }
                }
                let blocked = self.held(&waiting[w], waiting);
                if waiting[w].held.is_some() && !blocked {
                    let done = waiting.remove(w);
                    let answer = done.held.unwrap_or_default();
                    self.out
                        .completed(&self.spec.sessions[done.session].name, done.step, &answer);
                } else {
                    marked |= blocked;
                    w += 1;
                }
            }
            if waiting.len() == before || !marked {
                return Ok(());
            }
        }
    }

    /// Ends a permutation that cannot go on: the waiting steps given up, every session's transaction rolled
    /// back, no check, then the teardowns, so that the next permutation starts from its setup.
    fn abandon(&mut self, waiting: &[Waiting<'_>]) -> Result<(), Stopped> {
        // A step whose answer a marker held has nothing left to cancel or take.
        let running: Vec<usize> = waiting
            .iter()
            .filter(|w| w.held.is_none())
            .map(|w| w.session)
            .collect();
        self.store.abandon(&running)?;
        self.store.roll_back()?;
        self.teardowns()
    }

    /// The end state checked, when the spec's tables are the protocol's; and by the spec's own declaration of
    /// its outbox, when it has one.
    fn check(&mut self) -> Result<(), Stopped> {
        let store = &mut *self.store;
        let checked = check::end_state(&mut |sql| store.read(sql))
            .map_err(|e| Stopped(format!("reading the end state: {e}")))?;
        if let Some(checked) = checked {
            self.out.checked(checked);
        }
        if let Some(declared) = &self.spec.outbox {
            let store = &mut *self.store;
            let checked = check::outbox(&mut |sql| store.read(sql), declared).map_err(Stopped)?;
            self.out.checked_outbox(checked);
        }
        Ok(())
    }

    /// The sessions' teardowns, then the spec's. What a session still has open after its own is rolled back
    /// first: the spec's teardown would wait on it for ever (as the tester does), so a run ends where a spec
    /// forgot a COMMIT.
    fn teardowns(&mut self) -> Result<(), Stopped> {
        let spec = self.spec;
        for (i, session) in spec.sessions.iter().enumerate() {
            if let Some(block) = &session.teardown {
                if let Some(answer) = self.store.teardown(i, block)? {
                    self.said(i);
                    self.out.block(block, &answer);
                }
            }
        }
        self.store.roll_back()?;
        if let Some(block) = &spec.teardown {
            self.block(block, "teardown")?;
        }
        Ok(())
    }
}

/// The step of `waiting[at]`, to find it again once others are removed.
fn at_step(waiting: &[Waiting<'_>], at: usize) -> *const Step {
    waiting[at].step
}
