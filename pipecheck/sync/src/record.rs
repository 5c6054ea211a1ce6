//! The facade's own operations, recorded: atomic loads, stores and read-modify-writes
//! with their ordering and values, lock and unlock, `UnsafeCell` reads and writes,
//! spawn and join, each with the thread that made it and the caller's source line.
//!
//! A failing execution's log holds what its target chose to report. The bug is often
//! in what it did not report: the load that read a stale index, the store that came a
//! step too late. A [`Recording`] collects those operations while a run goes on, so a
//! report can show them beside the target's own events (the traces tool's replay
//! table does).
//!
//! Recording is off unless a [`Recording`] runs the code ([`Recording::run`]), and
//! when it is off an operation costs one branch on a `std` atomic; a production build
//! (none of the features `faults`, `loom`, `shuttle`) cannot record, and pays nothing. It adds no
//! synchronization and no scheduling point: the log is a `std` mutex and the switch a
//! `std` thread-local and atomic, outside loom's and shuttle's view, and a thread is
//! named by the backend's own notion (shuttle's task id, loom's and std's thread id),
//! read without a scheduling point. Which interleavings a checker explores does not
//! change.
//!
//! How much is recorded is a [`Detail`]; the environment variable
//! `PIPECHECK_FACADE_LOG` (`none`, `sync`, `all`) is read by the tools that switch
//! recording on ([`Detail::from_env`]).
//!
//! Which operations are recorded under each backend: shuttle records all of them; std
//! all but `join` (its `JoinHandle` is std's own); loom the `Mutex`'s lock and unlock
//! only (its atomics, cells and threads are loom's own types).
//!
//! # Examples
//!
//! ```
//! # #[cfg(all(feature = "faults", not(any(feature = "loom", feature = "shuttle"))))] {
//! use pipecheck_sync::record::{Detail, Recording};
//! use pipecheck_sync::sync::Mutex;
//!
//! let recording = Recording::new(Detail::Sync);
//! let lock = Mutex::new(1);
//! recording.run(|| *lock.lock() += 1);
//! let ops = recording.ops();
//! assert_eq!(ops.len(), 2);
//! assert!(ops[0].to_string().starts_with("lock @"), "{}", ops[0]);
//! assert!(ops[1].to_string().starts_with("unlock @"), "{}", ops[1]);
//! # }
//! ```

use std::cell::{Cell, RefCell};
use std::fmt;
use std::panic::Location;
use std::str::FromStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// How much of the facade's operations a [`Recording`] keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Detail {
    /// Nothing.
    #[default]
    None,
    /// Synchronization: atomics, fences, lock and unlock, spawn and join.
    Sync,
    /// Everything: also every `UnsafeCell` read and write.
    All,
}

impl Detail {
    /// The environment variable [`from_env`](Detail::from_env) reads.
    pub const ENV: &'static str = "PIPECHECK_FACADE_LOG";

    /// `PIPECHECK_FACADE_LOG` (`none`, `sync`, `all`), or `default` when it is unset.
    ///
    /// # Errors
    ///
    /// When the variable holds anything else, a message naming it.
    ///
    /// # Examples
    ///
    /// ```
    /// use pipecheck_sync::record::Detail;
    ///
    /// assert_eq!("all".parse::<Detail>(), Ok(Detail::All));
    /// assert!(Detail::from_env(Detail::Sync).is_ok());
    /// ```
    pub fn from_env(default: Detail) -> Result<Detail, String> {
        match std::env::var(Detail::ENV) {
            Ok(value) => value.parse().map_err(|e| format!("{}: {e}", Detail::ENV)),
            Err(_) => Ok(default),
        }
    }
}

impl FromStr for Detail {
    type Err = String;

    /// `none` (or `off`), `sync`, `all`.
    fn from_str(s: &str) -> Result<Detail, String> {
        match s.trim() {
            "none" | "off" | "0" => Ok(Detail::None),
            "sync" => Ok(Detail::Sync),
            "all" | "1" => Ok(Detail::All),
            other => Err(format!("unknown facade log detail `{other}`: expected `none`, `sync` or `all`")),
        }
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Detail::None => "none",
            Detail::Sync => "sync",
            Detail::All => "all",
        })
    }
}

