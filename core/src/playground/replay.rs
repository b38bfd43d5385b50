//! Replays that may run a slice at a time, so a 10,000-step trace never freezes the page: a load ([`Loader`])
//! and time travel ([`Seeker`]). The caller runs [`Replay::step_once`] until it says done, between its own
//! turns, and may simply drop the replay to cancel it: nothing is shared with the live playground until
//! [`Replay::finish`]. What it finishes with, a [`Replayed`], then replaces the live playground keeping the
//! reader's settings changed meanwhile ([`Replayed::over`]).

use super::{Databases, Entry, Playground};
use crate::protocol::Location;
use crate::protocol::Outcome;
use crate::protocol::{Snapshot, SqlLine};
use crate::trace::{Session, Step, StepReport, Trace};
use std::rc::Rc;

/// A replay run a slice at a time.
pub trait Replay {
    /// Runs one step; `Ok(true)` once every step has run.
    fn step_once(&mut self) -> Result<bool, String>;
    /// Steps done and steps in all.
    fn progress(&self) -> (usize, usize);
    /// The playground at the end of the replay.
    fn finish(self) -> Replayed;
}

/// The reader's settings that shape the next step but are not part of the trace. Flows are only ever added,
/// so how many there were says which were added since.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Settings {
    armed: Option<crate::protocol::Boundary>,
    schema2: bool,
    flows: usize,
}

impl Settings {
    fn of(pg: &Playground) -> Settings {
        Settings {
            armed: pg.armed,
            schema2: pg.schema2,
            flows: pg.flows.len(),
        }
    }
}

/// A finished replay, with the live playground's settings as they were when it started.
pub struct Replayed {
    pg: Playground,
    base: Settings,
}

impl Replayed {
    /// The replayed playground in place of `live`: a setting the reader changed while the replay ran (a crash
    /// armed, schema 2 switched, a flow added) survives; everything else is what the replay ran.
    pub fn over(self, live: &Playground) -> Playground {
        let Replayed { mut pg, base } = self;
        if live.armed != base.armed {
            pg.armed = live.armed;
        }
        if live.schema2 != base.schema2 {
            pg.schema2 = live.schema2;
        }
        for flow in live.flows.iter().skip(base.flows) {
            pg.add_flow(flow);
        }
        pg
    }
}

/// Time travel in progress to step `n`: forward runs the next steps on the current session; backward replays the
/// first `n` on fresh databases. Only the last step's SQL is logged (the panel shows no more), which also keeps
/// the replay free of formatting.
pub struct Seeker {
    pg: Playground,
    base: Settings,
    session: Rc<Databases>,
    n: usize,
    next: usize,
    before: Rc<Snapshot>,
    sql: Vec<SqlLine>,
}

impl Replay for Seeker {
    fn step_once(&mut self) -> Result<bool, String> {
        if self.next >= self.n {
            return Ok(true);
        }
        let mut session = self.session.get()?;
        if self.next + 1 == self.n {
            self.before = Rc::new(session.snapshot()?);
            session.set_sql_logging(true);
        }
        self.sql = session.step(&self.pg.entries[self.next].step).sql;
        self.next += 1;
        Ok(self.next >= self.n)
    }

    fn progress(&self) -> (usize, usize) {
        (self.next, self.n)
    }

    /// The playground at the step reached (`n`, unless a step failed), its tables read back from SQLite; the
    /// steps after it stay for going forward.
    fn finish(self) -> Replayed {
        let Seeker {
            mut pg,
            base,
            session,
            next,
            before,
            sql,
            ..
        } = self;
        if let Ok(mut session) = session.get() {
            session.set_sql_logging(true);
        }
        pg.sql = Rc::new(sql);
        pg.before = before;
        pg.session = session;
        pg.pos = next;
        pg.down = None;
        pg.reload();
        pg.refill_lane();
        Replayed { pg, base }
    }
}

/// Traces up to this long keep every step's SQL (the presets, a reader's session); longer ones only the last's.
const KEEP_SQL_STEPS: usize = 500;

/// A trace being replayed into a fresh playground.
pub struct Loader {
    fresh: Playground,
    base: Settings,
    steps: Vec<Step>,
    next: usize,
    /// Set when the reader switched the consumer: what the replay keeps of the playground it replaces.
    switch: Option<Switch>,
}

/// What a consumer switch keeps of the playground before it: the reader's wire, crash, flows and the consumer
/// to compare with.
struct Switch {
    from: crate::trace::ConsumerSetup,
    dropped: usize,
    lane: Vec<super::Card>,
    next_card: u32,
    armed: Option<crate::protocol::Boundary>,
    down: bool,
    flows: Vec<String>,
}

