//! What the campaign binary's test does not check (`verify_every_target` in
//! `src/main.rs`: every scenario clean and every planted bug caught as its invariant
//! under loom at the bound each scenario declares, 2 unless it says, shuttle or
//! threads, and the model's generated scenarios or operation sequences), under every
//! engine: `cargo test -p oneshot` (std threads), `--features loom`, `--features
//! shuttle` (and the saved traces).
#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod channel;
#[cfg(feature = "loom")]
mod loom;
#[cfg(feature = "shuttle")]
mod shuttle;
