//! The oneshot target's campaign: every scenario clean, then the kill matrix of its
//! planted faults, under loom, shuttle and the channel's operation sequences, merged
//! into one report (`cargo run -p oneshot --bin oneshot-campaign`).

pipecheck_runner::campaign_main!(|| vec![oneshot::target()]);
