//! The playground's state: one plain struct changed only by [`Action`]s. Every action that touches the databases
//! becomes a trace step and runs through the core's [`Session`]; the tables shown are read back from SQLite.

use super::i18n::Lang;
use outbox_core::protocol::system::OutboxRow;
use outbox_core::protocol::{next_kind, Boundary, Invariant, Ordering, Snapshot, SqlLine};
use outbox_core::trace::{ConsumerSetup, Session, Step, StepReport, Trace};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// A card on the wire: one delivery of an outbox event, in arrival order. A duplicate card is a resend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    /// Unique per card (a duplicate gets its own), for list keys.
    pub key: u32,
    pub event_id: String,
}

/// One executed step with its report, as the event log shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub step: Step,
    pub report: StepReport,
}

#[derive(Clone)]
pub struct Model {
    session: Rc<RefCell<Session>>,
    pub setup: ConsumerSetup,
    /// Every step run so far, with its report: the session *is* this trace.
    pub entries: Vec<Entry>,
    /// How many of `entries` the databases currently reflect (time travel); equal to `entries.len()` unless the
    /// reader stepped back. Acting from a past position cuts the future off.
    pub pos: usize,
    /// The preset loaded last, with the article's expected outcome beside the live one.
    pub preset: Option<Rc<Preset>>,
    /// A chunked replay in progress: steps done and steps in all.
    pub loading: Option<(usize, usize)>,
    /// Committed tables after the latest step, and before it (to highlight what the step changed).
    pub snapshot: Rc<Snapshot>,
    pub before: Rc<Snapshot>,
    pub invariant: Invariant,
    /// The SQL both databases ran in the latest action.
    pub sql: Rc<Vec<SqlLine>>,
    pub lane: Vec<Card>,
    next_card: u32,
    /// The boundary at which the process will exit, armed until an operation crosses it.
    pub armed: Option<Boundary>,
    /// Set after a crash until the reader restarts the process.
    pub down: Option<Option<Boundary>>,
    pub flows: Vec<String>,
    /// Produce the next events in schema 2 (§6).
    pub schema2: bool,
    /// A message for the reader (an error or what a restart did).
    pub notice: Option<Notice>,
    pub lang: Lang,
}

impl PartialEq for Model {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.session, &other.session)
            && self.entries.len() == other.entries.len()
            && self.lane == other.lane
            && self.armed == other.armed
            && self.down == other.down
            && self.flows == other.flows
            && self.schema2 == other.schema2
            && self.notice == other.notice
            && self.lang == other.lang
            && self.loading == other.loading
            && self.pos == other.pos
            && self.setup == other.setup
    }
}

/// A loaded experiment: what the article expects and what this browser got, side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    pub index: usize,
    pub id: String,
    pub title: String,
    pub section: String,
    pub summary: String,
    pub expected: String,
    pub got: String,
    pub ok: bool,
    pub mismatches: Vec<String>,
}

/// A replay the page runs a slice at a time: a long load ([`Loader`]) or time travel ([`Seeker`]).
pub trait Replay {
    /// Runs one step; `Ok(true)` once every step has run.
    fn step_once(&mut self) -> Result<bool, String>;
    /// Steps done and steps in all.
    fn progress(&self) -> (usize, usize);
    /// The model at the end of the replay.
    fn finish(self) -> Model;
}

impl Replay for Loader {
    fn step_once(&mut self) -> Result<bool, String> {
        Ok(Loader::step_once(self))
    }
    fn progress(&self) -> (usize, usize) {
        Loader::progress(self)
    }
    fn finish(self) -> Model {
        Loader::finish(self)
    }
}

/// Time travel in progress to step `n`: forward runs the next steps on the current session; backward replays the
/// first `n` on fresh databases. A slice at a time when there are many. Only the last step's SQL is logged (the
/// panel shows no more), which also keeps the replay free of formatting.
pub struct Seeker {
    model: Model,
    session: Rc<RefCell<Session>>,
    n: usize,
    next: usize,
    before: Rc<Snapshot>,
    sql: Vec<SqlLine>,
}

impl Replay for Seeker {
    /// Runs one step; `true` once the `n` steps have run.
    fn step_once(&mut self) -> Result<bool, String> {
        if self.next >= self.n {
            return Ok(true);
        }
        let mut session = self.session.borrow_mut();
        if self.next + 1 == self.n {
            self.before = Rc::new(session.snapshot()?);
            session.set_sql_logging(true);
        }
        self.sql = session.step(&self.model.entries[self.next].step).sql;
        self.next += 1;
        Ok(self.next >= self.n)
    }

