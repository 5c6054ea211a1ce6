//! The litmus suite: the classic weak-memory shapes as data, each at the orderings that
//! decide its outcome, with the verdict C11 (RC11, as adopted by C++20) gives the
//! outcome, and an interpreter that runs any of them on an atomics backend: the
//! facade's (`pipecheck::sync::atomic`, under loom or shuttle) or loom's own.
//!
//! Shared by the `litmus` test binary (which asserts every verdict and that
//! `docs/engines.md` holds the table it prints) and the `litmus` example (which prints
//! the table): `cargo run -p pipecheck --example litmus --features loom` (and
//! `--features shuttle` for shuttle's table).
//!
//! Sources of the shapes and verdicts: Lahav et al., "Repairing sequential consistency
//! in C/C++11" (PLDI 2017: SB, IRIW, 2+2W, R, S with `SeqCst` and with fences); Alglave,
//! Maranget and Tautschnig, "Herding cats" (the shape names and their outcomes); the
//! C++20 standard, [atomics.order].

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::atomic::Ordering::{self, Acquire, Relaxed, Release, SeqCst};
use std::sync::{Arc, Mutex};

/// One operation of a litmus thread. Loads and read-modify-writes record the value they
/// read, in order, as the thread's registers.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// `loc.store(value, order)`.
    Store(usize, u64, Ordering),
    /// `loc.load(order)`.
    Load(usize, Ordering),
    /// `loc.swap(value, order)`.
    Swap(usize, u64, Ordering),
    /// `loc.fetch_add(value, order)`.
    FetchAdd(usize, u64, Ordering),
    /// `loc.compare_exchange(current, new, success, failure)`: records the value found.
    Cas(usize, u64, u64, Ordering, Ordering),
    /// `fence(order)`.
    Fence(Ordering),
}

/// What C11 says of a litmus test's outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum C11 {
    /// Some execution C11 permits has it: a correct engine shows it.
    Allowed,
    /// No execution C11 permits has it: an engine that shows it reports a false red.
    Forbidden,
}

/// One row: a shape at one ordering combination.
#[derive(Debug)]
pub struct Litmus {
    /// The shape's name (SB, MP, ...).
    pub shape: &'static str,
    /// The orderings, in words.
    pub orderings: &'static str,
    /// The threads' operations; thread 0 runs on the model's own thread.
    pub threads: &'static [&'static [Op]],
    /// Locations read after every thread was joined (their final values), appended to
    /// the registers.
    pub finals: &'static [usize],
    /// The outcome C11 decides: the registers in thread order, then the finals.
    pub outcome: &'static [u64],
    /// The outcome, in words.
    pub outcome_text: &'static str,
    /// C11's verdict on the outcome.
    pub c11: C11,
    /// Why loom cannot show this allowed outcome, when it cannot.
    pub loom_misses: Option<&'static str>,
    /// Why the facade under loom cannot show it, when loom alone can.
    pub facade_misses: Option<&'static str>,
}

const LB_MISS: &str = "loom reads no store that comes later in the interleaving";
const SWAP_MISS: &str = "the facade performs a store as a swap (loom #254, `loom_atomic.rs`), so a location's stores are ordered as they ran";
const RMW_MISS: &str = "loom's read-modify-write reads the store that ran last";

use Op::{Cas, Fence, FetchAdd, Load, Store, Swap};

/// A two-thread row of `$shape`.
macro_rules! two {
    ($shape:expr, $orderings:expr, [$($a:expr),*], [$($b:expr),*], $finals:expr, $outcome:expr, $text:expr, $c11:expr) => {
        Litmus {
            shape: $shape,
            orderings: $orderings,
            threads: &[&[$($a),*], &[$($b),*]],
            finals: $finals,
            outcome: $outcome,
            outcome_text: $text,
            c11: $c11,
            loom_misses: None,
            facade_misses: None,
        }
    };
}

macro_rules! sb {
    ($orderings:expr, $a:tt, $b:tt, $c11:expr $(,)?) => {
        two!("SB", $orderings, $a, $b, &[], &[0, 0], "r1 = r2 = 0", $c11)
    };
}

macro_rules! mp {
    ($orderings:expr, $a:tt, $b:tt, $c11:expr $(,)?) => {
        two!("MP", $orderings, $a, $b, &[], &[1, 0], "flag seen, data not", $c11)
    };
}

