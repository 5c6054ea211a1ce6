//! [`PlantedFault`]: a planted bug declared by any checked target, pipecheck's own or a
//! user's, as an open set of named values.
//!
//! Every target's bugs are declared alike: `static`
//! [`PlantedFault`]s (or entries of [`planted_faults!`](crate::planted_faults)), each
//! naming the invariant it breaks and the scenarios that catch it, asked
//! [`PlantedFault::is_active`] at the place the bug is planted. The checking harness
//! switches one fault on for the executions of a kill-matrix cell with
//! [`PlantedFault::activate`].
//!
//! The switch is a thread-local of the thread that runs the model: loom and shuttle
//! run every model thread on the thread that called them, so every task of the
//! execution sees it, and tests running side by side on other threads do not; the
//! facade's std `thread::spawn` carries it into the threads it starts. The switch
//! holds the fault itself, not its name. Outside a verification build (features
//! `faults`, `loom` or `shuttle`), [`PlantedFault::is_active`] is the constant `false`
//! and every planted branch compiles away.

use std::fmt;

use crate::InvariantId;

/// How many invariants a planted bug may declare it [`also_breaks`](PlantedFault::also_breaks).
const ALSO_BREAKS_MAX: usize = 4;

/// A planted bug of a checked target: its name, and the invariant whose checker must
/// catch it.
///
/// # Examples
///
/// ```
/// use pipecheck_sync::{InvariantId, PlantedFault};
///
/// static FORGETS_WAKE: PlantedFault = PlantedFault::new(
///     "ForgetsWake",
///     InvariantId::new("wakes-receiver"),
///     "send stores the value but does not wake the receiver",
/// );
///
/// fn send_wakes() -> bool {
///     !FORGETS_WAKE.is_active()
/// }
///
/// assert!(send_wakes());
/// # #[cfg(feature = "faults")]
/// assert!(!FORGETS_WAKE.activate(send_wakes));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PlantedFault {
    name: &'static str,
    breaks: InvariantId,
    summary: &'static str,
    weak_memory: bool,
    real_time: bool,
    in_sequences: bool,
    caught_in: &'static [&'static str],
    also_breaks: [Option<InvariantId>; ALSO_BREAKS_MAX],
}

impl PlantedFault {
    /// A planted bug called `name` (unique within its target; trace files and the
    /// command line use it) that breaks `breaks`; `summary` says what the bug does.
    pub const fn new(name: &'static str, breaks: InvariantId, summary: &'static str) -> PlantedFault {
        PlantedFault {
            name,
            breaks,
            summary,
            weak_memory: false,
            real_time: false,
            in_sequences: false,
            caught_in: &[],
            also_breaks: [None; ALSO_BREAKS_MAX],
        }
    }

