//! The ring's lost-at-close failure replayed with the sync facade's own operations
//! recorded: the consumer's stale load shows without any event the ring writes, and the
//! default table of a many-thread failure fits 120 columns.
use pipecheck::PlantedFault;
use pipecheck::engine::shuttle::SchedulerKind;
use pipecheck::record::{Detail, FacadeOp, OpKind, Value};
use pipecheck::trace::explore::{Exploration, Settings, explore_in};
use pipecheck::trace::minimize::{DEFAULT_RUNS, minimize};
use pipecheck::trace::replay::{Replayed, replay_recording};
use pipecheck::trace::table::{DEFAULT_WIDTH, TableOptions, render, render_with};
use pipecheck::{LARGE_SCENARIO, Target};
use spsc_ring::ring_check::{ClosedWithoutRecheck, target};
use std::collections::BTreeSet;

/// The line of `src/ring.rs` that holds `code` (once).
fn ring_line(code: &str) -> u32 {
    let source = include_str!("../../src/ring.rs");
    let lines: Vec<usize> =
        source.lines().enumerate().filter(|(_, l)| l.contains(code)).map(|(i, _)| i).collect();
    assert_eq!(lines.len(), 1, "`{code}` once in ring.rs");
    u32::try_from(lines[0] + 1).expect("small file")
}

/// How much of a found failure's schedule to replay.
#[derive(Clone, Copy)]
enum Schedule {
    /// Minimized: the fewest steps that still fail (few threads act).
    Minimized,
    /// As shuttle found it: every thread of the scenario acts.
    AsFound,
}

/// `fault`'s failure in `scenario`, found by shuttle, with its schedule as `schedule`
/// says, replayed with the facade's operations of `detail` recorded.
fn replayed(
    target: &Target,
    scenario: &str,
    fault: &'static PlantedFault,
    schedule: Schedule,
    detail: Detail,
) -> Replayed {
    replayed_from_seed(target, scenario, fault, Settings::default().seed, schedule, detail)
        .unwrap_or_else(|| panic!("{} is caught in {scenario}", fault.name()))
}

/// [`replayed`], exploring from `seed`; `None` when no scheduler finds the failure.
fn replayed_from_seed(
    target: &Target,
    scenario: &str,
    fault: &'static PlantedFault,
    seed: u64,
    schedule: Schedule,
    detail: Detail,
) -> Option<Replayed> {
    let settings = Settings { iterations: 1000, seed, ..Settings::default() };
    let scenario = target.scenario(scenario).expect("scenario");
    let found =
        [SchedulerKind::Random, SchedulerKind::Pct { depth: 3 }].into_iter().find_map(
            |kind| match explore_in(target, scenario, Some(fault), kind, &settings) {
                Exploration::Failed(found) => Some(found),
                _ => None,
            },
        )?;
    let trace = match schedule {
        Schedule::Minimized => {
            let minimized = minimize(&found, settings.max_steps, DEFAULT_RUNS);
            found.trace_with(minimized.size, minimized.schedule)
        }
        Schedule::AsFound => found.trace_with(found.size, found.schedule.clone()),
    };
    let path = std::path::Path::new("(in memory)");
    Some(
        replay_recording(&trace, path, std::slice::from_ref(target), detail)
            .unwrap_or_else(|e| panic!("{e}")),
    )
}

/// The threads that used the facade in `replayed`.
fn threads(replayed: &Replayed) -> BTreeSet<usize> {
    replayed.facade.iter().map(|op| op.thread).collect()
}

fn is_at(op: &FacadeOp, line: u32) -> bool {
    op.location.file().ends_with("ring.rs") && op.location.line() == line
}

#[test]
fn the_lost_close_replays_with_the_stale_tail_load_and_no_target_event() {
    let target = target();
    let replayed =
        replayed(&target, "push-close-races-pops", &ClosedWithoutRecheck, Schedule::Minimized, Detail::Sync);
    assert_eq!(replayed.failure.as_ref().expect("fails").invariant, "ring-fifo");
    let (tail_load, tail_store, closed_load) = (
        ring_line("let mut tail = shared.tail.load(Ordering::Acquire);"),
        ring_line("shared.tail.store(tail.wrapping_add(1), Ordering::Release);"),
        ring_line("if !shared.closed.load(Ordering::Acquire) {"),
    );
    // The consumer's last look at `closed` found it set, and it returned Closed...
    let ops = &replayed.facade;
    let closed = ops
        .iter()
        .rposition(|op| is_at(op, closed_load) && op.kind == OpKind::Load { value: Value::Bool(true) })
        .expect("the consumer saw `closed` set");
    let consumer = ops[closed].thread;
    // ... on the strength of its tail load before it, which a push had made stale.
    let stale = ops[..closed]
        .iter()
        .rposition(|op| op.thread == consumer && is_at(op, tail_load))
        .expect("the consumer loaded tail before");
    let OpKind::Load { value: Value::Int(read) } = ops[stale].kind else { panic!("{:?}", ops[stale]) };
    let pushed = ops[stale..closed]
        .iter()
        .filter(|op| op.thread != consumer && is_at(op, tail_store))
        .filter_map(|op| match op.kind {
            OpKind::Store { value: Value::Int(v) } => Some(v),
            _ => None,
        })
        .max()
        .expect("a push stored tail between the consumer's two loads");
    assert!(pushed > read, "tail {read} was stale: {pushed} was stored before `closed` was read");

    let options = TableOptions { target_events: false, ..TableOptions::default() };
    let table = render_with(&replayed, &options);
    eprintln!("{table}");
    let row = format!("load Acq → {read} @ring.rs:{tail_load}");
    let header = table.lines().next().expect("header");
    // The consumer runs on thread 1, its role's (`RingModel::role`).
    let column = header.split('|').position(|h| h.contains("(thread 1)")).expect("a consumer column");
    assert!(
        table.lines().any(|l| l.split('|').nth(column).is_some_and(|cell| cell.trim() == row)),
        "`{row}` in the consumer's column:\n{table}"
    );
    let events =
        table.lines().filter(|l| l.split('|').next().is_some_and(|c| c.trim().parse::<usize>().is_ok()));
    assert_eq!(events.count(), 0, "no event of the ring's own:\n{table}");
    assert!(table.contains("✗ `ring-fifo` broke"), "{table}");
}

#[test]
fn the_default_table_of_a_many_thread_failure_fits_120_columns() {
    let target = target();
    // The large scenario runs its splits in turn, two or three threads each: a failure
    // in a later split, replayed as found, has many threads. Seeds are tried in order.
    let replayed = (0..30)
        .filter_map(|seed| {
            replayed_from_seed(
                &target,
                LARGE_SCENARIO,
                &ClosedWithoutRecheck,
                seed,
                Schedule::AsFound,
                Detail::All,
            )
        })
        .find(|replayed| threads(replayed).len() > 6)
        .expect("a failure past the first splits, of more than 6 threads");
    let threads = threads(&replayed);
    let table = render(&replayed, None);
    eprintln!("{}", table.lines().take(12).collect::<Vec<_>>().join("\n"));
    let widest = table.lines().filter(|l| l.contains('|')).map(|l| l.chars().count()).max();
    assert!(widest.is_some_and(|w| w <= DEFAULT_WIDTH), "{widest:?} wide:\n{table}");
    let full = render_with(&replayed, &TableOptions { width: None, ..TableOptions::default() });
    let columns = full.lines().next().expect("header").matches(" task ").count();
    assert_eq!(columns, threads.len(), "full width: one column per thread");
}