/// A value an atomic held, read or was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// An `AtomicBool`'s.
    Bool(bool),
    /// An integer atomic's.
    Int(u64),
    /// An `AtomicPtr`'s, as an address.
    Ptr(usize),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Value::Bool(b) => write!(f, "{b}"),
            // A mask with its high bits set (`fetch_and(!FLAG)`) reads best complemented.
            Value::Int(n) if n.leading_ones() >= 16 => write!(f, "!{:#x}", !n),
            Value::Int(n) => write!(f, "{n}"),
            Value::Ptr(0) => f.write_str("null"),
            Value::Ptr(p) => write!(f, "{p:#x}"),
        }
    }
}

/// What one facade operation did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// An atomic load that read `value`.
    Load {
        /// The value read.
        value: Value,
    },
    /// An atomic store of `value`.
    Store {
        /// The value written.
        value: Value,
    },
    /// An atomic swap: `new` written, `old` read.
    Swap {
        /// The value written.
        new: Value,
        /// The value it replaced.
        old: Value,
    },
    /// A compare-exchange (`weak`: `compare_exchange_weak`).
    CompareExchange {
        /// Whether it was the weak form.
        weak: bool,
        /// The value it expected.
        expected: Value,
        /// The value it would write.
        new: Value,
        /// `Ok(previous)` when it wrote, `Err(actual)` when it did not.
        result: Result<Value, Value>,
    },
    /// A `fetch_<op>`: `operand` combined with `old`.
    Fetch {
        /// `add`, `sub`, `and`, `or`, `xor`, `nand`, `max` or `min`.
        op: &'static str,
        /// The operand.
        operand: Value,
        /// The value before.
        old: Value,
    },
    /// A fence.
    Fence,
    /// A `Mutex` acquired.
    Lock,
    /// A `Mutex` released (its guard dropped).
    Unlock,
    /// An `UnsafeCell::with` (recorded at [`Detail::All`]).
    CellRead,
    /// An `UnsafeCell::with_mut` (recorded at [`Detail::All`]).
    CellWrite,
    /// A thread spawned, as its id if known.
    Spawn {
        /// The new thread's id, in the backend's numbering.
        child: Option<usize>,
    },
    /// A thread joined.
    Join {
        /// The joined thread's id, in the backend's numbering.
        child: Option<usize>,
    },
}

impl OpKind {
    /// The least [`Detail`] that records this kind.
    pub fn detail(&self) -> Detail {
        match self {
            OpKind::CellRead | OpKind::CellWrite => Detail::All,
            _ => Detail::Sync,
        }
    }
}

/// One recorded facade operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FacadeOp {
    /// The thread that made it, in the backend's numbering (shuttle's task id).
    pub thread: usize,
    /// What it did.
    pub kind: OpKind,
    /// The ordering (an atomic's; a compare-exchange's success ordering).
    pub order: Option<Ordering>,
    /// The caller's source location.
    pub location: &'static Location<'static>,
    /// The length of the run's own log when it happened (0 without an anchor): the
    /// operation came after that many of the target's events.
    pub anchor: usize,
}

/// An ordering, short: `Rlx`, `Acq`, `Rel`, `AcqRel`, `SeqCst`.
pub fn short_order(order: Ordering) -> &'static str {
    match order {
        Ordering::Relaxed => "Rlx",
        Ordering::Acquire => "Acq",
        Ordering::Release => "Rel",
        Ordering::AcqRel => "AcqRel",
        _ => "SeqCst",
    }
}

