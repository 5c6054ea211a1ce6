//! The oneshot target's campaign: every scenario clean, then the kill matrix of its
//! planted faults, under loom, shuttle and the channel's operation sequences, merged
//! into one report (`cargo run -p oneshot`); and the traces command line over it:
//!
//! ```text
//! cargo run -p oneshot --features shuttle -- explore --scenario many-rounds --fault SkipRecheck
//! cargo run -p oneshot --features shuttle -- replay traces/<file>.trace
//! ```

pipecheck::campaign_main!(|| vec![oneshot::target()]);
