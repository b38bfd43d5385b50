//! Steps that call the protocol's own operations, so that what interleaves is the protocol's statements, its
//! `BEGIN` and its lock included, not a spec's copy of them. A block whose text starts with `@` is a list of
//! operations, one a line or separated by `;`:
//! - `@tables`: the protocol's five tables, as this store creates them;
//! - `@advance FLOW SEQ [ID]`: the producer commits the flow's event `SEQ` (its kind by seq, its id `FLOW SEQ`
//!   unless named) with its outbox row, expecting the flow at `SEQ - 1`;
//! - `@receive [ID]`: the relay delivers the outbox row `ID` to the inbox, or else the first row not yet
//!   accepted (and remembers which, for `@mark`);
//! - `@mark [ID]`: the relay marks `ID` accepted, or else the row this session last delivered;
//! - `@apply FLOW`: the consumer's apply at `last_seq + 1`.
//!
//! A step's last operation may end `until BOUNDARY`: it stops at that boundary inside its transaction and
//! leaves it open, for a later step's `COMMIT` or `ROLLBACK` (the boundaries of PROTOCOL.md §8 that lie inside
//! one). On PostgreSQL the transaction is the protocol's (`READ COMMITTED` and the role's advisory lock, whatever
//! `--isolation` says); on SQLite, `BEGIN IMMEDIATE`.

use super::answer::Answer;
use super::print::ResultSet;
use crate::protocol::db::Db;
use crate::protocol::producer::{self, Transition, WriteMode};
use crate::protocol::{consumer, Boundary, ConsumerConfig, Event, Outcome, Role, Stop, KINDS};

/// One call of a protocol operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    Tables,
    Advance { flow: String, seq: i64, id: String },
    Receive(Option<String>),
    Mark(Option<String>),
    Apply(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub call: Call,
    /// Where it stops, its transaction left open.
    pub until: Option<Boundary>,
}

impl Op {
    fn word(&self) -> &'static str {
        match self.call {
            Call::Tables => "tables",
            Call::Advance { .. } => "advance",
            Call::Receive(_) => "receive",
            Call::Mark(_) => "mark",
            Call::Apply(_) => "apply",
        }
    }

    /// The producer's operations run as the producer (its lock on PostgreSQL), the others as the consumer.
    pub fn role(&self) -> Role {
        match self.call {
            Call::Advance { .. } | Call::Mark(_) => Role::Producer,
            _ => Role::Consumer,
        }
    }

    /// The boundaries inside this operation's transaction: where it can stop and leave it open.
    fn pauses(&self) -> &'static [Boundary] {
        match self.call {
            Call::Tables => &[],
            Call::Advance { .. } => &[Boundary::ProducerAfterState, Boundary::ProducerAfterOutbox],
            Call::Receive(_) => &[Boundary::ReceiveAfterInsert],
            Call::Mark(_) => &[Boundary::RelayAfterMark],
            Call::Apply(_) => &[Boundary::ApplyAfterProjection, Boundary::ApplyAfterEffect],
        }
    }
}

/// The operations of a block, `None` when it is SQL (it does not start with `@`): asked once, as the spec is
/// parsed. `step`: whether it is a step's (only a step may stop inside a transaction). The message names what
/// is wrong.
pub fn block(text: &str, step: bool) -> Result<Option<Vec<Op>>, String> {
    if !text.trim_start().starts_with('@') {
        return Ok(None);
    }
    let mut ops = Vec::new();
    for part in text
        .split([';', '\n'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        if ops.last().is_some_and(|o: &Op| o.until.is_some()) {
            return Err("`until` ends a step: it must be on its last operation".into());
        }
        let op = one(part)?;
        if op.until.is_some() && !step {
            return Err(format!(
                "`{part}`: only a step may stop inside a transaction; a setup or teardown runs to its end"
            ));
        }
        ops.push(op);
    }
    Ok(Some(ops))
}

fn one(text: &str) -> Result<Op, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let (words, until) = match words.iter().position(|w| *w == "until") {
        Some(at) => {
            let [name] = words[at + 1..] else {
                return Err(format!("`{text}`: `until` takes one boundary"));
            };
            let boundary = Boundary::from_name(name).ok_or_else(|| {
                format!("`{name}` is not a boundary (PROTOCOL.md §8 names ten, such as apply.after_effect)")
            })?;
            (&words[..at], Some(boundary))
        }
        None => (&words[..], None),
    };
    let owned = |w: &&str| (*w).to_owned();
    let call = match *words {
        ["@tables"] => Call::Tables,
        ["@advance", flow, seq] | ["@advance", flow, seq, _] => {
            let seq: i64 = seq
                .parse()
                .ok()
                .filter(|s| (1..=KINDS.len() as i64).contains(s))
                .ok_or_else(|| format!("`{text}`: the seq is 1 to {}", KINDS.len()))?;
            let id = words.get(3).map_or_else(|| format!("{flow}{seq}"), owned);
            Call::Advance {
                flow: flow.to_owned(),
                seq,
                id,
            }
        }
        ["@receive"] | ["@receive", _] => Call::Receive(words.get(1).map(owned)),
        ["@mark"] | ["@mark", _] => Call::Mark(words.get(1).map(owned)),
        ["@apply", flow] => Call::Apply(flow.to_owned()),
        _ => {
            return Err(format!(
                "`{text}` is not an operation: @tables, @advance FLOW SEQ [ID], @receive [ID], @mark [ID], @apply FLOW"
            ))
        }
    };
    let op = Op { call, until };
    if let Some(b) = until.filter(|b| !op.pauses().contains(b)) {
        let inside: Vec<&str> = op.pauses().iter().map(|b| b.name()).collect();
        return Err(format!(
            "`{text}`: {} is not inside {}'s transaction ({})",
            b.name(),
            op.word(),
            if inside.is_empty() {
                "it has none".to_owned()
            } else {
                inside.join(", ")
            }
        ));
    }
    if let Call::Advance { flow, seq, id } = &op.call {
        event(flow, *seq, id).map_err(|e| format!("`{text}`: {e}"))?;
    }
    Ok(op)
}