    /// This bug, declared caught by the target's scenarios called `scenarios`: the
    /// kill matrix runs it on them, and the shuttle hunts look for it there. A target
    /// refuses a bug that no scenario of its own claims.
    pub const fn caught_in(self, scenarios: &'static [&'static str]) -> PlantedFault {
        PlantedFault { caught_in: scenarios, ..self }
    }

    /// This bug, declared to break `other` as well: the same mistake shows as a data
    /// race to loom (which sees the unordered access) and as a wrong value to a
    /// sequentially consistent engine (which sees its effect). A verdict naming any of
    /// them counts as caught. Each call adds one (up to four); a fifth is a compile
    /// error in a `static` declaration.
    pub const fn also_breaks(mut self, other: InvariantId) -> PlantedFault {
        let mut slot = 0;
        while slot < ALSO_BREAKS_MAX {
            if self.also_breaks[slot].is_none() {
                self.also_breaks[slot] = Some(other);
                return self;
            }
            slot += 1;
        }
        panic!("a planted fault declares at most four `also_breaks` invariants")
    }

    /// Whether a verdict naming `invariant` catches this bug: its own
    /// ([`breaks`](Self::breaks)) or one it [`also_breaks`](Self::also_breaks).
    pub fn is_broken_as(&self, invariant: InvariantId) -> bool {
        self.broken_as().contains(&invariant)
    }

    /// The invariants a verdict may name to catch it: [`breaks`](Self::breaks), then
    /// those it [`also_breaks`](Self::also_breaks), in declaration order.
    pub fn broken_as(&self) -> Vec<InvariantId> {
        std::iter::once(self.breaks).chain(self.also_breaks.iter().flatten().copied()).collect()
    }

    /// The scenarios declared to catch it ([`caught_in`](Self::caught_in)).
    pub const fn scenarios(&self) -> &'static [&'static str] {
        self.caught_in
    }

    /// Whether the scenario called `scenario` is declared to catch it.
    pub fn is_caught_in(&self, scenario: &str) -> bool {
        self.caught_in.contains(&scenario)
    }

    /// This bug, declared visible only under a weak memory model: it changes an atomic
    /// ordering and nothing else, so only loom's causality check can see it (shuttle,
    /// plain threads and proptest run sequentially consistent). The campaign runs it
    /// under loom only, and reports it "not run here" in a build without loom.
    pub const fn weak_memory(self) -> PlantedFault {
        PlantedFault { weak_memory: true, ..self }
    }

    /// This bug, declared visible only to a history check that orders operations by
    /// real time (shuttle, plain threads): under loom's weak memory model a history is
    /// ordered by happens-before only (program order, spawn and join), and a bug that
    /// shows only as an operation that "began after" another returned, with nothing
    /// ordering the two, is no violation there. The campaign does not run it under loom.
    pub const fn real_time(self) -> PlantedFault {
        PlantedFault { real_time: true, ..self }
    }

    /// Whether only a real-time history check can see it ([`real_time`](Self::real_time)).
    pub const fn needs_real_time(&self) -> bool {
        self.real_time
    }

    /// This bug, declared reachable by the target's operation sequences (the proptest
    /// engine, `Target::sequences` in pipecheck): the
    /// campaign adds a proptest cell for it to the kill matrix.
    pub const fn in_sequences(self) -> PlantedFault {
        PlantedFault { in_sequences: true, ..self }
    }

    /// Whether only a weak memory model (loom) can see it ([`weak_memory`](Self::weak_memory)).
    pub const fn needs_weak_memory(&self) -> bool {
        self.weak_memory
    }

    /// Whether operation sequences reach it ([`in_sequences`](Self::in_sequences)).
    pub const fn reached_by_sequences(&self) -> bool {
        self.in_sequences
    }

    /// The stable name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The invariant this bug is planted to break: a check that catches it counts
    /// only when it reports this invariant.
    pub const fn breaks(&self) -> InvariantId {
        self.breaks
    }

    /// What the bug does (its declaration's doc comment, when declared with
    /// [`planted_faults!`](crate::planted_faults)).
    pub const fn summary(&self) -> &'static str {
        self.summary
    }

    /// Whether this bug is switched on for the execution running on this thread.
    /// Always `false` outside a verification build (features `faults`, `loom` or
    /// `shuttle` of this crate): a release build of the checked code carries no
    /// planted bug.
    #[inline(always)]
    pub fn is_active(&'static self) -> bool {
        #[cfg(feature = "faults")]
        {
            switch::active(self)
        }
        #[cfg(not(feature = "faults"))]
        {
            false
        }
    }

    /// Runs `body` with this bug switched on for this thread (and every loom or
    /// shuttle task it runs), and off again afterwards, also when `body` panics.
    #[cfg(feature = "faults")]
    pub fn activate<T>(&'static self, body: impl FnOnce() -> T) -> T {
        switch::with(Some(self), body)
    }

    /// Runs `body` with `fault` (if any) switched on, and no other. Outside a
    /// verification build, `body` runs with every fault off (a planted fault cannot be on).
    pub fn activate_opt<T>(fault: Option<&'static PlantedFault>, body: impl FnOnce() -> T) -> T {
        #[cfg(feature = "faults")]
        {
            switch::with(fault, body)
        }
        #[cfg(not(feature = "faults"))]
        {
            let _ = fault;
            body()
        }
    }

    /// Whether this build can switch planted bugs on at all: a verification build
    /// (feature `faults`, `loom` or `shuttle` of this crate). A runner that cannot must
    /// say so rather than report a bug that never ran as escaped.
    pub const fn can_activate() -> bool {
        cfg!(feature = "faults")
    }

    /// The fault switched on for this thread (`None` outside a verification build).
    /// The facade's `thread::spawn` on std hands it to the threads it starts, so a
    /// planted bug is on in every thread of the run that switched it on.
    pub fn active() -> Option<&'static PlantedFault> {
        #[cfg(feature = "faults")]
        {
            switch::current()
        }
        #[cfg(not(feature = "faults"))]
        {
            None
        }
    }
}

