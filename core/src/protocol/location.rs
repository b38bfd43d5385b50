//! Where a system's two databases are: in memory (the page, the tests), SQLite files in a directory (the real
//! processes), or two schemas on a PostgreSQL server (feature `postgres`). Everything that differs between them
//! — creating, opening, naming, removing — is answered here, so that no caller asks which one it has.

use super::conn::Conn;
use super::db::{self, Db};
#[cfg(not(target_arch = "wasm32"))]
use super::vocab::Synchronous;
use super::vocab::{Role, Stop};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long a real process waits for another's write lock before it answers `busy`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The two database files of a system on disk, inside one directory.
pub const PRODUCER_FILE: &str = "producer.db";
pub const CONSUMER_FILE: &str = "consumer.db";

static NEXT_MEMORY: AtomicU64 = AtomicU64::new(1);

/// Where a system's two databases are. Opaque: callers say what they want done, never which kind it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location(Kind);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// `file:/…?vfs=memdb` databases that live as long as a connection to them; `None` until created, as each
    /// creation makes new ones. A process exit is a dropped connection.
    Memory(Option<u64>),
    /// WAL files shared by real processes, `synchronous=FULL` or, with `power`, that setting through the layer
    /// that forgets unsynced writes at a power cut ([`super::unsynced`]). The page never opens files.
    #[cfg(not(target_arch = "wasm32"))]
    Files {
        dir: std::path::PathBuf,
        busy_timeout: Duration,
        power: Option<Synchronous>,
    },
    /// Two schemas on a server; a process's write waits at most `lock_timeout` for its role's lock.
    #[cfg(feature = "postgres")]
    Postgres {
        place: super::pg::Place,
        lock_timeout: Option<Duration>,
    },
}

impl Location {
    /// New in-memory databases each time they are created.
    pub fn memory() -> Location {
        Location(Kind::Memory(None))
    }

