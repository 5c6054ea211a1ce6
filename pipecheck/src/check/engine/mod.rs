//! The [`Engine`] abstraction: something that runs many executions of a target and
//! concludes a [`Verdict`].
//!
//! The shape is shuttle's `Scheduler`: a small trait, one file per implementation.
//! An engine knows nothing of what it checks: a target hands it an [`Execution`] (one
//! run of a scenario, with its checkers armed), and the engine decides how many runs,
//! under which schedules. The implementations that need a checker's primitives live
//! in the crate that depends on that checker (`pipecheck-models`: loom, shuttle);
//! [`Threads`] runs on plain threads.

mod threads;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use threads::Threads;

use pipecheck_sync::progress;

use crate::check::panic_hook::Capture;
use crate::check::verdict::{FailureKind, Verdict, classify, livelock};

/// One execution of a target: build its state, run it, check it. It fails by
/// panicking (with a typed payload from a checker, or the engine's own report).
pub type Execution = Arc<dyn Fn() + Send + Sync>;

/// What one check produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// The conclusion.
    pub verdict: Verdict,
    /// Executions run (to the failing one, if any).
    pub executions: u64,
    /// Wall-clock time of the check.
    pub elapsed: Duration,
    /// What the engine could not model exactly in this check, when that may have hidden
    /// a failure: a pass with a caveat is not an exact pass. `None` for an exact check
    /// (and for every failure: the caveats name constructs that only remove outcomes).
    pub caveat: Option<&'static str>,
}

/// Runs executions of a target and concludes a verdict.
pub trait Engine {
    /// The engine's name in reports, e.g. `loom(bound=3)` or `shuttle-pct(depth=3)`.
    fn name(&self) -> String;

    /// Runs executions of `execution` until the engine's budget is spent or one fails.
    fn check(&self, execution: Execution) -> Checked;
}

/// Runs `body` (an engine's loop over executions) under a quiet [`Capture`], and
/// concludes: a pass when it returns, else the first failure the hook saw (a checker
/// inside an engine may panic again while unwinding), else the panic it ended with.
pub fn conclude(on_first: Option<fn(&FailureKind)>, body: impl FnOnce()) -> Verdict {
    let capture = Capture::start_with(true, on_first);
    let result = catch_unwind(AssertUnwindSafe(body));
    let first = capture.finish();
    match result {
        Ok(()) => Verdict::Pass,
        Err(payload) if payload.is::<Cut>() => {
            let cut = payload.downcast::<Cut>().expect("checked above");
            Verdict::Incomplete { reason: cut.0 }
        }
        Err(payload) => {
            let kind = first.unwrap_or_else(|| classify(payload.as_ref(), None));
            // The waits are the failing execution's: the engines reset them as each starts.
            Verdict::Fail(livelock(kind, progress::waits()))
        }
    }
}

/// The payload an engine panics with to stop exploring before it has run everything it
/// promised (loom at its time limit, as the next execution starts): [`conclude`] turns
/// it into [`Verdict::Incomplete`] with the reason it carries, never a failure.
#[derive(Debug)]
pub struct Cut(pub String);

/// Times `body`.
pub fn timed<T>(body: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = body();
    (value, start.elapsed())
}