impl FacadeOp {
    /// What it did, without the location: `load Acq → 2`, `cas Rel 0→1 ok`.
    pub fn what(&self) -> String {
        let order = self.order.map(|o| format!(" {}", short_order(o))).unwrap_or_default();
        match self.kind {
            OpKind::Load { value } => format!("load{order} → {value}"),
            OpKind::Store { value } => format!("store{order} ← {value}"),
            OpKind::Swap { new, old } => format!("swap{order} ← {new} (was {old})"),
            OpKind::CompareExchange { weak, expected, new, result } => {
                let name = if weak { "cas_weak" } else { "cas" };
                match result {
                    Ok(_) => format!("{name}{order} {expected}→{new} ok"),
                    Err(actual) => format!("{name}{order} {expected}→{new} failed, saw {actual}"),
                }
            }
            OpKind::Fetch { op, operand, old } => format!("fetch_{op}{order} {operand} (was {old})"),
            OpKind::Fence => format!("fence{order}"),
            OpKind::Lock => "lock".to_owned(),
            OpKind::Unlock => "unlock".to_owned(),
            OpKind::CellRead => "cell read".to_owned(),
            OpKind::CellWrite => "cell write".to_owned(),
            OpKind::Spawn { child: Some(c) } => format!("spawn {c}"),
            OpKind::Spawn { child: None } => "spawn".to_owned(),
            OpKind::Join { child: Some(c) } => format!("join {c}"),
            OpKind::Join { child: None } => "join".to_owned(),
        }
    }

    /// The location as `file.rs:line`, the file without its directories.
    pub fn short_location(&self) -> String {
        let file = self.location.file();
        let file = file.rsplit(['/', '\\']).next().unwrap_or(file);
        format!("{file}:{}", self.location.line())
    }
}

impl fmt::Display for FacadeOp {
    /// `load Acq → 2 @ring.rs:184`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} @{}", self.what(), self.short_location())
    }
}

/// Where a recording places its operations among the run's own events: the length of
/// the run's log now, or `None` when it cannot be read without blocking.
pub type Anchor = dyn Fn() -> Option<usize> + Send + Sync;

struct Shared {
    detail: Detail,
    ops: Mutex<Vec<FacadeOp>>,
    anchor: Option<Box<Anchor>>,
}

/// A recording of the facade's operations: those made by code it [`run`](Self::run)s,
/// on its thread and (std) on the threads that code spawns through the facade.
///
/// Cloning shares the recording.
#[derive(Clone)]
pub struct Recording {
    shared: Arc<Shared>,
}

impl fmt::Debug for Recording {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recording").field("detail", &self.shared.detail).finish_non_exhaustive()
    }
}

/// Recordings running on some thread: while 0, an operation costs this one load.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The recording running on this thread (a std thread-local: outside the checkers).
    static CURRENT: RefCell<Option<Recording>> = const { RefCell::new(None) };
    /// Set while an operation is being recorded, so the anchor's own code is not.
    static BUSY: Cell<bool> = const { Cell::new(false) };
}

impl Recording {
    /// A recording keeping operations of `detail`, not anchored in any log.
    pub fn new(detail: Detail) -> Recording {
        Recording { shared: Arc::new(Shared { detail, ops: Mutex::new(Vec::new()), anchor: None }) }
    }

    /// A recording that stamps each operation with `anchor()`, the length of the run's
    /// own log then (the last known length when `anchor` returns `None`).
    pub fn anchored(detail: Detail, anchor: Box<Anchor>) -> Recording {
        Recording { shared: Arc::new(Shared { detail, ops: Mutex::new(Vec::new()), anchor: Some(anchor) }) }
    }

    /// How much it keeps.
    pub fn detail(&self) -> Detail {
        self.shared.detail
    }

    /// Runs `body` with this recording on for the current thread (the previous one,
    /// if any, is restored after, also when `body` panics).
    pub fn run<T>(&self, body: impl FnOnce() -> T) -> T {
        struct Restore(Option<Recording>);
        impl Drop for Restore {
            fn drop(&mut self) {
                let previous = self.0.take();
                CURRENT.with(|c| *c.borrow_mut() = previous);
                RUNNING.fetch_sub(1, Ordering::Relaxed);
            }
        }
        RUNNING.fetch_add(1, Ordering::Relaxed);
        let _restore = Restore(CURRENT.with(|c| c.borrow_mut().replace(self.clone())));
        body()
    }

