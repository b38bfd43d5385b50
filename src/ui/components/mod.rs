//! One component per file; each reads the model from the context and dispatches actions.

pub mod consumer;
pub mod controls;
pub mod experiments;
pub mod log;
pub mod playground;
pub mod producer;
pub mod tables;
pub mod wire;
