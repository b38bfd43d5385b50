//! The engine: a live session on fresh databases that runs steps one at a time. The CLI, the tests, the
//! explorer, the checker and the page all drive this one engine.

use super::{ConsumerSetup, Op, ResultDoc, Step, StepReport, Trace, TraceError};
use super::{DEFAULT_PROCESS_LIMIT, MAX_PROCESS_LIMIT};
use crate::protocol::Ordering;
use crate::protocol::{
    self, ApplyResult, Boundary, CrashMark, Invariant, Location, Outcome, ReceiveResult, Snapshot,
    Stop, System,
};

/// A live session: fresh databases, then steps one at a time.
pub struct Session {
    system: System,
    /// The last effect row already reported, while the session reports each step's effects.
    effects_seen: Option<i64>,
}

impl Session {
    /// A session on fresh databases at `location` ([`System::create`]).
    pub fn create(location: &Location, setup: ConsumerSetup) -> Result<Session, String> {
        let system = System::create(location, setup.config()).map_err(stop_message)?;
        Ok(Session {
            system,
            effects_seen: None,
        })
    }

    /// A session on the databases at `location`, shared with other real processes (the CLI's workers).
    pub fn open(location: &Location, setup: ConsumerSetup) -> Result<Session, String> {
        let system = System::open(location, setup.config()).map_err(stop_message)?;
        Ok(Session {
            system,
            effects_seen: None,
        })
    }

    /// Reaching an armed boundary ends the process with `hook` (see [`System::set_exit_hook`]).
    pub fn set_exit_hook(&mut self, hook: protocol::db::ExitHook) {
        self.system.set_exit_hook(hook);
    }

    /// Logs every statement each step runs into its report (the UI's SQL panel).
    pub fn set_sql_logging(&mut self, on: bool) {
        self.system.set_logging(on);
    }

    /// Reports the effects each step committed ([`StepReport::effects`]; the page's diagram). Off by default:
    /// one more query per step, which the explorer and the checker do not need.
    pub fn set_effect_log(&mut self, on: bool) {
        self.effects_seen = if on {
            self.system.effects_after(0).ok().map(|(_, last)| last)
        } else {
            None
        };
    }

    pub fn support_v2(&self) -> bool {
        self.system.config.support_v2
    }

    pub fn ordering(&self) -> Ordering {
        self.system.config.ordering
    }

    /// The consumer this session runs, as a trace's setup.
    pub fn setup(&self) -> ConsumerSetup {
        let c = &self.system.config;
        ConsumerSetup {
            ordering: c.ordering,
            rule: c.rule.clone(),
            support_v2: c.support_v2,
        }
    }

    /// Runs one step. Never panics and never fails: every outcome, an SQL error included, is a report.
    pub fn step(&mut self, step: &Step) -> StepReport {
        let crash_at = step.crash_at();
        let mut report = self.run(step, crash_at);
        // Not reached: the step ended otherwise, or (the unsafe dual write) by its own exit before the boundary.
        if crash_at.is_some() && report.boundary != crash_at {
            report.crash = Some(CrashMark::NotReached);
        }
        if self.system.synchronous() == protocol::Synchronous::Normal {
            if let Err(stop) = self.system.count_wal_pages() {
                report.message.get_or_insert(stop_message(stop));
            }
        }
        report.sql = self.system.take_sql_log();
        report.passed = self.system.take_passed();
        if let Some(mut seen) = self.effects_seen {
            // A cut may take the newest effects, whose ids the next ones then reuse: count from what is left.
            if matches!(step, Step::PowerCut { .. }) {
                seen = self.system.effects_after(0).map_or(seen, |(_, last)| last);
            }
            if let Ok((effects, last)) = self.system.effects_after(seen) {
                report.effects = effects;
                self.effects_seen = Some(last);
            }
        }
        report
    }

