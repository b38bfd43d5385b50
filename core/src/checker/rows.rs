//! A checker state's rows in the two databases, read and written in the state's compact form. After a step only
//! the tables SQLite's hooks saw its commits change are read back, and going back to the state a move started
//! from writes only the rows that differ, in one transaction per database: most of a transition is then the
//! step itself.

use super::config::{Config, Ev, FLOW_IDS};
use super::state::{
    code, FlowState, InboxState, ProjectionState, State, INBOX_STATES, REASONS, STATES,
};
use crate::protocol::db::tables;
use crate::protocol::{held_after, System, AMOUNT};
use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, Row};

fn text<'r>(row: &'r Row<'_>, i: usize) -> Result<&'r str, String> {
    row.get_ref(i)
        .and_then(|v| v.as_str().map_err(rusqlite::Error::from))
        .map_err(|e| e.to_string())
}

fn small(row: &Row<'_>, i: usize, what: &str) -> Result<u8, String> {
    super::state::small(row.get(i).map_err(|e| e.to_string())?, what)
}

fn flow_of(id: &str) -> Result<u8, String> {
    code(&FLOW_IDS, id, "flow")
}

fn event_of(config: &Config, id: &str) -> Result<Ev, String> {
    config
        .parse_event(id)
        .ok_or_else(|| format!("unexpected event `{id}`"))
}

/// Every row of `sql`'s result, mapped.
fn each<T>(
    conn: &Connection,
    sql: &str,
    mut map: impl FnMut(&Row<'_>) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let mut stmt = conn.prepare_cached(sql).map_err(|e| e.to_string())?;
    let mut rows = stmt.query([]).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(|e| e.to_string())? {
        out.push(map(row)?);
    }
    Ok(out)
}

/// Reads the tables of `mask` ([`tables`]) into `state`, whose other tables are left as they are.
pub fn read(system: &System, config: &Config, mask: u8, state: &mut State) -> Result<(), String> {
    let (p, c) = system
        .disks()
        .map_err(crate::trace::session::stop_message)?;
    if mask & tables::FLOW != 0 {
        state.flow = each(
            p,
            "SELECT flow_id, seq, state FROM flow ORDER BY flow_id",
            |r| {
                Ok(FlowState {
                    flow: flow_of(text(r, 0)?)?,
                    seq: small(r, 1, "seq")?,
                    state: code(&STATES, text(r, 2)?, "state")?,
                })
            },
        )?;
    }
    if mask & tables::OUTBOX != 0 {
        state.outbox = each(
            p,
            "SELECT event_id, accepted FROM outbox ORDER BY event_id",
            |r| {
                Ok((
                    event_of(config, text(r, 0)?)?,
                    small(r, 1, "accepted")? == 1,
                ))
            },
        )?;
    }
    if mask & tables::INBOX != 0 {
        // A rule that reads `arrival` makes the order rows arrived in part of the state.
        let sql = if config.arrival_matters() {
            "SELECT event_id, state, reason FROM inbox ORDER BY rowid"
        } else {
            "SELECT event_id, state, reason FROM inbox ORDER BY event_id"
        };
        state.inbox = each(c, sql, |r| {
            let reason = match r.get_ref(2).map_err(|e| e.to_string())? {
                ValueRef::Null => None,
                _ => Some(text(r, 2)?),
            };
            let reason = REASONS
                .iter()
                .position(|x| x.map(|x| x.name()) == reason)
                .ok_or_else(|| format!("unexpected reason `{}`", reason.unwrap_or("null")))?;
            Ok(InboxState {
                ev: event_of(config, text(r, 0)?)?,
                state: code(&INBOX_STATES, text(r, 1)?, "inbox state")?,
                reason: reason as u8,
            })
        })?;
        state.arrival = config.arrival_matters();
    }
    if mask & tables::PROJECTION != 0 {
        state.projection = each(
            c,
            "SELECT flow_id, last_seq, state, held FROM projection ORDER BY flow_id",
            |r| {
                Ok(ProjectionState {
                    flow: flow_of(text(r, 0)?)?,
                    last_seq: small(r, 1, "last_seq")?,
                    state: code(&STATES, text(r, 2)?, "state")?,
                    held: small(r, 3, "held")?,
                })
            },
        )?;
    }
    if mask & tables::EFFECT != 0 {
        state.effects = each(c, "SELECT event_id FROM effect ORDER BY id", |r| {
            event_of(config, text(r, 0)?)
        })?;
    }
    Ok(())
}

/// The tables ([`tables`]) whose rows differ between two states.
pub fn differ(a: &State, b: &State) -> u8 {
    [
        (a.flow != b.flow, tables::FLOW),
        (a.outbox != b.outbox, tables::OUTBOX),
        (a.inbox != b.inbox, tables::INBOX),
        (a.projection != b.projection, tables::PROJECTION),
        (a.effects != b.effects, tables::EFFECT),
    ]
    .into_iter()
    .filter(|(d, _)| *d)
    .fold(0, |m, (_, bit)| m | bit)
}

/// One database's writes, run as one transaction when there are several.
struct Writes<'c> {
    conn: &'c Connection,
    open: bool,
}

