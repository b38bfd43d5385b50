//! What the page says of a history beside the tables: the same history under the consumer the reader switched
//! from, and the flows whose consumer ended somewhere the producer never was (the article's punch line).

use super::Playground;
use crate::protocol::Location;
use crate::protocol::Snapshot;
use crate::trace::{ConsumerSetup, Session};

/// One flow at the consumer: the projection's state, `last_seq`, what it holds, and how many effects it wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowOutcome {
    pub flow_id: String,
    pub state: String,
    pub last_seq: i64,
    pub held: i64,
    pub effects: usize,
}

/// Each flow the consumer knows (a projection row or an effect), in flow order; a flow with no projection row
/// is `new` at `last_seq` 0.
pub fn outcomes(s: &Snapshot) -> Vec<FlowOutcome> {
    // Inserted into a set the core has anyway, not sorted: a sort is kilobytes of wasm per element type.
    let mut flows = std::collections::BTreeSet::new();
    for flow in s.consumer.projection.iter().map(|p| p.flow_id.as_str()) {
        flows.insert(flow);
    }
    for flow in s.consumer.effect.iter().map(|e| e.flow_id.as_str()) {
        flows.insert(flow);
    }
    flows
        .into_iter()
        .map(|flow| {
            let p = s.consumer.projection.iter().find(|p| p.flow_id == flow);
            FlowOutcome {
                flow_id: flow.to_owned(),
                state: p.map_or("new", |p| p.state.as_str()).to_owned(),
                last_seq: p.map_or(0, |p| p.last_seq),
                held: p.map_or(0, |p| p.held),
                effects: s
                    .consumer
                    .effect
                    .iter()
                    .filter(|e| e.flow_id == flow)
                    .count(),
            }
        })
        .collect()
}

/// A flow whose consumer settled in a state the producer is not in, its effects out of order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Backwards {
    pub producer_state: String,
    pub consumer: FlowOutcome,
    /// The evidence: the flow's effects as the log holds them, `(event_id, kind)` in written order.
    pub effects: Vec<(String, String)>,
}

impl Playground {
    /// The history up to the position under the consumer switched from, with each flow's outcome there
    /// (`None`: no switch yet). Replays on fresh databases, so the caller keeps it to short histories.
    pub fn compare(&self) -> Option<Result<(ConsumerSetup, Vec<FlowOutcome>), String>> {
        let previous = self.previous.clone()?;
        let run = || {
            let mut session = Session::create(&Location::memory(), previous.clone())?;
            for step in &self.trace().steps {
                session.step(step);
            }
            Ok((previous.clone(), outcomes(&session.snapshot()?)))
        };
        Some(run())
    }

    /// The flows that ran backwards: nothing is left in flight (the wire empty, every outbox row accepted, the
    /// process up), the consumer's invariant is broken, and the consumer's state differs from the producer's.
    pub fn backwards(&self) -> Vec<Backwards> {
        let s = &self.snapshot;
        let in_flight = !self.lane.is_empty()
            || self.down.is_some()
            || s.producer.outbox.iter().any(|r| r.accepted == 0);
        if in_flight || self.invariant.holds {
            return Vec::new();
        }
        outcomes(s)
            .into_iter()
            .filter_map(|consumer| {
                let flow = s
                    .producer
                    .flow
                    .iter()
                    .find(|f| f.flow_id == consumer.flow_id)?;
                (flow.state != consumer.state).then(|| Backwards {
                    producer_state: flow.state.clone(),
                    effects: s
                        .consumer
                        .effect
                        .iter()
                        .filter(|e| e.flow_id == consumer.flow_id)
                        .map(|e| (e.event_id.clone(), e.kind.clone()))
                        .collect(),
                    consumer,
                })
            })
            .collect()
    }
}