    fn run(&mut self, step: &Step, crash_at: Option<Boundary>) -> StepReport {
        let op = step.op();
        let sys = &mut self.system;
        match step {
            Step::Advance(w) | Step::UnsafeDualWrite(w) => {
                let t = match w.transition() {
                    Ok(t) => t,
                    Err(message) => return rejected(op, message),
                };
                let unsafe_write = matches!(step, Step::UnsafeDualWrite(_));
                let r = sys.run(crash_at, |s| {
                    if unsafe_write {
                        s.unsafe_dual_write(&t)
                    } else {
                        s.advance(&t)
                    }
                });
                finish(op, r.map(|a| StepReport::new(op, a.into())))
            }
            Step::Relay { event_id, .. } => {
                let r = sys.run(crash_at, |s| s.relay(event_id.as_deref()));
                finish(
                    op,
                    r.map(|sent| match sent {
                        None => StepReport::new(op, Outcome::IDLE),
                        Some((id, result)) => {
                            let mut rep = StepReport::new(op, result.outcome());
                            rep.relayed = Some(id);
                            rep
                        }
                    }),
                )
            }
            Step::Receive { event, .. } => {
                let r = sys.run(crash_at, |s| s.receive(event));
                finish(
                    op,
                    r.map(|result| {
                        let mut rep = StepReport::new(op, result.outcome());
                        if let ReceiveResult::Rejected(message) = result {
                            rep.message =
                                Some(format!("event refused at the transport: {message}"));
                        }
                        rep
                    }),
                )
            }
            Step::Apply { flow, .. } => {
                let r = sys.run(crash_at, |s| s.apply(flow));
                let rule_error = sys.take_rule_error();
                finish(
                    op,
                    r.map(|a| {
                        let mut rep = StepReport::new(op, a.into());
                        rep.applied = usize::from(a == ApplyResult::Applied);
                        rep.message = rule_error;
                        rep
                    }),
                )
            }
            Step::ProcessAll { limit, .. } => {
                let limit = limit
                    .map(|l| l.clamp(1, MAX_PROCESS_LIMIT) as u32)
                    .unwrap_or(DEFAULT_PROCESS_LIMIT);
                let r = sys.run(crash_at, |s| s.process_all(limit));
                let rule_error = sys.take_rule_error();
                finish(
                    op,
                    r.map(|p| {
                        let mut rep = StepReport::new(op, Outcome::ProcessAll { done: p.done });
                        rep.flows = Some(p.flows);
                        rep.applied = p.applied;
                        rep.message = rule_error;
                        rep
                    }),
                )
            }
            Step::SetSupportV2 { on } => {
                sys.config.support_v2 = *on;
                StepReport::new(op, Outcome::Ok)
            }
            Step::InjectFault { target } => finish(
                op,
                sys.inject_fault(*target)
                    .map(|()| StepReport::new(op, Outcome::Ok)),
            ),
            Step::ClearFault { target } => finish(
                op,
                sys.clear_fault(*target)
                    .map(|()| StepReport::new(op, Outcome::Ok)),
            ),
            Step::SetSynchronous { .. } | Step::Checkpoint | Step::PowerCut { .. } => {
                power_step(sys, step)
            }
        }
    }

    /// Starts over on empty databases with `setup`, reusing the connections.
    pub fn reset(&mut self, setup: ConsumerSetup) -> Result<(), String> {
        self.system.wipe(setup.config()).map_err(stop_message)
    }

    /// RULE.md's `waiting` for `flow` as the committed rows hold it now.
    pub fn waiting(
        &mut self,
        flow: &str,
    ) -> Result<Vec<crate::protocol::rule::WaitingRow>, String> {
        self.system.waiting(flow).map_err(stop_message)
    }

    /// See [`System::set_quick_restart`].
    pub fn set_quick_restart(&mut self, on: bool) {
        self.system.set_quick_restart(on);
    }

    /// See [`System::track_changes`].
    pub fn track_changes(&mut self) -> Result<(), String> {
        self.system.track_changes().map_err(stop_message)
    }

    /// See [`System::take_changed_tables`].
    pub fn take_changed_tables(&mut self) -> u8 {
        self.system.take_changed_tables()
    }

    /// The system itself, for the checker's loads and reads of compact rows.
    pub(crate) fn system_mut(&mut self) -> &mut System {
        &mut self.system
    }

    /// Both databases' committed rows without their bodies (what a fingerprint reads).
    pub fn rows_without_bodies(&self) -> Result<Snapshot, String> {
        self.system.rows_without_bodies().map_err(stop_message)
    }

    /// The invariant over the committed consumer tables.
    pub fn check_invariant(&self) -> Result<Invariant, String> {
        let view = self.system.consumer_view().map_err(stop_message)?;
        Ok(protocol::invariant::check(&view))
    }

    /// The player's badge: the invariant and `no_loss` over both databases' committed tables.
    pub fn check_badge(&self) -> Result<Invariant, String> {
        Ok(protocol::invariant::check_with_loss(
            &self.rows_without_bodies()?,
        ))
    }

    /// The badge's check of `flows` alone: what [`Session::check_badge`] says of these flows, when no event id
    /// names events of two flows (an event from outside the producer, `receive`, can).
    pub fn check_badge_of(&self, flows: &[&str]) -> Result<Invariant, String> {
        let rows = self.system.rows_of_flows(flows).map_err(stop_message)?;
        Ok(protocol::invariant::check_with_loss(&rows))
    }

