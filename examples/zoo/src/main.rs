//! The zoo's campaign (`cargo run -p zoo`): every shipped bug's port clean, then each
//! shipped bug, planted back, caught as its invariant; and the traces commands
//! (`cargo run -p zoo --features shuttle -- explore --scenario <s> --fault <f>`).

pipecheck::campaign_main!(zoo::targets);
