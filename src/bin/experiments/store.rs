//! `--store` for `--check` and `replay` (its value checked as it is parsed, `cli.rs`): SQLite (the default), a
//! throw-away PostgreSQL server (`postgres`), or the server a URL names (`postgres://…`).

use outbox_core::protocol::pg::server::Target;
use outbox_core::protocol::Location;

pub use outbox_core::protocol::pg::server::names_postgres;

/// Where a command's databases are, and, apart from it, the throw-away server it started (stopped and removed
/// when dropped).
pub struct Running {
    pub location: Location,
    _server: Option<Target>,
}

/// Starts what `--store` names: nothing for SQLite; a server, or a check that the URL's server will do.
pub fn start(store: Option<&str>) -> Result<Running, String> {
    match store {
        None | Some("sqlite") => Ok(Running {
            location: Location::memory(),
            _server: None,
        }),
        Some(value) => {
            let target = Target::from_flag(value)?;
            Ok(Running {
                location: Location::postgres(&target.url),
                _server: Some(target),
            })
        }
    }
}
