//! Running models under loom: a stated preemption bound, a count of the interleavings
//! explored, and failures reported by the name of the invariant they break, with the
//! commands that reproduce them.
//!
//! loom reports three kinds of failure, and the harness names each:
//!
//! * a [`Monitor`] violation: the panic already reads "invariant `<name>` violated"
//!   plus the tail of the run's log; it is kept as it is;
//! * a deadlock (loom's "deadlock; threads = …"): every thread of the model is blocked,
//!   which in these models means a waiting side was never woken: **no-lost-wakeup**;
//! * a causality violation on an `UnsafeCell` (loom's "Causality violation: …"): two
//!   threads touched the same segment bytes or pool slot without a happens-before
//!   edge: **no-data-race**.
//!
//! Every failure message ends with how to reproduce it: the test command, the bound
//! (`LOOM_MAX_PREEMPTIONS`), `LOOM_LOG=1` for the interleaving log, and
//! `LOOM_CHECKPOINT_FILE`/`LOOM_CHECKPOINT_INTERVAL` to resume at the failing
//! interleaving (feature `loom-checkpoint`).
//!
//! Planted-bug twins ([`expect_caught`], [`expect_model_caught`]) run their model in a
//! child process (the same test, rerun with `PIPECHECK_LOOM_TWIN_CHILD=1`). A failure
//! inside loom often panics a second time while unwinding through loom objects, and
//! that aborts the process. The parent survives the abort and checks that the report
//! names the invariant the fault breaks.

use std::any::Any;
use std::cell::RefCell;
use std::fmt;
use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use pipecheck_core::{Fault, FaultSet};
use pipecheck_properties::{Invariant, Monitor, registry};

use crate::{Scenario, find};

/// How one exhaustive exploration went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explored {
    /// The model's name (the scenario's, or the queue model's).
    pub model: String,
    /// The preemption bound it ran with.
    pub bound: usize,
    /// Interleavings (loom executions) run.
    pub interleavings: usize,
    /// Wall-clock time of the exploration.
    pub elapsed: Duration,
}

impl fmt::Display for Explored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "loom model `{}`: preemption bound {}, {} interleavings explored in {:.2?}",
            self.model, self.bound, self.interleavings, self.elapsed
        )
    }
}

/// Which invariants a scenario's monitor checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checks {
    /// The whole registry (the normal case).
    Registry,
    /// The registry without its protocol-level memory checks (`no-data-race`'s read
    /// bound and `byte-exact`'s byte comparison), so that an overlapping access is
    /// left for loom's own race detector to find. Used by the no-data-race model to
    /// show that the tracked segment memory, not the event log, catches the overlap.
    MemoryByLoomOnly,
}

/// Explores every interleaving of `body` within `bound` preemptions.
///
/// `model` names the model in the report. The effective bound is `LOOM_MAX_PREEMPTIONS`
/// when set, else `bound`. The first failure is also written straight to stderr
/// (bypassing the test harness's capture): a panic inside loom often panics again while
/// unwinding through loom objects, which aborts the process and would lose the message.
///
/// # Errors
///
/// The failure, as a message naming the broken invariant and how to reproduce it.
pub fn explore(
    model: &str,
    bound: usize,
    body: impl Fn() + Send + Sync + 'static,
) -> Result<Explored, String> {
    let mut builder = loom::model::Builder::new();
    // The environment wins, so a failure can be replayed with another bound.
    let bound = *builder.preemption_bound.get_or_insert(bound);
    // Counted with a std atomic: outside loom's view, it adds no interleavings.
    let interleavings = Arc::new(AtomicUsize::new(0));
    let counter = interleavings.clone();
    install_hook();
    let started = Instant::now();
    CONTEXT.with(|c| {
        *c.borrow_mut() = Some(Context {
            model: model.to_owned(),
            bound,
            interleavings: interleavings.clone(),
            started,
            reported: None,
        })
    });
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        with_loom_log(|| {
            builder.check(move || {
                counter.fetch_add(1, Ordering::Relaxed);
                body();
            })
        })
    }));
    let reported = CONTEXT.with(|c| c.borrow_mut().take()).and_then(|c| c.reported);
    MONITOR.with(|m| m.borrow_mut().take());
    let explored = Explored {
        model: model.to_owned(),
        bound,
        interleavings: interleavings.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
    };
    match outcome {
        Ok(()) => {
            eprintln!("{explored}");
            Ok(explored)
        }
        Err(payload) => Err(reported.unwrap_or_else(|| failure_report(&explored, &panic_message(&*payload)))),
    }
}