    /// Steps done and steps in all.
    fn progress(&self) -> (usize, usize) {
        (self.next, self.n)
    }

    /// The model at the step reached (`n`, unless a step failed), its tables read back from SQLite; the steps
    /// after it stay for going forward.
    fn finish(self) -> Model {
        let Seeker {
            mut model,
            session,
            next,
            before,
            sql,
            ..
        } = self;
        session.borrow_mut().set_sql_logging(true);
        model.sql = Rc::new(sql);
        model.before = before;
        model.session = session;
        model.pos = next;
        model.down = None;
        model.reload();
        model.refill_lane();
        model
    }
}

/// A trace being replayed into a fresh model, a slice at a time, so a 10,000-step trace never freezes the page.
pub struct Loader {
    fresh: Model,
    steps: Vec<Step>,
    next: usize,
}

impl Loader {
    /// Runs one step; `true` once every step has run.
    pub fn step_once(&mut self) -> bool {
        let Some(step) = self.steps.get(self.next) else {
            return true;
        };
        let fresh = &mut self.fresh;
        if let Step::Advance { flow, .. }
        | Step::UnsafeDualWrite { flow, .. }
        | Step::Apply { flow, .. } = step
        {
            if !fresh.flows.contains(flow) {
                fresh.flows.push(flow.clone());
            }
        }
        let mut report = fresh.session.borrow_mut().step(step);
        // Only the last step's SQL is shown; a long trace must not keep every statement.
        fresh.sql = Rc::new(std::mem::take(&mut report.sql));
        fresh.entries.push(Entry {
            step: step.clone(),
            report,
        });
        self.next += 1;
        self.next >= self.steps.len()
    }

    /// Steps done and steps in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.next, self.steps.len())
    }

    /// The model after the replay, reading its tables back from SQLite.
    pub fn finish(mut self) -> Model {
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
            if !fresh.flows.contains(flow) {
                fresh.flows.push(flow.clone());
            }
        }
        fresh.refill_lane();
        fresh.before = fresh.snapshot.clone();
        self.fresh
    }
}

/// What the page tells the reader outside the event log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The reader restarted after a crash at this boundary (`None`: the unsafe dual write's exit).
    Restarted(Option<Boundary>),
    /// A restart with no crash before it: nothing changes, since every table is already what was committed.
    CleanRestart,
    Error(String),
}

pub enum Action {
    Advance(String),
    DeliverNext,
    DeliverAll,
    Apply(String),
    ProcessAll,
    Restart,
    Reset,
    SetMode(Ordering),
    SetSupportV2(bool),
    /// Installs or drops a rejecting trigger (experiment 10).
    Fault(outbox_core::protocol::FaultTarget, bool),
    SetSchema2(bool),
    AddFlow(String),
    Arm(Option<Boundary>),
    MoveCard {
        from: usize,
        to: usize,
    },
    DuplicateCard(usize),
    RemoveCard(usize),
    /// Puts A1–A3 in this arrival order ("312"), producing them first if needed.
    Order(&'static str),
    SetLang(Lang),
    DismissNotice,
    /// Time travel: show the databases as they were after this many steps.
    Seek(usize),
    /// Replaces the session with a trace (an import, a share link, an explorer run).
    Load(Box<Trace>),
    /// Loads one of the article's experiments (an index into `experiments::ALL`).
    LoadPreset(usize),
    /// A chunked replay finished: its model replaces the session.
    Replace(Box<Model>),
    /// A chunked replay is at step `.0` of `.1` (`None` when it ends).
    Loading(Option<(usize, usize)>),
    Error(String),
}

impl Model {
    /// Fresh databases; fails only when SQLite cannot open an in-memory database.
    pub fn new(setup: ConsumerSetup, lang: Lang) -> Result<Model, String> {
        let mut session = Session::new(setup)?;
        session.set_sql_logging(true);
        let snapshot = Rc::new(session.snapshot()?);
        Ok(Model {
            session: Rc::new(RefCell::new(session)),
            setup,
            entries: Vec::new(),
            pos: 0,
            preset: None,
            loading: None,
            before: snapshot.clone(),
            snapshot,
            invariant: Invariant {
                holds: true,
                violations: Vec::new(),
            },
            sql: Rc::new(Vec::new()),
            lane: Vec::new(),
            next_card: 1,
            armed: None,
            down: None,
            flows: vec!["A".into()],
            schema2: false,
            notice: None,
            lang,
        })
    }

