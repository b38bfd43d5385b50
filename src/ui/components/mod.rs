//! One component per file; each reads the model from the context and dispatches actions.

pub mod check;
pub mod consumer;
pub mod controls;
pub mod diagram;
pub mod explore;
pub mod level;
pub mod library;
pub mod log;
pub mod playground;
pub mod postgres;
pub mod producer;
pub mod rule;
pub mod share;
pub mod tables;
pub mod timeline;
pub mod wire;
