//! [`Loom`]: every interleaving of an execution within a preemption bound.

use std::cell::Cell;
use std::time::Duration;

use pipecheck_properties::engine::{conclude, timed};
use pipecheck_properties::{Checked, Engine, Execution};

use crate::must_fail::announce_after;

thread_local! {
    /// Executions of the check running on this thread (loom runs every model thread on
    /// the calling thread; a std cell is outside loom's view), for the announcement of a
    /// failure made from the panic hook.
    static EXECUTIONS: Cell<u64> = const { Cell::new(0) };
}

/// Announces the first failure with the number of the execution it happened in.
fn announce(failure: &pipecheck_properties::FailureKind) {
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
                builder.check(move || {
                    EXECUTIONS.with(|n| n.set(n.get() + 1));
                    execution();
                })
            })
        });
        Checked { verdict, executions: EXECUTIONS.with(Cell::get), elapsed }
    }
}
