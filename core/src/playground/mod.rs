//! The playground's façade: everything the page does that is not drawing. One plain value, [`Playground`],
//! changed only by [`Command`]s through [`Playground::apply`]: the session and its trace, the wire (cards,
//! arrival order, resends), time travel (position, seek, branching), sliced replays ([`replay`]), restart,
//! and the article's experiments compared with the live result ([`preset`]). Tested natively by
//! `cargo test -p outbox-core --test playground`; the page's reducer maps an action to one call here.

mod command;
pub mod compare;
mod power;
pub mod preset;
pub mod replay;
mod wire;

pub use command::Command;
pub use compare::{Backwards, FlowOutcome};
pub use preset::Preset;
pub use replay::{Loader, Replay, Replayed, Seeker};
pub use wire::Card;

use crate::protocol::Location;
use crate::protocol::{
    invariant, next_kind, Boundary, FaultTarget, Invariant, Ordering, Outcome, Snapshot, SqlLine,
    Synchronous,
};
use crate::trace::{ConsumerSetup, Session, Step, StepReport, Trace};
use std::cell::{RefCell, RefMut};
use std::rc::Rc;

/// The playground's two databases: opened at once ([`Playground::new`]), or on first use
/// ([`Playground::unopened`]: a page can draw a fresh playground, whose tables are known to be empty, before
/// SQLite has run, and open them in a task of its own with [`Playground::open`]).
pub(crate) struct Databases {
    setup: ConsumerSetup,
    session: RefCell<Option<Session>>,
}

impl Databases {
    fn opened(session: Session) -> Rc<Databases> {
        let setup = session.setup();
        Rc::new(Databases {
            setup,
            session: RefCell::new(Some(session)),
        })
    }

    /// The session, opening the databases first if they are not open yet (SQL and effects logged, as the page
    /// shows them). Fails only when SQLite cannot open an in-memory database.
    pub(crate) fn get(&self) -> Result<RefMut<'_, Session>, String> {
        let mut slot = self.session.borrow_mut();
        if slot.is_none() {
            *slot = Some(open_session(self.setup.clone())?);
        }
        RefMut::filter_map(slot, Option::as_mut)
            .map_err(|_| "the databases are not open".to_string())
    }

    fn is_open(&self) -> bool {
        self.session.borrow().is_some()
    }
}

/// A fresh session as the playground runs it: every statement and effect logged for the page. Out of line: each
/// of `Databases::get`'s callers would otherwise carry a copy of opening two databases.
#[cold]
#[inline(never)]
fn open_session(setup: ConsumerSetup) -> Result<Session, String> {
    let mut session = Session::create(&Location::memory(), setup)?;
    session.set_sql_logging(true);
    session.set_effect_log(true);
    Ok(session)
}

/// One executed step with its report, as the event log shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub step: Step,
    pub report: StepReport,
}

/// What the page tells the reader outside the event log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The reader restarted after a crash at this boundary (`None`: the unsafe dual write's exit).
    Restarted(Option<Boundary>),
    /// A restart with no crash before it: nothing changes, since every table is already what was committed.
    CleanRestart,
    /// The power went out under this `synchronous`, taking this many committed rows with it.
    PowerCut(Synchronous, usize),
    /// Choosing an order started a fresh session: the history of this many steps was set aside.
    StartedOver(usize),
    /// The consumer was switched: the same history of this many steps now runs under it, and this many steps
    /// after the position (the future of a time travel) were dropped.
    Switched {
        steps: usize,
        dropped: usize,
    },
    Error(String),
}

#[derive(Clone)]
pub struct Playground {
    session: Rc<Databases>,
    pub setup: ConsumerSetup,
    /// Every step run so far, with its report: the session *is* this trace.
    pub entries: Vec<Entry>,
    /// How many of `entries` the databases currently reflect (time travel); equal to `entries.len()` unless the
    /// reader stepped back. Acting from a past position cuts the future off.
    pub pos: usize,
    /// The preset loaded last, with the article's expected outcome beside the live one.
    pub preset: Option<Rc<Preset>>,
    /// Committed tables after the latest step, and before it (to highlight what the step changed).
    pub snapshot: Rc<Snapshot>,
    pub before: Rc<Snapshot>,
    pub invariant: Invariant,
    /// The first step (an index into `entries`) after which the invariant failed: the diagram marks it and
    /// the explanation starts there. Kept while the reader travels in time; a new branch drops it if cut off.
    pub broke_at: Option<usize>,
    /// The SQL both databases ran in the latest action.
    pub sql: Rc<Vec<SqlLine>>,
    pub lane: Vec<Card>,
    next_card: u32,
    /// The boundary at which the process will exit, armed until an operation crosses it.
    pub armed: Option<Boundary>,
    /// The consumer the reader switched from, to compare the same history under it ([`Playground::compare`]).
    pub previous: Option<ConsumerSetup>,
    /// Set after a crash until the reader restarts the process.
    pub down: Option<Option<Boundary>>,
    pub flows: Vec<String>,
    /// Produce the next events in schema 2 (§6).
    pub schema2: bool,
    /// A message for the reader (an error or what a restart did).
    pub notice: Option<Notice>,
}