fn event(flow: &str, seq: i64, id: &str) -> Result<Event, String> {
    let kind = usize::try_from(seq - 1)
        .ok()
        .and_then(|i| KINDS.get(i))
        .ok_or_else(|| format!("the seq is 1 to {}", KINDS.len()))?;
    Event::new(
        id,
        flow,
        seq,
        kind,
        1,
        crate::trace::step::schema_payload(1),
    )
}

/// What a session remembers between its steps, as a relay process would: the row it last delivered.
#[derive(Default)]
pub struct Memory {
    delivered: Option<String>,
}

/// How a block ended on SQLite, its operations' or its statements': the store tries a busy one again from where
/// it stopped, so it needs to know where that was.
pub enum Ran {
    Answered(Answer),
    /// Operation (or statement) `at` found the store's writer taken (SQLite's busy): nothing of it was written,
    /// and it is tried again from there.
    Busy {
        at: usize,
        so_far: Answer,
    },
}

/// Runs the block's operations `ops` (read as the spec was parsed) from the `from`th on `db`, adding to
/// `so_far`. An operation runs in a transaction of its own: a block that starts while the session has one open
/// (`aborted`: one an error ended, which the session must still end) is refused. On SQLite a busy answer means
/// "waiting"; PostgreSQL waits on its own and answers busy only for a deadlock or a serialization failure, an
/// error like any other.
pub fn run_block(
    db: &mut Db,
    ops: &[Op],
    from: usize,
    mut so_far: Answer,
    memory: &mut Memory,
    aborted: bool,
) -> Ran {
    let conn = db.conn();
    let tables = format!(
        "{}{}",
        conn.schema(Role::Producer),
        conn.schema(Role::Consumer)
    );
    let waits = conn.busy_is_a_wait();
    if from == 0 && (aborted || conn.in_transaction()) {
        so_far.error = Some(
            "ERROR:  a protocol operation runs in a transaction of its own, and this session's is still open: \
             end it with COMMIT or ROLLBACK first"
                .into(),
        );
        return Ran::Answered(so_far);
    }
    for (at, op) in ops.iter().enumerate().skip(from) {
        db.armed = op.until;
        db.conn().lock_as(op.role());
        let result = call(db, op, memory, &tables);
        db.clear();
        let said = match result {
            Ok(said) => said,
            Err(Stop::Crash(b)) => Some(format!("paused at {b}, its transaction open")),
            Err(Stop::Busy(_)) if waits => return Ran::Busy { at, so_far },
            Err(Stop::Sql(m) | Stop::Busy(m)) => {
                so_far.error = Some(format!("ERROR:  {m}"));
                return Ran::Answered(so_far);
            }
            Err(Stop::UnsafeExit) => Some("exited".into()),
        };
        if let Some(said) = said {
            so_far.sets.push(ResultSet {
                columns: vec![op.word().to_owned()],
                rows: vec![vec![Some(said)]],
            });
        }
    }
    Ran::Answered(so_far)
}

/// One operation's answer, in TRACE.md's words: `None` for `@tables`, which answers nothing (as DDL does).
fn call(db: &mut Db, op: &Op, memory: &mut Memory, tables: &str) -> Result<Option<String>, Stop> {
    let config = ConsumerConfig::default();
    Ok(Some(match &op.call {
        Call::Tables => {
            db.batch(tables)?;
            return Ok(None);
        }
        Call::Advance { flow, seq, id } => {
            let event = event(flow, *seq, id).map_err(Stop::Sql)?;
            let t = Transition {
                expected_seq: seq - 1,
                event,
            };
            Outcome::from(producer::advance(db, &t, WriteMode::Atomic)?).to_string()
        }
        Call::Receive(id) => match producer::pick_for_relay(db, id.as_deref())? {
            None => {
                // Nothing delivered this time: a `@mark` after it has nothing to mark.
                memory.delivered = None;
                match id {
                    Some(id) => format!("no outbox row {id}"),
                    None => "nothing to send".into(),
                }
            }
            Some(row) => {
                let event = Event::from_body(&row.body).map_err(Stop::Sql)?;
                memory.delivered = Some(row.event_id.clone());
                let result = consumer::receive(db, &event, &config)?;
                format!("{} {}", row.event_id, result.outcome())
            }
        },
        Call::Mark(id) => match id.as_ref().or(memory.delivered.as_ref()) {
            None => "nothing delivered".into(),
            Some(id) => {
                let id = id.clone();
                if producer::mark_accepted(db, &id)? {
                    id
                } else {
                    // Already accepted, or no such row: the mark wrote nothing.
                    format!("{id} unchanged")
                }
            }
        },
        Call::Apply(flow) => consumer::apply(db, flow, &config)?.to_string(),
    }))
}
