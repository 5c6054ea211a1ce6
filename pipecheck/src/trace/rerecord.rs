//! Re-recording saved traces after a change moved the program's scheduling points.
//!
//! A shuttle schedule is a list of decisions at the program's scheduling points, so any
//! change to the pipe's protocol (one lock acquisition fewer, an atomic instead of a
//! lock) or to a scenario makes the committed schedules replay something else. What
//! stays valid is a trace's *header*: the planted fault, the scenario that catches it,
//! the invariant it breaks. A [`Rerecorder`] keeps a trace that still replays as
//! recorded; otherwise it hunts the fault in the header's target and scenario again (the header's scheduler
//! and seed first, so the file keeps its name), minimizes the failure, checks that the
//! new schedule breaks the same invariant (twice, identically) and passes with the fault
//! off, and only then rewrites the file. It works for any [`Target`]: pipecheck's own
//! (the pipe and the seed primitives) and a user crate's, through the command line's
//! `corpus --rerecord` ([`crate::trace::cli`]).

use std::path::{Path, PathBuf};

use crate::target::{Target, find_target};

use crate::target::engine::shuttle::SchedulerKind;
use crate::trace::explore::{Exploration, Found, Settings, explore_in};
use crate::trace::location;
use crate::trace::replay::{replay, replay_without_fault};
use crate::trace::trace_file::{Header, Trace, TraceError, rerecord_command};

/// What happened to one trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// It still replays as recorded (and passes with its fault off): left alone.
    Kept,
    /// It was stale (or `force` was given) and has been recorded again.
    Rewritten {
        /// Why the old schedule had to go.
        why: String,
        /// The new file (another name when another scheduler or seed found the fault).
        path: PathBuf,
        /// The new schedule's size, as the header writes it.
        minimized: String,
    },
    /// It could not be recorded again; the old file is left as it was.
    Failed(String),
}

/// One trace's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The trace file that was examined.
    pub path: PathBuf,
    /// What happened to it.
    pub status: Status,
}

/// How a stale trace is re-recorded: the targets its header may name, the exploration
/// budget and the minimizer.
pub struct Rerecorder<'a> {
    /// The targets whose traces are re-recorded (e.g. `builtin::all()`, or a user
    /// crate's targets).
    pub targets: &'a [Target],
    /// Budgets and the fallback seed.
    pub settings: Settings,
    /// Rewrite every trace, even one that still replays as recorded.
    pub force: bool,
    /// Turns a found failure into a minimized trace (the command line minimizes in a
    /// child process to keep shuttle's per-candidate messages off the terminal).
    pub minimize: &'a dyn Fn(&Found) -> Trace,
}

impl std::fmt::Debug for Rerecorder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rerecorder")
            .field("targets", &self.targets)
            .field("settings", &self.settings)
            .field("force", &self.force)
            .finish_non_exhaustive()
    }
}

/// Why `path`, a trace of one of `targets`, fails its replay, or `None` when it replays
/// as recorded: it breaks its invariant, identically twice, and passes with its fault
/// off.
pub fn staleness(path: &Path, targets: &[Target]) -> Option<String> {
    let check = || -> Result<(), TraceError> {
        let trace = Trace::load(path, targets)?;
        let first = replay(&trace, path, targets)?;
        let again = replay(&trace, path, targets)?;
        if again.fingerprint() != first.fingerprint() {
            return Err(TraceError::new(path, None, "two replays of the schedule differ"));
        }
        if let Some(f) = replay_without_fault(&trace, path, targets)?.failure {
            return Err(TraceError::new(
                path,
                None,
                format!("with the fault off it still breaks `{}`", f.invariant),
            ));
        }
        Ok(())
    };
    check().err().map(|e| e.to_string())
}

/// What a test or a tool says when a saved trace no longer replays as recorded: the
/// replay's own error, that the trace is stale, and the command that records it again
/// ([`rerecord_command`]: `cargo traces corpus --rerecord` for pipecheck's corpus).
pub fn stale_message(error: &dyn std::fmt::Display) -> String {
    format!(
        "{error}\nthe trace is stale: its schedule no longer replays as recorded. If the code under test or the \
         scenario changed on purpose, record the traces again (from the workspace root):\n    {}\n\
         If nothing that schedules changed, the replay found a regression: look at it with the trace's `replay` line.",
        rerecord_command()
    )
}