impl Replay for Loader {
    fn step_once(&mut self) -> Result<bool, String> {
        let Some(step) = self.steps.get(self.next) else {
            return Ok(true);
        };
        let fresh = &mut self.fresh;
        if let Some(flow) = step.flow() {
            fresh.add_flow(flow);
        }
        // What `process_all` can write, read before it runs: the flows with an event not applied.
        let waiting = match step {
            Step::ProcessAll { .. } if fresh.broke_at.is_none() => {
                Some(fresh.session.get()?.flows_waiting()?)
            }
            _ => None,
        };
        let mut report = fresh.session.get()?.step(step);
        // The SQL panel shows the last step's; each step keeps its own (the diagram shows it on hover) unless
        // the trace is long, which must not keep every statement.
        fresh.sql = Rc::new(if self.steps.len() <= KEEP_SQL_STEPS {
            report.sql.clone()
        } else {
            std::mem::take(&mut report.sql)
        });
        // The first step after which the badge turns red, found as the replay goes (in its slices), reading the
        // rows only after a step that can change what it checks, and only the flows it wrote: every flow after
        // every step made a 10,000-step import take flows × rows.
        if fresh.broke_at.is_none() && step.may_break_badge() {
            let session = fresh.session.get()?;
            let holds = match written_flows(step, &report, waiting, &session)? {
                Some(flows) if flows.is_empty() => Ok(true),
                Some(flows) => {
                    let flows: Vec<&str> = flows.iter().map(String::as_str).collect();
                    session.check_badge_of(&flows).map(|i| i.holds)
                }
                None => session.check_badge().map(|i| i.holds),
            };
            if holds == Ok(false) {
                fresh.broke_at = Some(self.next);
            }
        }
        fresh.entries.push(Entry {
            step: step.clone(),
            report,
        });
        self.next += 1;
        Ok(self.next >= self.steps.len())
    }

    fn progress(&self) -> (usize, usize) {
        (self.next, self.steps.len())
    }

    /// The playground after the replay, its tables read back from SQLite.
    fn finish(mut self) -> Replayed {
        let fresh = &mut self.fresh;
        fresh.pos = fresh.entries.len();
        fresh.reload();
        // Flows that only ever arrived at the consumer (a `receive` step) get their columns and buttons too.
        let snap = fresh.snapshot.clone();
        let seen = snap
            .producer
            .flow
            .iter()
            .map(|f| &f.flow_id)
            .chain(snap.consumer.inbox.iter().map(|r| &r.flow_id))
            .chain(snap.consumer.projection.iter().map(|p| &p.flow_id));
        for flow in seen {
            fresh.add_flow(flow);
        }
        fresh.refill_lane();
        fresh.before = fresh.snapshot.clone();
        if let Some(switch) = self.switch.take() {
            fresh.switched_from(switch);
        }
        Replayed {
            pg: self.fresh,
            base: self.base,
        }
    }
}

/// The flows whose rows `step` may have written: its own flow, a relay's event's, for `process_all` the flows
/// `waiting` before it that it visited (all of `waiting` when it crashed). `None` (every flow, then) for a power
/// cut, a `receive`, and a relay whose crash hides its event.
fn written_flows(
    step: &Step,
    report: &StepReport,
    waiting: Option<Vec<String>>,
    session: &Session,
) -> Result<Option<Vec<String>>, String> {
    Ok(match step {
        Step::UnsafeDualWrite(w) => Some(vec![w.flow.clone()]),
        Step::Apply { flow, .. } => Some(vec![flow.clone()]),
        Step::Relay { event_id, .. } => match report.relayed.as_deref().or(event_id.as_deref()) {
            Some(id) => Some(session.flow_of_event(id)?.into_iter().collect()),
            None if report.result == Outcome::IDLE => Some(Vec::new()),
            None => None,
        },
        // The flows it visited (a few when its limit stops it) that had something to apply (a few when the
        // previous one applied all): each set alone can be every flow.
        Step::ProcessAll { .. } => match (&report.flows, waiting) {
            (Some(visited), Some(waiting)) => Some(
                waiting
                    .into_iter()
                    .filter(|f| visited.contains_key(f))
                    .collect(),
            ),
            (None, waiting) => waiting,
            (Some(_), None) => None,
        },
        _ => None,
    })
}