    /// See [`System::flows_waiting`].
    pub fn flows_waiting(&self) -> Result<Vec<String>, String> {
        self.system.flows_waiting().map_err(stop_message)
    }

    /// The flow of the outbox row `event_id`, if there is one.
    pub fn flow_of_event(&self, event_id: &str) -> Result<Option<String>, String> {
        self.system.flow_of_event(event_id).map_err(stop_message)
    }

    /// Both databases' committed tables.
    pub fn snapshot(&self) -> Result<Snapshot, String> {
        self.system.snapshot().map_err(stop_message)
    }

    /// The result document for `steps` run so far.
    pub fn result(&self, steps: Vec<StepReport>) -> Result<ResultDoc, String> {
        Ok(ResultDoc::new(steps, self.snapshot()?))
    }
}

/// TRACE.md's three power steps, out of line: the page's first load carries `step` but not these.
#[cold]
#[inline(never)]
fn power_step(sys: &mut System, step: &Step) -> StepReport {
    let op = step.op();
    let r = match step {
        Step::SetSynchronous { mode } => sys.set_synchronous(*mode).map(|()| 0),
        Step::PowerCut { databases } => sys.power_cut(databases),
        _ => sys.checkpoint().map(|()| 0),
    };
    finish(
        op,
        r.map(|lost_rows| StepReport {
            lost_rows,
            ..StepReport::new(op, Outcome::Ok)
        }),
    )
}

pub(crate) fn rejected(op: Op, message: String) -> StepReport {
    let mut rep = StepReport::new(op, Outcome::Rejected);
    rep.message = Some(message);
    rep
}

fn finish(op: Op, r: Result<StepReport, Stop>) -> StepReport {
    match r {
        Ok(rep) => rep,
        Err(Stop::Crash(boundary)) => {
            let mut rep = StepReport::new(op, Outcome::Crashed);
            rep.boundary = Some(boundary);
            rep
        }
        Err(Stop::UnsafeExit) => {
            let mut rep = StepReport::new(op, Outcome::Crashed);
            rep.message = Some(
                "the state change was committed alone; the process exited before writing the outbox".into(),
            );
            rep
        }
        Err(Stop::Sql(message)) => {
            let mut rep = StepReport::new(op, Outcome::SqlError);
            rep.message = Some(message);
            rep
        }
        // Only databases shared by real processes answer this (never a trace on the page's databases).
        Err(Stop::Busy(message)) => {
            let mut rep = StepReport::new(op, Outcome::Busy);
            rep.message = Some(message);
            rep
        }
    }
}

pub(crate) fn stop_message(stop: Stop) -> String {
    match stop {
        Stop::Sql(m) | Stop::Busy(m) => m,
        Stop::Crash(b) => format!("crashed at {b}"),
        Stop::UnsafeExit => "crashed".into(),
    }
}

/// Replays a validated trace on fresh in-memory databases and returns the result document.
pub fn replay(trace: &Trace) -> Result<ResultDoc, String> {
    replay_on(trace, &Location::memory())
}

/// Replays a validated trace on fresh databases at `location`. Where there is no power layer (PostgreSQL),
/// a trace with a power step is refused.
pub fn replay_on(trace: &Trace, location: &Location) -> Result<ResultDoc, String> {
    if !location.has_power_layer() {
        refuse_power(trace)?;
    }
    replay_in(Session::create(location, trace.consumer.clone())?, trace)
}

/// Runs every step of `trace` in `session`, fresh, and reads the result document.
pub fn replay_in(mut session: Session, trace: &Trace) -> Result<ResultDoc, String> {
    let reports = trace.steps.iter().map(|s| session.step(s)).collect();
    session.result(reports)
}

/// A trace for PostgreSQL: without `set_synchronous`, `checkpoint` or `power_cut`, which are SQLite's layer.
pub fn refuse_power(trace: &Trace) -> Result<(), String> {
    let power = trace.steps.iter().position(|s| {
        matches!(
            s,
            Step::SetSynchronous { .. } | Step::Checkpoint | Step::PowerCut { .. }
        )
    });
    match power {
        None => Ok(()),
        Some(i) => Err(format!(
            "step {} ({}): power loss is SQLite's layer (its synchronous setting and its WAL), not PostgreSQL's; \
             replay this trace without --store postgres",
            i + 1,
            trace.steps[i].op()
        )),
    }
}

/// Parses, validates and replays trace text: the CLI's `replay`.
pub fn replay_text(text: &str) -> Result<ResultDoc, TraceError> {
    let trace = super::parse(text)?;
    replay(&trace).map_err(|m| TraceError(format!("the databases failed: {m}")))
}
