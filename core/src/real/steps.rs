//! The steps a worker process runs, shared by the worker (the child, `worker.rs`) and the job that starts it
//! (the parent: `crash.rs`, `race.rs`, `soak.rs`, `power.rs`), so that neither imports the other.

use super::Rng;
use crate::protocol::conn::Conn;
use crate::protocol::vocab::P;
use crate::protocol::{Boundary, Event, Location, Role, WriteMode, KINDS};
use crate::trace::Step;

/// The steps a worker runs for `boundary`: the first step of flow A — produce A1, relay it, apply it — as far
/// as the step that crosses the boundary, which carries `crash_at`.
pub fn steps_to(boundary: Boundary) -> Vec<Step> {
    use Boundary::*;
    let mut steps = vec![Step::advance("A", "A1", 0, "reserved", 1)];
    match boundary {
        ProducerAfterState | ProducerAfterOutbox | ProducerAfterCommit => {}
        ReceiveAfterInsert | ReceiveAfterCommit | RelayAfterMark | RelayAfterMarkCommit => {
            steps.push(Step::relay(Some("A1")))
        }
        ApplyAfterProjection | ApplyAfterEffect | ApplyAfterCommit => {
            steps.push(Step::relay(Some("A1")));
            steps.push(Step::apply("A"));
        }
    }
    if let Some(last) = steps.pop() {
        steps.push(last.with_crash_at(Some(boundary)));
    }
    steps
}

/// What recovery resubmits before it resends and processes: the same transition, A1 `reserved`.
pub fn recovery() -> Vec<Step> {
    vec![Step::advance("A", "A1", 0, "reserved", 1)]
}

/// Flow `n` of the soak: `F0`, `F1`, …
pub fn flow_name(n: u64) -> String {
    format!("F{n}")
}

/// The event a flow commits at `seq` (1-based): `F3.2` is flow F3's second.
fn event_id(flow: &str, seq: i64) -> String {
    format!("{flow}.{seq}")
}

/// The next transition of `flow` when its committed seq is `seq` (< 3): `advance` at `expected_seq = seq`.
pub fn produce(flow: &str, seq: i64) -> Step {
    let kind = KINDS.get(seq as usize).copied().unwrap_or("released");
    Step::advance(flow, &event_id(flow, seq + 1), seq, kind, 1)
}

/// A worker's view of each flow's committed seq, read before it produces — as a client reads the state it
/// is about to change. Another process may move the flow on first; the producer then answers `stale`.
pub struct SeqReader {
    conn: Conn,
}

impl SeqReader {
    /// The producer's database at `location`, through the layer the worker writes through (the power run's).
    pub fn open(location: &Location) -> Result<SeqReader, String> {
        let conn = location
            .connect(Role::Producer, true)
            .map_err(crate::trace::session::stop_message)?;
        Ok(SeqReader { conn })
    }

    /// The flow's committed seq (0 when it has no row yet, or when the read itself fails).
    pub fn seq(&mut self, flow: &str) -> i64 {
        self.conn
            .query_opt("SELECT seq FROM flow WHERE flow_id=?", &[P::T(flow)], |r| {
                r.get::<i64>(0)
            })
            .ok()
            .flatten()
            .unwrap_or(0)
    }
}

/// One random step: produce the next event of a flow (or resubmit its last one once it is done), a default
/// relay, a resend of an event already produced, an apply, or a short `process_all`.
pub fn random_step(rng: &mut Rng, flows: u64, seqs: &mut SeqReader, producer: WriteMode) -> Step {
    let flow = flow_name(rng.below(flows));
    match rng.below(100) {
        0..=29 => {
            let seq = seqs.seq(&flow);
            if seq < KINDS.len() as i64 {
                let step = produce(&flow, seq);
                if producer == WriteMode::UnsafeDualWrite && rng.below(10) == 0 {
                    step.into_unsafe_dual_write()
                } else {
                    step
                }
            } else {
                // A client retrying a transition that already went through: `existing`.
                produce(&flow, seq - 1)
            }
        }
        30..=54 => Step::relay(None),
        55..=64 => match seqs.seq(&flow) {
            0 => Step::relay(None),
            seq => Step::relay(Some(&event_id(&flow, 1 + rng.below(seq as u64) as i64))),
        },
        65..=89 => Step::apply(&flow),
        _ => Step::process_all(Some(20)),
    }
}

words! {
    pub enum Scenario {
        /// Six produce the same event A1: one `committed`, five `existing`.
        SameEvent = "produce_same_event",
        /// Six produce six new ids, all at `expected_seq=0`: one `committed`, five `stale`.
        NewIds = "produce_new_ids",
        /// Six receive the same event: one `accepted`, five `duplicate`, one inbox row.
        Receive = "receive_same_event",
        /// Six apply the same flow of three pending events: one effect per event, in order.
        Apply = "apply_same_flow",
        /// Six relays of the same unaccepted row: one `accepted`, the rest `duplicate` or `idle`.
        Relay = "relay_same_row",
    }
}

impl Scenario {
    /// What the round's files hold before the processes start.
    pub(super) fn setup(self) -> Vec<Step> {
        match self {
            Scenario::SameEvent | Scenario::NewIds | Scenario::Receive => vec![],
            Scenario::Apply => vec![
                Step::advance("A", "A1", 0, "reserved", 1),
                Step::advance("A", "A2", 1, "confirmed", 1),
                Step::advance("A", "A3", 2, "released", 1),
                Step::relay(None),
                Step::relay(None),
                Step::relay(None),
            ],
            Scenario::Relay => vec![Step::advance("A", "A1", 0, "reserved", 1)],
        }
    }

    /// The one step process `index` runs.
    pub fn step(self, index: u64) -> Step {
        match self {
            Scenario::SameEvent => Step::advance("A", "A1", 0, "reserved", 1),
            Scenario::NewIds => Step::advance("A", &format!("A1-p{index}"), 0, "reserved", 1),
            Scenario::Receive => Step::Receive {
                event: a1().to_json(),
                crash_at: None,
            },
            Scenario::Apply => Step::process_all(None),
            Scenario::Relay => Step::relay(None),
        }
    }
}

pub(super) fn a1() -> Event {
    let payload = crate::trace::schema_payload(1);
    // The article's A1; its fields are within every bound, so this cannot fail.
    Event::new("A1", "A", 1, "reserved", 1, payload)
        .unwrap_or_else(|e| unreachable!("A1 is valid: {e}"))
}