impl PartialEq for Playground {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.session, &other.session)
            && self.entries.len() == other.entries.len()
            && self.lane == other.lane
            && self.armed == other.armed
            && self.down == other.down
            && self.flows == other.flows
            && self.schema2 == other.schema2
            && self.notice == other.notice
            && self.pos == other.pos
            && self.broke_at == other.broke_at
            && self.setup == other.setup
            && self.previous == other.previous
    }
}

impl Playground {
    /// Fresh databases; fails only when SQLite cannot open an in-memory database.
    pub fn new(setup: ConsumerSetup) -> Result<Playground, String> {
        let pg = Playground::unopened(setup);
        pg.open()?;
        Ok(pg)
    }

    /// A fresh playground whose databases open on first use, or with [`Playground::open`]: until then it shows
    /// the empty tables a fresh pair of databases has ([`Snapshot::empty`]) without running SQLite.
    pub fn unopened(setup: ConsumerSetup) -> Playground {
        let snapshot = Rc::new(Snapshot::empty(setup.support_v2));
        Playground {
            session: Rc::new(Databases {
                setup: setup.clone(),
                session: RefCell::new(None),
            }),
            setup,
            entries: Vec::new(),
            pos: 0,
            preset: None,
            before: snapshot.clone(),
            snapshot,
            invariant: Invariant {
                holds: true,
                violations: Vec::new(),
            },
            broke_at: None,
            sql: Rc::new(Vec::new()),
            lane: Vec::new(),
            next_card: 1,
            armed: None,
            previous: None,
            down: None,
            flows: vec!["A".into()],
            schema2: false,
            notice: None,
        }
    }

    /// Opens the databases if they are not open yet; fails only when SQLite cannot open an in-memory database
    /// (and then every action that runs on them says so).
    pub fn open(&self) -> Result<(), String> {
        self.session.get().map(drop)
    }

    /// Whether the databases have been opened (by [`Playground::open`] or by a first action on them).
    pub fn is_open(&self) -> bool {
        self.session.is_open()
    }

    pub fn support_v2(&self) -> bool {
        self.snapshot.consumer.support_v2
    }

    pub fn ordering(&self) -> Ordering {
        self.setup.ordering
    }

    /// The reader's rule, when the consumer is one.
    pub fn rule(&self) -> Option<&std::sync::Arc<crate::protocol::rule::Rule>> {
        self.setup.rule.as_ref()
    }

    /// The session up to the current position, as a trace.
    pub fn trace(&self) -> Trace {
        Trace::new(
            self.setup.clone(),
            self.entries[..self.pos]
                .iter()
                .map(|e| e.step.clone())
                .collect(),
        )
    }

    /// The step the tables currently show the result of.
    pub fn last(&self) -> Option<&Entry> {
        self.pos.checked_sub(1).and_then(|i| self.entries.get(i))
    }

    /// Whether a rejecting trigger is installed: the last inject or clear of `target` up to the position.
    pub fn fault_active(&self, target: FaultTarget) -> bool {
        self.entries[..self.pos]
            .iter()
            .rev()
            .find_map(|e| match &e.step {
                Step::InjectFault { target: t } if *t == target => Some(true),
                Step::ClearFault { target: t } if *t == target => Some(false),
                _ => None,
            })
            .unwrap_or(false)
    }

    /// The transition the producer would commit next for `flow`, or `None` once it is released.
    pub fn next_transition(&self, flow: &str) -> Option<Step> {
        let row = self
            .snapshot
            .producer
            .flow
            .iter()
            .find(|f| f.flow_id == flow);
        let (seq, state) = row.map(|r| (r.seq, r.state.as_str())).unwrap_or((0, "new"));
        let kind = next_kind(state)?;
        let schema = if self.schema2 && seq > 0 { 2 } else { 1 };
        Some(Step::advance(
            flow,
            &format!("{flow}{}", seq + 1),
            seq,
            kind,
            schema,
        ))
    }