impl<'c> Writes<'c> {
    fn new(conn: &'c Connection, count: usize) -> Result<Writes<'c>, String> {
        let open = count > 1;
        if open {
            run(conn, "BEGIN", params![])?;
        }
        Ok(Writes { conn, open })
    }

    fn run(&self, sql: &str, values: &[&dyn rusqlite::ToSql]) -> Result<(), String> {
        run(self.conn, sql, values)
    }

    fn commit(mut self) -> Result<(), String> {
        if self.open {
            self.open = false;
            run(self.conn, "COMMIT", params![])?;
        }
        Ok(())
    }
}

impl Drop for Writes<'_> {
    /// A write that failed leaves no transaction open on the disk.
    fn drop(&mut self) {
        if self.open {
            let _ = run(self.conn, "ROLLBACK", params![]);
        }
    }
}

fn run(conn: &Connection, sql: &str, values: &[&dyn rusqlite::ToSql]) -> Result<(), String> {
    let mut stmt = conn.prepare_cached(sql).map_err(|e| e.to_string())?;
    stmt.execute(values).map_err(|e| e.to_string())?;
    Ok(())
}

/// A keyed table's changes from `from` to `to`: the keys to delete, the rows that changed (updated in place,
/// which costs SQLite less than replacing them), and the new rows.
struct Keyed<'a, R, K> {
    gone: Vec<K>,
    changed: Vec<&'a R>,
    new: Vec<&'a R>,
}

impl<'a, R: PartialEq, K: PartialEq> Keyed<'a, R, K> {
    fn new(from: &'a [R], to: &'a [R], key: impl Fn(&R) -> K) -> Keyed<'a, R, K> {
        let mut k = Keyed {
            gone: from
                .iter()
                .filter(|r| !to.iter().any(|t| key(t) == key(r)))
                .map(&key)
                .collect(),
            changed: Vec::new(),
            new: Vec::new(),
        };
        for r in to {
            match from.iter().find(|f| key(f) == key(r)) {
                None => k.new.push(r),
                Some(f) if f != r => k.changed.push(r),
                Some(_) => {}
            }
        }
        k
    }

    fn len(&self) -> usize {
        self.gone.len() + self.changed.len() + self.new.len()
    }
}

