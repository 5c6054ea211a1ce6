//! The event's campaign: its scenarios clean, then the kill matrix of its planted bugs,
//! under loom, shuttle and plain threads, in one report (`cargo run -p parker`).
pipecheck::campaign_main!(|| vec![parker::check::target()]);
