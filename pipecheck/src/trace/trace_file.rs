//! Trace files: a failing shuttle schedule plus what is needed to replay and explain it.
//!
//! A trace is text: a format line, `# key: value` header lines, then the schedule in
//! shuttle's hex encoding ([`crate::trace::schedule`]):
//!
//! ```text
//! # pipecheck-trace v1
//! # target: pipe
//! # scenario: large-stream
//! # scheduler: random
//! # seed: 1234
//! # iteration: 3
//! # fault: LifoPool
//! # invariant: fifo-pool
//! # shuttle: 0.9.10
//! # date: 2026-11-30
//! # original: 2113 steps, 371 preemptions
//! # minimized: 95 steps, 1 preemptions
//! # replay: cargo run -p pipecheck-models --features shuttle --bin pipecheck -- replay traces/corpus/LifoPool-large-stream-random-1234.trace
//! 9103...
//! ```
//!
//! The `target` line names the [`Target`] whose scenario and planted fault the trace
//! records; a trace without one (written before targets existed) belongs to the target
//! that has its scenario. Parsing is std-only and never panics: every problem, an
//! unknown target, scenario, fault or invariant included, is a [`TraceError`] naming
//! the file, and the line for problems that have one. [`Header`] reads the header
//! alone (with the same checks), so a trace whose schedule is stale, corrupt or from
//! another shuttle version can still be recorded again from what it is about.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::target::{Target, TestInvocation, find_target};
use pipecheck_sync::InvariantId;

use crate::trace::schedule::Schedule;

/// The first line of every trace file.
pub const FORMAT_LINE: &str = "# pipecheck-trace v1";

/// The shuttle version this build records and replays with. Schedules do not carry
/// across shuttle versions; `tests/trace_file.rs` checks this against `Cargo.lock`.
pub const SHUTTLE_VERSION: &str = "0.9.10";

/// What a failure is attributed to when it is not an invariant's own panic.
pub const OTHER_FAILURES: &[&str] = &["scenario-panic", "step-bound"];

/// The invariants a failure of `target` can be attributed to: its own, and those an
/// engine reports a failure as (a deadlock is `no-lost-wakeup`, a loom race
/// `no-data-race`).
pub fn invariants_of(target: &Target) -> Vec<&'static str> {
    let mut known: Vec<&'static str> = target.invariants().iter().map(|(id, _)| id.name()).collect();
    for engine_named in [InvariantId::NO_LOST_WAKEUP, InvariantId::NO_DATA_RACE] {
        if !known.contains(&engine_named.name()) {
            known.push(engine_named.name());
        }
    }
    known
}

/// How this process's traces are replayed: set once by a user crate's traces command
/// ([`crate::trace::cli::main`] with the user's targets), so the replay line a trace carries
/// runs the user's own binary.
static USER_COMMAND: OnceLock<(String, PathBuf)> = OnceLock::new();

/// Makes [`replay_command`] name `command` (e.g. `cargo run -p my-crate --features
/// shuttle --bin my-traces -- replay`) with trace paths relative to `base` (the
/// directory the command resolves relative paths against). The first call wins.
pub fn set_replay_command(command: String, base: PathBuf) {
    let _ = USER_COMMAND.set((command, base));
}

/// The command that replays `path`: the one the campaign binary set with
/// [`set_replay_command`], else [`replay_command_for`] the calling test.
pub fn replay_command(path: &Path) -> String {
    replay_command_for(path, &TestInvocation::current())
}

/// The command that replays `path` from `test`: the one the campaign binary set with
/// [`set_replay_command`], else the campaign binary of the test's package run with
/// `replay` (the test's own binary when it is a campaign binary's test, `--bin <bin>`;
/// the package's default binary otherwise), the path relative to the workspace root
/// when it lies inside.
pub fn replay_command_for(path: &Path, test: &TestInvocation) -> String {
    match USER_COMMAND.get() {
        Some((command, base)) => {
            let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
            let shown = absolute.strip_prefix(base).unwrap_or(&absolute);
            format!("{command} {}", shown.display())
        }
        None => {
            let bin =
                test.target.strip_prefix("--bin ").map(|bin| format!(" --bin {bin}")).unwrap_or_default();
            format!(
                "cargo run -p {} --features shuttle{bin} -- replay {}",
                test.package,
                crate::trace::location::from_root(path).display()
            )
        }
    }
}

/// Size of a schedule: decisions, and how many of them preempted a runnable task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size {
    /// Preemptions: switches away from a task that could have continued.
    pub preemptions: usize,
    /// Scheduling decisions.
    pub steps: usize,
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} steps, {} preemptions", self.steps, self.preemptions)
    }
}