/// Runs `explore` (a `loom::model::Builder::check`) with the `tracing` subscriber that
/// `loom::model()` installs: loom writes its interleaving log through `tracing`, so
/// without one `LOOM_LOG` prints nothing. `LOOM_LOG=1` shows everything; any other
/// value is a `tracing` filter (`LOOM_LOG=info`); the log goes to the test's output.
///
/// # Examples
///
/// ```no_run
/// pipecheck_models::loom_harness::with_loom_log(|| loom::model::Builder::new().check(|| {}));
/// ```
pub fn with_loom_log<T>(explore: impl FnOnce() -> T) -> T {
    // `LOOM_LOG=1` (the README's recipe, and what loom's `log` flag checks for) is not
    // a filter directive: read it, and any other bare switch, as "everything".
    let filter = match std::env::var("LOOM_LOG").unwrap_or_default().trim() {
        "" => tracing_subscriber::EnvFilter::new("off"),
        "1" | "true" | "yes" | "on" => tracing_subscriber::EnvFilter::new("trace"),
        directives => tracing_subscriber::EnvFilter::new(directives),
    };
    let subscriber = tracing_subscriber::fmt::Subscriber::builder()
        .with_env_filter(filter)
        .with_test_writer()
        .without_time()
        .finish();
    tracing::subscriber::with_default(subscriber, explore)
}

/// Explores scenario `name` with `faults` switched on; panics with the failure report.
///
/// # Panics
///
/// When the scenario does not exist, or loom finds a failing interleaving.
pub fn check_scenario(name: &str, faults: FaultSet, bound: usize, checks: Checks) -> Explored {
    let scenario = find(name).unwrap_or_else(|| panic!("no scenario called `{name}`"));
    explore(name, bound, move || run_scenario(&scenario, faults, checks))
        .unwrap_or_else(|report| panic!("{report}"))
}

/// Set in the child process that runs a planted-bug model for [`expect_caught`].
const CHILD_ENV: &str = "PIPECHECK_LOOM_TWIN_CHILD";
const BEGIN: &str = "---- pipecheck loom failure ----";
const END: &str = "---- end of pipecheck loom failure ----";
const PASSED: &str = "---- pipecheck loom: no failure ----";

/// Explores scenario `name` with `fault` planted and asserts that loom finds an
/// interleaving that fails, reported as a violation of `fault.breaks()`. Returns the
/// failure report.
///
/// The exploration runs in a child process (this same test, re-run with
/// `PIPECHECK_LOOM_TWIN_CHILD` set): a failure inside loom may abort the process
/// (a second panic while unwinding through loom objects), and the parent must survive
/// it to check the message.
///
/// # Panics
///
/// When the model passes despite the planted bug, or fails naming another invariant.
pub fn expect_caught(name: &str, fault: Fault, bound: usize, checks: Checks) -> String {
    let scenario = find(name).unwrap_or_else(|| panic!("no scenario called `{name}`"));
    let faults = FaultSet::NONE.with(fault);
    expect_model_caught(&format!("{name} + {fault}"), fault, bound, move || {
        run_scenario(&scenario, faults, checks)
    })
}

