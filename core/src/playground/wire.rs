//! The wire between the relay and the consumer: cards in arrival order that the reader drags, duplicates
//! (resends) and removes, and what a restarted relay or a jump in time puts back on it.

use super::Playground;
use crate::protocol::system::OutboxRow;
use crate::protocol::Outcome;
use crate::trace::Step;

/// A card on the wire: one delivery of an outbox event, in arrival order. A duplicate card is a resend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    /// Unique per card (a duplicate gets its own), for list keys.
    pub key: u32,
    pub event_id: String,
}

impl Playground {
    pub(super) fn push_card(&mut self, event_id: String) {
        self.lane.push(Card {
            key: self.next_card,
            event_id,
        });
        self.next_card += 1;
    }

    /// Delivers the first card; it leaves the wire unless the process died on the way (then the relay will
    /// resend it after the restart, §4). `false` when nothing was delivered or the process died.
    pub(super) fn deliver_first(&mut self) -> bool {
        let Some(card) = self.lane.first().cloned() else {
            return false;
        };
        let crashed = self.run(Step::relay(Some(&card.event_id))).result == Outcome::Crashed;
        if !crashed {
            self.lane.remove(0);
        }
        !crashed
    }

    pub(super) fn move_card(&mut self, from: usize, to: usize) {
        if from < self.lane.len() && to < self.lane.len() && from != to {
            let card = self.lane.remove(from);
            self.lane.insert(to, card);
        }
    }

    /// A resend: a copy of card `i` right behind it.
    pub(super) fn duplicate_card(&mut self, i: usize) {
        if let Some(card) = self.lane.get(i).cloned() {
            let copy = Card {
                key: self.next_card,
                event_id: card.event_id,
            };
            self.next_card += 1;
            self.lane.insert(i + 1, copy);
        }
    }

    /// A restarted relay reads the outbox again: every row not yet accepted is due to be sent (§4), including
    /// one whose card never reached the wire because the producer died after committing.
    pub(super) fn resend_unaccepted(&mut self) {
        let unsent: Vec<String> = self
            .snapshot
            .producer
            .outbox
            .iter()
            .filter(|r| r.accepted == 0 && !self.lane.iter().any(|c| c.event_id == r.event_id))
            .map(|r| r.event_id.clone())
            .collect();
        for id in unsent {
            self.push_card(id);
        }
    }

    /// After a jump (load, time travel) the wire holds what the relay would still send: unaccepted rows.
    pub(super) fn refill_lane(&mut self) {
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

    /// Puts A1–A3 in `order` ("312") on the wire, producing them first on a fresh session if they are not all
    /// there once (same consumer and `support_v2`).
    pub(super) fn order(&mut self, order: &str) {
        let ids: Vec<String> = order.chars().map(|c| format!("A{c}")).collect();
        let once =
            |m: &Playground, id: &str| m.lane.iter().filter(|c| c.event_id == id).count() == 1;
        if !ids.iter().all(|id| once(self, id)) {
            // An armed crash is the reader's choice too: it survives the fresh start, and fires at the next step
            // that crosses its boundary after the order is set, not inside the produces that set it.
            let armed = self.armed.take();
            let dropped = self.entries.len();
            self.reset_to(crate::trace::ConsumerSetup {
                support_v2: self.support_v2(),
                ..self.setup.clone()
            });
            for _ in 0..3 {
                if let Some(step) = self.next_transition("A") {
                    self.run(step);
                }
            }
            self.armed = armed;
            if dropped > 0 {
                self.notice = Some(super::Notice::StartedOver(dropped));
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
