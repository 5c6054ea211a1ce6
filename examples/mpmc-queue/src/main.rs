//! The queue's campaign (`cargo run -p mpmc-queue`) and traces commands (`-- explore|replay`).
pipecheck::campaign_main!(|| vec![mpmc_queue::queue_check::target()]);