/// A parsed trace file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Name of the target.
    pub target: String,
    /// Name of the target's scenario.
    pub scenario: String,
    /// The scheduler that found it: `random` or `pct(depth=N)`.
    pub scheduler: String,
    /// The exploration's seed.
    pub seed: u64,
    /// The iteration (1-based) of the exploration that failed.
    pub iteration: u64,
    /// The name of the planted fault switched on, if any (one the target declares).
    pub fault: Option<String>,
    /// The invariant that broke (or one of [`OTHER_FAILURES`]).
    pub invariant: String,
    /// The shuttle version it was recorded with.
    pub shuttle: String,
    /// The day it was recorded (UTC, `YYYY-MM-DD`).
    pub date: String,
    /// Size of the schedule as found.
    pub original: Size,
    /// Size of the saved, minimized schedule.
    pub minimized: Size,
    /// The schedule.
    pub schedule: Schedule,
    lines: HashMap<String, usize>,
}

/// A problem with a trace file: which file, which line (when there is one), what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, for problems on a line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl TraceError {
    /// An error about `path` (at `line`, if any).
    pub fn new(path: &Path, line: Option<usize>, message: impl Into<String>) -> TraceError {
        TraceError { path: path.to_owned(), line, message: message.into() }
    }
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path.display(), line, self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for TraceError {}

const KEYS: &[&str] = &[
    "target",
    "scenario",
    "scheduler",
    "seed",
    "iteration",
    "fault",
    "invariant",
    "shuttle",
    "date",
    "original",
    "minimized",
    "replay",
];

impl Trace {
    /// A new trace of `target` recorded today with this build's shuttle version.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        target: &str,
        scenario: &str,
        scheduler: &str,
        seed: u64,
        iteration: u64,
        fault: Option<&str>,
        invariant: &str,
        original: Size,
        minimized: Size,
        schedule: Schedule,
    ) -> Trace {
        Trace {
            target: target.to_owned(),
            scenario: scenario.to_owned(),
            scheduler: scheduler.to_owned(),
            seed,
            iteration,
            fault: fault.map(str::to_owned),
            invariant: invariant.to_owned(),
            shuttle: SHUTTLE_VERSION.to_owned(),
            date: today(),
            original,
            minimized,
            schedule,
            lines: HashMap::new(),
        }
    }

    /// The 1-based line of header `key` in the file it was parsed from.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.lines.get(key).copied()
    }

    /// The file's text; `path` is where it will live (for its replay line).
    pub fn to_text(&self, path: &Path) -> String {
        let fault = self.fault.as_deref().unwrap_or("none");
        format!(
            "{FORMAT_LINE}\n# target: {}\n# scenario: {}\n# scheduler: {}\n# seed: {}\n# iteration: {}\n# fault: {fault}\n\
             # invariant: {}\n# shuttle: {}\n# date: {}\n# original: {}\n# minimized: {}\n# replay: {}\n{}\n",
            self.target,
            self.scenario,
            self.scheduler,
            self.seed,
            self.iteration,
            self.invariant,
            self.shuttle,
            self.date,
            self.original,
            self.minimized,
            replay_command(path),
            self.schedule.encode()
        )
    }

    /// Writes the trace to `path`.
    ///
    /// # Errors
    ///
    /// The I/O error, naming the file.
    pub fn save(&self, path: &Path) -> Result<(), TraceError> {
        std::fs::write(path, self.to_text(path))
            .map_err(|e| TraceError::new(path, None, format!("cannot write: {e}")))
    }

    /// Reads and parses the trace at `path`, a trace of one of `targets`.
    ///
    /// # Errors
    ///
    /// A [`TraceError`] naming the file (and line) for unreadable files, malformed or
    /// missing headers, unknown targets, scenarios, faults or invariants, another
    /// shuttle version, and corrupt or truncated schedules.
    pub fn load(path: &Path, targets: &[Target]) -> Result<Trace, TraceError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| TraceError::new(path, None, format!("cannot read: {e}")))?;
        Trace::parse(&text, path, targets)
    }

    /// Parses a trace's text, a trace of one of `targets`; `path` is only used in errors.
    ///
    /// # Errors
    ///
    /// As [`Trace::load`].
    pub fn parse(text: &str, path: &Path, targets: &[Target]) -> Result<Trace, TraceError> {
        let err = |line: usize, message: String| TraceError::new(path, Some(line), message);
        let lines = Lines::split(text, path)?;
        let header = Header::from_lines(&lines, path, targets)?;
        let (n, shuttle) = lines.get("shuttle", path)?;
        if shuttle != SHUTTLE_VERSION {
            return Err(err(
                n,
                format!(
                    "recorded with shuttle {shuttle}, but this build uses shuttle {SHUTTLE_VERSION}; schedules \
                     do not carry across shuttle versions: record it again with `{}`",
                    rerecord_command()
                ),
            ));
        }
        let Some(&(start, _)) = lines.body.first() else {
            return Err(TraceError::new(path, None, "the file has no schedule after its header"));
        };
        let mut body = String::new();
        for &(n, line) in &lines.body {
            if let Some(i) = line.find(|c: char| !c.is_ascii_hexdigit() && !c.is_whitespace()) {
                let c = line[i..].chars().next().unwrap_or('?');
                return Err(err(
                    n,
                    format!("schedule line has `{c}` at column {}: expected hex digits", i + 1),
                ));
            }
            body.push_str(line);
        }
        let schedule = Schedule::decode(&body).map_err(|e| err(start, e.to_string()))?;
        let size = |key: &str| -> Result<Size, TraceError> {
            let (n, v) = lines.get(key, path)?;
            parse_size(v)
                .ok_or_else(|| err(n, format!("`{key}` must read `N steps, M preemptions`, found `{v}`")))
        };
        let trace = Trace {
            target: header.target,
            scenario: header.scenario,
            scheduler: header.scheduler,
            seed: header.seed,
            iteration: lines.number("iteration", path)?,
            fault: header.fault,
            invariant: header.invariant,
            shuttle: shuttle.to_owned(),
            date: lines.get("date", path)?.1.to_owned(),
            original: size("original")?,
            minimized: size("minimized")?,
            schedule,
            lines: header.lines,
        };
        if trace.schedule.len() != trace.minimized.steps {
            return Err(err(
                start,
                format!(
                    "the schedule has {} steps but the header says {}: the file was edited or truncated",
                    trace.schedule.len(),
                    trace.minimized.steps
                ),
            ));
        }
        Ok(trace)
    }
}

