//! The playground's page: a Yew front end over the core (`outbox-core`). Only this crate touches the browser;
//! everything it does that is not drawing is a call into the core's façade (`outbox_core::playground`).
//!
//! **Architecture invariant** (enforced by the compiler): `outbox-core` has no Yew, web-sys or js-sys
//! dependency of its own, so nothing in the protocol, the engine or the checker can reach the browser.

#[cfg(target_arch = "wasm32")]
pub mod ui;
