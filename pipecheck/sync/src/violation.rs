//! [`Violation`]: a broken invariant, as the value a check fails with.

use std::fmt;

use crate::InvariantId;

/// A broken invariant: which one, what happened, and where in the run.
///
/// A check reports it by [`raise`](Violation::raise)-ing it: the panic payload is the
/// value itself, so engines and reports learn what broke from its fields, and people
/// read its [`Display`](fmt::Display). It lives next to [`InvariantId`] so that the
/// primitives' own protocol checks can raise it too.
///
/// # Examples
///
/// ```
/// use pipecheck_sync::{InvariantId, Violation};
///
/// let caught = std::panic::catch_unwind(|| Violation::new(InvariantId::new("byte-exact"), "a byte was lost").raise());
/// let violation = caught.unwrap_err().downcast::<Violation>().unwrap();
/// assert_eq!(violation.invariant, InvariantId::new("byte-exact"));
/// assert_eq!(violation.to_string(), "invariant `byte-exact` violated: a byte was lost");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The broken invariant.
    pub invariant: InvariantId,
    /// What went wrong.
    pub detail: String,
    /// Index in the checker's log of the observation that broke it (the log length for
    /// end-of-run checks); `None` for checks made outside a log.
    pub step: Option<usize>,
    /// What led there, for people (a log tail); may be empty.
    pub context: String,
}

impl Violation {
    /// A violation of `invariant`, found outside a log.
    pub fn new(invariant: InvariantId, detail: impl Into<String>) -> Violation {
        Violation { invariant, detail: detail.into(), step: None, context: String::new() }
    }

    /// Fails the current execution with this violation as the panic payload.
    #[track_caller]
    pub fn raise(self) -> ! {
        std::panic::panic_any(self)
    }

    /// Raises a violation of `invariant` unless `holds`: a structure's own consistency
    /// rule, checked inside the structure, so that every engine names the invariant the
    /// breach breaks (an `assert!` would end a run as an unnamed panic). Not while the
    /// thread unwinds from an earlier failure: a value dropped on the way out meets the
    /// same breach again, and a second panic would abort the process and lose the
    /// verdict of the first.
    #[track_caller]
    pub fn raise_unless(holds: bool, invariant: InvariantId, detail: &str) {
        if !holds && !std::thread::panicking() {
            Violation::new(invariant, detail).raise();
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invariant `{}` violated", self.invariant)?;
        if let Some(step) = self.step {
            write!(f, " at step {step}")?;
        }
        write!(f, ": {}", self.detail)?;
        if !self.context.is_empty() {
            write!(f, "\n{}", self.context)?;
        }
        Ok(())
    }
}

impl std::error::Error for Violation {}