impl Playground {
    /// Goes to step `n` at once: forward by running the next steps on the current session, back by replaying
    /// the first `n` on fresh databases (deterministic either way); the future stays for going forward.
    pub(super) fn seek(&mut self, n: usize) -> Result<(), String> {
        let mut seeker = self.seeker(n, true)?;
        let result = loop {
            match seeker.step_once() {
                Ok(true) => break Ok(()),
                Ok(false) => {}
                Err(e) => break Err(e),
            }
        };
        // After a failed step too: a step forward may already have moved the session, so show where it is.
        *self = seeker.finish().over(self);
        result
    }

    /// Time travel to step `n` that can run a slice at a time. With `continue_forward`, a step forward continues
    /// the current session (it is exactly the first `pos` steps replayed); only for a seek run at once, since
    /// the page keeps using that session meanwhile otherwise.
    pub fn seeker(&self, n: usize, continue_forward: bool) -> Result<Seeker, String> {
        let n = n.min(self.entries.len());
        let (session, next, before) = if continue_forward && n >= self.pos {
            self.session.get()?.set_sql_logging(false);
            (self.session.clone(), self.pos, self.before.clone())
        } else {
            let mut fresh = Session::create(&Location::memory(), self.setup.clone())?;
            fresh.set_sql_logging(false);
            fresh.set_effect_log(true);
            let before = Rc::new(fresh.snapshot()?);
            (Databases::opened(fresh), 0, before)
        };
        Ok(Seeker {
            pg: self.clone(),
            base: Settings::of(self),
            session,
            n,
            next,
            before,
            sql: Vec::new(),
        })
    }

    /// A fresh session that has run `trace`, all at once (presets and short traces).
    pub(super) fn load(&mut self, trace: &Trace) -> Result<(), String> {
        let mut loader = self.loader(trace.clone())?;
        while !loader.step_once()? {}
        *self = loader.finish().over(self);
        Ok(())
    }

    /// A replay of `trace` on fresh databases that can be run a slice at a time. It keeps the schema 2
    /// switch; the flows are the trace's, and nothing is armed.
    pub fn loader(&self, trace: Trace) -> Result<Loader, String> {
        let mut fresh = Playground::new(trace.consumer)?;
        fresh.schema2 = self.schema2;
        Ok(Loader {
            fresh,
            base: Settings::of(self),
            steps: trace.steps,
            next: 0,
            switch: None,
        })
    }

    /// The same history up to the position, replayed under another consumer (the reader switched it), a slice
    /// at a time if need be: the wire, the armed crash and the flows stay the reader's, the consumer before is
    /// kept to compare with, and the notice says how many steps ran again and how many after the position
    /// were dropped.
    pub fn switcher(&self, setup: crate::trace::ConsumerSetup) -> Result<Loader, String> {
        let mut loader = self.loader(Trace::new(setup, self.trace().steps))?;
        loader.switch = Some(Switch {
            from: self.setup.clone(),
            dropped: self.entries.len() - self.pos,
            lane: self.lane.clone(),
            next_card: self.next_card,
            armed: self.armed,
            down: self.down.is_some(),
            flows: self.flows.clone(),
        });
        Ok(loader)
    }

    /// Switches the consumer at once ([`Playground::switcher`]); the same consumer changes nothing.
    pub(super) fn switch(&mut self, setup: crate::trace::ConsumerSetup) {
        if setup == self.setup {
            return;
        }
        let done = self.switcher(setup).and_then(|mut loader| {
            while !loader.step_once()? {}
            Ok(loader.finish().over(self))
        });
        match done {
            Ok(pg) => *self = pg,
            Err(e) => self.notice = Some(super::Notice::Error(e)),
        }
    }

    fn switched_from(&mut self, switch: Switch) {
        // The wire as the reader arranged it (resends of accepted events too), where it still holds every event
        // the relay has to send and nothing the outbox does not.
        let outbox = &self.snapshot.producer.outbox;
        let keeps = self
            .lane
            .iter()
            .all(|c| switch.lane.iter().any(|o| o.event_id == c.event_id))
            && switch
                .lane
                .iter()
                .all(|c| outbox.iter().any(|r| r.event_id == c.event_id));
        if keeps {
            self.lane = switch.lane;
            self.next_card = self.next_card.max(switch.next_card);
        }
        // Still down where the process had died at the last step and died there again.
        if switch.down {
            self.down = self
                .last()
                .filter(|e| e.report.result == crate::protocol::Outcome::Crashed)
                .map(|e| e.report.boundary);
        }
        self.armed = switch.armed;
        for flow in &switch.flows {
            self.add_flow(flow);
        }
        if self.pos + switch.dropped > 0 {
            self.notice = Some(super::Notice::Switched {
                steps: self.pos,
                dropped: switch.dropped,
            });
        }
        self.previous = Some(switch.from);
    }
}
