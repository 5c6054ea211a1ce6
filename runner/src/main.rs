//! `pipecheck`: pipecheck's own verification campaign (`cargo campaign`), over the pipe
//! and the seed primitives, through the same [`pipecheck_runner::main`] a user's crate
//! calls.

pipecheck_runner::campaign_main!(pipecheck_models::builtin::all);
