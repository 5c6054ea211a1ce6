//! [`Verdict`]: what checking a target concluded, as a value that crosses crates.
//!
//! Every engine ends a check with a verdict; the models' tests, the traces tool and the
//! campaign read its fields, and text is made from it once, by its `Display`, for
//! people. [`classify`] is the one place that turns a panic payload into a
//! [`FailureKind`].

use std::any::Any;
use std::fmt;

use pipecheck_sync::progress::Wait;
use pipecheck_sync::{InvariantId, Violation};

/// The invariants a failure names without any checker of the target's
/// ([`FailureKind::invariant`]): a planted bug may declare it breaks one of them.
pub const ENGINE_NAMED: [InvariantId; 4] =
    [InvariantId::NO_LOST_WAKEUP, InvariantId::NO_DATA_RACE, InvariantId::PROGRESS, InvariantId::NO_PANIC];

/// The result of checking a target under an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every execution the engine promised to run ran, and kept every checked invariant
    /// (for loom: every interleaving within the bound).
    Pass,
    /// An execution failed.
    Fail(FailureKind),
    /// Every execution that ran kept every invariant, but the engine stopped before it
    /// ran all it promised (a time limit cut loom's exploration): not a pass.
    Incomplete {
        /// Why it stopped, and how far it got.
        reason: String,
    },
}

impl Verdict {
    /// The failure, if any.
    pub fn failure(&self) -> Option<&FailureKind> {
        match self {
            Verdict::Pass | Verdict::Incomplete { .. } => None,
            Verdict::Fail(kind) => Some(kind),
        }
    }

    /// Whether the verdict is a failure that counts as breaking `invariant` (see
    /// [`FailureKind::invariant`]).
    pub fn names(&self, invariant: InvariantId) -> bool {
        self.failure().and_then(FailureKind::invariant) == Some(invariant)
    }
}

/// How an execution failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// A checker reported a broken invariant.
    InvariantViolated(Violation),
    /// Every task was blocked, none could wake another (the engine's report says which
    /// tasks and on what).
    Deadlock {
        /// The engine's description of the blocked tasks.
        detail: String,
    },
    /// loom's causality check: two accesses to the same memory without a
    /// happens-before edge.
    DataRace {
        /// loom's description of the accesses.
        detail: String,
    },
    /// The checked code did something other than its reference model predicts.
    ModelMismatch(ModelMismatch),
    /// An execution ran past the engine's step bound (shuttle's `max_steps`, loom's
    /// branch limit) with no thread seen waiting over and over: a long execution, or a
    /// spin the facade does not see (see [`FailureKind::Livelock`]). Either way it did
    /// not end within the bound, which breaks **progress**.
    StepBound {
        /// The engine's report.
        detail: String,
    },
    /// An execution ran past the engine's step bound while threads kept waiting for
    /// another's progress (`yield_now`, `spin_loop` through the facade) that never came:
    /// a livelock (**progress**).
    Livelock {
        /// The threads that kept running, most waits first: which, how often, where.
        spinning: Vec<Wait>,
        /// The engine's report.
        detail: String,
    },
    /// Any other panic: a failed assertion outside a checker, an index out of bounds...
    Panic {
        /// The panic's message.
        message: String,
        /// Where it panicked (`file:line:column`), when the panic hook saw it.
        location: Option<String>,
    },
    /// A blocked operation did not finish in time (plain threads).
    Timeout {
        /// What was waiting.
        detail: String,
    },
}

impl FailureKind {
    /// The invariant this failure counts as breaking: the violated one; a deadlock is a
    /// lost wakeup (**no-lost-wakeup**), a loom causality violation a data race
    /// (**no-data-race**), a livelock or any other run past the step bound a lack of
    /// **progress**, and any other panic of the checked code **no-panic**; a model
    /// mismatch and a timeout name no invariant.
    pub fn invariant(&self) -> Option<InvariantId> {
        match self {
            FailureKind::InvariantViolated(violation) => Some(violation.invariant),
            FailureKind::Deadlock { .. } => Some(InvariantId::NO_LOST_WAKEUP),
            FailureKind::DataRace { .. } => Some(InvariantId::NO_DATA_RACE),
            FailureKind::Livelock { .. } | FailureKind::StepBound { .. } => Some(InvariantId::PROGRESS),
            FailureKind::Panic { .. } => Some(InvariantId::NO_PANIC),
            _ => None,
        }
    }