/// Makes the databases, holding `from`'s rows, hold `to`'s: only the rows that differ are written, as if
/// committed (bodies rebuilt from `bodies`, [`Config::bodies`]). The process is left with nothing open.
/// A row that stays is updated in place, not replaced (cheaper, and a replace would move an inbox row to the
/// end); only where `to` keeps an arrival order that appending cannot reach is the whole inbox written again.
pub fn restore(
    system: &mut System,
    from: &State,
    to: &State,
    bodies: &[String],
) -> Result<(), String> {
    let mask = differ(from, to);
    if mask == 0 {
        return Ok(());
    }
    system
        .settle()
        .map_err(crate::trace::session::stop_message)?;
    let (p, c) = system
        .disks()
        .map_err(crate::trace::session::stop_message)?;
    if mask & (tables::FLOW | tables::OUTBOX) != 0 {
        let flow = Keyed::new(&from.flow, &to.flow, |r| r.flow);
        let outbox = Keyed::new(&from.outbox, &to.outbox, |r| r.0);
        let w = Writes::new(p, flow.len() + outbox.len())?;
        for f in flow.gone {
            w.run(
                "DELETE FROM flow WHERE flow_id=?",
                params![FLOW_IDS[f as usize]],
            )?;
        }
        for r in flow.changed {
            w.run(
                "UPDATE flow SET seq=?, state=? WHERE flow_id=?",
                params![r.seq, STATES[r.state as usize], FLOW_IDS[r.flow as usize]],
            )?;
        }
        for r in flow.new {
            w.run(
                "INSERT INTO flow(flow_id, seq, state, amount) VALUES(?, ?, ?, ?)",
                params![
                    FLOW_IDS[r.flow as usize],
                    r.seq,
                    STATES[r.state as usize],
                    AMOUNT
                ],
            )?;
        }
        for ev in outbox.gone {
            w.run("DELETE FROM outbox WHERE event_id=?", params![ev.id()])?;
        }
        for (ev, accepted) in outbox.changed {
            w.run(
                "UPDATE outbox SET accepted=? WHERE event_id=?",
                params![accepted, ev.id()],
            )?;
        }
        for (ev, accepted) in outbox.new {
            w.run(
                "INSERT INTO outbox(event_id, flow_id, seq, body, accepted) VALUES(?, ?, ?, ?, ?)",
                params![
                    ev.id(),
                    ev.flow_id(),
                    ev.seq,
                    bodies[ev.index() as usize],
                    accepted
                ],
            )?;
        }
        w.commit()?;
    }
    if mask & (tables::INBOX | tables::PROJECTION | tables::EFFECT) != 0 {
        // Where `to` keeps the inbox's arrival order and the database cannot reach it by updates and appends
        // (the rows both hold, first and in the same order), the inbox is written again in `to`'s order.
        let empty = Vec::new();
        let rewrite = to.arrival && {
            let common: Vec<Ev> = from
                .inbox
                .iter()
                .map(|r| r.ev)
                .filter(|ev| to.inbox.iter().any(|t| t.ev == *ev))
                .collect();
            !to.inbox.iter().map(|r| r.ev).take(common.len()).eq(common)
        };
        let inbox = Keyed::new(if rewrite { &empty } else { &from.inbox }, &to.inbox, |r| {
            r.ev
        });
        let projection = Keyed::new(&from.projection, &to.projection, |r| r.flow);
        let same = from
            .effects
            .iter()
            .zip(&to.effects)
            .take_while(|(a, b)| a == b)
            .count();
        let w = Writes::new(
            c,
            usize::from(rewrite)
                + inbox.len()
                + projection.len()
                + (from.effects.len() - same)
                + (to.effects.len() - same),
        )?;
        if rewrite {
            w.run("DELETE FROM inbox", params![])?;
        }
        for ev in inbox.gone {
            w.run("DELETE FROM inbox WHERE event_id=?", params![ev.id()])?;
        }
        for r in inbox.changed {
            w.run(
                "UPDATE inbox SET state=?, reason=? WHERE event_id=?",
                params![
                    INBOX_STATES[r.state as usize],
                    REASONS[r.reason as usize].map(|x| x.name()),
                    r.ev.id()
                ],
            )?;
        }
        for r in inbox.new {
            w.run(
                "INSERT INTO inbox(event_id, flow_id, seq, body, state, reason) VALUES(?, ?, ?, ?, ?, ?)",
                params![
                    r.ev.id(),
                    r.ev.flow_id(),
                    r.ev.seq,
                    bodies[r.ev.index() as usize],
                    INBOX_STATES[r.state as usize],
                    REASONS[r.reason as usize].map(|x| x.name())
                ],
            )?;
        }
        for f in projection.gone {
            w.run(
                "DELETE FROM projection WHERE flow_id=?",
                params![FLOW_IDS[f as usize]],
            )?;
        }
        for r in projection.changed {
            w.run(
                "UPDATE projection SET last_seq=?, state=?, held=? WHERE flow_id=?",
                params![
                    r.last_seq,
                    STATES[r.state as usize],
                    r.held,
                    FLOW_IDS[r.flow as usize]
                ],
            )?;
        }
        for r in projection.new {
            w.run(
                "INSERT INTO projection(flow_id, last_seq, state, held) VALUES(?, ?, ?, ?)",
                params![
                    FLOW_IDS[r.flow as usize],
                    r.last_seq,
                    STATES[r.state as usize],
                    r.held
                ],
            )?;
        }
        // The effect log is ordered: keep the common prefix, rewrite the rest in order.
        for ev in &from.effects[same..] {
            w.run("DELETE FROM effect WHERE event_id=?", params![ev.id()])?;
        }
        for ev in &to.effects[same..] {
            w.run(
                "INSERT INTO effect(event_id, flow_id, seq, kind, held) VALUES(?, ?, ?, ?, ?)",
                params![
                    ev.id(),
                    ev.flow_id(),
                    ev.seq,
                    ev.kind(),
                    held_after(ev.kind())
                ],
            )?;
        }
        w.commit()?;
    }
    Ok(())
}
