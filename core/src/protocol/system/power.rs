//! Power loss in the page's model: what each database's disk last synced, and a power cut that puts a
//! database back to it. Under `synchronous=FULL` a commit is synced before it returns, so the disk holds every
//! commit; under `NORMAL` SQLite's WAL is synced only at a checkpoint (the reader's, or SQLite's automatic one
//! at 1,000 WAL pages, counted as the pages the commits wrote); under `OFF` never. The image is the
//! committed rows at the last sync (the rows are what the protocol reads; the bytes would add nothing).

use super::{ConsumerTables, ProducerTables, System};
use crate::protocol::vocab::{Role, Stop, Synchronous};

/// SQLite's automatic checkpoint (`wal_autocheckpoint`): once a database's WAL holds this many pages.
pub const AUTOCHECKPOINT_PAGES: u32 = 1000;

/// The two disks' last synced images. `None`: the disk holds every commit (nothing unsynced).
/// An image is rows only: fault triggers are not part of it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Disks {
    pub mode: Synchronous,
    producer: Option<ProducerTables>,
    consumer: Option<ConsumerTables>,
    /// Pages each database's commits wrote since its last checkpoint (producer, consumer).
    wal: [u32; 2],
}

impl System {
    pub fn synchronous(&self) -> Synchronous {
        self.disks.mode
    }

    /// Changes `synchronous`. Leaving FULL, the disks hold what was committed so far; coming back to FULL
    /// syncs at once (SQLite would at the next commit, which syncs the whole WAL: only a cut in between
    /// differs, and the page shows none).
    #[cold]
    #[inline(never)]
    pub fn set_synchronous(&mut self, mode: Synchronous) -> Result<(), Stop> {
        if mode == Synchronous::Full {
            self.disks = Disks::default();
        } else if self.disks.mode == Synchronous::Full {
            self.sync_now()?;
        }
        if mode == Synchronous::Normal && self.disks.mode != Synchronous::Normal {
            // The WAL's pages are counted from here: what was written before is synced (FULL) or never
            // checkpointed automatically (OFF counts nothing).
            self.process.producer.pages_written();
            self.process.consumer.pages_written();
            self.disks.wal = [0, 0];
        }
        self.disks.mode = mode;
        Ok(())
    }

    /// After each step under NORMAL: the pages its commits wrote, and SQLite's automatic checkpoint (which
    /// syncs) for a database whose WAL reached [`AUTOCHECKPOINT_PAGES`]. Pages of a process that crashed
    /// before this count are not counted: the checkpoint comes a little later, never earlier.
    #[cold]
    #[inline(never)]
    pub fn count_wal_pages(&mut self) -> Result<(), Stop> {
        if self.disks.mode != Synchronous::Normal {
            return Ok(());
        }
        self.disks.wal[0] += self.process.producer.pages_written();
        self.disks.wal[1] += self.process.consumer.pages_written();
        if self.disks.wal[0] >= AUTOCHECKPOINT_PAGES {
            self.disks.producer = Some(self.snapshot()?.producer);
            self.disks.wal[0] = 0;
        }
        if self.disks.wal[1] >= AUTOCHECKPOINT_PAGES {
            self.disks.consumer = Some(self.snapshot()?.consumer);
            self.disks.wal[1] = 0;
        }
        Ok(())
    }

    /// A checkpoint of both databases: under NORMAL it syncs (the WAL's frames reach the database file and
    /// both are synced); under FULL everything is already synced; under OFF nothing is ever synced.
    #[cold]
    #[inline(never)]
    pub fn checkpoint(&mut self) -> Result<(), Stop> {
        if self.disks.mode == Synchronous::Normal {
            self.sync_now()?;
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn sync_now(&mut self) -> Result<(), Stop> {
        let now = self.snapshot()?;
        self.disks.producer = Some(now.producer);
        self.disks.consumer = Some(now.consumer);
        self.disks.wal = [0, 0];
        Ok(())
    }

    /// The power goes out where `lose` run: each of those databases keeps only what its disk had synced, and
    /// every process starts again (a cut is an exit of them all). Returns how many committed rows it took
    /// away or changed back.
    #[cold]
    #[inline(never)]
    pub fn power_cut(&mut self, lose: &[Role]) -> Result<usize, Stop> {
        self.restart()?;
        let now = self.snapshot()?;
        let mut after = now.clone();
        for (i, role) in [Role::Producer, Role::Consumer].into_iter().enumerate() {
            if lose.contains(&role) {
                // Its WAL's unsynced pages are gone with it.
                self.disks.wal[i] = 0;
            }
        }
        if lose.contains(&Role::Producer) {
            if let Some(image) = &self.disks.producer {
                after.producer = image.clone();
            }
        }
        if lose.contains(&Role::Consumer) {
            if let Some(image) = &self.disks.consumer {
                after.consumer = ConsumerTables {
                    support_v2: now.consumer.support_v2,
                    ..image.clone()
                };
            }
        }
        if after == now {
            return Ok(0);
        }
        self.roll_back(&now, &after)?;
        let (p, q) = (&now.producer, &after.producer);
        let (c, d) = (&now.consumer, &after.consumer);
        Ok(differ(&p.flow, &q.flow)
            + differ(&p.outbox, &q.outbox)
            + differ(&c.inbox, &d.inbox)
            + differ(&c.projection, &d.projection)
            + differ(&c.effect, &d.effect))
    }
}

/// The rows a cut took away or changed back, each once: the rows of `now` that `after` does not hold as they
/// are (a disk's image never holds a row the databases lack: the protocol deletes none).
#[inline(never)]
fn differ<T: PartialEq>(now: &[T], after: &[T]) -> usize {
    now.iter().filter(|r| !after.contains(r)).count()
}
