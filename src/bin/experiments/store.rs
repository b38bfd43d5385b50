//! `--store` for `--check` and `replay` (its value checked as it is parsed, `cli.rs`): SQLite (the default), a throw-away PostgreSQL server (`postgres`), or
//! the server a URL names (`postgres://…`). The PostgreSQL client is native only (the core's feature).

use outbox_core::protocol::Location;

#[cfg(not(target_arch = "wasm32"))]
pub use outbox_core::protocol::pg::server::names_postgres;
/// No PostgreSQL client in a wasm32 build.
#[cfg(target_arch = "wasm32")]
pub fn names_postgres(_: &str) -> bool {
    false
}

/// Where a command's databases are, and, apart from it, the throw-away server it started (stopped and removed
/// when dropped).
pub struct Running {
    pub location: Location,
    #[cfg(not(target_arch = "wasm32"))]
    _server: Option<outbox_core::protocol::pg::server::Target>,
}

/// Starts what `--store` names: nothing for SQLite; a server, or a check that the URL's server will do.
pub fn start(store: Option<&str>) -> Result<Running, String> {
    match store {
        None | Some("sqlite") => Ok(Running {
            location: Location::memory(),
            #[cfg(not(target_arch = "wasm32"))]
            _server: None,
        }),
        #[cfg(not(target_arch = "wasm32"))]
        Some(value) => {
            let target = outbox_core::protocol::pg::server::Target::from_flag(value)?;
            Ok(Running {
                location: Location::postgres(&target.url),
                _server: Some(target),
            })
        }
        #[cfg(target_arch = "wasm32")]
        Some(_) => Err("PostgreSQL needs the native command line".into()),
    }
}
