//! pipecheck-traces' integration tests, one module per area, in one test binary
//! (`--test traces`). `trace_file` runs in every build; the others replay and record
//! under shuttle and run only with `--features shuttle`.

mod explore_faults;
mod online_wakeup;
mod replay_corpus;
mod rerecord;
mod round_trip;
mod trace_file;
