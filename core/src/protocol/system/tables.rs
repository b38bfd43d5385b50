//! The committed tables of both databases written back directly: emptied for a fresh session, or put back to an
//! earlier snapshot when the page travels in time or a power cut takes commits away. Reading them is `reads.rs`.

use super::{FaultTarget, Snapshot, System};
use crate::protocol::consumer::ConsumerConfig;
use crate::protocol::vocab::Stop;
use rusqlite::Connection;

impl System {
    /// Empties both databases (rows and fault triggers): a fresh session without the cost of creating databases
    /// and schemas again (the explorer runs hundreds of sessions). An idle process keeps its connections (they
    /// hold no state of the old session, and reopening costs a schema parse each); one with a transaction open
    /// is restarted.
    pub fn wipe(&mut self, config: ConsumerConfig) -> Result<(), Stop> {
        // First: a process that died mid-transaction still holds its write lock, which the deletes would wait on.
        self.settle()?;
        for sql in ["DELETE FROM flow", "DELETE FROM outbox"] {
            self.producer_disk.execute(sql, &[])?;
        }
        for sql in [
            "DELETE FROM inbox",
            "DELETE FROM projection",
            "DELETE FROM effect",
        ] {
            self.consumer_disk.execute(sql, &[])?;
        }
        // Only a session that injected a fault has a trigger to drop: dropping one changes the schema, which
        // every connection would then parse again.
        if self.faults {
            for (disk, target) in [
                (&self.producer_disk, FaultTarget::OutboxInsert),
                (&self.consumer_disk, FaultTarget::EffectInsert),
            ] {
                disk.batch(&disk.fault_trigger(target.table(), false))?;
            }
            self.faults = false;
        }
        self.config = config;
        self.disks = super::power::Disks::default();
        self.take_sql_log();
        self.take_passed();
        Ok(())
    }

    /// A process with no transaction open and nothing armed or remembered: an idle one keeps its connections
    /// (they hold no state, and reopening costs a schema parse each); one with a transaction open restarts.
    pub(crate) fn settle(&mut self) -> Result<(), Stop> {
        if self.process.producer.is_idle() && self.process.consumer.is_idle() {
            self.process.producer.clear();
            self.process.consumer.clear();
            Ok(())
        } else {
            self.restart()
        }
    }

    /// Takes the committed rows back from `from` (what the databases hold now) to `to`, an earlier state of the
    /// same databases (a disk's image: the page's power cut), row by row: the rows changed since are written back,
    /// the rows added since deleted. The protocol deletes no row, so `to` holds none that `from` lacks: the inbox's
    /// rows keep their places in the arrival order, and the effect log is a prefix of `from`'s. (The checker
    /// writes its compact rows itself, `checker::rows`.)
    pub(crate) fn roll_back(&mut self, from: &Snapshot, to: &Snapshot) -> Result<(), Stop> {
        self.settle()?;
        let (fp, tp) = (&from.producer, &to.producer);
        let (fc, tc) = (&from.consumer, &to.consumer);
        let p = self.producer_disk.lite()?;
        let c = self.consumer_disk.lite()?;
        sync(
            p,
            &fp.flow,
            &tp.flow,
            |r| &r.flow_id,
            "DELETE FROM flow WHERE flow_id=?",
            |r| {
                p.prepare_cached(
                    "INSERT OR REPLACE INTO flow(flow_id, seq, state, amount) VALUES(?, ?, ?, ?)",
                )?
                .execute(rusqlite::params![r.flow_id, r.seq, r.state, r.amount])
            },
        )?;
        sync(
            p,
            &fp.outbox,
            &tp.outbox,
            |r| &r.event_id,
            "DELETE FROM outbox WHERE event_id=?",
            |r| {
                p.prepare_cached(
                "INSERT OR REPLACE INTO outbox(event_id, flow_id, seq, body, accepted) VALUES(?, ?, ?, ?, ?)",
            )?
            .execute(rusqlite::params![r.event_id, r.flow_id, r.seq, r.body, r.accepted])
            },
        )?;
        sync(
            c,
            &fc.inbox,
            &tc.inbox,
            |r| &r.event_id,
            "DELETE FROM inbox WHERE event_id=?",
            |r| {
                c.prepare_cached(
                    "UPDATE inbox SET flow_id=?, seq=?, body=?, state=?, reason=? WHERE event_id=?",
                )?
                .execute(rusqlite::params![
                    r.flow_id, r.seq, r.body, r.state, r.reason, r.event_id
                ])
            },
        )?;
        sync(
            c,
            &fc.projection,
            &tc.projection,
            |r| &r.flow_id,
            "DELETE FROM projection WHERE flow_id=?",
            |r| {
                c.prepare_cached(
                "INSERT OR REPLACE INTO projection(flow_id, last_seq, state, held) VALUES(?, ?, ?, ?)",
            )?
            .execute(rusqlite::params![r.flow_id, r.last_seq, r.state, r.held])
            },
        )?;
        debug_assert!(fc.effect.starts_with(&tc.effect));
        for r in fc.effect.get(tc.effect.len()..).unwrap_or_default() {
            c.prepare_cached("DELETE FROM effect WHERE event_id=?")?
                .execute([&r.event_id])?;
        }
        self.take_sql_log();
        Ok(())
    }
}

/// Makes a keyed table hold `to` instead of `from`: deletes the keys `to` lacks, writes the rows that differ.
fn sync<R: PartialEq>(
    conn: &Connection,
    from: &[R],
    to: &[R],
    key: impl Fn(&R) -> &String,
    delete: &str,
    mut write: impl FnMut(&R) -> rusqlite::Result<usize>,
) -> Result<(), Stop> {
    for r in from {
        if !to.iter().any(|t| key(t) == key(r)) {
            conn.prepare_cached(delete)?.execute([key(r)])?;
        }
    }
    for r in to {
        if !from.contains(r) {
            write(r)?;
        }
    }
    Ok(())
}