/// Like [`expect_caught`], for any model `body` (e.g. a queue-level model) that plants
/// `fault` itself.
///
/// # Panics
///
/// When the model passes, or fails naming another invariant than `fault.breaks()`.
pub fn expect_model_caught(
    label: &str,
    fault: Fault,
    bound: usize,
    body: impl Fn() + Send + Sync + 'static,
) -> String {
    if std::env::var_os(CHILD_ENV).is_some() {
        if let Ok(explored) = explore(label, bound, body) {
            write_stderr(&format!("{PASSED}\n{explored}\n"));
        }
        // A failure was written by the hook. Exit before the caller's own checks, which
        // belong to the parent.
        std::process::exit(0);
    }
    let (_, test_name) = current_test();
    let exe = std::env::current_exe().expect("the test binary's path");
    let output = std::process::Command::new(exe)
        .args([test_name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("re-running the test binary");
    let stderr = String::from_utf8_lossy(&output.stderr);
    if let Some(passed) = stderr.split(PASSED).nth(1) {
        panic!("{}: the planted bug {fault} went unnoticed", passed.trim());
    }
    let report = stderr
        .split(BEGIN)
        .nth(1)
        .and_then(|rest| rest.split(END).next())
        .map(|r| r.trim().to_owned())
        .unwrap_or_else(|| {
            panic!("the child run of `{test_name}` reported no failure ({}):\n{stderr}", output.status)
        });
    assert_names(&report, fault);
    let bound = std::env::var("LOOM_MAX_PREEMPTIONS").ok().and_then(|b| b.parse().ok()).unwrap_or(bound);
    eprintln!("reproduce: {}", reproduce_command(bound, true));
    report
}

/// Asserts that a failure `report` names the invariant `fault` breaks.
///
/// # Panics
///
/// When it does not.
pub fn assert_names(report: &str, fault: Fault) {
    let expected = format!("invariant `{}`", fault.breaks());
    assert!(
        report.contains(&expected),
        "planted bug {fault} should be reported as {expected}, got:\n{report}"
    );
    eprintln!("planted bug {fault} caught: {}", report.lines().next().unwrap_or_default());
}

/// The exploration running on this thread, for the panic hook.
struct Context {
    model: String,
    bound: usize,
    interleavings: Arc<AtomicUsize>,
    started: Instant,
    /// The report of the first failure, once made.
    reported: Option<String>,
}

thread_local! {
    // loom runs every model thread as a coroutine on the test's own thread, so a
    // thread-local set by `explore` is visible to the panic hook of any of them.
    static CONTEXT: RefCell<Option<Context>> = const { RefCell::new(None) };
    /// The monitor of the interleaving running now.
    static MONITOR: RefCell<Option<Arc<Monitor>>> = const { RefCell::new(None) };
}

/// Installs (once) a panic hook that, for panics inside a loom exploration, writes the
/// first failure's report to stderr and keeps quiet about the panics that follow it
/// while loom unwinds; other panics go to the previous hook.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let handled = CONTEXT.with(|c| {
                let Ok(mut context) = c.try_borrow_mut() else { return true };
                let Some(context) = context.as_mut() else { return false };
                if context.reported.is_none() {
                    let explored = Explored {
                        model: context.model.clone(),
                        bound: context.bound,
                        interleavings: context.interleavings.load(Ordering::Relaxed),
                        elapsed: context.started.elapsed(),
                    };
                    let report = failure_report(&explored, &panic_message(info.payload()));
                    write_stderr(&format!("{BEGIN}\n{report}\n{END}\n"));
                    context.reported = Some(report);
                }
                true
            });
            if !handled {
                previous(info);
            }
        }));
    });
}