    /// Does what the reader asked. Never fails: a failure is a [`Notice::Error`].
    pub fn apply(&mut self, command: Command) {
        let before = self.snapshot.clone();
        let touches_db = command.touches_db();
        if touches_db {
            self.sql = Rc::new(Vec::new());
            self.notice = None;
        }
        match command {
            Command::Advance(flow) => {
                if let Some(step) = self.next_transition(&flow) {
                    self.run(step);
                }
            }
            Command::DeliverNext => {
                self.deliver_first();
            }
            Command::DeliverAll => {
                // Bounded by the cards on the wire; stops at a crash.
                for _ in 0..self.lane.len() {
                    if !self.deliver_first() {
                        break;
                    }
                }
            }
            Command::Apply(flow) => {
                self.run(Step::apply(&flow));
            }
            Command::ProcessAll => {
                self.run(Step::process_all(None));
            }
            Command::Restart => self.restart(),
            Command::Reset => self.reset_to(ConsumerSetup {
                support_v2: false,
                ..self.setup.clone()
            }),
            Command::SetMode(ordering) => {
                self.switch(ConsumerSetup::builtin(ordering, self.setup.support_v2))
            }
            Command::SetRule(rule) => {
                self.switch(ConsumerSetup::with_rule(rule, self.setup.support_v2))
            }
            Command::SetSupportV2(on) => {
                self.run(Step::SetSupportV2 { on });
            }
            Command::Fault(target, on) => {
                self.run(if on {
                    Step::InjectFault { target }
                } else {
                    Step::ClearFault { target }
                });
            }
            Command::SetSynchronous(mode) => self.power(Step::SetSynchronous { mode }),
            Command::Checkpoint => self.power(Step::Checkpoint),
            Command::PowerCut(databases) => self.power(Step::PowerCut { databases }),
            Command::SetSchema2(on) => self.schema2 = on,
            Command::AddFlow(flow) => self.add_flow(&flow),
            Command::Arm(boundary) => self.armed = boundary,
            Command::MoveCard { from, to } => self.move_card(from, to),
            Command::DuplicateCard(i) => self.duplicate_card(i),
            Command::RemoveCard(i) => {
                if i < self.lane.len() {
                    self.lane.remove(i);
                }
            }
            Command::Order(order) => self.order(order),
            Command::DismissNotice => self.notice = None,
            Command::Error(message) => self.notice = Some(Notice::Error(message)),
            Command::Seek(n) => {
                if let Err(e) = self.seek(n) {
                    self.notice = Some(Notice::Error(e));
                }
                return;
            }
            Command::Load(trace) => {
                if let Err(e) = self.load(&trace) {
                    self.notice = Some(Notice::Error(e));
                }
                self.before = self.snapshot.clone();
                return;
            }
            Command::LoadPreset(index) => {
                match preset::load(self, index) {
                    Ok(preset) => self.preset = Some(Rc::new(preset)),
                    Err(e) => self.notice = Some(Notice::Error(e)),
                }
                self.before = self.snapshot.clone();
                return;
            }
            Command::OpenPreset { index, step } => {
                self.apply(Command::LoadPreset(index));
                let at = step.or(self.preset.as_ref().map(|p| p.moment));
                if let Some(at) = at.filter(|&at| at < self.pos) {
                    self.apply(Command::Seek(at));
                }
                return;
            }
        }
        if touches_db {
            self.before = before;
        }
    }

    fn add_flow(&mut self, flow: &str) {
        if !self.flows.iter().any(|f| f == flow) {
            self.flows.push(flow.to_owned());
        }
    }

    /// Runs one step through the engine, arming the crash if one is set, and reads the tables back.
    fn run(&mut self, step: Step) -> StepReport {
        // Acting from a past position starts a new branch.
        self.entries.truncate(self.pos);
        if self.broke_at.is_some_and(|i| i >= self.pos) {
            self.broke_at = None;
        }
        let step = step.with_crash_at(self.armed);
        let report = match self.session.get() {
            Ok(mut session) => session.step(&step),
            Err(e) => {
                self.notice = Some(Notice::Error(e.clone()));
                return crate::trace::session::rejected(step.op(), e);
            }
        };
        // The entry keeps its SQL too: the diagram shows a step's statements when the reader points at it.
        Rc::make_mut(&mut self.sql).extend(report.sql.iter().cloned());
        match (report.result, &step) {
            (Outcome::Crashed, _) => {
                self.armed = None;
                self.down = Some(report.boundary);
            }
            (Outcome::COMMITTED, Step::Advance(w)) => self.push_card(w.event_id.clone()),
            _ => {}
        }
        self.entries.push(Entry {
            step,
            report: report.clone(),
        });
        self.pos = self.entries.len();
        // Read the tables back after every step: the next step of a multi-step action decides from them.
        self.reload();
        if !self.invariant.holds && self.broke_at.is_none() {
            self.broke_at = Some(self.pos - 1);
        }
        report
    }

    /// Reads the committed tables back from SQLite and checks the invariant on them.
    fn reload(&mut self) {
        let snapshot = self.session.get().and_then(|session| session.snapshot());
        match snapshot {
            Ok(s) => {
                self.invariant = invariant::check_with_loss(&s);
                self.snapshot = Rc::new(s);
            }
            Err(e) => self.notice = Some(Notice::Error(e)),
        }
    }

    /// Starts over on empty databases with `setup`, keeping the reader's flows and schema switch.
    fn reset_to(&mut self, setup: ConsumerSetup) {
        match Playground::new(setup) {
            Ok(mut fresh) => {
                fresh.flows = std::mem::take(&mut self.flows);
                fresh.schema2 = self.schema2;
                *self = fresh;
            }
            Err(e) => self.notice = Some(Notice::Error(e)),
        }
    }

    /// The reader restarts the process. The engine already reopened the databases from what was committed;
    /// this is the acknowledgement, the moment the page says what survived, and the restarted relay's resend.
    fn restart(&mut self) {
        self.notice = Some(match self.down.take() {
            Some(boundary) => Notice::Restarted(boundary),
            None => Notice::CleanRestart,
        });
        self.resend_unaccepted();
    }
}
