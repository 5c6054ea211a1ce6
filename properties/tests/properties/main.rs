//! pipecheck-properties' integration tests, one module per area, in one test binary
//! (`--test properties`). The std modules run without engine features; `shuttle_ops`
//! only with `--features shuttle`; `linearizability_checker` in every build (its
//! headless-browser pages only in the std one).

mod checker_corpus;
mod fault_sequences;
mod linearizability_checker;
mod linearizability_foreign;
mod monitor_reset;
mod op_sequences;
mod ops_spec;
mod shuttle_ops;
mod smoke;