    /// The kind's stable name: `invariant-violated`, `deadlock`, `data-race`,
    /// `model-mismatch`, `step-bound`, `livelock`, `panic` or `timeout`.
    pub fn kind(&self) -> &'static str {
        match self {
            FailureKind::InvariantViolated(_) => "invariant-violated",
            FailureKind::Deadlock { .. } => "deadlock",
            FailureKind::DataRace { .. } => "data-race",
            FailureKind::ModelMismatch(_) => "model-mismatch",
            FailureKind::StepBound { .. } => "step-bound",
            FailureKind::Livelock { .. } => "livelock",
            FailureKind::Panic { .. } => "panic",
            FailureKind::Timeout { .. } => "timeout",
        }
    }

    /// A short label for a table cell: the invariant that fired (`fifo-pool`,
    /// `deadlock → no-lost-wakeup`) or what happened instead (`model mismatch`,
    /// `panic: <first line>`).
    pub fn label(&self) -> String {
        match self {
            FailureKind::InvariantViolated(v) => v.invariant.to_string(),
            FailureKind::Deadlock { .. } => format!("deadlock → {}", InvariantId::NO_LOST_WAKEUP),
            FailureKind::DataRace { .. } => format!("data race → {}", InvariantId::NO_DATA_RACE),
            FailureKind::ModelMismatch(_) => "model mismatch".to_owned(),
            FailureKind::StepBound { .. } => format!("step bound → {}", InvariantId::PROGRESS),
            FailureKind::Livelock { .. } => format!("livelock → {}", InvariantId::PROGRESS),
            FailureKind::Panic { message, .. } => format!("panic: {}", first_line(message)),
            FailureKind::Timeout { .. } => "timeout".to_owned(),
        }
    }
}

impl fmt::Display for FailureKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureKind::InvariantViolated(violation) => write!(f, "{violation}"),
            FailureKind::Deadlock { detail } => {
                write!(f, "deadlock (a waiting side was never woken): {detail}")
            }
            FailureKind::DataRace { detail } => write!(f, "data race: {detail}"),
            FailureKind::ModelMismatch(mismatch) => write!(f, "{mismatch}"),
            FailureKind::StepBound { detail } => {
                write!(f, "step bound exceeded (no progress within the bound): {detail}")
            }
            FailureKind::Livelock { spinning, detail } => {
                let spinning: Vec<String> = spinning.iter().map(Wait::to_string).collect();
                write!(
                    f,
                    "livelock (no progress): kept running, waiting for progress that never came: {}; {}",
                    spinning.join(", "),
                    first_line(detail)
                )
            }
            FailureKind::Panic { message, location: Some(at) } => write!(f, "panic at {at}: {message}"),
            FailureKind::Panic { message, location: None } => write!(f, "panic: {message}"),
            FailureKind::Timeout { detail } => write!(f, "timeout: {detail}"),
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Pass => f.write_str("pass"),
            Verdict::Fail(kind) => write!(f, "{kind}"),
            Verdict::Incomplete { reason } => write!(f, "incomplete: {reason}"),
        }
    }
}

/// The checked code differs from its reference model at one operation of a sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelMismatch {
    /// The operation's index in the sequence.
    pub index: usize,
    /// The operation.
    pub op: String,
    /// What the checked code did.
    pub actual: String,
    /// What the model predicted.
    pub model: String,
}

impl ModelMismatch {
    /// Fails the current execution with this mismatch as the panic payload.
    #[track_caller]
    pub fn raise(self) -> ! {
        crate::check::panic_hook::install();
        std::panic::panic_any(self)
    }
}

impl fmt::Display for ModelMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "model mismatch at op #{} {}:\n  actual: {}\n  model:  {}",
            self.index, self.op, self.actual, self.model
        )
    }
}

/// The failure a panic payload reports.
///
/// Checkers raise typed payloads ([`Violation`], [`ModelMismatch`], a [`FailureKind`]),
/// which are taken as they are. The engines' own failures arrive as text, and only
/// theirs is read here: loom's `deadlock; threads = …`, `Causality violation: …` and
/// `Model exceeded maximum number of branches …`, shuttle's `deadlock! blocked tasks:
/// […]` and `exceeded max_steps bound …` (the last two are [`FailureKind::StepBound`],
/// which [`livelock`] turns into [`FailureKind::Livelock`] when threads kept waiting). Anything
/// else is a [`FailureKind::Panic`] at `location`.
pub fn classify(payload: &(dyn Any + Send), location: Option<String>) -> FailureKind {
    if let Some(violation) = payload.downcast_ref::<Violation>() {
        return FailureKind::InvariantViolated(violation.clone());
    }
    if let Some(mismatch) = payload.downcast_ref::<ModelMismatch>() {
        return FailureKind::ModelMismatch(mismatch.clone());
    }
    if let Some(kind) = payload.downcast_ref::<FailureKind>() {
        return kind.clone();
    }
    let message = panic_message(payload);
    // With `LOOM_LOCATION` set, loom starts its report with a newline and appends the
    // accesses' locations (loom 0.7.3 `rt/location.rs`, `PanicBuilder::fire`): the
    // engines' messages are recognised by their first non-empty line.
    let head = first_line(&message);
    if head.starts_with("deadlock") {
        FailureKind::Deadlock { detail: message }
    } else if head.starts_with("Causality violation") {
        FailureKind::DataRace { detail: message }
    } else if head.starts_with("exceeded max_steps")
        || head.starts_with("Model exceeded maximum number of branches")
    {
        FailureKind::StepBound { detail: message }
    } else {
        FailureKind::Panic { message, location }
    }
}