    /// The operations recorded so far, in the order they happened.
    pub fn ops(&self) -> Vec<FacadeOp> {
        self.shared.ops.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The recording running on this thread, if any: how a new thread is handed it.
    pub fn current() -> Option<Recording> {
        if RUNNING.load(Ordering::Relaxed) == 0 {
            return None;
        }
        CURRENT.with(|c| c.try_borrow().ok().and_then(|c| c.clone()))
    }

    /// Runs `body` with `recording` on if it is `Some` (as [`Recording::current`]
    /// returned it on another thread).
    pub fn run_with<T>(recording: Option<Recording>, body: impl FnOnce() -> T) -> T {
        match recording {
            Some(recording) => recording.run(body),
            None => body(),
        }
    }
}

/// Whether any recording is on: the one branch an operation costs when none is. A
/// build for production (no `faults`, `loom` or `shuttle` feature) cannot record: the
/// answer is the constant `false`, and every recording call compiles away.
#[inline(always)]
pub(crate) fn on() -> bool {
    cfg!(any(feature = "faults", feature = "loom", feature = "shuttle"))
        && RUNNING.load(Ordering::Relaxed) != 0
}

/// Records `kind` made at `location` by the current thread, if a recording runs here
/// and keeps that kind.
#[inline]
pub(crate) fn record(kind: OpKind, order: Option<Ordering>, location: &'static Location<'static>) {
    if on() {
        record_slow(kind, order, location);
    }
}

#[cold]
#[inline(never)]
fn record_slow(kind: OpKind, order: Option<Ordering>, location: &'static Location<'static>) {
    if BUSY.with(|b| b.replace(true)) {
        return;
    }
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            BUSY.with(|b| b.set(false));
        }
    }
    let _done = Done;
    let Some(recording) = CURRENT.with(|c| c.try_borrow().ok().and_then(|c| c.clone())) else { return };
    let shared = &recording.shared;
    if shared.detail < kind.detail() {
        return;
    }
    let Some(thread) = super::backend::thread_number() else { return };
    let fresh = shared.anchor.as_ref().and_then(|anchor| anchor());
    let mut ops = shared.ops.lock().unwrap_or_else(PoisonError::into_inner);
    let anchor = fresh.or_else(|| ops.last().map(|op| op.anchor)).unwrap_or(0);
    ops.push(FacadeOp { thread, kind, order, location, anchor });
}

/// A value as a [`Value`]: how the atomics' wrappers describe what they read and wrote.
// loom's atomics are loom's own types, not recorded (module docs).
#[cfg_attr(feature = "loom", allow(dead_code))]
pub(crate) trait AsValue: Copy {
    fn value(self) -> Value;
}

impl AsValue for bool {
    fn value(self) -> Value {
        Value::Bool(self)
    }
}

impl AsValue for usize {
    fn value(self) -> Value {
        Value::Int(self as u64)
    }
}

impl AsValue for u64 {
    fn value(self) -> Value {
        Value::Int(self)
    }
}

impl<T> AsValue for *mut T {
    fn value(self) -> Value {
        Value::Ptr(self as usize)
    }
}

// On std only: under loom and shuttle a thread is named only inside an execution.
#[cfg(all(test, feature = "faults", not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_recorded_outside_a_recording() {
        let recording = Recording::new(Detail::All);
        record(OpKind::Lock, None, Location::caller());
        assert!(recording.ops().is_empty());
        recording.run(|| record(OpKind::Lock, None, Location::caller()));
        assert_eq!(recording.ops().len(), 1);
    }

    #[test]
    fn sync_detail_leaves_cell_accesses_out() {
        let recording = Recording::new(Detail::Sync);
        recording.run(|| {
            record(OpKind::CellRead, None, Location::caller());
            record(OpKind::Store { value: Value::Int(3) }, Some(Ordering::Release), Location::caller());
        });
        let ops = recording.ops();
        assert_eq!(ops.len(), 1);
        assert!(ops[0].to_string().starts_with("store Rel ← 3 @record.rs:"), "{}", ops[0]);
    }

    #[test]
    fn operations_are_placed_by_their_anchor() {
        let seen = Arc::new(AtomicUsize::new(0));
        let log = seen.clone();
        let recording =
            Recording::anchored(Detail::Sync, Box::new(move || Some(log.load(Ordering::Relaxed))));
        recording.run(|| {
            record(OpKind::Lock, None, Location::caller());
            seen.store(2, Ordering::Relaxed);
            record(OpKind::Unlock, None, Location::caller());
        });
        let anchors: Vec<usize> = recording.ops().iter().map(|op| op.anchor).collect();
        assert_eq!(anchors, [0, 2]);
    }
}
