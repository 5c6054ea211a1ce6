//! The [`Monitor`]: records a run's observations and checks every invariant online.
//!
//! One monitor per run: an [`EventMonitor`]`<Observation>` (the one log-and-check there
//! is, the same a user's target gets) wired to the pipe. It is the pipe's [`PipeObserver`] and [`BufferPool`] (so it
//! sees every event and every rent and return), the seed primitives'
//! [`PrimitiveObserver`], and scenario drivers feed it what the
//! run did ([`Monitor::record`]). At the first violation it raises a [`Violation`]
//! (the panic payload is the typed value, with the tail of the log as its context):
//! loom, shuttle and proptest all turn that panic into a failing, reproducible case.
//!
//! A pipe reset (`PipeEvent::Reset`) ends one run of the pipe and starts the next: the
//! monitor checks the ending run's end-of-run obligations of the per-pipe-run invariants
//! and starts them afresh (the registry says which), so the next run is checked as a new
//! pipe's.
//!
//! The monitor's lock is a plain `std` mutex on purpose: it must not add
//! happens-before edges that loom could see (that would hide real races), and no
//! checker primitive runs while it is held.

use std::fmt;
use std::sync::Arc;

use pipecheck::Violation;
use pipecheck_pipe::{
    BufferPool, PipeEvent, PipeObserver, PipeOptions, PrimitiveEvent, PrimitiveId, PrimitiveObserver,
};

use pipecheck::Invariant;
use pipecheck::{EventMonitor, Restart, Shown};

use crate::observation::Observation;
use crate::registry::Constructor;
use crate::registry::{registry, restart_of};
use crate::run_log::describe;

/// The settings of a checked run: pipe options that invariants depend on.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// Minimum segment size.
    pub minimum_segment_size: usize,
    /// Maximum segment size.
    pub maximum_segment_size: usize,
    /// Pause threshold (0: no back-pressure).
    pub pause_writer_threshold: u64,
    /// Resume threshold.
    pub resume_writer_threshold: u64,
    /// The segment pool's maximum.
    pub max_pooled_segments: usize,
    /// Slots in the pool queue's first chunk.
    pub pool_first_chunk: usize,
}

impl Default for CheckConfig {
    /// Small sizes, so short runs cross segment boundaries and thresholds.
    fn default() -> Self {
        CheckConfig {
            minimum_segment_size: 4,
            maximum_segment_size: 8,
            pause_writer_threshold: 16,
            resume_writer_threshold: 8,
            max_pooled_segments: 2,
            pool_first_chunk: 1,
        }
    }
}

/// One logged observation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Position in the log.
    pub step: usize,
    /// The task that recorded it, when the driver said.
    pub task: Option<&'static str>,
    /// What was observed.
    pub observation: Observation,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let task = self.task.map(str::to_owned).or_else(|| side_of(&self.observation));
        write!(f, "{:>4}  {:<8} {:?}", self.step, task.as_deref().unwrap_or("-"), self.observation)
    }
}

/// The end an observation belongs to, as a log row names it.
fn side_of(observation: &Observation) -> Option<String> {
    observation.side().map(|s| format!("{s:?}").to_lowercase())
}

/// Records a run and checks invariants as it goes.
pub struct Monitor {
    config: CheckConfig,
    events: EventMonitor<Observation>,
    /// Seed-primitive objects registered so far (a std atomic: outside loom's view).
    primitives: std::sync::atomic::AtomicU64,
}

impl Monitor {
    /// A monitor checking every registered invariant, panicking at the first violation.
    pub fn new(config: CheckConfig) -> Arc<Monitor> {
        let invariants = registry(&config);
        Monitor::with_invariants(config, invariants)
    }

