//! The one driver of a spec's permutations, on either store: the setups, each step sent to its session, the
//! steps waiting on another session (printed `<waiting ...>`, then `<... completed>` in the order they began to
//! wait), an order that only a later step could free ("cannot run"), the end state checked, and the teardowns.
//! What a store does differently (how a statement runs, how a wait is seen) is behind [`Store`], so that both
//! stores print the same lines at the same points.

use super::answer::{Answer, Now, Stopped};
use super::print::ResultSet;
use super::run::Transcript;
use super::{check, Block, Spec, Step};

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
    let mut driver = Driver { spec, store, out };
    spec.permutations()
        .iter()
        .try_for_each(|steps| driver.permutation(steps))
}

/// A waiting step: its session's index and the step.
type Waiting<'s> = (usize, &'s Step);

struct Driver<'a, 'o, S> {
    spec: &'a Spec,
    store: &'a mut S,
    out: &'a mut Transcript<'o>,
}

impl<'a, S: Store> Driver<'a, '_, S> {
    fn permutation(&mut self, steps: &[String]) -> Result<(), Stopped> {
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
        // The steps waiting on another session, in the order they began to wait.
        let mut waiting: Vec<Waiting<'a>> = Vec::new();
        for name in steps {
            let (session, step) = spec.step(name).expect("a parsed spec's step");
            let who = &spec.sessions[session].name;
            // The session is still waiting on an earlier step: that step must answer first.
            if let Some(at) = waiting.iter().position(|(s, _)| *s == session) {
                let (_, earlier) = waiting.remove(at);
                // Waiting on what only a later step frees: this order cannot run here. Otherwise (on
                // PostgreSQL, held by a session that waits too, which a deadlock may free) waited for, as
                // the tester does.
                let answer = match self.store.settle(session, earlier)? {
                    Now::Waiting if self.store.freed_only_later(session, &indexes(&waiting))? => {
                        self.said(session);
                        let why = self.store.cannot(who, false);
                        self.out.cannot(who, step, &why);
                        waiting.push((session, earlier));
                        return self.abandon(&waiting);
                    }
                    Now::Waiting => self.store.wait(session, earlier)?,
                    Now::Answered(answer) => answer,
                };
                self.said(session);
                self.out.completed(who, earlier, &answer);
                // Its answer may have released others (a deadlock's victim lets the other go on).
                waiting = self.released(waiting)?;
            }
            self.store.send(session, step)?;
            let now = self.store.settle(session, step)?;
            self.said(session);
            match now {
                Now::Answered(answer) => self.out.answered(who, step, &answer),
                Now::Waiting => {
                    self.out.waiting(who, step);
                    waiting.push((session, step));
                }
            }
            // What this step released: each waiting step that has answered, in order.
            waiting = self.released(waiting)?;
        }
        // The steps still waiting when the permutation ends, in order: each answers, or waits on what nothing
        // left in the permutation frees.
        while let Some(&(s, w)) = waiting.first() {
            let who = &spec.sessions[s].name;
            let answer = match self.store.settle(s, w)? {
                Now::Answered(answer) => answer,
                Now::Waiting if self.store.freed_only_later(s, &indexes(&waiting[1..]))? => {
                    self.said(s);
                    let why = self.store.cannot(who, true);
                    self.out.cannot(who, w, &why);
                    return self.abandon(&waiting);
                }
                Now::Waiting => self.store.wait(s, w)?,
            };
            self.said(s);
            self.out.completed(who, w, &answer);
            waiting.remove(0);
            waiting = self.released(waiting)?;
        }
        self.check()?;
        self.teardowns()
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
            self.out.notice(&self.spec.sessions[i].name, &text);
        }
    }

    /// The waiting steps that have answered, printed in the order they began to wait; those still waiting.
    fn released(&mut self, waiting: Vec<Waiting<'a>>) -> Result<Vec<Waiting<'a>>, Stopped> {
        let mut still = Vec::new();
        for (s, w) in waiting {
            match self.store.settle(s, w)? {
                Now::Answered(answer) => {
                    self.said(s);
                    self.out.completed(&self.spec.sessions[s].name, w, &answer)
                }
                Now::Waiting => still.push((s, w)),
            }
        }
        Ok(still)
    }

    /// Ends a permutation that cannot go on: the waiting steps given up, every session's transaction rolled
    /// back, no check, then the teardowns, so that the next permutation starts from its setup.
    fn abandon(&mut self, waiting: &[Waiting<'_>]) -> Result<(), Stopped> {
        self.store.abandon(&indexes(waiting))?;
        self.store.roll_back()?;
        self.teardowns()
    }

    /// The end state checked, when the spec's tables are the protocol's.
    fn check(&mut self) -> Result<(), Stopped> {
        let store = &mut *self.store;
        let checked = check::end_state(&mut |sql| store.read(sql))
            .map_err(|e| Stopped(format!("reading the end state: {e}")))?;
        if let Some(checked) = checked {
            self.out.checked(checked);
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

fn indexes(waiting: &[Waiting<'_>]) -> Vec<usize> {
    waiting.iter().map(|&(s, _)| s).collect()
}
