//! The ordered outbox / inbox playground: the article's protocol on two real SQLite databases, a trace engine
//! that replays any session, and the article's twelve experiments — natively and in the browser.
//!
//! **Architecture invariant:** `protocol`, `trace` and `experiments` are plain Rust over rusqlite; only `ui`
//! (wasm32 only) touches the browser, and it calls the core, never the reverse.

pub mod checker;
pub mod deflate;
pub mod experiments;
pub mod explorer;
pub mod protocol;
#[cfg(unix)]
pub mod real;
pub mod share;
pub mod trace;

#[cfg(target_arch = "wasm32")]
pub mod ui;

#[cfg(target_arch = "wasm32")]
mod libc_stubs;