    pub fn support_v2(&self) -> bool {
        self.snapshot.consumer.support_v2
    }

    pub fn ordering(&self) -> Ordering {
        self.setup.ordering
    }

    /// The session up to the current position, as a trace.
    pub fn trace(&self) -> Trace {
        Trace::new(
            self.setup,
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
    pub fn fault_active(&self, target: outbox_core::protocol::FaultTarget) -> bool {
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

    /// Runs one step through the engine, arming the crash if one is set, and reads the tables back.
    fn run(&mut self, step: Step) -> StepReport {
        // Acting from a past position starts a new branch.
        self.entries.truncate(self.pos);
        let step = step.with_crash_at(self.armed);
        let mut report = self.session.borrow_mut().step(&step);
        let sql = std::mem::take(&mut report.sql);
        Rc::make_mut(&mut self.sql).extend(sql);
        if report.result == "crashed" {
            self.armed = None;
            self.down = Some(report.boundary);
        }
        if report.result == "committed" {
            if let Step::Advance { event_id, .. } = &step {
                self.push_card(event_id.clone());
            }
        }
        self.entries.push(Entry {
            step,
            report: report.clone(),
        });
        self.pos = self.entries.len();
        // Read the tables back after every step: the next step of a multi-step action decides from them.
        self.reload();
        report
    }

    fn push_card(&mut self, event_id: String) {
        self.lane.push(Card {
            key: self.next_card,
            event_id,
        });
        self.next_card += 1;
    }

    /// Delivers the first card; it leaves the wire unless the process died on the way (then the relay will
    /// resend it after the restart, §4).
    fn deliver_first(&mut self) -> bool {
        let Some(card) = self.lane.first().cloned() else {
            return false;
        };
        let report = self.run(Step::relay(Some(&card.event_id)));
        if report.result != "crashed" {
            self.lane.remove(0);
        }
        report.result != "crashed"
    }

    /// Reads the committed tables back from SQLite and checks the invariant on them.
    fn reload(&mut self) {
        let snapshot = self.session.borrow().snapshot();
        match snapshot {
            Ok(s) => {
                self.invariant = outbox_core::protocol::invariant::check(&s);
                self.snapshot = Rc::new(s);
            }
            Err(e) => self.notice = Some(Notice::Error(e)),
        }
    }

    fn reset_to(&mut self, setup: ConsumerSetup) {
        match Model::new(setup, self.lang) {
            Ok(mut fresh) => {
                fresh.flows = std::mem::take(&mut self.flows);
                fresh.schema2 = self.schema2;
                *self = fresh;
            }
            Err(e) => self.notice = Some(Notice::Error(e)),
        }
    }

    /// Goes to step `n` at once: forward by running the next steps on the current session, back by replaying
    /// the first `n` on fresh databases (deterministic either way); the future stays for going forward.
    fn seek(&mut self, n: usize) -> Result<(), String> {
        let mut seeker = self.seeker(n, true)?;
        let result = loop {
            match seeker.step_once() {
                Ok(true) => break Ok(()),
                Ok(false) => {}
                Err(e) => break Err(e),
            }
        };
        // After a failed step too: a step forward may already have moved the session, so show where it is.
        *self = seeker.finish();
        result
    }

    /// Time travel to step `n` that can run a few steps at a time ([`Seeker`]), like a long load. With
    /// `continue_forward`, a step forward continues the current session (it is exactly the first `pos` steps
    /// replayed); only for a seek run at once, since the page keeps using that session meanwhile otherwise.
    pub fn seeker(&self, n: usize, continue_forward: bool) -> Result<Seeker, String> {
        let n = n.min(self.entries.len());
        let (session, next, before) = if continue_forward && n >= self.pos {
            self.session.borrow_mut().set_sql_logging(false);
            (self.session.clone(), self.pos, self.before.clone())
        } else {
            let mut fresh = Session::new(self.setup)?;
            fresh.set_sql_logging(false);
            let before = Rc::new(fresh.snapshot()?);
            (Rc::new(RefCell::new(fresh)), 0, before)
        };
        Ok(Seeker {
            model: self.clone(),
            session,
            n,
            next,
            before,
            sql: Vec::new(),
        })
    }

    /// A fresh session that has run `trace`, all at once (presets and short traces).
    pub fn load(&mut self, trace: &Trace) -> Result<(), String> {
        let mut loader = self.loader(trace.clone())?;
        while !loader.step_once() {}
        *self = loader.finish();
        Ok(())
    }

    /// A replay of `trace` on fresh databases that can be run a few steps at a time ([`Loader`]).
    pub fn loader(&self, trace: Trace) -> Result<Loader, String> {
        let mut fresh = Model::new(trace.consumer, self.lang)?;
        fresh.schema2 = self.schema2;
        Ok(Loader {
            fresh,
            steps: trace.steps,
            next: 0,
        })
    }

    /// After a jump (load, time travel) the wire holds what the relay would still send: unaccepted rows.
    fn refill_lane(&mut self) {
        self.lane.clear();
        // By flow, then seq (the snapshot is by event id), each row put in its place as it comes: no sort
        // routine for this one row type in the page.
        let mut rows: Vec<&OutboxRow> = Vec::new();
        for r in self
            .snapshot
            .producer
            .outbox
            .iter()
            .filter(|r| r.accepted == 0)
        {
            let at = rows.partition_point(|x| (&x.flow_id, x.seq) < (&r.flow_id, r.seq));
            rows.insert(at, r);
        }
        let ids: Vec<String> = rows.iter().map(|r| r.event_id.clone()).collect();
        for id in ids {
            self.push_card(id);
        }
    }

    fn order(&mut self, order: &str) {
        let ids: Vec<String> = order.chars().map(|c| format!("A{c}")).collect();
        let in_lane = |m: &Model, id: &str| m.lane.iter().filter(|c| c.event_id == id).count() == 1;
        if !ids.iter().all(|id| in_lane(self, id)) {
            // Start the order from scratch: a fresh session that produces A1–A3 (same consumer and support_v2).
            let setup = ConsumerSetup {
                ordering: self.setup.ordering,
                support_v2: self.support_v2(),
            };
            self.reset_to(setup);
            for _ in 0..3 {
                if let Some(step) = self.next_transition("A") {
                    self.run(step);
                }
            }
        }
        // The slots the three A cards occupy, refilled in the chosen order.
        let slots: Vec<usize> = self
            .lane
            .iter()
            .enumerate()
            .filter(|(_, c)| ids.contains(&c.event_id))
            .map(|(i, _)| i)
            .collect();
        let mut cards: Vec<Card> = ids
            .iter()
            .filter_map(|id| self.lane.iter().find(|c| &c.event_id == id).cloned())
            .collect();
        for slot in slots.into_iter().rev() {
            if let Some(card) = cards.pop() {
                self.lane[slot] = card;
            }
        }
    }
}

impl Reducible for Model {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut m = (*self).clone();
        let before = m.snapshot.clone();
        let touches_db = !matches!(
            action,
            Action::Arm(_)
                | Action::MoveCard { .. }
                | Action::DuplicateCard(_)
                | Action::RemoveCard(_)
                | Action::SetLang(_)
                | Action::DismissNotice
                | Action::SetSchema2(_)
                | Action::AddFlow(_)
                | Action::Error(_)
                | Action::Loading(_)
        );
        if let Action::Seek(n) = action {
            if n.min(m.entries.len()) == m.pos && m.loading.is_none() {
                return self; // Already there: nothing to replay, the SQL panel keeps the step it shows.
            }
        }
        if touches_db {
            m.sql = Rc::new(Vec::new());
            m.notice = None;
            if !matches!(action, Action::Replace(_)) {
                // The reader's action supersedes a replay still running in slices (a long load or time
                // travel): it acts on the page as it is, and the replay stops.
                crate::ui::cancel_loads();
                m.loading = None;
            }
        }
        match action {
            Action::Advance(flow) => {
                if let Some(step) = m.next_transition(&flow) {
                    m.run(step);
                }
            }
            Action::DeliverNext => {
                m.deliver_first();
            }
            Action::DeliverAll => {
                // Bounded by the cards on the wire; stops at a crash.
                for _ in 0..m.lane.len() {
                    if !m.deliver_first() {
                        break;
                    }
                }
            }
            Action::Apply(flow) => {
                m.run(Step::apply(&flow));
            }
            Action::ProcessAll => {
                m.run(Step::process_all(None));
            }
            Action::Restart => {
                // The engine already reopened the databases from what was committed; this is the reader's
                // acknowledgement, and the moment the page says what survived.
                m.notice = Some(match m.down.take() {
                    Some(boundary) => Notice::Restarted(boundary),
                    None => Notice::CleanRestart,
                });
                // A restarted relay reads the outbox again: every row not yet accepted is due to be sent (§4),
                // including one whose card never reached the wire because the producer died after committing.
                let unsent: Vec<String> = m
                    .snapshot
                    .producer
                    .outbox
                    .iter()
                    .filter(|r| r.accepted == 0 && !m.lane.iter().any(|c| c.event_id == r.event_id))
                    .map(|r| r.event_id.clone())
                    .collect();
                for id in unsent {
                    m.push_card(id);
                }
            }
            Action::Reset => {
                crate::ui::cancel_loads();
                let setup = ConsumerSetup {
                    ordering: m.setup.ordering,
                    support_v2: false,
                };
                m.reset_to(setup);
            }
            Action::SetMode(ordering) => {
                let setup = ConsumerSetup {
                    ordering,
                    support_v2: m.support_v2(),
                };
                m.reset_to(setup);
            }
            Action::SetSupportV2(on) => {
                m.run(Step::SetSupportV2 { on });
            }
            Action::Fault(target, on) => {
                m.run(if on {
                    Step::InjectFault { target }
                } else {
                    Step::ClearFault { target }
                });
            }
            Action::SetSchema2(on) => m.schema2 = on,
            Action::AddFlow(flow) => {
                if !m.flows.contains(&flow) {
                    m.flows.push(flow);
                }
            }
            Action::Arm(boundary) => m.armed = boundary,
            Action::MoveCard { from, to } => {
                if from < m.lane.len() && to < m.lane.len() && from != to {
                    let card = m.lane.remove(from);
                    m.lane.insert(to, card);
                }
            }
            Action::DuplicateCard(i) => {
                if let Some(card) = m.lane.get(i).cloned() {
                    let copy = Card {
                        key: m.next_card,
                        event_id: card.event_id,
                    };
                    m.next_card += 1;
                    m.lane.insert(i + 1, copy);
                }
            }
            Action::RemoveCard(i) => {
                if i < m.lane.len() {
                    m.lane.remove(i);
                }
            }
            Action::Order(order) => m.order(order),
            Action::SetLang(lang) => m.lang = lang,
            Action::DismissNotice => m.notice = None,
            Action::Error(message) => {
                m.loading = None;
                m.notice = Some(Notice::Error(message));
            }
            Action::Loading(progress) => m.loading = progress,
            Action::Replace(model) => {
                let lang = m.lang;
                m = *model;
                m.lang = lang;
                m.loading = None;
                return Rc::new(m);
            }
            Action::Seek(n) => {
                if let Err(e) = m.seek(n) {
                    m.notice = Some(Notice::Error(e));
                }
                return Rc::new(m);
            }
            Action::Load(trace) => {
                if let Err(e) = m.load(&trace) {
                    m.notice = Some(Notice::Error(e));
                }
                m.before = m.snapshot.clone();
                return Rc::new(m);
            }
            Action::LoadPreset(index) => {
                match load_preset(&mut m, index) {
                    Ok(preset) => m.preset = Some(Rc::new(preset)),
                    Err(e) => m.notice = Some(Notice::Error(e)),
                }
                m.before = m.snapshot.clone();
                return Rc::new(m);
            }
        }
        if touches_db {
            m.before = before;
        }
        Rc::new(m)
    }
}

/// Loads experiment `index` into the player and compares its live result with the article's.
fn load_preset(m: &mut Model, index: usize) -> Result<Preset, String> {
    let experiment = outbox_core::experiments::ALL
        .get(index)
        .ok_or_else(|| format!("there is no experiment {}", index + 1))?;
    let check = outbox_core::experiments::check(experiment)?;
    let trace = outbox_core::trace::parse(experiment.text).map_err(|e| e.0)?;
    m.load(&trace)?;
    Ok(Preset {
        index,
        id: check.id.clone(),
        title: check.title.clone(),
        section: check.section.clone(),
        summary: check.summary.clone(),
        expected: outbox_core::experiments::digest(&check.expected),
        got: outbox_core::experiments::digest(&check.got),
        ok: check.ok(),
        mismatches: check.mismatches.clone(),
    })
}
