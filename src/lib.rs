//! The playground's page: a Yew front end over the core (`outbox-core`). Only this crate touches the browser;
//! everything it does that is not drawing is a call into the core's façade (`outbox_core::playground`).
//!
//! **Architecture invariant:** `outbox-core` has no Yew, web-sys or js-sys dependency of its own, so the
//! compiler keeps its code from naming the browser; `scripts/core-deps.sh` keeps its whole dependency tree free
//! of browser crates.

#[cfg(target_arch = "wasm32")]
pub mod ui;

/// The page's strings, in both languages (also read natively, by the prerender and the tests).
pub mod i18n;

/// The header, drawn by the page and prerendered into `index.html` by the build (natively, with the
/// `prerender` feature only).
#[cfg(any(target_arch = "wasm32", feature = "prerender"))]
pub mod first_screen;

/// The levels' index, written by `build.rs` from `levels/*.json`: `(id, section, [English title, Chinese title])`
/// in file order. The main page's entry to the levels and the experiments' links read it without the levels.
pub const LEVELS: &[(&str, &str, [&str; 2])] =
    include!(concat!(env!("OUT_DIR"), "/levels_index.rs"));
