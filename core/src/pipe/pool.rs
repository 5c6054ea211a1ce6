//! The segment pool between the reader (which returns consumed segment objects) and
//! the writer (which takes them for new segments).
//!
//! The default is seed 000's design: an SPSC FIFO queue ([`crate::pipe::spsc`]) with no lock
//! shared between the sides. The pool never holds more than its maximum: the reader
//! checks the queue's count before each push, and that count can only overestimate.
//! [`PoolDesign::LockedStack`](crate::PoolDesign::LockedStack) is the older LIFO stack
//! behind a mutex, kept for benchmarks (and as the `LifoPool` planted bug).

use crate::fault;
use crate::pipe::observe::{Observer, PipeEvent};
use crate::pipe::options::PoolDesign;
use crate::pipe::segment::Segment;
use crate::pipe::spsc;
use pipecheck_sync::sync::{Arc, Mutex};

/// A segment object as stored in the pipe's lists and in the pool.
pub(crate) type Shell = Arc<Segment>;

/// The reader's end of the pool.
pub(crate) enum PoolReturner {
    Fifo(spsc::Producer<Shell>),
    Stack(Arc<Mutex<Vec<Shell>>>),
}

/// The writer's end of the pool.
pub(crate) enum PoolTaker {
    Fifo(spsc::Consumer<Shell>),
    Stack(Arc<Mutex<Vec<Shell>>>),
}

/// A new empty pool of the given design.
pub(crate) fn segment_pool(design: PoolDesign, first_chunk: usize) -> (PoolReturner, PoolTaker) {
    match design {
        PoolDesign::Fifo => {
            let (producer, consumer) = spsc::channel(first_chunk);
            (PoolReturner::Fifo(producer), PoolTaker::Fifo(consumer))
        }
        PoolDesign::LockedStack => {
            let stack = Arc::new(Mutex::new(Vec::new()));
            (PoolReturner::Stack(stack.clone()), PoolTaker::Stack(stack))
        }
    }
}

impl PoolReturner {
    /// The pool's `Count`: never below the number of segments it holds.
    fn len_upper_bound(&self) -> usize {
        match self {
            PoolReturner::Fifo(producer) => producer.len_upper_bound(),
            PoolReturner::Stack(stack) => stack.lock().len(),
        }
    }

    fn push(&mut self, shell: Shell) {
        match self {
            PoolReturner::Fifo(producer) => producer.push(shell),
            PoolReturner::Stack(stack) => stack.lock().push(shell),
        }
    }

    /// Returns consumed segment objects, in list order, while the pool has room;
    /// the rest are dropped.
    pub(crate) fn return_all(
        &mut self,
        shells: impl IntoIterator<Item = Shell>,
        max: usize,
        observer: &Observer,
    ) {
        // The planted bug hoists the count out of the loop: it undercounts by the
        // segments already returned in this batch.
        let hoisted = self.len_upper_bound();
        for shell in shells {
            let count = if fault::PoolOverflow.is_active() { hoisted } else { self.len_upper_bound() };
            let id = shell.id;
            if count >= max {
                observer.emit(|| PipeEvent::SegmentDiscarded { segment: id });
                continue;
            }
            // Reported before the push publishes it, so no log shows a take first.
            observer.emit(|| PipeEvent::SegmentReturned { segment: id });
            if fault::DoubleReturn.is_active() {
                observer.emit(|| PipeEvent::SegmentReturned { segment: id });
                self.push(shell.clone());
            }
            self.push(shell);
        }
    }
}

impl PoolTaker {
    /// Contended acquisitions of the pool's lock (none for the FIFO design).
    #[cfg(feature = "contention-stats")]
    pub(crate) fn lock_contention(&self) -> u64 {
        match self {
            PoolTaker::Fifo(_) => 0,
            PoolTaker::Stack(stack) => stack.contended_acquisitions(),
        }
    }

    /// Takes the next segment object, if the pool has one.
    pub(crate) fn take(&mut self, observer: &Observer) -> Option<Shell> {
        // Reported before the pop publishes the slot as free (see `pop_inspect`).
        let report = |shell: &Shell| {
            let id = shell.id;
            observer.emit(|| PipeEvent::SegmentTaken { segment: id });
        };
        match self {
            PoolTaker::Fifo(consumer) => consumer.pop_inspect(report),
            PoolTaker::Stack(stack) => {
                // Reported under the stack's lock, for the same reason.
                let mut stack = stack.lock();
                stack.pop().inspect(report)
            }
        }
    }
}
