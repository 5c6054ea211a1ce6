//! [`Loom`]: every interleaving of an execution within a preemption bound.

use std::cell::Cell;
use std::time::Duration;

use crate::check::engine::{Cut, conclude, timed};
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
    /// Stop exploring after this long: the verdict is then
    /// [`Verdict::Incomplete`](crate::Verdict::Incomplete), never a pass, unless the
    /// exploration finished first.
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
        // Not loom's own `max_duration`: loom then returns as if it had explored
        // everything. An execution that starts past the limit stops the exploration
        // instead, and the verdict says it was cut.
        let (limit, started) = (self.max_duration, std::time::Instant::now());
        let bound = self.bound;
        EXECUTIONS.with(|n| n.set(0));
        let _ = pipecheck_sync::seqcst::take_caveat();
        // A failure inside loom often panics again while unwinding through loom objects,
        // which aborts the process: the first failure is announced as it happens.
        let (verdict, elapsed) = timed(|| {
            conclude(Some(announce), move || {
                with_loom_log(|| {
                    builder.check(move || {
                        let explored = EXECUTIONS.with(Cell::get);
                        if let Some(limit) = limit.filter(|l| explored > 0 && started.elapsed() > *l) {
                            std::panic::panic_any(Cut(format!(
                                "loom explored {explored} interleavings at bound {bound} in {:.1}s and was \
                                 stopped by the {:.1}s time limit with more to explore",
                                started.elapsed().as_secs_f64(),
                                limit.as_secs_f64()
                            )));
                        }
                        EXECUTIONS.with(|n| n.set(n.get() + 1));
                        pipecheck_sync::progress::reset();
                        execution();
                    })
                })
            })
        });
        // A fence the facade placed for `SeqCst` accesses, in a run that also made weaker
        // accesses, may have hidden an outcome: a pass is then not exact. A failure is.
        let placed_fence_near_weak = pipecheck_sync::seqcst::take_caveat();
        let caveat =
            (placed_fence_near_weak && verdict.failure().is_none()).then_some(pipecheck_sync::seqcst::CAVEAT);
        Checked { verdict, executions: EXECUTIONS.with(Cell::get), elapsed, caveat }
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use pipecheck_sync::sync::atomic::{AtomicUsize, Ordering};
    use pipecheck_sync::thread;

    use super::Loom;
    use crate::check::{Engine, Verdict};

    /// Two threads that each add twice: more than one interleaving to explore.
    fn racing_adds() {
        let counter = pipecheck_sync::sync::Arc::new(AtomicUsize::new(0));
        let other = counter.clone();
        let handle = thread::spawn(move || {
            other.fetch_add(1, Ordering::SeqCst);
            other.fetch_add(1, Ordering::SeqCst);
        });
        counter.fetch_add(1, Ordering::SeqCst);
        counter.fetch_add(1, Ordering::SeqCst);
        handle.join().unwrap();
    }

    /// A time limit that cuts the exploration gives `Incomplete`, never `Pass`.
    #[test]
    fn an_exploration_cut_by_its_time_limit_is_incomplete() {
        let cut = Loom { bound: 3, max_duration: Some(Duration::ZERO) }.check(Arc::new(racing_adds));
        match &cut.verdict {
            Verdict::Incomplete { reason } => assert!(reason.contains("time limit"), "{reason}"),
            other => panic!("expected an incomplete exploration, got {other:?}"),
        }
        assert_eq!(cut.executions, 1);
        let whole = Loom { bound: 3, max_duration: None }.check(Arc::new(racing_adds));
        assert_eq!(whole.verdict, Verdict::Pass);
        assert!(whole.executions > 1);
    }

    /// Store buffering with `SeqCst` stores and loads (at least one side sees the
    /// other's flag), then, if `weak`, one `Relaxed` load as well.
    fn handshake(weak: bool) -> impl Fn() + Send + Sync + 'static {
        move || {
            let flags = pipecheck_sync::sync::Arc::new((AtomicUsize::new(0), AtomicUsize::new(0)));
            let other = flags.clone();
            let handle = thread::spawn(move || {
                other.1.store(1, Ordering::SeqCst);
                other.0.load(Ordering::SeqCst)
            });
            flags.0.store(1, Ordering::SeqCst);
            let seen = flags.1.load(Ordering::SeqCst);
            let seen_by_other = handle.join().unwrap();
            assert!(seen == 1 || seen_by_other == 1, "both loads missed the other's store");
            if weak {
                flags.0.load(Ordering::Relaxed);
            }
        }
    }

    /// Every atomic access `SeqCst`: the facade's model is exact, the pass has no caveat.
    #[test]
    fn an_all_seqcst_pass_is_exact() {
        let checked = Loom { bound: 3, max_duration: None }.check(Arc::new(handshake(false)));
        assert_eq!(checked.verdict, Verdict::Pass);
        assert_eq!(checked.caveat, None);
    }

    /// A fence placed for `SeqCst` accesses in a run that also loads `Relaxed`: the pass
    /// says it may have missed an outcome.
    #[test]
    fn a_pass_with_a_placed_fence_beside_a_weaker_access_carries_the_caveat() {
        let checked = Loom { bound: 3, max_duration: None }.check(Arc::new(handshake(true)));
        assert_eq!(checked.verdict, Verdict::Pass);
        assert_eq!(checked.caveat, Some(pipecheck_sync::seqcst::CAVEAT));
        assert!(checked.caveat.unwrap().starts_with("SeqCst store then load: not modelled exactly by loom"));
    }
}
