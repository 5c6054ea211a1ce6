//! [`Threads`]: executions on the facade's plain `std` threads, as often as asked.

use std::sync::atomic::{AtomicU64, Ordering};

use super::{Checked, Engine, Execution, conclude, timed};

/// Runs the execution `runs` times on real threads (the facade's `std` build): no
/// control over the schedule, only what the OS interleaves.
#[derive(Clone, Copy, Debug)]
pub struct Threads {
    /// Executions to run.
    pub runs: u64,
}

impl Engine for Threads {
    fn name(&self) -> String {
        "threads".to_owned()
    }

    fn check(&self, execution: Execution) -> Checked {
        let done = AtomicU64::new(0);
        let (verdict, elapsed) = timed(|| {
            conclude(None, || {
                for _ in 0..self.runs {
                    done.fetch_add(1, Ordering::Relaxed);
                    execution();
                }
            })
        });
        Checked { verdict, executions: done.load(Ordering::Relaxed), elapsed }
    }
}
