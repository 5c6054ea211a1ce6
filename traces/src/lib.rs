//! # pipecheck-traces
//!
//! Saved failing shuttle schedules (`traces/*.trace`) and the tooling that
//! replays, minimizes and explains them.