/// Declares planted bugs, each once: a `static` [`PlantedFault`] per bug, named as the
/// bug's stable name (so the identifier *is* the name trace files and the command line
/// use), its doc comment as its summary, and `pub static ALL: &[&PlantedFault]` listing
/// them in declaration order. After the invariant come the scenarios that catch it,
/// `caught_in(&["scenario", ..])`, and the flags `weak_memory` (only loom sees it) and
/// `in_sequences` (the target's operation sequences reach it), in any order.
///
/// # Examples
///
/// ```
/// mod faults {
///     use pipecheck_sync::InvariantId;
///
///     pub const WAKE: InvariantId = InvariantId::new("wakes-receiver");
///
///     pipecheck_sync::planted_faults! {
///         /// `send` stores the value but does not wake the receiver.
///         ForgetsWake breaks WAKE, caught_in(&["send-races-recv"]);
///         /// `send` publishes the value with a relaxed store.
///         RelaxedSend breaks InvariantId::NO_DATA_RACE, weak_memory, caught_in(&["send-races-recv"]);
///     }
/// }
///
/// assert_eq!(faults::ForgetsWake.name(), "ForgetsWake");
/// assert!(faults::RelaxedSend.needs_weak_memory());
/// assert!(faults::ForgetsWake.is_caught_in("send-races-recv"));
/// assert_eq!(faults::ALL.len(), 2);
/// ```
#[macro_export]
macro_rules! planted_faults {
    ($( $(#[doc = $doc:literal])* $name:ident breaks $breaks:expr $(, $flag:ident $(($arg:expr))?)* ;)+) => {
        $(
            $(#[doc = $doc])*
            #[allow(non_upper_case_globals)] // the identifier is the stable name
            pub static $name: $crate::PlantedFault =
                $crate::PlantedFault::new(stringify!($name), $breaks, concat!($($doc, "\n"),*))$(.$flag($($arg)?))*;
        )+
        /// Every planted bug declared here, in declaration order.
        pub static ALL: &[&$crate::PlantedFault] = &[$(&$name),+];
    };
}

#[cfg(feature = "faults")]
mod switch {
    use std::cell::Cell;

    use super::PlantedFault;

    thread_local! {
        /// The fault switched on for this thread's model, if any: the `static` itself,
        /// so two targets' faults of the same name are two switches. A std
        /// thread-local: outside loom's and shuttle's view, read without a scheduling point.
        static ACTIVE: Cell<Option<&'static PlantedFault>> = const { Cell::new(None) };
    }

    pub(super) fn current() -> Option<&'static PlantedFault> {
        ACTIVE.with(Cell::get)
    }

    pub(super) fn active(fault: &'static PlantedFault) -> bool {
        ACTIVE.with(|a| a.get().is_some_and(|on| std::ptr::eq(on, fault)))
    }

    pub(super) fn with<T>(fault: Option<&'static PlantedFault>, body: impl FnOnce() -> T) -> T {
        /// Restores the previous switch when dropped, so a panic does not leave it on.
        struct Restore(Option<&'static PlantedFault>);
        impl Drop for Restore {
            fn drop(&mut self) {
                ACTIVE.with(|a| a.set(self.0));
            }
        }
        let _restore = Restore(ACTIVE.with(|a| a.replace(fault)));
        body()
    }
}

impl fmt::Debug for PlantedFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlantedFault({} breaks {})", self.name, self.breaks)
    }
}

impl fmt::Display for PlantedFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

#[cfg(all(test, feature = "faults"))]
mod tests {
    use super::*;

    static A: PlantedFault = PlantedFault::new("A", InvariantId::new("a"), "a");
    static B: PlantedFault = PlantedFault::new("B", InvariantId::new("b"), "b");

    #[test]
    fn only_the_activated_fault_is_on_and_only_inside() {
        assert!(!A.is_active());
        A.activate(|| {
            assert!(A.is_active());
            assert!(!B.is_active());
        });
        assert!(!A.is_active());
    }

    #[test]
    fn also_breaks_adds_each_invariant_it_is_given() {
        static BOTH: PlantedFault = PlantedFault::new("Both", InvariantId::new("a"), "")
            .also_breaks(InvariantId::new("b"))
            .also_breaks(InvariantId::new("c"));
        assert_eq!(BOTH.broken_as(), [InvariantId::new("a"), InvariantId::new("b"), InvariantId::new("c")]);
        assert!(BOTH.is_broken_as(InvariantId::new("b")) && BOTH.is_broken_as(InvariantId::new("c")));
        assert!(!BOTH.is_broken_as(InvariantId::new("d")));
    }

    #[test]
    fn two_faults_of_one_name_are_two_switches() {
        static A_AGAIN: PlantedFault = PlantedFault::new("A", InvariantId::new("a"), "another target's A");
        A.activate(|| assert!(!A_AGAIN.is_active()));
    }

    #[test]
    fn a_panic_switches_the_fault_off() {
        let _ = std::panic::catch_unwind(|| A.activate(|| panic!("planted")));
        assert!(!A.is_active());
    }
}
