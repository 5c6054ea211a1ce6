//! A user's lock-free code on `pipecheck`, checked from outside the
//! crate as a user would, under shuttle: a one-slot ring whose consumer frees the slot
//! before reading it. The overwrite happens between the consumer's two accesses, so
//! shuttle sees it only because every `UnsafeCell` access is a scheduling point.
//! (Loom's half, a one-permit notify, is `tests/loom/user_lock_free.rs`.)
//!
//! Run: `cargo test -p pipecheck-models --features shuttle --test shuttle -- user_lock_free::`.

use pipecheck::cell::UnsafeCell;
use pipecheck::engine::shuttle::{DEFAULT_MAX_STEPS, PCT_DEPTHS, REPLAY_VAR, SchedulerKind, Shuttle};
use pipecheck::must_fail::in_child;
use pipecheck::sync::Arc;
use pipecheck::sync::atomic::{AtomicBool, Ordering};
use pipecheck::thread;
use pipecheck::{Engine, FailureKind, Verdict};

/// Values sent through the ring per execution.
const VALUES: u64 = 3;
/// Schedules per scheduler.
const ITERATIONS: usize = 1_000;

fn engines() -> [Shuttle; 2] {
    let engine = |kind| Shuttle { kind, seed: 0x5107, iterations: ITERATIONS, max_steps: DEFAULT_MAX_STEPS };
    [engine(SchedulerKind::Random), engine(SchedulerKind::Pct { depth: PCT_DEPTHS[0] })]
}

/// A one-slot ring: `full` says the slot holds a value the consumer has not taken.
struct OneSlot {
    slot: UnsafeCell<u64>,
    full: AtomicBool,
}

// SAFETY: `full` hands the slot from one thread to the other: the producer writes it
// only while it is free, the consumer reads it only while it is full (the planted
// bug breaks exactly that).
unsafe impl Sync for OneSlot {}

/// One execution: a producer sends 1..=VALUES, the consumer checks each. With
/// `frees_before_reading`, the consumer marks the slot free before reading it, and
/// the producer can overwrite the value in between.
fn ring(frees_before_reading: bool) -> pipecheck::Execution {
    std::sync::Arc::new(move || {
        let ring = Arc::new(OneSlot { slot: UnsafeCell::new(0), full: AtomicBool::new(false) });
        let producer = ring.clone();
        let producer = thread::spawn(move || {
            for value in 1..=VALUES {
                while producer.full.load(Ordering::Acquire) {
                    thread::yield_now();
                }
                // SAFETY: the slot is free (`full` is false), and only this thread fills it.
                producer.slot.with_mut(|p| unsafe { *p = value });
                producer.full.store(true, Ordering::Release);
            }
        });
        for expected in 1..=VALUES {
            while !ring.full.load(Ordering::Acquire) {
                thread::yield_now();
            }
            let value = if frees_before_reading {
                ring.full.store(false, Ordering::Release);
                // The planted bug: the slot is free, the producer may be writing it.
                // SAFETY: none; shuttle runs one task at a time, so the read is not torn.
                ring.slot.with(|p| unsafe { *p })
            } else {
                // SAFETY: the slot is full, and the producer writes it only once it is free.
                let value = ring.slot.with(|p| unsafe { *p });
                ring.full.store(false, Ordering::Release);
                value
            };
            assert_eq!(
                value, expected,
                "slot reuse: the consumer read a value that overwrote the one it freed"
            );
        }
        producer.join().unwrap();
    })
}