/// Writes to the process's stderr directly, past the test harness's output capture.
fn write_stderr(text: &str) {
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// One execution of `scenario` under a fresh monitor.
fn run_scenario(scenario: &Scenario, faults: FaultSet, checks: Checks) {
    let monitor = match checks {
        Checks::Registry => scenario.monitor(faults),
        Checks::MemoryByLoomOnly => {
            let config = pipecheck_properties::CheckConfig { faults, ..(scenario.config)() };
            let invariants: Vec<Box<dyn Invariant>> = registry(&config)
                .into_iter()
                .filter(|i| !matches!(i.name(), "no-data-race" | "byte-exact"))
                .collect();
            Monitor::with_invariants(config, invariants)
        }
    };
    // For the report of a failure the monitor does not see (a deadlock, a race).
    MONITOR.with(|m| *m.borrow_mut() = Some(monitor.clone()));
    (scenario.body)(&monitor);
    monitor.assert_finished();
}

/// How many observations a deadlock or race report shows (as the monitor's own reports).
const TAIL: usize = 16;

/// The last observations of the current interleaving's monitor, if a scenario runs.
fn monitor_tail() -> String {
    let log = MONITOR.with(|m| m.try_borrow().ok().and_then(|m| m.as_ref().map(|m| m.log())));
    let Some(log) = log else { return String::new() };
    let from = log.len().saturating_sub(TAIL);
    let mut tail = format!("last {} observations of the failing interleaving:\n", log.len() - from);
    for entry in &log[from..] {
        tail.push_str(&format!("{entry}\n"));
    }
    tail
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "(a panic without a message)".to_owned())
}

/// Names the invariant behind loom's own failures and adds how to reproduce.
fn failure_report(explored: &Explored, message: &str) -> String {
    let headline = if message.contains("invariant `") {
        message.trim_start_matches("pipecheck: ").to_owned()
    } else if message.starts_with("deadlock") {
        format!(
            "invariant `no-lost-wakeup` violated: loom found a deadlock (a waiting side was never woken)\n\
             loom: {message}\n{}",
            monitor_tail()
        )
    } else if message.contains("Causality violation") {
        format!(
            "invariant `no-data-race` violated: loom found two unsynchronized accesses to the same \
             bytes (segment memory or pool slot)\nloom: {message}\n{}",
            monitor_tail()
        )
    } else {
        format!("the model panicked outside any invariant: {message}\n{}", monitor_tail())
    };
    let (_, test_name) = current_test();
    let command = reproduce_command(explored.bound, std::env::var_os(CHILD_ENV).is_some());
    format!(
        "{headline}\n\
         in loom model `{model}` at interleaving {n} (preemption bound {bound}, {elapsed:.2?})\n\
         reproduce:\n  \
           {command}\n  \
           interleaving log: add LOOM_LOG=info (thread switches) or LOOM_LOG=1 (every operation; long), and \
           LOOM_LOCATION=1 for source locations\n  \
           jump to the failing interleaving: run once with --features loom,loom-checkpoint and \
           LOOM_CHECKPOINT_FILE=/tmp/{test_name}.json LOOM_CHECKPOINT_INTERVAL=1, then rerun with the same \
           file and LOOM_LOG=1",
        model = explored.model,
        n = explored.interleavings,
        bound = explored.bound,
        elapsed = explored.elapsed,
    )
}

/// The one command that reruns this test's exploration with `bound`. For a planted-bug
/// twin (`twin`) it runs the child's side directly, in the foreground, so that loom's
/// log and the failure reach the terminal instead of the parent's capture.
fn reproduce_command(bound: usize, twin: bool) -> String {
    let (test_binary, test_name) = current_test();
    let (env, nocapture) =
        if twin { (format!("{CHILD_ENV}=1 "), " --nocapture") } else { (String::new(), "") };
    format!(
        "{env}LOOM_MAX_PREEMPTIONS={bound} cargo test -p pipecheck-models --features loom --test {test_binary} -- \
         {test_name} --exact{nocapture}"
    )
}

/// The integration-test binary and the test's name, from the test harness's thread.
fn current_test() -> (String, String) {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|stem| stem.rsplit_once('-').map_or(stem.clone(), |(name, _hash)| name.to_owned()))
        .unwrap_or_else(|| "<test file>".to_owned());
    let name = std::thread::current().name().unwrap_or("<test name>").to_owned();
    (binary, name)
}
