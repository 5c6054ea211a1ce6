//! Both targets under every engine: `cargo test -p spsc-ring` (std threads and the
//! sequential models), `--features loom`, `--features shuttle`.
#[cfg(feature = "shuttle")]
mod replay;
mod ring;
mod stack;
