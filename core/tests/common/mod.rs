//! Helpers shared by the integration tests: a recording [`PipeObserver`], a counting
//! [`BufferPool`], one-shot polling with observable wakers, and the stream transfer
//! used by the stress tests; every blocking wait goes through the [`watchdog`].

// Each test file uses a different subset of the helpers.
#![allow(dead_code)]

pub(crate) mod soak;
pub(crate) mod transfer;
pub(crate) mod watchdog;
pub(crate) mod watched;

#[allow(unused_imports)] // not every test file blocks
pub(crate) use watchdog::block_on;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use pipecheck_pipe::{BufferPool, DefaultBufferPool, PipeEvent, PipeObserver, PipeOperation, SegmentId};

/// A [`PipeObserver`] that keeps every event, in the order the pipe reported them.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    events: Mutex<Vec<PipeEvent>>,
}

impl Recorder {
    pub(crate) fn new() -> Arc<Recorder> {
        Arc::new(Recorder::default())
    }

    /// A copy of the events so far.
    pub(crate) fn events(&self) -> Vec<PipeEvent> {
        self.events.lock().unwrap().clone()
    }

    /// The events so far; the log starts empty again.
    pub(crate) fn take(&self) -> Vec<PipeEvent> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }

    /// Flushes that took the pipe lock since the last `take`; the log starts empty again.
    pub(crate) fn take_locked_flushes(&self) -> usize {
        let flush_lock = PipeEvent::LockReleased { op: PipeOperation::Flush };
        self.take().iter().filter(|e| **e == flush_lock).count()
    }

    /// The segment ids of the recorded events that `select` picks, in order.
    pub(crate) fn segments(&self, select: impl Fn(&PipeEvent) -> Option<SegmentId>) -> Vec<SegmentId> {
        self.events().iter().filter_map(select).collect()
    }
}

impl PipeObserver for Recorder {
    fn on_event(&self, event: PipeEvent) {
        self.events.lock().unwrap().push(event);
    }
}

/// `SegmentCreated` → its id.
pub(crate) fn created(event: &PipeEvent) -> Option<SegmentId> {
    match event {
        PipeEvent::SegmentCreated { segment, .. } => Some(*segment),
        _ => None,
    }
}

/// `SegmentTaken` → its id.
pub(crate) fn taken(event: &PipeEvent) -> Option<SegmentId> {
    match event {
        PipeEvent::SegmentTaken { segment } => Some(*segment),
        _ => None,
    }
}

/// `SegmentReturned` → its id.
pub(crate) fn returned(event: &PipeEvent) -> Option<SegmentId> {
    match event {
        PipeEvent::SegmentReturned { segment } => Some(*segment),
        _ => None,
    }
}

/// `SegmentDiscarded` → its id.
pub(crate) fn discarded(event: &PipeEvent) -> Option<SegmentId> {
    match event {
        PipeEvent::SegmentDiscarded { segment } => Some(*segment),
        _ => None,
    }
}

/// `HeadReleased` → its id.
pub(crate) fn head_released(event: &PipeEvent) -> Option<SegmentId> {
    match event {
        PipeEvent::HeadReleased { segment } => Some(*segment),
        _ => None,
    }
}

/// A [`BufferPool`] over [`DefaultBufferPool`] that counts rents and returns and checks
/// that every buffer it gives back was rented and is given back only once.
#[derive(Debug, Default)]
pub(crate) struct CountingPool {
    inner: DefaultBufferPool,
    rents: AtomicUsize,
    returns: AtomicUsize,
    /// The most buffers rented at once.
    peak: AtomicUsize,
    /// Buffers rented and not yet returned, by address, with the size asked for.
    outstanding: Mutex<HashMap<usize, usize>>,
    /// Every `min_len` asked for, in order.
    requests: Mutex<Vec<usize>>,
}

impl CountingPool {
    pub(crate) fn new() -> Arc<CountingPool> {
        Arc::new(CountingPool::default())
    }

    pub(crate) fn rents(&self) -> usize {
        self.rents.load(Ordering::SeqCst)
    }

    pub(crate) fn returns(&self) -> usize {
        self.returns.load(Ordering::SeqCst)
    }

    /// Buffers rented and not given back.
    pub(crate) fn outstanding(&self) -> usize {
        self.outstanding.lock().unwrap().len()
    }

    /// The most buffers that were rented and not given back at one time.
    pub(crate) fn peak(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    /// The `min_len` of every rent so far.
    pub(crate) fn requests(&self) -> Vec<usize> {
        self.requests.lock().unwrap().clone()
    }

    /// Panics unless every rented buffer came back exactly once.
    pub(crate) fn assert_all_returned(&self) {
        assert_eq!(self.outstanding(), 0, "buffers still rented");
        assert_eq!(self.rents(), self.returns(), "rents and returns differ");
    }
}

impl BufferPool for CountingPool {
    fn rent(&self, min_len: usize) -> Box<[u8]> {
        let buffer = self.inner.rent(min_len);
        assert!(buffer.len() >= min_len);
        let mut outstanding = self.outstanding.lock().unwrap();
        let previous = outstanding.insert(buffer.as_ptr() as usize, min_len);
        assert!(previous.is_none(), "the inner pool handed out a buffer that is still rented");
        self.peak.fetch_max(outstanding.len(), Ordering::SeqCst);
        drop(outstanding);
        self.requests.lock().unwrap().push(min_len);
        self.rents.fetch_add(1, Ordering::SeqCst);
        buffer
    }