/// The command that re-records every trace of a committed corpus after a change moved
/// the code's scheduling points, when no campaign binary set its own
/// ([`rerecord_command`]).
pub const RERECORD_COMMAND: &str = "cargo run --features shuttle -- corpus --rerecord";

/// The re-record command a user crate's traces command set (see
/// [`set_rerecord_command`]).
static USER_RERECORD: OnceLock<String> = OnceLock::new();

/// Makes [`rerecord_command`] name `command` (e.g. `cargo run -p my-crate --features
/// shuttle --bin my-traces -- corpus --rerecord`). The first call wins.
pub fn set_rerecord_command(command: String) {
    let _ = USER_RERECORD.set(command);
}

/// The command that records this process's stale traces again: [`RERECORD_COMMAND`]
/// for pipecheck's own corpus, or the command a user crate set with
/// [`set_rerecord_command`].
pub fn rerecord_command() -> String {
    USER_RERECORD.get().map_or_else(|| RERECORD_COMMAND.to_owned(), String::clone)
}

/// What a trace is *about*, from its header alone: enough to hunt the same failure
/// again when the schedule itself is stale, unreadable, or from another shuttle version.
/// It is validated against the targets as a whole trace is (target, scenario, fault,
/// invariant, scheduler), but its schedule, sizes and shuttle version are not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Name of the target (from the `target` line, or the target that has the scenario
    /// for a trace written before targets existed).
    pub target: String,
    /// Name of the target's scenario.
    pub scenario: String,
    /// The scheduler that found it: `random` or `pct(depth=N)`.
    pub scheduler: String,
    /// The exploration's seed.
    pub seed: u64,
    /// The name of the planted fault switched on, if any (one the target declares).
    pub fault: Option<String>,
    /// The invariant that broke (or one of [`OTHER_FAILURES`]).
    pub invariant: String,
    lines: HashMap<String, usize>,
}

