//! [`TargetScenario`]: one named body of a target, type-erased so that every engine
//! and tool runs any target's scenarios alike; [`EventScenario`]: how a user writes
//! one, over their own event type.

use std::fmt;
use std::sync::Arc;

use crate::check::{EventMonitor, Execution, Invariants, RunLog};
use pipecheck_sync::PlantedFault;

use crate::target::Scale;

/// Hands the running execution's log to the caller (a trace recorder, the loom
/// harness's failure report) before the body starts.
pub type Publish = dyn Fn(Arc<dyn RunLog>) + Send + Sync;

type Run = dyn Fn(Option<&'static PlantedFault>, &Publish) + Send + Sync;

/// A scenario of a [`Target`](super::Target), runnable under any engine.
#[derive(Clone)]
pub struct TargetScenario {
    /// Stable name (trace files and the command line use it).
    pub name: &'static str,
    /// What it does, in one line.
    pub summary: &'static str,
    /// Which engines can afford it.
    pub scale: Scale,
    /// The planted faults of its target that declare it catches them
    /// ([`PlantedFault::caught_in`]), filled in by the target.
    pub catches: Vec<&'static PlantedFault>,
    /// The sequential model whose histories it checks for `linearizable`, if any (the
    /// campaign's `linearizable` column).
    pub model: Option<&'static str>,
    /// The loom preemption bound it is explored at, if it declares one; otherwise its
    /// target's ([`Target::loom_bound_for`](super::Target::loom_bound_for)).
    pub loom_bound: Option<usize>,
    run: Arc<Run>,
}

impl TargetScenario {
    /// A scenario from its run: one execution with `fault` (if any) switched on, which
    /// publishes its log, runs, and raises on a violation.
    pub fn new(
        name: &'static str,
        summary: &'static str,
        scale: Scale,
        run: impl Fn(Option<&'static PlantedFault>, &Publish) + Send + Sync + 'static,
    ) -> TargetScenario {
        TargetScenario {
            name,
            summary,
            scale,
            catches: Vec::new(),
            model: None,
            loom_bound: None,
            run: Arc::new(run),
        }
    }

    /// This scenario, explored by loom at preemption bound `bound` (by the campaign,
    /// `cargo test --features loom` and [`verify`](crate::verify) alike).
    pub fn with_loom_bound(self, bound: usize) -> TargetScenario {
        TargetScenario { loom_bound: Some(bound), ..self }
    }

    /// This scenario, declared to check its recorded histories against the sequential
    /// model called `model`.
    pub fn checking_model(self, model: &'static str) -> TargetScenario {
        TargetScenario { model: Some(model), ..self }
    }

    /// `scenario` checked by a fresh monitor of `invariants` on each execution, with
    /// its fault switched on through [`PlantedFault::activate_opt`].
    pub(super) fn from_events<E: fmt::Debug + Send + 'static>(
        scenario: EventScenario<E>,
        invariants: Arc<dyn Invariants<E>>,
    ) -> TargetScenario {
        let EventScenario { name, summary, scale, body, loom_bound } = scenario;
        let erased = TargetScenario::new(name, summary, scale, move |fault, publish| {
            PlantedFault::activate_opt(fault, || {
                let monitor = EventMonitor::new(invariants.fresh());
                publish(Arc::new(monitor.clone()));
                body(&monitor);
                monitor.assert_finished();
            });
        });
        TargetScenario { loom_bound, ..erased }
    }

    /// One execution with `fault` switched on; `publish` receives its log first. Call
    /// it inside a loom model, a shuttle test, or directly.
    ///
    /// # Panics
    ///
    /// With the typed failure (a [`Violation`](crate::Violation), or the
    /// engine's own report) when the execution fails.
    pub fn run_once(&self, fault: Option<&'static PlantedFault>, publish: &Publish) {
        (self.run)(fault, publish);
    }

    /// This scenario with `fault` as an [`Execution`] for any engine.
    pub fn execution(&self, fault: Option<&'static PlantedFault>) -> Execution {
        let run = self.run.clone();
        Arc::new(move || run(fault, &|_| {}))
    }

    /// This scenario with `fault` as an [`Execution`] that hands each execution's log
    /// to `publish`.
    pub fn execution_logged(&self, fault: Option<&'static PlantedFault>, publish: Arc<Publish>) -> Execution {
        let run = self.run.clone();
        Arc::new(move || run(fault, &*publish))
    }

    /// Whether it declares that it catches `fault`.
    pub fn catches(&self, fault: &PlantedFault) -> bool {
        self.catches.iter().any(|c| c.name() == fault.name())
    }
}

impl fmt::Debug for TargetScenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TargetScenario")
            .field("name", &self.name)
            .field("scale", &self.scale)
            .field("catches", &self.catches.iter().map(|c| c.name()).collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// A scenario over a user's own events `E`, as [`Target::checked`](super::Target::checked)
/// takes it: the body builds the user's type reporting to the monitor, spawns facade
/// threads, joins them (and may record end-of-run facts).
pub struct EventScenario<E: 'static> {
    /// Stable name.
    pub name: &'static str,
    /// What it does, in one line.
    pub summary: &'static str,
    /// Small (loom and shuttle) or large (shuttle only).
    pub scale: Scale,
    /// The body.
    pub body: fn(&EventMonitor<E>),
    /// Its loom preemption bound, if it declares one ([`with_loom_bound`](Self::with_loom_bound)).
    pub loom_bound: Option<usize>,
}

impl<E> EventScenario<E> {
    /// A [`Scale::Small`] scenario (loom and shuttle), as a `const` list entry.
    ///
    /// # Examples
    ///
    /// ```
    /// use pipecheck::{EventScenario, Scale};
    ///
    /// const SCENARIOS: &[EventScenario<u32>] = &[
    ///     EventScenario::small("one-event", "records 1", |monitor| monitor.record(1)),
    ///     EventScenario::large("many-events", "records 1 to 100", |m| (1..=100).for_each(|i| m.record(i))),
    /// ];
    /// assert_eq!(SCENARIOS[0].scale, Scale::Small);
    /// ```
    pub const fn small(
        name: &'static str,
        summary: &'static str,
        body: fn(&EventMonitor<E>),
    ) -> EventScenario<E> {
        EventScenario { name, summary, scale: Scale::Small, body, loom_bound: None }
    }

    /// A [`Scale::Large`] scenario (shuttle only), as a `const` list entry.
    pub const fn large(
        name: &'static str,
        summary: &'static str,
        body: fn(&EventMonitor<E>),
    ) -> EventScenario<E> {
        EventScenario { name, summary, scale: Scale::Large, body, loom_bound: None }
    }
}

impl<E> EventScenario<E> {
    /// This scenario, explored by loom at preemption bound `bound` instead of its
    /// target's ([`Target::with_loom_bound`](super::Target::with_loom_bound)), by every
    /// command alike.
    pub const fn with_loom_bound(self, bound: usize) -> EventScenario<E> {
        EventScenario { loom_bound: Some(bound), ..self }
    }
}

impl<E> Clone for EventScenario<E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<E> Copy for EventScenario<E> {}

impl<E> fmt::Debug for EventScenario<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventScenario").field("name", &self.name).finish_non_exhaustive()
    }
}