    /// The two files in `dir`, waiting [`BUSY_TIMEOUT`] for another process's write lock.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn files(dir: impl Into<std::path::PathBuf>) -> Location {
        Location(Kind::Files {
            dir: dir.into(),
            busy_timeout: BUSY_TIMEOUT,
            power: None,
        })
    }

    /// Two schemas of a prefix unique to this call on the server of `url`.
    #[cfg(feature = "postgres")]
    pub fn postgres(url: &str) -> Location {
        Location(Kind::Postgres {
            place: super::pg::Place::fresh(url),
            lock_timeout: None,
        })
    }

    /// A worker's argument back ([`Location::arg`]): a PostgreSQL place (`URL#prefix`), else a directory. A
    /// worker waits [`BUSY_TIMEOUT`] for the write lock on either.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn parse(arg: &str) -> Result<Location, String> {
        #[cfg(feature = "postgres")]
        if super::pg::server::names_postgres(arg) {
            let place = super::pg::Place::parse(arg)?;
            return Ok(Location(Kind::Postgres {
                place,
                lock_timeout: Some(BUSY_TIMEOUT),
            }));
        }
        Ok(Location::files(arg))
    }

    /// The same place, a write waiting at most `wait` for another process's write lock (files' busy timeout,
    /// PostgreSQL's lock timeout); in memory there is no other process.
    pub fn with_wait(mut self, wait: Duration) -> Location {
        match &mut self.0 {
            Kind::Memory(_) => {}
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files { busy_timeout, .. } => *busy_timeout = wait,
            #[cfg(feature = "postgres")]
            Kind::Postgres { lock_timeout, .. } => *lock_timeout = Some(wait),
        }
        let _ = wait;
        self
    }

    /// The files opened through SQLite's power layer with `synchronous` (the power run's workers); elsewhere
    /// there is no such layer and nothing changes.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_power(mut self, synchronous: Synchronous) -> Location {
        if let Kind::Files { power, .. } = &mut self.0 {
            *power = Some(synchronous);
        }
        self
    }

    /// What a worker process is handed to open the same databases ([`Location::parse`]); memory is no other
    /// process's, so its argument only names it.
    pub fn arg(&self) -> String {
        match &self.0 {
            Kind::Memory(n) => format!("memory:{}", n.unwrap_or(0)),
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files { dir, .. } => dir.to_string_lossy().into_owned(),
            #[cfg(feature = "postgres")]
            Kind::Postgres { place, .. } => place.arg(),
        }
    }

    /// As messages name it: [`Location::arg`] without a URL's password.
    pub fn label(&self) -> String {
        match &self.0 {
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files { dir, .. } => dir.display().to_string(),
            #[cfg(feature = "postgres")]
            Kind::Postgres { place, .. } => super::pg::shown(&place.arg()),
            Kind::Memory(_) => self.arg(),
        }
    }

    /// What a run's header says the databases are.
    pub fn describe(&self) -> String {
        match &self.0 {
            Kind::Memory(_) => "two in-memory SQLite databases".into(),
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files { dir, .. } => format!(
                "two SQLite files (WAL, synchronous=FULL) in {}",
                dir.display()
            ),
            #[cfg(feature = "postgres")]
            Kind::Postgres { place, .. } => format!(
                "two schemas on the PostgreSQL server of {} (a write waits for its schema's advisory lock)",
                super::pg::shown(place.url())
            ),
        }
    }

    /// Schemas in a server's database: not for keeping (a reader's database is not a place for runs), and
    /// removed with a system that created them (`System::create`). Files stay for a reader; memory goes
    /// with its connections anyway.
    pub(super) fn removed_with_its_system(&self) -> bool {
        match &self.0 {
            #[cfg(feature = "postgres")]
            Kind::Postgres { .. } => true,
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files { .. } => false,
            Kind::Memory(_) => false,
        }
    }

    /// Whether a trace's power steps (SQLite's `synchronous`, its WAL and a cut) mean anything here.
    pub fn has_power_layer(&self) -> bool {
        !self.removed_with_its_system()
    }

    /// A place of its own beside this one: a subdirectory, schemas with a longer prefix, or new memory.
    pub fn child(&self, name: &str) -> Location {
        let _ = name;
        match &self.0 {
            Kind::Memory(_) => Location::memory(),
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files {
                dir,
                busy_timeout,
                power,
            } => Location(Kind::Files {
                dir: dir.join(name),
                busy_timeout: *busy_timeout,
                power: *power,
            }),
            #[cfg(feature = "postgres")]
            Kind::Postgres {
                place,
                lock_timeout,
            } => Location(Kind::Postgres {
                place: place.child(name),
                lock_timeout: *lock_timeout,
            }),
        }
    }

    /// The two databases, empty, with the article's schema (a directory made first; earlier schemas of the
    /// same prefix dropped). Run once, by one process, before any worker opens them.
    pub fn create(&self) -> Result<(), Stop> {
        self.create_disks().map(drop)
    }

    /// [`Location::create`], keeping the connections that keep in-memory databases alive, and where the new
    /// databases are (in memory, new ones each time).
    pub(super) fn create_disks(&self) -> Result<(Location, [Conn; 2]), Stop> {
        let here = match &self.0 {
            Kind::Memory(_) => Location(Kind::Memory(Some(
                NEXT_MEMORY.fetch_add(1, Ordering::Relaxed),
            ))),
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files { dir, .. } => {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Stop::Sql(format!("{}: {e}", dir.display())))?;
                self.clone()
            }
            #[cfg(feature = "postgres")]
            Kind::Postgres { place, .. } => {
                place.create()?;
                return Ok((self.clone(), self.open_disks()?));
            }
        };
        let disks = [here.sqlite(Role::Producer)?, here.sqlite(Role::Consumer)?];
        for (disk, role) in disks.iter().zip([Role::Producer, Role::Consumer]) {
            let sqlite = disk.lite()?;
            // The page's SQLite is built with 1 KiB pages (`.cargo/config.toml`); natively the same, so both
            // copy the same bytes into their journals (the protocol's rows are small).
            #[cfg(not(target_arch = "wasm32"))]
            if matches!(here.0, Kind::Memory(_)) {
                sqlite.pragma_update(None, "page_size", 1024)?;
            }
            sqlite.execute_batch(disk.schema(role))?;
        }
        Ok((here, disks))
    }

    /// Connections to both databases as they are (made by [`Location::create`]); a missing file is an error.
    pub(super) fn open_disks(&self) -> Result<[Conn; 2], Stop> {
        Ok([
            self.connect(Role::Producer, false)?,
            self.connect(Role::Consumer, false)?,
        ])
    }

    /// A process's connection to `role`'s database.
    pub fn open(&self, role: Role) -> Result<Db, Stop> {
        Ok(Db::on(self.connect(role, true)?, role))
    }

    /// A connection to `role`'s database; a process's (`waits`) waits for the lock as asked, a disk's for ever.
    pub fn connect(&self, role: Role, waits: bool) -> Result<Conn, Stop> {
        let _ = waits;
        match &self.0 {
            Kind::Memory(_) => self.sqlite(role),
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files { dir, .. } => {
                let path = dir.join(file(role));
                if !path.is_file() {
                    return Err(Stop::Sql(format!(
                        "{}: no such database file",
                        path.display()
                    )));
                }
                self.sqlite(role)
            }
            #[cfg(feature = "postgres")]
            Kind::Postgres {
                place,
                lock_timeout,
            } => {
                let wait = if waits { *lock_timeout } else { None };
                Ok(Conn::Pg(Box::new(place.open(role, wait)?)))
            }
        }
    }

    /// An SQLite connection to `role`'s database, made if it is missing.
    fn sqlite(&self, role: Role) -> Result<Conn, Stop> {
        match &self.0 {
            Kind::Memory(n) => Ok(Conn::Lite(db::open(&format!(
                "file:/outbox-playground-{}-{}.db?vfs=memdb",
                n.unwrap_or(0),
                role.name()
            ))?)),
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files {
                dir,
                busy_timeout,
                power,
            } => {
                let path = dir.join(file(role));
                let path = path.to_str().ok_or_else(|| {
                    Stop::Sql(format!("{}: the path is not UTF-8", path.display()))
                })?;
                Ok(Conn::Lite(open_file(path, *busy_timeout, *power)?))
            }
            #[cfg(feature = "postgres")]
            Kind::Postgres { .. } => Err(Stop::Sql(format!(
                "{}: a server's schemas, not SQLite",
                self.label()
            ))),
        }
    }

    /// Removes the databases and all they hold: the directory, or the schemas. Memory goes by itself.
    pub fn remove(&self) -> Result<(), Stop> {
        match &self.0 {
            Kind::Memory(_) => Ok(()),
            #[cfg(not(target_arch = "wasm32"))]
            Kind::Files { dir, .. } => std::fs::remove_dir_all(dir)
                .map_err(|e| Stop::Sql(format!("{}: {e}", dir.display()))),
            #[cfg(feature = "postgres")]
            Kind::Postgres { place, .. } => place.drop_schemas(),
        }
    }

    /// What a passed run leaves behind, removed where nobody looks: a server's schemas. Files stay for a reader
    /// to open.
    pub fn tidy(&self) {
        if self.removed_with_its_system() {
            let _ = self.remove();
        }
    }

    /// Removes the files' directory if nothing is left in it (a failed round's files are); schemas and memory
    /// have no directory.
    pub fn remove_if_empty(&self) {
        #[cfg(not(target_arch = "wasm32"))]
        if let Kind::Files { dir, .. } = &self.0 {
            let _ = std::fs::remove_dir(dir);
        }
    }

    /// What a dropped connection's open transaction became, for the SQL log.
    pub fn restart_note(&self) -> &'static str {
        if self.removed_with_its_system() {
            "-- restart: the server rolled back the open transaction; reconnected to what was committed"
        } else {
            "-- restart: SQLite rolled back the open transaction; reopened from what was committed"
        }
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn file(role: Role) -> &'static str {
    match role {
        Role::Producer => PRODUCER_FILE,
        Role::Consumer => CONSUMER_FILE,
    }
}

/// A database file in WAL mode with `synchronous=FULL` (every commit is on disk before it returns, as in the
/// article's kit), or `power`'s setting through the layer, and a busy timeout.
#[cfg(not(target_arch = "wasm32"))]
fn open_file(
    path: &str,
    busy_timeout: Duration,
    power: Option<Synchronous>,
) -> Result<rusqlite::Connection, rusqlite::Error> {
    use rusqlite::{Connection, OpenFlags};
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match power {
        None => Connection::open_with_flags(path, flags)?,
        #[cfg(unix)]
        Some(_) => Connection::open_with_flags_and_vfs(path, flags, super::unsynced::register())?,
        #[cfg(not(unix))]
        Some(_) => {
            return Err(rusqlite::Error::InvalidParameterName(format!(
                "{path}: the power layer needs a Unix system"
            )))
        }
    };
    conn.busy_timeout(busy_timeout)?;
    let mode: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(rusqlite::Error::InvalidParameterName(format!(
            "{path}: journal_mode is {mode}, not wal"
        )));
    }
    conn.pragma_update(None, "synchronous", power.unwrap_or_default().name())?;
    Ok(conn)
}