    /// A monitor checking the given invariants.
    pub fn with_invariants(
        config: CheckConfig,
        invariants: Vec<Box<dyn Invariant<Observation>>>,
    ) -> Arc<Monitor> {
        let restarts: Vec<Option<Constructor>> = invariants.iter().map(|i| restart_of(i.as_ref())).collect();
        let for_restarts = config.clone();
        let restart: Restart<Observation> =
            Box::new(move |invariants| restart_pipe_run(&for_restarts, invariants, &restarts));
        let shown = Shown { noun: "observations", role: side_of, text: describe };
        let is_reset: fn(&Observation) -> bool = |o| matches!(o, Observation::Pipe(PipeEvent::Reset));
        Arc::new(Monitor {
            config,
            events: EventMonitor::with_wiring(invariants, shown, Some((is_reset, restart))),
            primitives: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// The run's settings.
    pub fn config(&self) -> &CheckConfig {
        &self.config
    }

    /// Pipe options for this run: the config's sizes, thresholds and faults, with this
    /// monitor as observer and buffer pool.
    pub fn pipe_options(self: &Arc<Self>) -> PipeOptions {
        let c = &self.config;
        let options = PipeOptions::new()
            .minimum_segment_size(c.minimum_segment_size)
            .maximum_segment_size(c.maximum_segment_size)
            .pause_writer_threshold(c.pause_writer_threshold)
            .resume_writer_threshold(c.resume_writer_threshold)
            .max_pooled_segments(c.max_pooled_segments)
            .pool_first_chunk(c.pool_first_chunk)
            .observer(self.clone());
        options.buffer_pool(self.clone())
    }

    /// This monitor as the observer of seed primitives (`AsyncMutex::observed`,
    /// `CompletionSource::observed`, `PartitionedPool::observed`,
    /// `message_channel_observed`).
    pub fn primitive_observer(self: &Arc<Self>) -> Arc<dyn PrimitiveObserver> {
        self.clone()
    }

    /// Records an observation made by `task` and checks it.
    pub fn record_by(&self, task: &'static str, observation: Observation) {
        self.events.record_by(task, observation);
    }

    /// Records an observation and checks it.
    pub fn record(&self, observation: Observation) {
        self.events.record(observation);
    }

    /// Runs the end-of-run checks.
    ///
    /// # Errors
    ///
    /// The first violation of the run, if any (also when found earlier).
    pub fn finish(&self) -> Result<(), Violation> {
        self.events.finish()
    }

    /// Runs the end-of-run checks and raises the violation (with the log) if any.
    pub fn assert_finished(&self) {
        self.events.assert_finished();
    }

    /// A copy of the log.
    pub fn log(&self) -> Vec<Entry> {
        self.events.with_log(|log| {
            log.iter()
                .enumerate()
                .map(|(step, (task, observation))| Entry {
                    step,
                    task: *task,
                    observation: observation.clone(),
                })
                .collect()
        })
    }

    /// The event monitor underneath: the log and the checks.
    pub(crate) fn events(&self) -> &EventMonitor<Observation> {
        &self.events
    }

    /// How many observations the log holds (without copying it).
    pub fn log_len(&self) -> usize {
        self.events.with_log(<[_]>::len)
    }
}

/// At a pipe reset: the ending run's end-of-run checks of the per-pipe-run invariants
/// (both sides completed, so e.g. release-once's every-buffer-returned must hold now),
/// then fresh instances of them for the next run. The first violation, if any.
fn restart_pipe_run(
    config: &CheckConfig,
    invariants: &mut [Box<dyn Invariant<Observation>>],
    restarts: &[Option<Constructor>],
) -> Option<Violation> {
    for (invariant, restart) in invariants.iter_mut().zip(restarts) {
        let Some(make) = restart else { continue };
        if let Err(detail) = invariant.finish() {
            return Some(Violation::new(invariant.id(), format!("at the pipe reset: {detail}")));
        }
        *invariant = make(config);
    }
    None
}

impl PipeObserver for Monitor {
    fn on_event(&self, event: PipeEvent) {
        self.record(Observation::Pipe(event));
    }
}

impl PrimitiveObserver for Monitor {
    fn on_primitive_event(&self, event: PrimitiveEvent) {
        self.record(Observation::Primitive(event));
    }

    /// Objects numbered from 1 in the order they start reporting to this run, so a
    /// replayed schedule logs the same identities.
    fn register(&self) -> PrimitiveId {
        PrimitiveId(self.primitives.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1)
    }
}

impl BufferPool for Monitor {
    /// Fresh zeroed buffers, so a buffer's address identifies it while rented.
    fn rent(&self, min_len: usize) -> Box<[u8]> {
        let buffer = vec![0u8; min_len].into_boxed_slice();
        self.record(Observation::Rented { buffer: buffer.as_ptr() as usize, len: buffer.len() });
        buffer
    }

    fn give_back(&self, buffer: Box<[u8]>) {
        self.record(Observation::GaveBack { buffer: buffer.as_ptr() as usize });
    }
}

impl fmt::Debug for Monitor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Monitor").field("config", &self.config).finish_non_exhaustive()
    }
}
