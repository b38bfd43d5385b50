//! The ordered outbox / inbox protocol of the article, in plain Rust over rusqlite (and natively, behind the
//! `postgres` feature, PostgreSQL): no browser in here.
//!
//! **Architecture invariant:** nothing in this module knows about Yew, web-sys or the DOM; it runs the same
//! natively and in wasm32.

mod apply_steps;
pub mod changes;
pub mod conn;
pub mod consumer;
pub mod db;
pub mod invariant;
pub mod location;
#[cfg(feature = "postgres")]
pub mod pg;
pub mod producer;
pub mod results;
pub mod rule;
pub mod rule_apply;
pub mod system;
pub mod types;
/// SQLite's power layer: the VFS that forgets unsynced writes (files with `Location::with_power`), Unix only.
#[cfg(unix)]
pub mod unsynced;
pub mod vocab;

pub use consumer::ConsumerConfig;
pub use db::SqlLine;
pub use invariant::Invariant;
pub use location::Location;
pub use producer::{Transition, WriteMode};
pub use results::*;
pub use system::{FaultTarget, Snapshot, Synchronous, System};
pub use types::*;
pub use vocab::{Role, Stop};
