//! The verification campaign in one command, for any set of [`Target`]s, declared by a
//! crate's campaign binary (a two-line binary, below). Every scenario
//! runs clean under every engine (loom, shuttle random, shuttle PCT, and the target's
//! operation sequences under proptest), then every planted bug runs on the scenarios
//! that claim it: the kill matrix, where a bug counts as caught only when the verdict
//! names the invariant it breaks.
//!
//! The campaign builds its own binary again with the crate's `loom` and `shuttle`
//! features (they replace the sync primitives of the whole program, so each is its own
//! build), runs those workers, and merges their results into one report. A bug that no
//! engine of this run can see (a weak-memory bug when loom is not run) is reported
//! "not run here", never "NOT CAUGHT".
//!
//! A user's crate forwards its `loom` and `shuttle` features to this crate's and
//! declares the binary:
//!
//! ```ignore
//! // src/main.rs
//! pipecheck::campaign_main!(|| vec![my_crate::target()]);
//! ```
//!
//! and runs `cargo run -p my-crate` (options: `-- --help`). The same binary serves the
//! traces command line over those targets (`cargo run -p my-crate --features shuttle --
//! explore --scenario <name> --fault <name>`, then `-- replay <file>`: [`main`]).
//!
//! [`Target`]: crate::Target

mod baseline;
mod checker_corpus;
mod cli;
#[cfg(test)]
pub(crate) mod fixture;
mod jobs;
mod orchestrate;
mod outcome;
mod registry;
mod report;
mod worker;

use std::process::ExitCode;

use crate::target::Target;

/// A campaign: the crate and binary that runs it (its workers are that binary, built
/// with the crate's `loom` or `shuttle` feature) and its targets.
#[derive(Clone, Copy, Debug)]
pub struct Campaign {
    /// The package of the campaign's binary (`CARGO_PKG_NAME`).
    pub package: &'static str,
    /// The campaign's binary (`CARGO_BIN_NAME`).
    pub bin: &'static str,
    /// The targets it checks.
    pub targets: fn() -> Vec<Target>,
}

impl Campaign {
    /// Runs the campaign's command line: `campaign` (the default), the traces commands
    /// (`explore`, `replay`, ...) over the same targets, and the hidden `worker`.
    pub fn run(self) -> ExitCode {
        run(self)
    }

    /// Checks every target with [`verify_all`], as the unit test of this campaign's
    /// binary: the reproduce commands of its failures name that binary (`--bin <bin>`).
    pub fn verify(&self) {
        crate::target::invocation::declare_bin(self.bin);
        verify_all(self.targets);
    }

    /// The command that runs this campaign again: `cargo run -p <package> --bin <bin> --`.
    pub fn command(&self) -> String {
        format!("cargo run -p {} --bin {} --", self.package, self.bin)
    }
}

/// Runs the campaign's command line (`campaign` and the hidden `worker`) and returns
/// the exit code: success when every clean run passed and every planted bug that ran
/// was caught as its own invariant by some engine.
///
/// A user's campaign binary serves the traces command line too: with a first argument
/// that is one of its commands (`list`, `explore`, `replay`, `minimize`, `corpus`; see
/// [`trace::cli`](crate::trace::cli)), the rest of the command line goes to
/// [`trace::cli::main`](crate::trace::cli::main) over the same targets, so that one binary finds,
/// saves and replays the failing schedules of the targets it checks.
pub(crate) fn run(campaign: Campaign) -> ExitCode {
    let first = std::env::args().nth(1);
    if first.as_deref().is_some_and(crate::trace::cli::is_command) {
        return crate::trace::cli::main((campaign.targets)());
    }
    registry::register(campaign);
    cli::main()
}

/// Checks every target `targets` returns, and the sequential model it declares, with
/// [`verify`](crate::verify) at each scenario's own loom bound, under the engine the
/// features select: the test [`campaign_main!`](crate::campaign_main) adds to a campaign binary, so that
/// `cargo test`, `cargo test --features loom` and `cargo test --features shuttle` check
/// the campaign's targets with no test file of the crate's own.
///
/// # Panics
///
/// When a check fails: with the failure and how to reproduce it.
pub fn verify_all(targets: fn() -> Vec<Target>) {
    for target in targets() {
        eprintln!("verifying target `{}`", target.name());
        crate::target::verify(&target);
    }
}

/// Declares `fn main` of a campaign binary over the targets `targets` returns (an
/// expression of type `fn() -> Vec<Target>`, e.g. a closure without captures): the
/// package and binary names come from cargo. Also declares the binary's test
/// `verify_every_target` ([`verify_all`]), which `cargo test` runs under each engine's
/// feature.
#[macro_export]
macro_rules! campaign_main {
    ($targets:expr) => {
        fn main() -> ::std::process::ExitCode {
            $crate::Campaign {
                package: env!("CARGO_PKG_NAME"),
                bin: env!("CARGO_BIN_NAME"),
                targets: $targets,
            }
            .run()
        }

        /// Every target of the campaign and its sequential model, under the engine the
        /// features select (`pipecheck::verify_all`).
        #[cfg(test)]
        #[test]
        fn verify_every_target() {
            $crate::Campaign {
                package: env!("CARGO_PKG_NAME"),
                bin: env!("CARGO_BIN_NAME"),
                targets: $targets,
            }
            .verify();
        }
    };
}
