//! [`Loom`]: every interleaving of an execution within a preemption bound.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use pipecheck_properties::engine::{conclude, timed};
use pipecheck_properties::{Checked, Engine, Execution};

use crate::must_fail::announce;

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
        // Counted with a std atomic: outside loom's view, it adds no interleavings.
        let executions = Arc::new(AtomicU64::new(0));
        let counter = executions.clone();
        // A failure inside loom often panics again while unwinding through loom objects,
        // which aborts the process: the first failure is announced as it happens.
        let (verdict, elapsed) = timed(|| {
            conclude(Some(announce), move || {
                builder.check(move || {
                    counter.fetch_add(1, Ordering::Relaxed);
                    execution();
                })
            })
        });
        Checked { verdict, executions: executions.load(Ordering::Relaxed), elapsed }
    }
}
