//! The checking layer's panic hook.
//!
//! Checkers fail an execution by panicking with a typed payload ([`Violation`](crate::check::Violation),
//! [`ModelMismatch`](crate::check::ModelMismatch)); the standard hook would print those as
//! `Box<dyn Any>`, so this hook prints their `Display` instead and hands every other
//! panic to the previous hook.
//!
//! While a [`Capture`] is active on a thread (an engine checking a target: loom and
//! shuttle run every task of an execution on the calling thread), the hook also
//! classifies the first panic on that thread, with its location, so the verdict is the
//! first failure even when unwinding panics again, and a quiet capture keeps the
//! expected panics of a check off the terminal.

use std::cell::RefCell;
use std::io::Write;
use std::sync::Once;

use crate::check::Violation;
use crate::check::verdict::{FailureKind, ModelMismatch, classify, livelock, panic_message};

struct Captured {
    quiet: bool,
    on_first: Option<fn(&FailureKind)>,
    first: Option<FailureKind>,
}

thread_local! {
    static CAPTURE: RefCell<Option<Captured>> = const { RefCell::new(None) };
}

/// Installs the hook (once per process), wrapping the hook in place now.
pub(crate) fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let location = info.location().map(ToString::to_string);
            let captured = CAPTURE.with(|c| {
                // Borrowed: a panic inside the hook's own work; stay silent.
                let Ok(mut c) = c.try_borrow_mut() else { return Some(true) };
                let captured = c.as_mut()?;
                // An engine stopping its exploration on purpose is no failure.
                if info.payload().is::<crate::check::engine::Cut>() {
                    return Some(true);
                }
                if captured.first.is_none() {
                    // The engines panic at their step bound inside the running thread,
                    // where the failing execution's waits are still noted.
                    let waits = pipecheck_sync::progress::waits();
                    let kind = livelock(classify(info.payload(), location.clone()), waits);
                    if let Some(report) = captured.on_first {
                        report(&kind);
                    }
                    captured.first = Some(kind);
                }
                Some(captured.quiet)
            });
            if captured == Some(true) {
                return;
            }
            let payload = info.payload();
            if payload.is::<Violation>() || payload.is::<ModelMismatch>() || payload.is::<FailureKind>() {
                let thread = std::thread::current();
                let at = location.unwrap_or_default();
                let _ = writeln!(
                    std::io::stderr(),
                    "\nthread '{}' panicked at {at}:\n{}",
                    thread.name().unwrap_or("<unnamed>"),
                    panic_message(payload)
                );
            } else {
                previous(info);
            }
        }));
    });
}

/// Records the first panic on this thread while it lives.
///
/// # Examples
///
/// ```
/// use pipecheck::InvariantId;
/// use pipecheck::{Capture, Violation};
///
/// let capture = Capture::start(true);
/// let _ = std::panic::catch_unwind(|| Violation::new(InvariantId::new("byte-exact"), "lost").raise());
/// assert_eq!(capture.finish().and_then(|f| f.invariant()), Some(InvariantId::new("byte-exact")));
/// ```
#[derive(Debug)]
pub struct Capture {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Capture {
    /// Starts capturing on this thread; `quiet` keeps the captured panics unprinted.
    pub fn start(quiet: bool) -> Capture {
        Capture::start_with(quiet, None)
    }

    /// As [`Capture::start`], calling `on_first` from the hook with the first failure
    /// (e.g. to write it out before a checker aborts the process).
    pub fn start_with(quiet: bool, on_first: Option<fn(&FailureKind)>) -> Capture {
        install();
        CAPTURE.with(|c| *c.borrow_mut() = Some(Captured { quiet, on_first, first: None }));
        Capture { _not_send: std::marker::PhantomData }
    }

    /// Ends the capture; the first failure it saw.
    pub fn finish(self) -> Option<FailureKind> {
        CAPTURE.with(|c| c.borrow_mut().take()).and_then(|c| c.first)
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        let _ = CAPTURE.try_with(|c| c.try_borrow_mut().map(|mut c| c.take()));
    }
}