    fn give_back(&self, buffer: Box<[u8]>) {
        let known = self.outstanding.lock().unwrap().remove(&(buffer.as_ptr() as usize));
        assert!(known.is_some(), "a buffer was given back twice, or was never rented here");
        self.returns.fetch_add(1, Ordering::SeqCst);
        self.inner.give_back(buffer);
    }
}

/// Polls `future` once with a waker that does nothing.
pub(crate) fn poll_once<F: Future + ?Sized>(future: Pin<&mut F>) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(Waker::noop()))
}

/// A waker that counts how often it was woken.
#[derive(Debug, Default)]
pub(crate) struct WakeCounter(AtomicUsize);

impl WakeCounter {
    /// The counter and a waker that increments it.
    pub(crate) fn new() -> (Arc<WakeCounter>, Waker) {
        let counter = Arc::new(WakeCounter::default());
        (counter.clone(), Waker::from(counter))
    }

    pub(crate) fn wakes(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

impl Wake for WakeCounter {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// Polls `future` once with `waker`.
pub(crate) fn poll_with<F: Future + ?Sized>(future: Pin<&mut F>, waker: &Waker) -> Poll<F::Output> {
    future.poll(&mut Context::from_waker(waker))
}

/// Where a segment object is in its life cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// The writer's head.
    Writing,
    /// The writer's idle head, parked by a flush: the writer may resume it, the reader
    /// may reclaim it (exactly one of them does).
    Parked,
    /// No longer the head; linked (or about to be), not yet returned.
    Released,
    /// In the segment pool.
    Pooled,
    /// Dropped because the pool was full.
    Discarded,
}

/// Replays the log and panics at the first event that breaks the segment life cycle:
/// a segment is returned only after the writer released it (moved on, completed, or
/// lost its parked head to the reader), taken only from the pool, never pooled twice;
/// the pool never holds more than `max_pooled` objects.
pub(crate) fn check_lifecycle(events: &[PipeEvent], max_pooled: usize) {
    let mut stages: HashMap<SegmentId, Stage> = HashMap::new();
    let mut pooled = 0usize;
    for (i, event) in events.iter().enumerate() {
        let mut expect = |id: SegmentId, from: &[Stage], to: Stage| {
            let now = stages.get(&id).copied();
            assert!(
                now.is_some_and(|s| from.contains(&s)),
                "event #{i} {event:?}: segment {id} is {now:?}, expected one of {from:?}"
            );
            stages.insert(id, to);
        };
        match *event {
            PipeEvent::SegmentCreated { segment, .. } => {
                assert!(stages.insert(segment, Stage::Writing).is_none(), "segment {segment} created twice");
            }
            PipeEvent::SegmentTaken { segment } => {
                expect(segment, &[Stage::Pooled], Stage::Writing);
                pooled -= 1;
            }
            PipeEvent::HeadReleased { segment } => {
                expect(segment, &[Stage::Writing, Stage::Parked], Stage::Released)
            }
            PipeEvent::HeadParked { segment } => expect(segment, &[Stage::Writing], Stage::Parked),
            PipeEvent::HeadResumed { segment } => expect(segment, &[Stage::Parked], Stage::Writing),
            PipeEvent::HeadReclaimed { segment } => expect(segment, &[Stage::Parked], Stage::Released),
            // The reader took the parked head but left it linked (a fast flush published
            // into it): the writer no longer holds it, the list does, and it goes back
            // once consumed.
            PipeEvent::HeadKept { segment, .. } => expect(segment, &[Stage::Parked], Stage::Released),
            PipeEvent::SegmentReturned { segment } => {
                expect(segment, &[Stage::Released], Stage::Pooled);
                pooled += 1;
                assert!(pooled <= max_pooled, "event #{i}: the pool holds {pooled} > {max_pooled} segments");
            }
            PipeEvent::SegmentDiscarded { segment } => expect(segment, &[Stage::Released], Stage::Discarded),
            _ => {}
        }
    }
}

/// A pipe built from `options` with an event recorder and a counting buffer pool.
pub(crate) fn recorded(
    options: pipecheck_pipe::PipeOptions,
) -> (pipecheck_pipe::Writer, pipecheck_pipe::Reader, Arc<Recorder>, Arc<CountingPool>) {
    let recorder = Recorder::new();
    let pool = CountingPool::new();
    let (writer, reader) = options.observer(recorder.clone()).buffer_pool(pool.clone()).build().unwrap();
    (writer, reader, recorder, pool)
}

/// Options for segments of exactly `size` bytes.
pub(crate) fn fixed(size: usize) -> pipecheck_pipe::PipeOptions {
    pipecheck_pipe::PipeOptions::new().minimum_segment_size(size).maximum_segment_size(size)
}