macro_rules! lb {
    ($orderings:expr, $a:tt, $b:tt, $c11:expr $(,)?) => {
        two!("LB", $orderings, $a, $b, &[], &[1, 1], "r1 = r2 = 1", $c11)
    };
}

macro_rules! r {
    ($orderings:expr, $a:tt, $b:tt, $c11:expr $(,)?) => {
        two!("R", $orderings, $a, $b, &[1], &[0, 2], "r = 0, y = 2 at the end", $c11)
    };
}

macro_rules! s {
    ($orderings:expr, $a:tt, $b:tt, $c11:expr $(,)?) => {
        two!("S", $orderings, $a, $b, &[0], &[1, 2], "r = 1, x = 2 at the end", $c11)
    };
}

/// `x = 1 || y = 1 || r1 = x; r2 = y || r3 = y; r4 = x`.
macro_rules! iriw {
    ($orderings:expr, $store:expr, $load:expr, [$($fence:expr)?], $c11:expr) => {
        Litmus {
            shape: "IRIW",
            orderings: $orderings,
            threads: &[
                &[Store(0, 1, $store)],
                &[Store(1, 1, $store)],
                &[Load(0, $load), $($fence,)? Load(1, $load)],
                &[Load(1, $load), $($fence,)? Load(0, $load)],
            ],
            finals: &[],
            outcome: &[1, 0, 1, 0],
            outcome_text: "the readers see the writes in opposite orders",
            c11: $c11,
            loom_misses: None,
            facade_misses: None,
        }
    };
}

/// `x = 1 || r1 = x; y = 1 || r2 = y; r3 = x`.
macro_rules! wrc {
    ($orderings:expr, $store:expr, $load:expr, $c11:expr) => {
        Litmus {
            shape: "WRC",
            orderings: $orderings,
            threads: &[
                &[Store(0, 1, $store)],
                &[Load(0, $load), Store(1, 1, $store)],
                &[Load(1, $load), Load(0, $load)],
            ],
            finals: &[],
            outcome: &[1, 1, 0],
            outcome_text: "r1 = r2 = 1, r3 = 0",
            c11: $c11,
            loom_misses: None,
            facade_misses: None,
        }
    };
}

/// `x = 1; y = 2 || y = 1; x = 2`, then both final values 1.
macro_rules! two_plus_two_w {
    ($orderings:expr, $store:expr, $c11:expr) => {
        two!(
            "2+2W",
            $orderings,
            [Store(0, 1, $store), Store(1, 2, $store)],
            [Store(1, 1, $store), Store(0, 2, $store)],
            &[0, 1],
            &[1, 1],
            "x = y = 1 at the end",
            $c11
        )
    };
}

/// `x = 1 || r1 = x; r2 = x`: a newer value, then an older one.
macro_rules! corr {
    ($orderings:expr, $order:expr) => {
        two!(
            "CoRR",
            $orderings,
            [Store(0, 1, $order)],
            [Load(0, $order), Load(0, $order)],
            &[],
            &[1, 0],
            "r1 = 1, r2 = 0",
            C11::Forbidden
        )
    };
}

