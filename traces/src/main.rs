//! `pipecheck-traces`: find, minimize, save and replay failing shuttle schedules of
//! pipecheck's own targets (the pipe and the seed primitives).
//!
//! ```text
//! cargo run -p pipecheck-traces --features shuttle -- replay traces/corpus/<file>.trace
//! cargo run -p pipecheck-traces --features shuttle -- explore --scenario large-stream --fault LifoPool
//! cargo run -p pipecheck-traces --features shuttle -- corpus
//! cargo run -p pipecheck-traces --features shuttle -- corpus --rerecord   # = cargo traces corpus --rerecord
//! cargo run -p pipecheck-traces -- list
//! ```
//!
//! A user crate runs the same command line over its own targets with
//! `pipecheck_traces::replay_main`.

fn main() -> std::process::ExitCode {
    pipecheck_traces::cli::builtin_main()
}
