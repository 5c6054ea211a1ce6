//! `pipecheck`: the pipe's verification campaign (`cargo campaign`), over the pipe and
//! its seed primitives, through the same [`pipecheck::campaign_main!`] a user's crate
//! declares. Its first argument may also be a traces command (`cargo traces replay
//! traces/corpus/<file>.trace`).

pipecheck::campaign_main!(pipecheck_models::builtin::all);