/// Every row of the table, in its order.
pub const SUITE: &[Litmus] = &[
    // Store buffering: `x = 1; r1 = y || y = 1; r2 = x`.
    sb!(
        "SeqCst store, SeqCst load",
        [Store(0, 1, SeqCst), Load(1, SeqCst)],
        [Store(1, 1, SeqCst), Load(0, SeqCst)],
        C11::Forbidden
    ),
    sb!(
        "Relaxed, fence(SeqCst) between",
        [Store(0, 1, Relaxed), Fence(SeqCst), Load(1, Relaxed)],
        [Store(1, 1, Relaxed), Fence(SeqCst), Load(0, Relaxed)],
        C11::Forbidden,
    ),
    sb!(
        "Release store, Acquire load",
        [Store(0, 1, Release), Load(1, Acquire)],
        [Store(1, 1, Release), Load(0, Acquire)],
        C11::Allowed
    ),
    sb!(
        "SeqCst store, Relaxed load",
        [Store(0, 1, SeqCst), Load(1, Relaxed)],
        [Store(1, 1, SeqCst), Load(0, Relaxed)],
        C11::Allowed
    ),
    sb!(
        "SeqCst store, Acquire load",
        [Store(0, 1, SeqCst), Load(1, Acquire)],
        [Store(1, 1, SeqCst), Load(0, Acquire)],
        C11::Allowed
    ),
    sb!(
        "Relaxed store, SeqCst load",
        [Store(0, 1, Relaxed), Load(1, SeqCst)],
        [Store(1, 1, Relaxed), Load(0, SeqCst)],
        C11::Allowed
    ),
    sb!(
        "one thread SeqCst, the other Release/Acquire",
        [Store(0, 1, SeqCst), Load(1, SeqCst)],
        [Store(1, 1, Release), Load(0, Acquire)],
        C11::Allowed,
    ),
    sb!(
        "one thread SeqCst, the other Relaxed with fence(SeqCst)",
        [Store(0, 1, SeqCst), Load(1, SeqCst)],
        [Store(1, 1, Relaxed), Fence(SeqCst), Load(0, Relaxed)],
        C11::Forbidden,
    ),
    // Store buffering, RMW forms.
    sb!(
        "SeqCst swap, SeqCst load",
        [Swap(0, 1, SeqCst), Load(1, SeqCst)],
        [Swap(1, 1, SeqCst), Load(0, SeqCst)],
        C11::Forbidden
    ),
    sb!(
        "SeqCst compare_exchange, SeqCst load",
        [Cas(0, 0, 1, SeqCst, SeqCst), Load(1, SeqCst)],
        [Cas(1, 0, 1, SeqCst, SeqCst), Load(0, SeqCst)],
        C11::Forbidden,
    ),
    Litmus {
        loom_misses: Some(RMW_MISS),
        ..sb!(
            "Relaxed store, Relaxed fetch_add(0) as the load",
            [Store(0, 1, Relaxed), FetchAdd(1, 0, Relaxed)],
            [Store(1, 1, Relaxed), FetchAdd(0, 0, Relaxed)],
            C11::Allowed,
        )
    },
    // Message passing: `data = 1; flag = 1 || r1 = flag; r2 = data`.
    mp!(
        "Relaxed",
        [Store(0, 1, Relaxed), Store(1, 1, Relaxed)],
        [Load(1, Relaxed), Load(0, Relaxed)],
        C11::Allowed
    ),
    mp!(
        "Release store, Acquire load",
        [Store(0, 1, Relaxed), Store(1, 1, Release)],
        [Load(1, Acquire), Load(0, Relaxed)],
        C11::Forbidden
    ),
    mp!(
        "Release store, Relaxed load",
        [Store(0, 1, Relaxed), Store(1, 1, Release)],
        [Load(1, Relaxed), Load(0, Relaxed)],
        C11::Allowed
    ),
    mp!(
        "SeqCst",
        [Store(0, 1, SeqCst), Store(1, 1, SeqCst)],
        [Load(1, SeqCst), Load(0, SeqCst)],
        C11::Forbidden
    ),
    mp!(
        "Relaxed, fence(Release) and fence(Acquire)",
        [Store(0, 1, Relaxed), Fence(Release), Store(1, 1, Relaxed)],
        [Load(1, Relaxed), Fence(Acquire), Load(0, Relaxed)],
        C11::Forbidden,
    ),
    mp!(
        "Release swap, Acquire fetch_add(0)",
        [Store(0, 1, Relaxed), Swap(1, 1, Release)],
        [FetchAdd(1, 0, Acquire), Load(0, Relaxed)],
        C11::Forbidden
    ),
    // Load buffering: `r1 = x; y = 1 || r2 = y; x = 1`.
    Litmus {
        loom_misses: Some(LB_MISS),
        ..lb!(
            "Relaxed",
            [Load(0, Relaxed), Store(1, 1, Relaxed)],
            [Load(1, Relaxed), Store(0, 1, Relaxed)],
            C11::Allowed
        )
    },
    lb!(
        "Acquire load, Release store",
        [Load(0, Acquire), Store(1, 1, Release)],
        [Load(1, Acquire), Store(0, 1, Release)],
        C11::Forbidden
    ),
    lb!(
        "SeqCst",
        [Load(0, SeqCst), Store(1, 1, SeqCst)],
        [Load(1, SeqCst), Store(0, 1, SeqCst)],
        C11::Forbidden
    ),
    // Independent reads of independent writes.
    iriw!("Relaxed", Relaxed, Relaxed, [], C11::Allowed),
    iriw!("Release stores, Acquire loads", Release, Acquire, [], C11::Allowed),
    iriw!("SeqCst", SeqCst, SeqCst, [], C11::Forbidden),
    iriw!("Relaxed, fence(SeqCst) between the loads", Relaxed, Relaxed, [Fence(SeqCst)], C11::Forbidden),
    // Write-to-read causality: `x = 1 || r1 = x; y = 1 || r2 = y; r3 = x`.
    wrc!("Relaxed", Relaxed, Relaxed, C11::Allowed),
    wrc!("Release stores, Acquire loads", Release, Acquire, C11::Forbidden),
    wrc!("SeqCst", SeqCst, SeqCst, C11::Forbidden),
    // 2+2W: `x = 1; y = 2 || y = 1; x = 2`, then both final values 1.
    Litmus { facade_misses: Some(SWAP_MISS), ..two_plus_two_w!("Relaxed", Relaxed, C11::Allowed) },
    Litmus { facade_misses: Some(SWAP_MISS), ..two_plus_two_w!("Release", Release, C11::Allowed) },
    two_plus_two_w!("SeqCst", SeqCst, C11::Forbidden),
    // R: `x = 1; y = 1 || y = 2; r = x`, then y's final value 2.
    r!(
        "Relaxed",
        [Store(0, 1, Relaxed), Store(1, 1, Relaxed)],
        [Store(1, 2, Relaxed), Load(0, Relaxed)],
        C11::Allowed
    ),
    r!(
        "Release stores, Acquire load",
        [Store(0, 1, Release), Store(1, 1, Release)],
        [Store(1, 2, Release), Load(0, Acquire)],
        C11::Allowed
    ),
    r!(
        "SeqCst",
        [Store(0, 1, SeqCst), Store(1, 1, SeqCst)],
        [Store(1, 2, SeqCst), Load(0, SeqCst)],
        C11::Forbidden
    ),
    r!(
        "Relaxed, fence(SeqCst) in both threads",
        [Store(0, 1, Relaxed), Fence(SeqCst), Store(1, 1, Relaxed)],
        [Store(1, 2, Relaxed), Fence(SeqCst), Load(0, Relaxed)],
        C11::Forbidden,
    ),
    // S: `x = 2; y = 1 || r = y; x = 1`, then x's final value 2.
    Litmus {
        facade_misses: Some(SWAP_MISS),
        ..s!(
            "Relaxed",
            [Store(0, 2, Relaxed), Store(1, 1, Relaxed)],
            [Load(1, Relaxed), Store(0, 1, Relaxed)],
            C11::Allowed
        )
    },
    s!(
        "Release store, Acquire load",
        [Store(0, 2, Relaxed), Store(1, 1, Release)],
        [Load(1, Acquire), Store(0, 1, Relaxed)],
        C11::Forbidden
    ),
    s!(
        "SeqCst",
        [Store(0, 2, SeqCst), Store(1, 1, SeqCst)],
        [Load(1, SeqCst), Store(0, 1, SeqCst)],
        C11::Forbidden
    ),
    // Coherence of two reads: `x = 1 || r1 = x; r2 = x`.
    corr!("Relaxed", Relaxed),
    corr!("SeqCst", SeqCst),
    // RMW atomicity: two increments, then the final value 1 (an increment lost).
    Litmus {
        shape: "RMW atomicity",
        orderings: "Relaxed fetch_add",
        threads: &[&[FetchAdd(0, 1, Relaxed)], &[FetchAdd(0, 1, Relaxed)]],
        finals: &[0],
        outcome: &[0, 0, 1],
        outcome_text: "both read 0, x = 1",
        c11: C11::Forbidden,
        loom_misses: None,
        facade_misses: None,
    },
    Litmus {
        shape: "RMW atomicity",
        orderings: "Release store racing two Acquire swaps",
        threads: &[&[Store(0, 1, Release)], &[Swap(0, 0, Acquire), Swap(0, 0, Acquire)]],
        finals: &[0],
        outcome: &[0, 0, 0],
        outcome_text: "neither swap reads 1, yet x = 0 at the end (the store lost)",
        c11: C11::Forbidden,
        loom_misses: None,
        facade_misses: None,
    },
    Litmus {
        shape: "RMW atomicity",
        orderings: "SeqCst store racing two Acquire swaps",
        threads: &[&[Store(0, 1, SeqCst)], &[Swap(0, 0, Acquire), Swap(0, 0, Acquire)]],
        finals: &[0],
        outcome: &[0, 0, 0],
        outcome_text: "neither swap reads 1, yet x = 0 at the end (the store lost)",
        c11: C11::Forbidden,
        loom_misses: None,
        facade_misses: None,
    },
];