/// How many waits at one place make a thread a spinner: far more than a scenario's
/// legitimate waits, far fewer than an engine's step bound allows.
pub const LIVELOCK_WAITS: u64 = 50;

/// `kind`, a [`FailureKind::Livelock`] if it is the engine's step bound and some thread
/// waited for another's progress at least [`LIVELOCK_WAITS`] times at one place in
/// `waits` (the failing execution's,
/// [`progress::waits`](crate::progress::waits)).
pub fn livelock(kind: FailureKind, waits: Vec<Wait>) -> FailureKind {
    match kind {
        FailureKind::StepBound { detail } => {
            let spinning: Vec<Wait> = waits.into_iter().filter(|w| w.waits >= LIVELOCK_WAITS).collect();
            if spinning.is_empty() {
                FailureKind::StepBound { detail }
            } else {
                FailureKind::Livelock { spinning, detail }
            }
        }
        kind => kind,
    }
}

/// The text of a panic payload: its message, or the `Display` of a typed payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(v) = payload.downcast_ref::<Violation>() {
        v.to_string()
    } else if let Some(m) = payload.downcast_ref::<ModelMismatch>() {
        m.to_string()
    } else if let Some(k) = payload.downcast_ref::<FailureKind>() {
        k.to_string()
    } else {
        "(a panic without a message)".to_owned()
    }
}

/// The first non-empty line of `text`.
pub fn first_line(text: &str) -> &str {
    text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadlock_counts_only_as_a_lost_wakeup() {
        let deadlock = Verdict::Fail(classify(&"deadlock; threads = []".to_owned(), None));
        assert!(deadlock.names(InvariantId::NO_LOST_WAKEUP));
        assert!(!deadlock.names(InvariantId::new("fifo-pool")));
    }

    #[test]
    fn loom_causality_violations_are_data_races_with_and_without_locations() {
        let plain = "Causality violation: Concurrent read and write accesses.".to_owned();
        // loom's form with `LOOM_LOCATION=1`.
        let located =
            "\nCausality violation: Concurrent read and write accesses.\n    created: src/a.rs:1:1\n\n"
                .to_owned();
        for message in [plain, located] {
            let kind = classify(&message, None);
            assert_eq!(kind.kind(), "data-race", "{message:?}");
            assert_eq!(kind.invariant(), Some(InvariantId::NO_DATA_RACE));
        }
    }

    #[test]
    fn other_panics_name_no_panic_even_when_their_text_names_an_invariant() {
        let text = "invariant `fifo-pool` violated at step 3".to_owned();
        let kind = classify(&text, Some("x.rs:1:1".into()));
        assert_eq!(kind.invariant(), Some(InvariantId::NO_PANIC));
        assert_eq!(kind.kind(), "panic");
        assert!(Verdict::Fail(kind).names(InvariantId::NO_PANIC), "a bug declared to panic is caught");
    }

    #[test]
    fn a_step_bound_is_a_livelock_only_when_a_thread_kept_waiting() {
        let shuttle = classify(
            &"exceeded max_steps bound 5000. this might be caused by an unfair schedule (e.g., a spin loop)?"
                .to_owned(),
            None,
        );
        let loom = classify(&"Model exceeded maximum number of branches. This is often caused by an algorithm requiring the processor to make progress, e.g. spin locks.".to_owned(), None);
        for bound in [shuttle, loom] {
            assert_eq!((bound.kind(), bound.invariant()), ("step-bound", Some(InvariantId::PROGRESS)));
            let few = Wait { thread: 1, waits: LIVELOCK_WAITS - 1, location: std::panic::Location::caller() };
            assert_eq!(livelock(bound.clone(), vec![few]), bound, "a few waits are no livelock");
            let many = Wait { waits: LIVELOCK_WAITS, ..few };
            let kind = livelock(bound, vec![many, few]);
            assert_eq!((kind.kind(), kind.invariant()), ("livelock", Some(InvariantId::PROGRESS)));
            assert_eq!(kind.label(), "livelock → progress");
            assert!(kind.to_string().contains(": thread 1 waited 50 times at verdict.rs:"), "{kind}");
            let deadlock = classify(&"deadlock; threads = []".to_owned(), None);
            assert_eq!(
                livelock(deadlock.clone(), vec![many]),
                deadlock,
                "only a step bound becomes a livelock"
            );
        }
    }

    #[test]
    fn a_step_bound_breaks_progress_with_or_without_a_spinner() {
        let bound = classify(&"exceeded max_steps bound 5000.".to_owned(), None);
        assert_eq!(bound.invariant(), Some(InvariantId::PROGRESS), "{bound}");
        assert_eq!(bound.label(), "step bound → progress");
        assert!(Verdict::Fail(bound).names(InvariantId::PROGRESS));
    }

    #[test]
    fn typed_payloads_keep_their_fields() {
        let violation = Violation::new(InvariantId::new("token-reuse"), "stale");
        let kind = classify(&violation, None);
        assert_eq!(kind, FailureKind::InvariantViolated(violation));
        assert_eq!(kind.label(), "token-reuse");
    }
}
