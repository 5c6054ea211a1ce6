//! The async I/O adapters of pipecheck-pipe, one binary for both features:
//! `cargo test -p pipecheck-pipe --features tokio,futures-io --test adapters`.
//! Each module compiles only with its feature (and never under loom or shuttle).
#![cfg(not(any(feature = "loom", feature = "shuttle")))]

#[cfg(any(feature = "tokio", feature = "futures-io"))]
#[path = "../common/mod.rs"]
mod common;

#[cfg(feature = "tokio")]
mod echo;
#[cfg(feature = "futures-io")]
mod futures_io_adapter;
#[cfg(feature = "tokio")]
mod tokio_adapter;