/// How many locations `litmus` touches.
fn locations(litmus: &Litmus) -> usize {
    let location = |op: &Op| match *op {
        Store(l, ..) | Load(l, _) | Swap(l, ..) | FetchAdd(l, ..) | Cas(l, ..) => l + 1,
        Fence(_) => 0,
    };
    litmus.threads.iter().flat_map(|t| t.iter()).map(location).max().unwrap_or(0)
}

/// Runs one execution of a litmus test on an atomics backend.
pub trait Backend: 'static {
    /// One execution: every thread's operations, then the final values; the registers
    /// in thread order, then the finals.
    fn execution(litmus: &'static Litmus) -> Vec<u64>;
}

/// A backend over atomics at `$atomic`, `$fence` and threads spawned by `$spawn`.
macro_rules! backend {
    ($(#[$doc:meta])* $name:ident, $atomic:ty, $fence:path, $spawn:path) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name(Vec<$atomic>);

        impl $name {
            fn run(&self, ops: &[Op]) -> Vec<u64> {
                ops.iter().filter_map(|op| self.op(*op)).collect()
            }

            fn op(&self, op: Op) -> Option<u64> {
                let at = |l: usize| &self.0[l];
                match op {
                    Store(l, v, o) => {
                        at(l).store(v, o);
                        None
                    }
                    Load(l, o) => Some(at(l).load(o)),
                    Swap(l, v, o) => Some(at(l).swap(v, o)),
                    FetchAdd(l, v, o) => Some(at(l).fetch_add(v, o)),
                    Cas(l, current, new, success, failure) => {
                        Some(at(l).compare_exchange(current, new, success, failure).unwrap_or_else(|v| v))
                    }
                    Fence(o) => {
                        $fence(o);
                        None
                    }
                }
            }
        }

        impl Backend for $name {
            fn execution(litmus: &'static Litmus) -> Vec<u64> {
                let memory = Arc::new($name((0..locations(litmus)).map(|_| <$atomic>::new(0)).collect()));
                let others: Vec<_> = litmus.threads[1..]
                    .iter()
                    .map(|ops| {
                        let memory = memory.clone();
                        $spawn(move || memory.run(ops))
                    })
                    .collect();
                let mut registers = memory.run(litmus.threads[0]);
                for other in others {
                    registers.extend(other.join().expect("a litmus thread panicked"));
                }
                registers.extend(litmus.finals.iter().map(|l| memory.0[*l].load(Relaxed)));
                registers
            }
        }
    };
}

backend!(
    /// The facade's atomics and threads (`pipecheck::sync::atomic`, `pipecheck::thread`):
    /// what pipecheck checks, on whichever checker the build selected.
    Facade,
    pipecheck::sync::atomic::AtomicU64,
    pipecheck::sync::atomic::fence,
    pipecheck::thread::spawn
);

#[cfg(feature = "loom")]
backend!(
    /// loom's own atomics and threads, as a user of loom alone writes them.
    LoomAlone,
    loom::sync::atomic::AtomicU64,
    loom::sync::atomic::fence,
    loom::thread::spawn
);

/// Every outcome `explore` reaches when it runs `B`'s executions of `litmus`.
pub fn outcomes<B: Backend>(
    litmus: &'static Litmus,
    explore: impl FnOnce(Arc<dyn Fn() + Send + Sync>),
) -> BTreeSet<Vec<u64>> {
    let seen = Arc::new(Mutex::new(BTreeSet::new()));
    let record = seen.clone();
    explore(Arc::new(move || {
        let outcome = B::execution(litmus);
        record.lock().unwrap_or_else(|e| e.into_inner()).insert(outcome);
    }));
    seen.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Every interleaving loom explores (no preemption bound: these models are tiny).
#[cfg(feature = "loom")]
pub fn loom_explore(body: Arc<dyn Fn() + Send + Sync>) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = None;
    builder.check(move || body());
}

/// Executions shuttle runs per scheduler.
#[cfg(feature = "shuttle")]
pub const SHUTTLE_ITERATIONS: usize = 2000;

/// shuttle's random scheduler.
#[cfg(feature = "shuttle")]
pub fn shuttle_random(body: Arc<dyn Fn() + Send + Sync>) {
    shuttle::check_random(move || body(), SHUTTLE_ITERATIONS);
}

/// shuttle's PCT scheduler at depth 3.
#[cfg(feature = "shuttle")]
pub fn shuttle_pct(body: Arc<dyn Fn() + Send + Sync>) {
    shuttle::check_pct(move || body(), SHUTTLE_ITERATIONS, 3);
}

/// Why shuttle shows no weak outcome.
pub const SHUTTLE_MISS: &str = "shuttle runs sequentially consistent interleavings";

/// One cell: what an engine did with the row's outcome, judged against C11. `miss` is
/// why the engine cannot show an allowed outcome, if it cannot.
pub fn cell(litmus: &Litmus, found: bool, miss: Option<&str>) -> String {
    match (litmus.c11, found, miss) {
        (C11::Forbidden, false, _) => "never".to_owned(),
        (C11::Forbidden, true, _) => "**found: a false red**".to_owned(),
        (C11::Allowed, true, _) => "found".to_owned(),
        (C11::Allowed, false, Some(why)) => format!("not explored: {why}"),
        (C11::Allowed, false, None) => "**never: a hidden bug**".to_owned(),
    }
}

/// Whether a cell agrees with C11 or says why it cannot.
pub fn agrees(cell: &str) -> bool {
    !cell.starts_with("**")
}

/// One row of the table: the row's own columns, then `cells`.
pub fn table_row(litmus: &Litmus, cells: &[String]) -> String {
    let c11 = match litmus.c11 {
        C11::Allowed => "allowed",
        C11::Forbidden => "forbidden",
    };
    let mut line = format!("| {} | {} | {} | {c11} |", litmus.shape, litmus.orderings, litmus.outcome_text);
    for cell in cells {
        let _ = write!(line, " {cell} |");
    }
    line
}

/// The table's header with `columns` after C11.
pub fn table_header(columns: &[&str]) -> String {
    let mut head = "| Shape | Orderings | Outcome | C11 |".to_owned();
    let mut rule = "|---|---|---|---|".to_owned();
    for column in columns {
        let _ = write!(head, " {column} |");
        rule.push_str("---|");
    }
    format!("{head}\n{rule}")
}

/// The loom table: C11, loom alone, pipecheck on loom, one line per row of [`SUITE`].
#[cfg(feature = "loom")]
pub fn loom_table() -> (String, Vec<(&'static Litmus, String, String)>) {
    let mut table = table_header(&["loom alone", "pipecheck on loom"]);
    let mut rows = Vec::new();
    for litmus in SUITE {
        let alone = outcomes::<LoomAlone>(litmus, loom_explore).contains(litmus.outcome);
        let facade = outcomes::<Facade>(litmus, loom_explore).contains(litmus.outcome);
        let alone = cell(litmus, alone, litmus.loom_misses);
        let facade = cell(litmus, facade, litmus.facade_misses.or(litmus.loom_misses));
        table.push('\n');
        table.push_str(&table_row(litmus, &[alone.clone(), facade.clone()]));
        rows.push((litmus, alone, facade));
    }
    (table, rows)
}

/// The shuttle table: C11, pipecheck on shuttle random and PCT.
#[cfg(feature = "shuttle")]
pub fn shuttle_table() -> (String, Vec<(&'static Litmus, String, String)>) {
    let mut table = table_header(&["pipecheck on shuttle random", "pipecheck on shuttle PCT"]);
    let mut rows = Vec::new();
    for litmus in SUITE {
        let random = outcomes::<Facade>(litmus, shuttle_random).contains(litmus.outcome);
        let pct = outcomes::<Facade>(litmus, shuttle_pct).contains(litmus.outcome);
        let random = cell(litmus, random, Some(SHUTTLE_MISS));
        let pct = cell(litmus, pct, Some(SHUTTLE_MISS));
        table.push('\n');
        table.push_str(&table_row(litmus, &[random.clone(), pct.clone()]));
        rows.push((litmus, random, pct));
    }
    (table, rows)
}

/// The table between `<!-- {name}:start -->` and `<!-- {name}:end -->` in `doc`.
pub fn section<'a>(doc: &'a str, name: &str) -> Option<&'a str> {
    let start = format!("<!-- {name}:start -->\n");
    let end = format!("\n<!-- {name}:end -->");
    let from = doc.find(&start)? + start.len();
    let to = from + doc[from..].find(&end)?;
    Some(&doc[from..to])
}