impl Rerecorder<'_> {
    /// Re-records every `.trace` file in `dir`, in name order.
    pub fn directory(&self, dir: &Path, mut progress: impl FnMut(usize, usize, &Outcome)) -> Vec<Outcome> {
        let files = location::traces_in(dir);
        let mut outcomes = Vec::with_capacity(files.len());
        for (i, path) in files.iter().enumerate() {
            let outcome = self.file(path);
            progress(i + 1, files.len(), &outcome);
            outcomes.push(outcome);
        }
        outcomes
    }

    /// Re-records the trace at `path` (see the module documentation).
    pub fn file(&self, path: &Path) -> Outcome {
        let status = match self.status(path) {
            Ok(status) => status,
            Err(why) => Status::Failed(why),
        };
        Outcome { path: path.to_owned(), status }
    }

    fn status(&self, path: &Path) -> Result<Status, String> {
        let header = Header::load(path, self.targets).map_err(|e| e.to_string())?;
        let why = if self.force {
            format!("{}: rewritten on request (--force)", path.display())
        } else {
            match staleness(path, self.targets) {
                None => return Ok(Status::Kept),
                Some(why) => why,
            }
        };
        let Some(fault) = &header.fault else {
            return Err(format!(
                "{}: records no planted bug (`fault: none`), so there is nothing to hunt again; replay it, fix the \
                 bug it shows, and delete it",
                path.display()
            ));
        };
        // The header was checked against the targets; these name the line if not.
        let at = |key: &str, e: &dyn std::fmt::Display| {
            format!("{}:{}: {e}", path.display(), header.line_of(key).unwrap_or(0))
        };
        let target = find_target(self.targets, &header.target).map_err(|e| at("target", &e))?;
        let scenario = target.scenario(&header.scenario).map_err(|e| at("scenario", &e))?;
        let fault = target.fault(fault).map_err(|e| at("fault", &e))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut misses = Vec::new();
        for (kind, seed) in self.attempts(&header)? {
            let settings = Settings { seed, ..self.settings };
            let found = match explore_in(target, scenario, Some(fault), kind, &settings) {
                Exploration::Failed(found) => found,
                Exploration::Passed { iterations, .. } => {
                    misses.push(format!("{kind} (seed {seed}): not caught in {iterations} executions"));
                    continue;
                }
            };
            if found.failure.invariant != header.invariant {
                misses.push(format!(
                    "{kind} (seed {seed}): broke `{}` first, not the recorded `{}`",
                    found.failure.invariant, header.invariant
                ));
                continue;
            }
            let trace = (self.minimize)(&found);
            let name =
                location::file_name(Some(fault.name()), scenario.name, &found.scheduler.to_string(), seed);
            let new_path = dir.join(name);
            match verify(&trace, &new_path, &header.invariant, self.targets) {
                Ok(()) => {
                    write(&trace, path, &new_path)?;
                    return Ok(Status::Rewritten {
                        why,
                        path: new_path,
                        minimized: trace.minimized.to_string(),
                    });
                }
                Err(e) => misses.push(format!("{kind} (seed {seed}): the new schedule {e}")),
            }
        }
        Err(format!(
            "{why}; and {} could not be recorded again in `{}` as `{}`: {}. A bigger budget may find it: \
             PIPECHECK_SHUTTLE_ITERATIONS=3000 {}",
            fault.name(),
            scenario.name,
            header.invariant,
            misses.join("; "),
            rerecord_command()
        ))
    }

    /// The explorations to try, in order: the header's scheduler with its seed, then the
    /// other scheduler; then both again with the settings' seed if that differs.
    fn attempts(&self, header: &Header) -> Result<Vec<(SchedulerKind, u64)>, String> {
        let recorded: SchedulerKind = header.scheduler.parse()?;
        let other = match recorded {
            SchedulerKind::Random => SchedulerKind::Pct { depth: self.settings.pct_depth },
            SchedulerKind::Pct { .. } => SchedulerKind::Random,
        };
        let mut seeds = vec![header.seed];
        if self.settings.seed != header.seed {
            seeds.push(self.settings.seed);
        }
        Ok(seeds.into_iter().flat_map(|seed| [(recorded, seed), (other, seed)]).collect())
    }
}

/// Checks a freshly minimized trace before it replaces a committed one: it breaks
/// `invariant`, identically twice, and passes with its fault off.
fn verify(trace: &Trace, path: &Path, invariant: &str, targets: &[Target]) -> Result<(), String> {
    if trace.invariant != invariant {
        return Err(format!("breaks `{}`, not `{invariant}`", trace.invariant));
    }
    let first = replay(trace, path, targets).map_err(|e| format!("does not replay: {}", e.message))?;
    let again = replay(trace, path, targets).map_err(|e| format!("does not replay twice: {}", e.message))?;
    if first.fingerprint() != again.fingerprint() {
        return Err("replays differently each time".to_owned());
    }
    match replay_without_fault(trace, path, targets) {
        Ok(r) if r.failure.is_none() => Ok(()),
        Ok(r) => Err(format!(
            "still breaks `{}` with the fault off",
            r.failure.map_or_else(String::new, |f| f.invariant)
        )),
        Err(e) => Err(format!("cannot be replayed with the fault off: {}", e.message)),
    }
}