/// A failing run prints no advice that does not reproduce it: shuttle's "set the
/// environment variable SHUTTLE_RANDOM_SEED" is suppressed (pipecheck refuses that
/// variable; its own failure report says how to reproduce).
#[test]
fn a_failing_run_does_not_advise_shuttle_random_seed() {
    const CHILD: &str = "PIPECHECK_CHILD_SHUTTLE_ADVICE";
    if std::env::var_os(CHILD).is_some() {
        let kind = match engines()[0].check(ring(true)).verdict {
            Verdict::Fail(failure) => failure.kind(),
            Verdict::Pass | Verdict::Incomplete { .. } => "pass",
        };
        eprintln!("child verdict: {kind}");
        return;
    }
    let test = std::thread::current().name().expect("a test thread's name").to_owned();
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .expect("the child test runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("child verdict: panic"), "the child run failed as planted:\n{stderr}");
    assert!(!stderr.contains("SHUTTLE_RANDOM_SEED"), "shuttle's seed advice was printed:\n{stderr}");
}

/// A failing check in a user's own test saves its schedule under
/// `target/pipecheck/shuttle/` and prints one command that replays it; that command,
/// run as printed (the test binary cargo would run, with the variable and the test
/// name it gives), replays exactly the failing execution: one execution, same failure.
#[test]
fn a_failing_check_saves_its_schedule_and_the_printed_command_replays_it() {
    let test = std::thread::current().name().expect("a test thread's name").to_owned();
    let run_child = |env: &[(&str, &str)]| {
        in_child(&test, env, || {
            let checked = engines()[0].check(ring(true));
            let kind = checked.verdict.failure().map_or("pass", |f| f.kind());
            eprintln!("child verdict: {kind} after {} executions", checked.executions);
        })
        .stderr
    };
    let first = run_child(&[]);
    assert!(first.contains("child verdict: panic"), "the planted bug was not caught:\n{first}");
    let saved = first
        .lines()
        .find_map(|l| l.strip_prefix("failing schedule saved to "))
        .unwrap_or_else(|| panic!("no saved schedule reported:\n{first}"));
    assert!(
        std::path::Path::new(saved)
            .ends_with(format!("pipecheck/shuttle/{}.check1.schedule", test.replace("::", "__"))),
        "saved where the README does not say: {saved}"
    );
    assert!(std::path::Path::new(saved).exists(), "{saved} was not written");
    // The printed command, taken apart: variable, cargo's selection, libtest's filter.
    let command = first
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(REPLAY_VAR))
        .unwrap_or_else(|| panic!("no replay command printed:\n{first}"));
    let (assignment, cargo) = command.split_once(' ').expect("VAR=value cargo ...");
    let (var, value) = assignment.split_once('=').expect("VAR=value");
    assert_eq!((var, value), (REPLAY_VAR, saved));
    let package = std::env::var("CARGO_PKG_NAME").unwrap();
    assert_eq!(
        cargo,
        format!("cargo test -p {package} --features shuttle --test shuttle -- {test} --exact"),
        "the command does not select this test"
    );
    let replayed = run_child(&[(REPLAY_VAR, value)]);
    assert!(
        replayed.contains("child verdict: panic after 1 executions"),
        "the replay did not fail in its one execution:\n{replayed}"
    );
}

/// `SHUTTLE_RANDOM_SEED` would replace every seed the engine gives shuttle, silently:
/// the engine refuses it, saying why and what to use instead.
#[test]
fn shuttle_random_seed_is_refused_with_a_reason() {
    let test = std::thread::current().name().expect("a test thread's name").to_owned();
    let child = in_child(&test, &[("SHUTTLE_RANDOM_SEED", "7")], || {
        engines()[0].check(ring(false));
    });
    assert!(!child.success, "the check ran with SHUTTLE_RANDOM_SEED set:\n{}", child.stderr);
    assert!(
        child.stderr.contains("SHUTTLE_RANDOM_SEED is set") && child.stderr.contains(REPLAY_VAR),
        "the refusal does not say why or what to use:\n{}",
        child.stderr
    );
}

#[test]
fn a_one_slot_ring_is_green_under_random_and_pct() {
    for engine in engines() {
        let checked = engine.check(ring(false));
        assert_eq!(checked.verdict, Verdict::Pass, "{}: {}", engine.name(), checked.verdict);
    }
}

/// Needs a scheduling point between the consumer's store and its read of the slot:
/// the facade's `UnsafeCell::with` (under the `std` cell, every schedule passed).
#[test]
fn a_slot_freed_before_it_is_read_is_caught_under_random_and_pct() {
    for engine in engines() {
        let checked = engine.check(ring(true));
        match &checked.verdict {
            Verdict::Fail(FailureKind::Panic { message, .. }) if message.contains("slot reuse") => {
                eprintln!("{}: slot reuse caught at execution {}", engine.name(), checked.executions);
            }
            other => panic!("{}: the slot reuse was not caught: {other}", engine.name()),
        }
    }
}
