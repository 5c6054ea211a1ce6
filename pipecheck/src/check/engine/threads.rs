//! [`Threads`]: executions on the facade's plain `std` threads, as often as asked,
//! under a watchdog: an execution that stops making progress (a lost wakeup or a
//! deadlock, which no scheduler detects on real threads) fails as a
//! [`FailureKind::Timeout`] within 10 s ([`STALL`]) instead of hanging the check (a timeout,
//! not a deadlock: on real threads a slow execution looks the same).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::{Checked, Engine, Execution, conclude};
use crate::check::verdict::{FailureKind, Verdict};

/// How long one execution may run before the watchdog calls it a deadlock. The
/// executions are small scenarios that take milliseconds; this only decides failure.
pub(crate) const STALL: Duration = Duration::from_secs(10);

/// Runs the execution `runs` times on real threads (the facade's `std` build): no
/// control over the schedule, only what the OS interleaves.
#[derive(Clone, Copy, Debug)]
pub struct Threads {
    /// Executions to run.
    pub runs: u64,
}

impl Threads {
    /// [`Engine::check`] with another stall deadline than its 10 s.
    ///
    /// The executions run on a worker thread; this thread waits for each to finish. A
    /// stalled execution's threads are left blocked (nothing can unblock them), and
    /// the verdict is a [`FailureKind::Timeout`] naming the execution.
    pub fn check_within(&self, execution: Execution, stall: Duration) -> Checked {
        let started = Instant::now();
        let done = Arc::new(AtomicU64::new(0));
        let (report, reports) = mpsc::channel::<Option<Verdict>>();
        let (runs, counter) = (self.runs, done.clone());
        // The planted bug switched on here goes with the worker thread.
        let fault = pipecheck_sync::PlantedFault::active();
        let worker = std::thread::Builder::new().name("threads-engine".to_owned()).spawn(move || {
            let verdict = pipecheck_sync::PlantedFault::activate_opt(fault, || {
                conclude(None, || {
                    for _ in 0..runs {
                        counter.fetch_add(1, Ordering::Relaxed);
                        execution();
                        // One message per execution: the watchdog's sign of progress.
                        let _ = report.send(None);
                    }
                })
            });
            let _ = report.send(Some(verdict));
        });
        let verdict = match worker {
            Err(e) => Verdict::Fail(FailureKind::Panic {
                message: format!("cannot start the worker: {e}"),
                location: None,
            }),
            Ok(_) => loop {
                match reports.recv_timeout(stall) {
                    Ok(Some(verdict)) => break verdict,
                    Ok(None) => {}
                    Err(RecvTimeoutError::Timeout) => {
                        let n = done.load(Ordering::Relaxed);
                        break Verdict::Fail(FailureKind::Timeout {
                            detail: format!(
                                "threads: execution {n} still running after {stall:?} (a waiting side was \
                                 never woken, or a lock is never released); its threads are left blocked"
                            ),
                        });
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        break Verdict::Fail(FailureKind::Panic {
                            message: "the worker thread died".to_owned(),
                            location: None,
                        });
                    }
                }
            },
        };
        Checked {
            verdict,
            executions: done.load(Ordering::Relaxed),
            elapsed: started.elapsed(),
            caveat: None,
        }
    }
}

impl Engine for Threads {
    fn name(&self) -> String {
        "threads".to_owned()
    }

    fn check(&self, execution: Execution) -> Checked {
        self.check_within(execution, STALL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stalled_execution_fails_as_a_timeout_instead_of_hanging() {
        let (_keep, stuck) = mpsc::channel::<()>();
        let stuck = std::sync::Mutex::new(stuck);
        // Blocks forever on its second run: nothing ever sends.
        let runs = AtomicU64::new(0);
        let execution: Execution = Arc::new(move || {
            if runs.fetch_add(1, Ordering::Relaxed) == 1 {
                let _ = stuck.lock().unwrap().recv();
            }
        });
        let checked = Threads { runs: 5 }.check_within(execution, Duration::from_millis(200));
        match checked.verdict {
            Verdict::Fail(FailureKind::Timeout { detail }) => {
                assert!(detail.contains("execution 2"), "{detail}")
            }
            other => panic!("expected a timeout, got {other:?}"),
        }
        assert_eq!(checked.executions, 2);
    }

    #[test]
    fn executions_that_finish_pass() {
        let checked = Threads { runs: 3 }.check_within(Arc::new(|| {}), STALL);
        assert_eq!(checked.verdict, Verdict::Pass);
        assert_eq!(checked.executions, 3);
    }
}