impl Header {
    /// Reads the header of the trace at `path`, a trace of one of `targets`.
    ///
    /// # Errors
    ///
    /// As [`Header::load`].
    pub fn load(path: &Path, targets: &[Target]) -> Result<Header, TraceError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| TraceError::new(path, None, format!("cannot read: {e}")))?;
        Header::parse(&text, path, targets)
    }

    /// Parses the header of a trace's text, a trace of one of `targets`; `path` is only
    /// used in errors.
    ///
    /// # Errors
    ///
    /// As [`Header::load`].
    pub fn parse(text: &str, path: &Path, targets: &[Target]) -> Result<Header, TraceError> {
        Header::from_lines(&Lines::split(text, path)?, path, targets)
    }

    /// The 1-based line of header `key` in the file it was parsed from.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.lines.get(key).copied()
    }

    fn from_lines(lines: &Lines<'_>, path: &Path, targets: &[Target]) -> Result<Header, TraceError> {
        let err = |line: usize, message: String| TraceError::new(path, Some(line), message);
        let (n, scenario) = lines.get("scenario", path)?;
        let target = match lines.header.get("target") {
            Some(&(line, name)) => find_target(targets, name).map_err(|e| err(line, e.to_string()))?,
            None => targets.iter().find(|t| t.scenario(scenario).is_ok()).ok_or_else(|| {
                let known: Vec<_> =
                    targets.iter().flat_map(|t| t.all_scenarios().iter().map(|s| s.name)).collect();
                err(n, format!("unknown scenario `{scenario}` (known: {})", known.join(", ")))
            })?,
        };
        target.scenario(scenario).map_err(|e| err(n, e.to_string()))?;
        let (n, fault) = lines.get("fault", path)?;
        let fault = match fault {
            "none" => None,
            name => Some(target.fault(name).map_err(|e| err(n, e.to_string()))?.name().to_owned()),
        };
        let (n, invariant) = lines.get("invariant", path)?;
        let known = invariants_of(target);
        if !known.contains(&invariant) && !OTHER_FAILURES.contains(&invariant) {
            return Err(err(n, format!("unknown invariant `{invariant}` (known: {})", known.join(", "))));
        }
        let (n, scheduler) = lines.get("scheduler", path)?;
        if scheduler != "random" && !scheduler.starts_with("pct(depth=") {
            return Err(err(
                n,
                format!("unknown scheduler `{scheduler}`: expected `random` or `pct(depth=N)`"),
            ));
        }
        Ok(Header {
            target: target.name().to_owned(),
            scenario: scenario.to_owned(),
            scheduler: scheduler.to_owned(),
            seed: lines.number("seed", path)?,
            fault,
            invariant: invariant.to_owned(),
            lines: lines.header.iter().map(|(k, (n, _))| (k.clone(), *n)).collect(),
        })
    }
}

/// A trace's text split into header lines (`key` → line number and value) and the
/// schedule's lines (line number and text), after checking the format line.
struct Lines<'a> {
    header: HashMap<String, (usize, &'a str)>,
    body: Vec<(usize, &'a str)>,
}

impl<'a> Lines<'a> {
    fn split(text: &'a str, path: &Path) -> Result<Lines<'a>, TraceError> {
        let err = |line: usize, message: String| TraceError::new(path, Some(line), message);
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end()));
        match lines.next() {
            Some((_, FORMAT_LINE)) => {}
            Some((n, other)) => {
                return Err(err(
                    n,
                    format!("not a pipecheck trace: expected `{FORMAT_LINE}`, found `{other}`"),
                ));
            }
            None => return Err(TraceError::new(path, None, "the file is empty")),
        }
        let mut split = Lines { header: HashMap::new(), body: Vec::new() };
        for (n, line) in lines {
            if let Some(rest) = line.strip_prefix('#') {
                if !split.body.is_empty() {
                    return Err(err(n, "header line after the schedule started".into()));
                }
                let Some((key, value)) = rest.split_once(':') else {
                    return Err(err(n, format!("malformed header line `{line}`: expected `# key: value`")));
                };
                let key = key.trim();
                if !KEYS.contains(&key) {
                    return Err(err(n, format!("unknown header key `{key}` (known: {})", KEYS.join(", "))));
                }
                if split.header.insert(key.to_owned(), (n, value.trim())).is_some() {
                    return Err(err(n, format!("header key `{key}` appears twice")));
                }
            } else if !line.trim().is_empty() {
                split.body.push((n, line));
            }
        }
        Ok(split)
    }

    /// Header `key`: its line and value.
    fn get(&self, key: &str, path: &Path) -> Result<(usize, &'a str), TraceError> {
        self.header
            .get(key)
            .copied()
            .ok_or_else(|| TraceError::new(path, None, format!("the header has no `{key}` line")))
    }

    /// Header `key` as a whole number.
    fn number(&self, key: &str, path: &Path) -> Result<u64, TraceError> {
        let (n, v) = self.get(key, path)?;
        v.parse().map_err(|_| {
            TraceError::new(path, Some(n), format!("`{key}` must be a whole number, found `{v}`"))
        })
    }
}

fn parse_size(text: &str) -> Option<Size> {
    let (steps, preemptions) = text.split_once(',')?;
    let steps = steps.trim().strip_suffix("steps")?.trim().parse().ok()?;
    let preemptions = preemptions.trim().strip_suffix("preemptions")?.trim().parse().ok()?;
    Some(Size { preemptions, steps })
}

/// Today's date in UTC, `YYYY-MM-DD`.
pub fn today() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    // Howard Hinnant's days-to-civil algorithm.
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}
