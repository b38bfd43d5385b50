//! The explorer: every arrival order of A1–A3, every boundary at every step where it can fire, both consumers,
//! each run followed by restart and recovery. Plain Rust, so the browser runs it in chunks and the native
//! benchmark runs the very same work.

use crate::protocol::rule::Rule;
use crate::protocol::Location;
use crate::protocol::{self, Boundary, Ordering, KINDS};
use crate::trace::{ConsumerSetup, Session, Step, Trace};
use std::sync::Arc;

/// The three events of flow A, in the order the producer commits them.
pub const EVENTS: [&str; 3] = ["A1", "A2", "A3"];

/// An arrival order: the event ids as the consumer receives them (a repeated id is a resend).
pub type Order = Vec<&'static str>;

/// Sorts a few dozen orders in place: an insertion sort, where the standard library's sort would add kilobytes to
/// the page for this one element type.
fn sort_orders(orders: &mut [Order]) {
    for i in 1..orders.len() {
        let mut j = i;
        while j > 0 && orders[j - 1] > orders[j] {
            orders.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// The six permutations, or (extended) every order of the multiset of four cards with one resend.
pub fn orders(extended: bool) -> Vec<Order> {
    let mut out: Vec<Order> = Vec::new();
    if !extended {
        permute(&mut EVENTS.to_vec(), 0, &mut out);
        sort_orders(&mut out);
        return out;
    }
    for dup in EVENTS {
        let mut cards = EVENTS.to_vec();
        cards.push(dup);
        permute(&mut cards, 0, &mut out);
    }
    sort_orders(&mut out);
    out.dedup();
    out
}

fn permute(items: &mut Vec<&'static str>, k: usize, out: &mut Vec<Order>) {
    if k == items.len() {
        out.push(items.clone());
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permute(items, k + 1, out);
        items.swap(k, i);
    }
}

/// How an order is shown: `312`, `3123` for a resend of A3 at the end.
pub fn order_label(order: &[&str]) -> String {
    order.iter().map(|id| &id[1..]).collect()
}

fn advance(n: usize) -> Step {
    Step::advance("A", EVENTS[n], n as i64, KINDS[n], 1)
}

/// The delivery: produce A1–A3, then for each card relay it and process everything.
pub fn base_steps(order: &[&str]) -> Vec<Step> {
    let mut steps: Vec<Step> = (0..3).map(advance).collect();
    for id in order {
        steps.push(Step::relay(Some(id)));
        steps.push(Step::process_all(None));
    }
    steps
}

/// Recovery after the restart (§8's last column): resubmit every transition, resend every event, process.
pub fn recovery_steps() -> Vec<Step> {
    let mut steps: Vec<Step> = (0..3).map(advance).collect();
    steps.extend(EVENTS.iter().map(|id| Step::relay(Some(id))));
    steps.push(Step::process_all(None));
    steps
}

/// One run: a consumer, an order, and the step at which the process exits at `boundary`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub ordering: Ordering,
    /// The reader's rule, with `ordering` [`Ordering::Rule`].
    pub rule: Option<Arc<Rule>>,
    pub order: Order,
    pub boundary: Boundary,
    /// Index into [`base_steps`] of the step that carries `crash_at`.
    pub crash_step: usize,
}

impl Plan {
    /// The run as a trace: the delivery with the crash, then recovery.
    pub fn trace(&self) -> Trace {
        let mut steps = base_steps(&self.order);
        let crashing = steps[self.crash_step]
            .clone()
            .with_crash_at(Some(self.boundary));
        steps[self.crash_step] = crashing;
        steps.extend(recovery_steps());
        Trace::new(setup(self.ordering, &self.rule), steps)
    }
}

/// For a clean run of `order` on `session` (emptied first), the boundaries each step crosses: where a crash
/// can fire.
pub fn reachable(
    session: &mut Session,
    ordering: Ordering,
    rule: &Option<Arc<Rule>>,
    order: &[&str],
) -> Result<Vec<Vec<Boundary>>, String> {
    session.reset(setup(ordering, rule))?;
    Ok(base_steps(order)
        .iter()
        .map(|s| {
            let mut passed = session.step(s).passed;
            passed.dedup();
            passed
        })
        .collect())
}

/// A consumer of the explorer: a built-in, or the rule for [`Ordering::Rule`].
fn setup(ordering: Ordering, rule: &Option<Arc<Rule>>) -> ConsumerSetup {
    ConsumerSetup {
        ordering,
        rule: rule.clone().filter(|_| ordering == Ordering::Rule),
        support_v2: false,
    }
}

/// Every run of the explorer, grouped in the matrix's order (consumer, order, boundary, step).
pub fn plans(orderings: &[Ordering], extended: bool) -> Result<Vec<Plan>, String> {
    let mut planner = Planner::new(orderings, extended);
    while !planner.step_once()? {}
    Ok(planner.plans)
}

/// Builds the plans one (consumer, order) at a time: each needs a clean run to learn where a crash can fire,
/// so the page builds them in slices like everything long.
pub struct Planner {
    orderings: Vec<Ordering>,
    /// The rule [`Ordering::Rule`] runs (see [`Planner::with_rule`]).
    rule: Option<Arc<Rule>>,
    orders: Vec<Order>,
    /// The next (consumer, order) to learn, counting consumer-major.
    next: usize,
    /// One pair of databases for every clean run, emptied between them, as the [`Runner`] does.
    session: Option<Session>,
    pub plans: Vec<Plan>,
}

impl Planner {
    pub fn new(orderings: &[Ordering], extended: bool) -> Planner {
        Planner {
            orderings: orderings.to_vec(),
            rule: None,
            orders: orders(extended),
            next: 0,
            session: None,
            plans: Vec::new(),
        }
    }

    /// The reader's rule, for the consumer [`Ordering::Rule`] among the orderings.
    pub fn with_rule(mut self, rule: Option<Arc<Rule>>) -> Planner {
        self.rule = rule;
        self
    }

    /// Learns one (consumer, order); `Ok(true)` once every plan is built.
    pub fn step_once(&mut self) -> Result<bool, String> {
        let n = self.orders.len();
        let (Some(&ordering), Some(order)) = (
            self.orderings.get(self.next / n.max(1)),
            self.orders.get(self.next % n.max(1)),
        ) else {
            return Ok(true);
        };
        self.next += 1;
        let session = match &mut self.session {
            Some(session) => session,
            None => self.session.insert(Session::create(
                &Location::memory(),
                ConsumerSetup::default(),
            )?),
        };
        let reach = reachable(session, ordering, &self.rule, order)?;
        for boundary in Boundary::ALL {
            for (crash_step, passed) in reach.iter().enumerate() {
                if passed.contains(&boundary) {
                    self.plans.push(Plan {
                        ordering,
                        rule: self.rule.clone().filter(|_| ordering == Ordering::Rule),
                        order: order.clone(),
                        boundary,
                        crash_step,
                    });
                }
            }
        }
        Ok(self.next >= self.orderings.len() * n)
    }
}

/// What one run ended with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The invariant held after every step, and recovery reached `released / 3 / 0` with one effect per event.
    pub ok: bool,
    /// `released/3/0`, or what the projection says instead.
    pub final_state: String,
    pub effects: usize,
    /// The first violation, or what recovery missed.
    pub problem: Option<String>,
}

/// Runs plans one after another on one pair of databases, emptied between runs (opening fresh ones costs
/// more than the run itself).
#[derive(Default)]
pub struct Runner {
    session: Option<Session>,
}

impl Runner {
    /// Runs one plan on empty databases, checking the invariant after every step.
    pub fn run(&mut self, plan: &Plan) -> Outcome {
        let trace = plan.trace();
        let ready = match self.session.as_mut() {
            Some(session) => session.reset(trace.consumer.clone()),
            None => Session::create(&Location::memory(), trace.consumer.clone()).map(|s| {
                self.session = Some(s);
            }),
        };
        let Some(session) = self.session.as_mut().filter(|_| ready.is_ok()) else {
            let e = ready.err().unwrap_or_default();
            self.session = None;
            return failed(e);
        };
        let mut problem = None;
        let mut crashed = false;
        for step in &trace.steps {
            let report = session.step(step);
            crashed |= report.result == protocol::Outcome::Crashed;
            // The invariant reads only the consumer's tables: after a producer step they are as last checked.
            if problem.is_none() && step.may_change_consumer_rows() {
                match session.check_invariant() {
                    Ok(check) => problem = check.violations.into_iter().next(),
                    Err(e) => problem = Some(e),
                }
            }
        }
        let snap = match session.snapshot() {
            Ok(s) => s,
            Err(e) => return failed(e),
        };
        let end = snap
            .consumer
            .projection
            .iter()
            .find(|p| p.flow_id == "A")
            .map(|p| (p.state.as_str(), p.last_seq, p.held))
            .unwrap_or(("new", 0, 0));
        let final_state = format!("{}/{}/{}", end.0, end.1, end.2);
        let effects = snap.consumer.effect.len();
        if problem.is_none() && !crashed {
            problem = Some(format!("{} never fired", plan.boundary));
        }
        if problem.is_none() && end != (KINDS[2], KINDS.len() as i64, 0) {
            problem = Some(format!("recovery ended at {final_state}"));
        }
        if problem.is_none() && effects != 3 {
            problem = Some(format!("{effects} effects for 3 events"));
        }
        Outcome {
            ok: problem.is_none(),
            final_state,
            effects,
            problem,
        }
    }
}

/// Runs one plan on fresh databases (see [`Runner`] for many).
pub fn run(plan: &Plan) -> Outcome {
    Runner::default().run(plan)
}

fn failed(e: String) -> Outcome {
    Outcome {
        ok: false,
        final_state: String::new(),
        effects: 0,
        problem: Some(e),
    }
}
