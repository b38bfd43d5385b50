//! The ordered outbox / inbox protocol on two real SQLite databases, a trace engine that replays any session,
//! the article's twelve experiments, the explorer, the checker, share links and the playground's façade —
//! natively and in the browser.
//!
//! **Architecture invariant:** this crate depends on no browser crate (no Yew, web-sys or js-sys of its own,
//! so the compiler keeps its code from naming one; `scripts/core-deps.sh` checks the whole tree, where on wasm32
//! only SQLite's port reaches js-sys, for its memory file system). The page (`outbox-playground`) calls it,
//! never the reverse.

#[macro_use]
pub mod words;

pub mod checker;
pub mod deflate;
pub mod diagram;
pub mod experiments;
pub mod explain;
pub mod explorer;
/// Native only: the isolation tester's specs on real connections (`experiments interleave`).
#[cfg(not(target_arch = "wasm32"))]
pub mod interleave;
pub mod json;
pub mod lang;
pub mod levels;
pub mod playground;
pub mod protocol;
#[cfg(unix)]
pub mod real;
/// The reader's rule, one of the protocol's consumers; also at the crate's root, where the page and the CLI name it.
pub use protocol::rule;
pub mod share;
pub mod trace;

#[cfg(target_arch = "wasm32")]
mod libc_stubs;
