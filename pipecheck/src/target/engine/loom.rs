//! [`Loom`]: every interleaving of an execution within a preemption bound.

use std::cell::Cell;
use std::time::Duration;

use crate::check::engine::{conclude, timed};
use crate::check::{Checked, Engine, Execution};

use crate::target::must_fail::announce_after;

thread_local! {
    /// Executions of the check running on this thread (loom runs every model thread on
    /// the calling thread; a std cell is outside loom's view), for the announcement of a
    /// failure made from the panic hook.
    static EXECUTIONS: Cell<u64> = const { Cell::new(0) };
}

/// Announces the first failure with the number of the execution it happened in.
fn announce(failure: &crate::check::FailureKind) {
    announce_after(failure, Some(EXECUTIONS.with(Cell::get)));
}

/// loom's exhaustive exploration (DPOR) under a preemption bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loom {
    /// The preemption bound.
    pub bound: usize,
    /// Stop exploring after this long (the verdict is then a pass of what was explored).
    pub max_duration: Option<Duration>,
}

impl Loom {
    /// A loom engine with `bound`, unless `LOOM_MAX_PREEMPTIONS` says otherwise (so a
    /// failure can be replayed with another bound).
    pub fn with_bound(bound: usize) -> Loom {
        let bound = loom::model::Builder::new().preemption_bound.unwrap_or(bound);
        Loom { bound, max_duration: None }
    }
}

impl Engine for Loom {
    fn name(&self) -> String {
        format!("loom(bound={})", self.bound)
    }

    fn check(&self, execution: Execution) -> Checked {
        let mut builder = loom::model::Builder::new();
        builder.preemption_bound = Some(self.bound);
        builder.max_duration = self.max_duration;
        EXECUTIONS.with(|n| n.set(0));
        // A failure inside loom often panics again while unwinding through loom objects,
        // which aborts the process: the first failure is announced as it happens.
        let (verdict, elapsed) = timed(|| {
            conclude(Some(announce), move || {
                with_loom_log(|| {
                    builder.check(move || {
                        EXECUTIONS.with(|n| n.set(n.get() + 1));
                        pipecheck_sync::progress::reset();
                        execution();
                    })
                })
            })
        });
        Checked { verdict, executions: EXECUTIONS.with(Cell::get), elapsed }
    }
}

/// Runs `explore` (a `loom::model::Builder::check`) with the `tracing` subscriber that
/// `loom::model()` installs: loom writes its interleaving log through `tracing`, so
/// without one `LOOM_LOG` prints nothing. `LOOM_LOG=1` shows everything; any other
/// value is a `tracing` filter (`LOOM_LOG=info`); the log goes to the test's output.
///
/// # Examples
///
/// ```no_run
/// pipecheck::engine::loom::with_loom_log(|| loom::model::Builder::new().check(|| {}));
/// ```
pub fn with_loom_log<T>(explore: impl FnOnce() -> T) -> T {
    // `LOOM_LOG=1` (the README's recipe, and what loom's `log` flag checks for) is not
    // a filter directive: read it, and any other bare switch, as "everything".
    let filter = match std::env::var("LOOM_LOG").unwrap_or_default().trim() {
        "" => tracing_subscriber::EnvFilter::new("off"),
        "1" | "true" | "yes" | "on" => tracing_subscriber::EnvFilter::new("trace"),
        directives => tracing_subscriber::EnvFilter::new(directives),
    };
    let subscriber = tracing_subscriber::fmt::Subscriber::builder()
        .with_env_filter(filter)
        .with_test_writer()
        .without_time()
        .finish();
    tracing::subscriber::with_default(subscriber, explore)
}
