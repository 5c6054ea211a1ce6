//! Replaying a trace file: exactly, with its fault on (it must break its invariant), or
//! leniently with the fault off (it must pass), plus the failing execution's table.

use std::path::Path;

use crate::check::{Row, first_line};
use crate::target::{Target, find_target};
use pipecheck_sync::record::{Detail, FacadeOp};

use crate::target::engine::shuttle::DEFAULT_MAX_STEPS;
use crate::trace::record::{Guided, Plan};
use crate::trace::run::{Failure, fresh, run};
use crate::trace::trace_file::{Size, Trace, TraceError};

/// A replayed execution.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// What broke (`None`: it passed).
    pub failure: Option<Failure>,
    /// The replayed schedule's size.
    pub size: Size,
    /// The monitor's log, described.
    pub log: Vec<Row>,
    /// For each scheduling decision: the log length then, and the task chosen.
    pub marks: Vec<(usize, usize)>,
    /// The facade's own operations in the execution (atomics, locks, cells, spawn and
    /// join), in order, each placed among the log's rows by its `anchor`; empty when
    /// replayed with [`Detail::None`].
    pub facade: Vec<FacadeOp>,
}

/// How much of the facade's operations a replay records unless told otherwise:
/// `PIPECHECK_FACADE_LOG` (`none`, `sync`, `all`), or [`Detail::Sync`] when it is unset
/// or not one of those.
pub fn default_detail() -> Detail {
    Detail::from_env(Detail::Sync).unwrap_or(Detail::Sync)
}

/// [`replay`] for a trace of one of `targets`.
///
/// # Errors
///
/// As [`replay`], and for a target not among `targets`.
pub fn replay(trace: &Trace, path: &Path, targets: &[Target]) -> Result<Replayed, TraceError> {
    replay_recording(trace, path, targets, default_detail())
}

/// [`replay`], recording the facade's operations of `detail` into
/// [`Replayed::facade`] (the replay is the same whatever `detail`: recording adds no
/// scheduling point).
///
/// # Errors
///
/// As [`replay`].
pub fn replay_recording(
    trace: &Trace,
    path: &Path,
    targets: &[Target],
    detail: Detail,
) -> Result<Replayed, TraceError> {
    let replayed = match execute(trace, path, true, true, targets, detail) {
        Ok(replayed) => replayed,
        Err(diverged) => return Err(passes_now(trace, path, targets, &diverged.message).unwrap_or(diverged)),
    };
    let expected = &trace.invariant;
    match &replayed.failure {
        Some(f) if &f.invariant == expected => Ok(replayed),
        Some(f) => Err(TraceError::new(
            path,
            trace.line_of("invariant"),
            format!(
                "the replay broke `{}`, not the recorded `{expected}`: {}",
                f.invariant,
                first_line(&f.message())
            ),
        )),
        None => {
            let ran_out = format!(
                "the schedule ran to its end ({} steps) without breaking `{expected}`: it no longer matches the \
                 program (was the scenario or the code it checks changed?)",
                trace.schedule.len()
            );
            Err(passes_now(trace, path, targets, &ran_out)
                .unwrap_or_else(|| TraceError::new(path, None, ran_out)))
        }
    }
}

/// When the exact replay did not reproduce the failure: the trace's schedule followed
/// leniently (where the program now offers other tasks, the default choice), with the
/// recorded fault on. If that run passes, the failure is gone: most likely the bug was
/// fixed, which is what the report says instead of blaming the schedule.
fn passes_now(trace: &Trace, path: &Path, targets: &[Target], exact: &str) -> Option<TraceError> {
    let lenient = execute(trace, path, true, false, targets, Detail::None).ok()?;
    lenient.failure.is_none().then(|| {
        TraceError::new(
            path,
            None,
            format!(
                "the recorded failure no longer happens: this trace passes now (was the bug fixed?). Followed as \
                 far as it fits the program, its schedule runs to the end without breaking `{}`{}; if the fix is \
                 intended, delete the trace or record a new one. The exact replay: {exact}",
                trace.invariant,
                trace.fault.as_deref().map(|f| format!(" with `{f}` on")).unwrap_or_default()
            ),
        )
    })
}

/// [`replay_without_fault`] for a trace of one of `targets`.
///
/// # Errors
///
/// As [`replay_without_fault`], and for a target not among `targets`.
pub fn replay_without_fault(trace: &Trace, path: &Path, targets: &[Target]) -> Result<Replayed, TraceError> {
    execute(trace, path, false, false, targets, default_detail())
}

/// One run of `trace`'s schedule, with its fault on or off, `strict`ly (stop where the
/// schedule no longer fits) or leniently.
fn execute(
    trace: &Trace,
    path: &Path,
    fault_on: bool,
    strict: bool,
    targets: &[Target],
    detail: Detail,
) -> Result<Replayed, TraceError> {
    let target = find_target(targets, &trace.target)
        .map_err(|e| TraceError::new(path, trace.line_of("target"), e.to_string()))?;
    let scenario = target
        .scenario(&trace.scenario)
        .map_err(|e| TraceError::new(path, trace.line_of("scenario"), e.to_string()))?;
    let fault = match &trace.fault {
        Some(name) if fault_on => Some(
            target.fault(name).map_err(|e| TraceError::new(path, trace.line_of("fault"), e.to_string()))?,
        ),
        _ => None,
    };
    let (tape, slot) = fresh();
    // A livelock's schedule ends at the step bound it was minimized under.
    let max_steps = if trace.invariant == pipecheck_sync::InvariantId::PROGRESS.name() {
        trace.schedule.len()
    } else {
        DEFAULT_MAX_STEPS
    };
    let plan = Plan::Exact { schedule: trace.schedule.clone(), strict };
    let outcome = run(
        scenario,
        fault,
        Guided::new(plan, tape.clone(), Some(slot.clone())),
        (&tape, &slot),
        max_steps,
        detail,
    );
    if let Some(why) = &outcome.tape.mismatch {
        return Err(TraceError::new(
            path,
            None,
            format!(
                "the schedule no longer matches the program: {why} (was the scenario or the code it checks changed?)"
            ),
        ));
    }
    if strict && outcome.tape.overrun > 0 {
        // A recorded schedule ends where its execution failed: running past its end
        // means the program now takes more steps than it did.
        let then = match &outcome.failure {
            Some(f) => format!("before `{}` broke", f.invariant),
            None => "and never failed".to_owned(),
        };
        return Err(TraceError::new(
            path,
            None,
            format!(
                "the schedule ended after {} steps but the program went on for {} more {then}: it no longer \
                 matches the program (was the scenario or the code it checks changed?)",
                trace.schedule.len(),
                outcome.tape.overrun
            ),
        ));
    }
    Ok(Replayed {
        failure: outcome.failure,
        size: outcome.tape.size(),
        log: outcome.log,
        marks: outcome.tape.marks,
        facade: outcome.facade,
    })
}

impl Replayed {
    /// What identifies this execution across replays: the broken invariant, the
    /// schedule's size, and every logged observation (described without the buffer
    /// addresses, which the allocator chooses).
    pub fn fingerprint(&self) -> (Option<String>, Size, Vec<String>) {
        let log = self.log.iter().map(|row| row.text.clone()).collect();
        (self.failure.as_ref().map(|f| f.invariant.clone()), self.size, log)
    }
}
