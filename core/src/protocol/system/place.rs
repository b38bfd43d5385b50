//! Where a system's two databases are (a restart opens them again from here), and the PostgreSQL schemas a
//! system made, dropped with it.

#[cfg(feature = "postgres")]
use crate::protocol::conn::Conn;
use crate::protocol::db::{Db, Store};
use crate::protocol::vocab::{Role, Stop};

/// Where a system's two databases are, for a restart to open them again.
pub(super) enum Place {
    Lite {
        producer: String,
        consumer: String,
        store: Store,
    },
    #[cfg(feature = "postgres")]
    Pg {
        place: super::super::pg::Place,
        lock_timeout: Option<std::time::Duration>,
    },
}

impl Place {
    pub(super) fn open(&self, role: Role) -> Result<Db, Stop> {
        match self {
            Place::Lite {
                producer,
                consumer,
                store,
            } => {
                let location = if role == Role::Producer {
                    producer
                } else {
                    consumer
                };
                Db::open_in(location, *store, role)
            }
            #[cfg(feature = "postgres")]
            Place::Pg {
                place,
                lock_timeout,
            } => Ok(Db::on(
                Conn::Pg(Box::new(place.open(role, *lock_timeout)?)),
                role,
            )),
        }
    }

    /// What a dropped connection's open transaction became, for the SQL log.
    pub(super) fn restart_note(&self) -> &'static str {
        match self {
            Place::Lite { .. } => {
                "-- restart: SQLite rolled back the open transaction; reopened from what was committed"
            }
            #[cfg(feature = "postgres")]
            Place::Pg { .. } => {
                "-- restart: the server rolled back the open transaction; reconnected to what was committed"
            }
        }
    }
}

/// Drops a system's PostgreSQL schemas when the system is dropped.
#[cfg(feature = "postgres")]
pub(super) struct Owned(pub(super) super::super::pg::Place);

#[cfg(feature = "postgres")]
impl Drop for Owned {
    fn drop(&mut self) {
        // Nothing to report to: a schema left behind is named by its prefix and dropped with its server.
        let _ = self.0.drop_schemas();
    }
}
