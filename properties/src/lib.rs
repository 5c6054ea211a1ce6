//! # pipecheck-properties
//!
//! The invariants of the pipe, as code shared by every engine, and proptest
//! operation sequences against a reference model.
