//! # pipecheck-models
//!
//! Loom models (exhaustive, `cargo test --features loom`) and shuttle scenarios
//! (randomized and PCT, `cargo test --features shuttle`) of the pipe core.

pub mod primitives;
