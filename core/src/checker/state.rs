//! A checker state (CHECKER.md "State"): what survives a restart — the committed rows of both databases — plus
//! the budgets used, in a compact form that is also its fingerprint. Bodies are fixed by the ids, so they are
//! left out and rebuilt when the state is loaded back into SQLite.

use super::config::{Config, Ev};
use crate::protocol::system::InboxRow;
use crate::protocol::{BlockReason, Snapshot};

/// `new reserved confirmed released`: a flow's or projection's state.
pub const STATES: [&str; 4] = ["new", "reserved", "confirmed", "released"];
/// An inbox row's state.
pub const INBOX_STATES: [&str; 3] = ["pending", "blocked", "applied"];
/// An inbox row's reason: none, or why it is blocked.
pub const REASONS: [Option<BlockReason>; 5] = [
    None,
    Some(BlockReason::UnsupportedSchema),
    Some(BlockReason::InvalidPayload),
    Some(BlockReason::InvalidTransition),
    Some(BlockReason::Rule),
];

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FlowState {
    pub flow: u8,
    pub seq: u8,
    pub state: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InboxState {
    pub ev: Ev,
    pub state: u8,
    pub reason: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ProjectionState {
    pub flow: u8,
    pub last_seq: u8,
    pub state: u8,
    pub held: u8,
}

/// Rows sorted as the result document sorts them; effects in written order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct State {
    pub flow: Vec<FlowState>,
    /// `(event, accepted)`.
    pub outbox: Vec<(Ev, bool)>,
    pub inbox: Vec<InboxState>,
    pub projection: Vec<ProjectionState>,
    pub effects: Vec<Ev>,
    pub resends_used: u8,
    pub crashes_used: u8,
    pub power_cuts_used: u8,
    /// Under power cuts with `normal`: each database's rows as of its last checkpoint (its own tables of this
    /// image; budgets unused). `None` otherwise: every commit is synced.
    pub synced: Option<Box<State>>,
    /// The inbox rows are in arrival order, which is then part of the state (a rule that reads `arrival`);
    /// otherwise they are sorted by event. The same for every state of a search, so not in the key.
    pub arrival: bool,
}

pub(super) fn code(table: &[&str], value: &str, what: &str) -> Result<u8, String> {
    table
        .iter()
        .position(|s| *s == value)
        .map(|i| i as u8)
        .ok_or_else(|| format!("unexpected {what} `{value}`"))
}

pub(super) fn small(value: i64, what: &str) -> Result<u8, String> {
    u8::try_from(value).map_err(|_| format!("unexpected {what} {value}"))
}

impl State {
    /// The committed rows of `snapshot`, with the budgets given.
    pub fn from_snapshot(
        config: &Config,
        s: &Snapshot,
        resends_used: u8,
        crashes_used: u8,
    ) -> Result<State, String> {
        let ev = |id: &str| {
            config
                .parse_event(id)
                .ok_or_else(|| format!("unexpected event `{id}`"))
        };
        let flow_index = |id: &str| {
            super::config::FLOW_IDS
                .iter()
                .position(|f| *f == id)
                .map(|i| i as u8)
                .ok_or_else(|| format!("unexpected flow `{id}`"))
        };
        let arrival = config.arrival_matters();
        let mut inbox_rows: Vec<&InboxRow> = s.consumer.inbox.iter().collect();
        if arrival {
            inbox_rows.sort_by_key(|r| r.arrival);
        }
        Ok(State {
            arrival,
            flow: s
                .producer
                .flow
                .iter()
                .map(|r| {
                    Ok(FlowState {
                        flow: flow_index(&r.flow_id)?,
                        seq: small(r.seq, "seq")?,
                        state: code(&STATES, &r.state, "state")?,
                    })
                })
                .collect::<Result<_, String>>()?,
            outbox: s
                .producer
                .outbox
                .iter()
                .map(|r| Ok((ev(&r.event_id)?, r.accepted == 1)))
                .collect::<Result<_, String>>()?,
            inbox: inbox_rows
                .into_iter()
                .map(|r| {
                    let reason = REASONS
                        .iter()
                        .position(|x| x.map(BlockReason::name) == r.reason.as_deref())
                        .ok_or_else(|| {
                            format!(
                                "unexpected reason `{}`",
                                r.reason.as_deref().unwrap_or("null")
                            )
                        })?;
                    Ok(InboxState {
                        ev: ev(&r.event_id)?,
                        state: code(&INBOX_STATES, &r.state, "inbox state")?,
                        reason: reason as u8,
                    })
                })
                .collect::<Result<_, String>>()?,
            projection: s
                .consumer
                .projection
                .iter()
                .map(|r| {
                    Ok(ProjectionState {
                        flow: flow_index(&r.flow_id)?,
                        last_seq: small(r.last_seq, "last_seq")?,
                        state: code(&STATES, &r.state, "state")?,
                        held: small(r.held, "held")?,
                    })
                })
                .collect::<Result<_, String>>()?,
            effects: s
                .consumer
                .effect
                .iter()
                .map(|r| ev(&r.event_id))
                .collect::<Result<_, String>>()?,
            resends_used,
            crashes_used,
            power_cuts_used: 0,
            synced: None,
        })
    }

    /// The initial state: no rows, no budget used, and under `normal` power cuts both disks synced empty.
    pub fn initial(config: &Config) -> State {
        let empty = State {
            arrival: config.arrival_matters(),
            ..State::default()
        };
        State {
            synced: config.keeps_images().then(|| Box::new(empty.clone())),
            ..empty
        }
    }

    /// The rows alone, as a synced image holds them.
    fn image(&self) -> State {
        State {
            flow: self.flow.clone(),
            outbox: self.outbox.clone(),
            inbox: self.inbox.clone(),
            projection: self.projection.clone(),
            effects: self.effects.clone(),
            arrival: self.arrival,
            ..State::default()
        }
    }

    /// Whether a checkpoint would change a synced image: a database's rows differ from its image.
    pub fn unsynced(&self) -> bool {
        self.synced.as_ref().is_some_and(|img| !img.same_rows(self))
    }

    /// TRACE.md's `checkpoint` (under `normal`): both images become the rows as they are.
    pub fn checkpointed(&self) -> State {
        let mut s = self.clone();
        if s.synced.is_some() {
            s.synced = Some(Box::new(self.image()));
        }
        s
    }

    /// TRACE.md's `power_cut` of the databases in `mask` (1 the producer, 2 the consumer): each goes back to its
    /// synced image (under `full` it holds every commit); the processes restart, which changes no row.
    pub fn cut(&self, mask: u8) -> State {
        let mut s = self.clone();
        s.power_cuts_used += 1;
        if let Some(img) = &self.synced {
            if mask & 1 != 0 {
                s.flow = img.flow.clone();
                s.outbox = img.outbox.clone();
            }
            if mask & 2 != 0 {
                s.inbox = img.inbox.clone();
                s.projection = img.projection.clone();
                s.effects = img.effects.clone();
            }
        }
        s
    }

    /// The same rows (budgets aside).
    pub fn same_rows(&self, other: &State) -> bool {
        self.flow == other.flow
            && self.outbox == other.outbox
            && self.inbox == other.inbox
            && self.projection == other.projection
            && self.effects == other.effects
    }

    /// The fingerprint as bytes: every field of CHECKER.md's state, nothing else.
    pub fn key(&self) -> Box<[u8]> {
        let mut k = Vec::with_capacity(48);
        k.push(self.resends_used);
        k.push(self.crashes_used);
        k.push(self.flow.len() as u8);
        for f in &self.flow {
            k.extend([f.flow, f.seq, f.state]);
        }
        k.push(self.outbox.len() as u8);
        for (ev, accepted) in &self.outbox {
            k.extend([ev.index(), u8::from(*accepted)]);
        }
        k.push(self.inbox.len() as u8);
        for r in &self.inbox {
            k.extend([r.ev.index(), r.state, r.reason]);
        }
        k.push(self.projection.len() as u8);
        for p in &self.projection {
            k.extend([p.flow, p.last_seq, p.state, p.held]);
        }
        k.push(self.effects.len() as u8);
        k.extend(self.effects.iter().map(|e| e.index()));
        // Power cuts only: their budget and the synced images, so a search without them keys as before.
        if self.power_cuts_used > 0 || self.synced.is_some() {
            k.push(self.power_cuts_used);
            match &self.synced {
                Some(img) => {
                    k.push(1);
                    k.extend_from_slice(&img.key());
                }
                None => k.push(0),
            }
        }
        k.into_boxed_slice()
    }

    /// The state [`State::key`] wrote (`arrival` is the configuration's): a search shared by workers sends
    /// states this way.
    pub fn from_key(config: &Config, key: &[u8]) -> Result<State, String> {
        let at = std::cell::Cell::new(0);
        let next = || {
            let b = key
                .get(at.get())
                .copied()
                .ok_or("a state's key ends early")?;
            at.set(at.get() + 1);
            Ok::<u8, String>(b)
        };
        let resends_used = next()?;
        let crashes_used = next()?;
        let ev = |i: u8| {
            (i < 9)
                .then(|| Ev::from_index(i))
                .ok_or_else(|| format!("no event {i}"))
        };
        let flow = (0..next()?)
            .map(|_| {
                Ok(FlowState {
                    flow: next()?,
                    seq: next()?,
                    state: next()?,
                })
            })
            .collect::<Result<_, String>>()?;
        let outbox = (0..next()?)
            .map(|_| Ok((ev(next()?)?, next()? == 1)))
            .collect::<Result<_, String>>()?;
        let inbox = (0..next()?)
            .map(|_| {
                Ok(InboxState {
                    ev: ev(next()?)?,
                    state: next()?,
                    reason: next()?,
                })
            })
            .collect::<Result<_, String>>()?;
        let projection = (0..next()?)
            .map(|_| {
                Ok(ProjectionState {
                    flow: next()?,
                    last_seq: next()?,
                    state: next()?,
                    held: next()?,
                })
            })
            .collect::<Result<_, String>>()?;
        let effects = (0..next()?)
            .map(|_| ev(next()?))
            .collect::<Result<_, String>>()?;
        // The power's tail, written only when it holds something: a cut spent, or images.
        let (mut power_cuts_used, mut synced, mut tail_fits) = (0, None, true);
        if at.get() < key.len() {
            power_cuts_used = next()?;
            match next()? {
                0 => tail_fits = power_cuts_used > 0,
                1 => {
                    synced = Some(Box::new(State::from_key(config, &key[at.get()..])?));
                    at.set(key.len());
                }
                _ => tail_fits = false,
            }
        }
        let state = State {
            flow,
            outbox,
            inbox,
            projection,
            effects,
            resends_used,
            crashes_used,
            power_cuts_used,
            synced,
            arrival: config.arrival_matters(),
        };
        // Codes out of range would index the tables of words when the state is loaded.
        let fits = state
            .flow
            .iter()
            .all(|f| f.flow < 3 && (f.state as usize) < STATES.len())
            && state.inbox.iter().all(|r| {
                (r.state as usize) < INBOX_STATES.len() && (r.reason as usize) < REASONS.len()
            })
            && state
                .projection
                .iter()
                .all(|p| p.flow < 3 && (p.state as usize) < STATES.len());
        if !fits || !tail_fits || at.get() != key.len() {
            return Err("a state's key holds values no state has".into());
        }
        Ok(state)
    }

    /// The same state with flows renamed: flow `i` becomes `perm[i]` (rows re-sorted, effects kept in order).
    pub fn permuted(&self, perm: &[u8; 3]) -> State {
        let f = |x: u8| perm[x as usize];
        let e = |ev: Ev| Ev {
            flow: f(ev.flow),
            seq: ev.seq,
        };
        let mut s = self.clone();
        s.flow.iter_mut().for_each(|r| r.flow = f(r.flow));
        sort_small(&mut s.flow, |r| r.flow);
        s.outbox.iter_mut().for_each(|(ev, _)| *ev = e(*ev));
        sort_small(&mut s.outbox, |(ev, _)| ev.index());
        s.inbox.iter_mut().for_each(|r| r.ev = e(r.ev));
        if !s.arrival {
            sort_small(&mut s.inbox, |r| r.ev.index());
        }
        s.projection.iter_mut().for_each(|p| p.flow = f(p.flow));
        sort_small(&mut s.projection, |p| p.flow);
        s.effects.iter_mut().for_each(|ev| *ev = e(*ev));
        if let Some(img) = &self.synced {
            s.synced = Some(Box::new(img.permuted(perm)));
        }
        s
    }

    /// The fingerprint under the symmetry `perms` (renamings of interchangeable flows): the smallest key over
    /// them, so states that differ only in which flow is which are one. No renaming: the plain key.
    pub fn fingerprint(&self, perms: &[[u8; 3]]) -> Box<[u8]> {
        perms
            .iter()
            .map(|p| self.permuted(p).key())
            .min()
            .unwrap_or_else(|| self.key())
    }

    /// RULE.md's `waiting` for `flow` in this state: what the consumer's apply would fill it with.
    pub fn waiting(&self, config: &Config, flow: u8) -> Vec<crate::protocol::rule::WaitingRow> {
        let (last_seq, state) = self.last_seq(flow);
        let held = self
            .projection
            .iter()
            .find(|p| p.flow == flow)
            .map_or(0, |p| p.held);
        let flow_state = STATES[state as usize];
        let mut rows: Vec<crate::protocol::rule::WaitingRow> = self
            .inbox
            .iter()
            .zip(1..)
            .filter(|(r, _)| r.ev.flow == flow && INBOX_STATES[r.state as usize] != "applied")
            .map(|(r, place)| {
                let event = config.event(r.ev);
                crate::protocol::rule::WaitingRow {
                    event_id: event.event_id.clone(),
                    seq: event.seq,
                    kind: event.kind.clone(),
                    schema: event.schema,
                    state: INBOX_STATES[r.state as usize].to_owned(),
                    reason: REASONS[r.reason as usize].map(|x| x.name().to_owned()),
                    last_seq: i64::from(last_seq),
                    flow_state: flow_state.to_owned(),
                    held: i64::from(held),
                    problem: crate::protocol::consumer::problem(&event, flow_state, false)
                        .map(BlockReason::name),
                    arrival: if self.arrival { place } else { 0 },
                    body: String::new(),
                }
            })
            .collect();
        rows.sort_by_key(|r| r.seq);
        rows
    }

    /// A flow's committed seq at the producer (0 without a row).
    pub fn flow_seq(&self, flow: u8) -> u8 {
        self.flow
            .iter()
            .find(|f| f.flow == flow)
            .map_or(0, |f| f.seq)
    }

    /// A flow's projection: `(last_seq, state)`, `(0, new)` without a row.
    pub fn last_seq(&self, flow: u8) -> (u8, u8) {
        self.projection
            .iter()
            .find(|p| p.flow == flow)
            .map_or((0, 0), |p| (p.last_seq, p.state))
    }
}

/// Sorts a handful of rows (at most nine) by a small key: an insertion sort, a few bytes of wasm where the
/// standard library's sorts are kilobytes per row type.
fn sort_small<T>(rows: &mut [T], key: impl Fn(&T) -> u8) {
    for i in 1..rows.len() {
        let mut j = i;
        while j > 0 && key(&rows[j - 1]) > key(&rows[j]) {
            rows.swap(j - 1, j);
            j -= 1;
        }
    }
}