/// Writes `trace` to `new_path` (through a temporary file, so a crash leaves either
/// file whole) and removes `old_path` if the name changed.
fn write(trace: &Trace, old_path: &Path, new_path: &Path) -> Result<(), String> {
    let temp = new_path.with_extension("trace.tmp");
    // The text is made for `new_path`: its replay line names where the file will live,
    // not the temporary file.
    std::fs::write(&temp, trace.to_text(new_path))
        .map_err(|e| format!("{}: cannot write: {e}", temp.display()))?;
    std::fs::rename(&temp, new_path).map_err(|e| format!("{}: cannot replace: {e}", new_path.display()))?;
    if old_path != new_path {
        std::fs::remove_file(old_path).map_err(|e| format!("{}: cannot remove: {e}", old_path.display()))?;
    }
    Ok(())
}

impl Status {
    /// One line for a parent process to read back with [`Status::from_line`] (the
    /// command line re-records each trace in a child process, to keep shuttle's
    /// per-execution messages off the terminal and a crash confined to one trace).
    pub fn to_line(&self) -> String {
        let escape = |s: &str| s.replace('\\', "\\\\").replace('\n', "\\n").replace('\t', "\\t");
        match self {
            Status::Kept => "kept".to_owned(),
            Status::Rewritten { why, path, minimized } => {
                format!(
                    "rewritten\t{}\t{}\t{}",
                    escape(why),
                    escape(&path.to_string_lossy()),
                    escape(minimized)
                )
            }
            Status::Failed(why) => format!("failed\t{}", escape(why)),
        }
    }

    /// The status [`Status::to_line`] wrote, or `None` if `line` is not one.
    pub fn from_line(line: &str) -> Option<Status> {
        fn unescape(s: &str) -> String {
            let mut out = String::with_capacity(s.len());
            let mut chars = s.chars();
            while let Some(c) = chars.next() {
                match (c, c == '\\') {
                    (_, true) => match chars.next() {
                        Some('n') => out.push('\n'),
                        Some('t') => out.push('\t'),
                        Some(other) => out.push(other),
                        None => out.push('\\'),
                    },
                    (c, false) => out.push(c),
                }
            }
            out
        }
        let fields: Vec<String> = line.trim_end_matches('\n').split('\t').map(unescape).collect();
        match fields.as_slice() {
            [kind] if kind == "kept" => Some(Status::Kept),
            [kind, why, path, minimized] if kind == "rewritten" => Some(Status::Rewritten {
                why: why.clone(),
                path: PathBuf::from(path),
                minimized: minimized.clone(),
            }),
            [kind, why] if kind == "failed" => Some(Status::Failed(why.clone())),
            _ => None,
        }
    }
}

/// `corpus` without `--fault`: the trace of `fault` (of `target`) in `dir` to keep
/// instead of hunting the fault again, or why there is none to keep. A trace is kept when
/// it is the fault's only one in `dir` (file name `<fault>-…`), its header names this
/// target and fault, its scenario still claims the fault, and it still replays as
/// recorded ([`staleness`]: the same invariant breaks, identically twice, and nothing
/// breaks with the fault off). Hunting again would give another schedule, seed or
/// minimization for a fault that nothing changed: the committed corpus would churn.
///
/// # Errors
///
/// Why the fault's trace must be recorded (again): none or several files, a header
/// that no longer matches the declarations, or a schedule that no longer replays.
pub fn current_trace(
    dir: &Path,
    target: &Target,
    fault: &pipecheck_sync::PlantedFault,
    targets: &[Target],
) -> Result<PathBuf, String> {
    let prefix = format!("{}-", fault.name());
    let mut own = location::traces_in(dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&prefix)));
    let (Some(path), None) = (own.next(), own.next()) else {
        return Err(format!("no single trace of {} in {}", fault.name(), dir.display()));
    };
    let trace = Trace::load(&path, targets).map_err(|e| e.to_string())?;
    let changed = |what: &str| Err(format!("{}: its {what} changed", path.display()));
    if trace.target != target.name() || trace.fault.as_deref() != Some(fault.name()) {
        return changed("target or fault");
    }
    if !target.scenarios_catching(fault).iter().any(|s| s.name == trace.scenario) {
        return changed("scenario (it no longer claims the fault)");
    }
    match staleness(&path, targets) {
        Some(why) => Err(why),
        None => Ok(path),
    }
}
