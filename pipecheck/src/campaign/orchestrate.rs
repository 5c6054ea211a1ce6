//! The orchestrator: plans the campaign, builds one worker per checker with cargo and runs it,
//! shows progress, and collects results.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::campaign::jobs::Job;
use crate::check::first_line;
use crate::target::must_fail::ChildVerdict;

use crate::campaign::outcome::{Fired, JobResult, RESULT_PREFIX, START_PREFIX};
use crate::campaign::worker::{self, Budget};
use crate::campaign::{Campaign, registry};

/// A worker binary built beforehand with one feature (`--worker loom=<path>`): CI runs
/// the campaign with the binaries its test builds made, instead of building them again.
#[derive(Clone, Debug)]
pub(crate) struct Prebuilt {
    feature: String,
    path: PathBuf,
}

impl std::str::FromStr for Prebuilt {
    type Err = String;

    fn from_str(text: &str) -> Result<Prebuilt, String> {
        match text.split_once('=') {
            Some((feature @ ("loom" | "shuttle" | FAULTS), path)) if !path.is_empty() => {
                Ok(Prebuilt { feature: feature.to_owned(), path: PathBuf::from(path) })
            }
            _ => Err(format!("`{text}`: expected `loom=<path>`, `shuttle=<path>` or `faults=<path>`")),
        }
    }
}

impl Prebuilt {
    /// The worker, once it says it was built with its feature's backend.
    fn checked(&self) -> Result<PathBuf, String> {
        let shown = self.path.display();
        let output = Command::new(&self.path)
            .arg("backend")
            .output()
            .map_err(|e| format!("could not run the {} worker {shown}: {e}", self.feature))?;
        let backend = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        if !output.status.success() || backend != self.feature {
            return Err(format!(
                "{shown} is not a {} worker: it says its backend is `{backend}` ({}); build it with \
                 `--features {}`",
                self.feature,
                output.status,
                cargo_feature(&self.feature)
            ));
        }
        Ok(self.path.clone())
    }
}

/// Runs `jobs`: std jobs in this process, loom and shuttle jobs in workers built with
/// their feature (or the `prebuilt` one given for it). Returns one result per job, in
/// job order.
pub(crate) fn run(jobs: &[Job], budget: Budget, log_dir: &Path, prebuilt: &[Prebuilt]) -> Vec<JobResult> {
    let bar = Progress::new(jobs.len());
    let mut by_feature: BTreeMap<Option<&str>, Vec<Job>> = BTreeMap::new();
    for job in jobs {
        by_feature.entry(worker_feature(job)).or_default().push(job.clone());
    }
    let mut results = Vec::new();
    for (feature, group) in by_feature {
        let given = prebuilt.iter().rev().find(|p| Some(p.feature.as_str()) == feature);
        results.extend(run_group(feature, given, &group, budget, log_dir, &bar));
    }
    bar.finish();
    results.sort_by_key(|r| r.job.id);
    results
}

/// The feature of the worker that runs `job`: its engine's (`loom`, `shuttle`), or for a
/// std job with a planted bug in a build that cannot switch one on (a user's campaign
/// binary, whose release build must carry no planted bug), a worker built with
/// pipecheck's `faults`; `None` runs it in this process.
fn worker_feature(job: &Job) -> Option<&'static str> {
    let needs_faults = job.fault.is_some() && !pipecheck_sync::PlantedFault::can_activate();
    job.engine.feature().or(needs_faults.then_some(FAULTS))
}

/// The worker feature of std jobs with planted bugs ([`worker_feature`]).
const FAULTS: &str = "faults";

/// The cargo feature that builds the worker for `feature`: the campaign package's own
/// `loom` or `shuttle` (forwarded to pipecheck's), or pipecheck's `faults` directly.
fn cargo_feature(feature: &str) -> String {
    if feature == FAULTS { "pipecheck/faults".to_owned() } else { feature.to_owned() }
}

/// Progress: a bar on a terminal; otherwise plain lines, one per finished job, printed
/// as each finishes (a log or CI shows how far the campaign got).
enum Progress {
    Bar(ProgressBar),
    Lines { total: usize, done: std::cell::Cell<usize>, started: Instant },
}

impl Progress {
    fn new(total: usize) -> Progress {
        if !std::io::stdout().is_terminal() {
            return Progress::Lines { total, done: std::cell::Cell::new(0), started: Instant::now() };
        }
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
                .expect("template is valid"),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress::Bar(bar)
    }

    /// What runs now: the bar's message; as a line only for the slow step of building
    /// a worker, so that a log does not sit silent meanwhile.
    fn set_message(&self, message: String) {
        match self {
            Progress::Bar(bar) => bar.set_message(message),
            Progress::Lines { .. } if message.starts_with("building") => println!("{message} ..."),
            Progress::Lines { .. } => {}
        }
    }

    /// One job finished.
    fn finished(&self, result: &JobResult) {
        match self {
            Progress::Bar(bar) => bar.inc(1),
            Progress::Lines { total, done, started } => {
                done.set(done.get() + 1);
                let invariant = result.invariant.as_deref().map_or(String::new(), |i| format!(" `{i}`"));
                println!(
                    "[{:>4}/{total} {:>6.1}s] {}: {:?}{invariant}, {} it in {:.2}s",
                    done.get(),
                    started.elapsed().as_secs_f64(),
                    describe(&result.job),
                    result.outcome,
                    result.iterations,
                    result.seconds
                );
            }
        }
    }

    fn println(&self, line: String) {
        match self {
            Progress::Bar(bar) => bar.println(line),
            Progress::Lines { .. } => println!("{line}"),
        }
    }

    fn finish(&self) {
        if let Progress::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

fn describe(job: &Job) -> String {
    let fault = job.fault.as_deref().map_or(String::new(), |f| format!(" + {f}"));
    format!("{} {}/{}{fault}", job.engine, job.target, job.scenario)
}

/// Where the worker logging to `log_path` draws failing histories (`<feature>-linearizability/`
/// beside `<feature>-worker.log`), emptied as its group starts.
fn pictures_dir(log_path: &Path) -> std::path::PathBuf {
    let name = log_path.file_name().and_then(|n| n.to_str()).unwrap_or("worker.log");
    let feature = name.strip_suffix("-worker.log").unwrap_or(name);
    log_path.with_file_name(format!("{feature}-linearizability"))
}

fn run_group(
    feature: Option<&str>,
    prebuilt: Option<&Prebuilt>,
    jobs: &[Job],
    budget: Budget,
    log_dir: &Path,
    bar: &Progress,
) -> Vec<JobResult> {
    let Some(feature) = feature else {
        // std jobs run here, one by one.
        return jobs
            .iter()
            .map(|job| {
                bar.set_message(describe(job));
                let result = worker::run_one(job, budget);
                bar.finished(&result);
                result
            })
            .collect();
    };
    let log_path = log_dir.join(format!("{feature}-worker.log"));
    let _ = std::fs::remove_file(&log_path);
    // The last campaign's pictures go with its log: a directory never holds more than one run's.
    let _ = std::fs::remove_dir_all(pictures_dir(&log_path));
    let mut results: BTreeMap<usize, JobResult> = BTreeMap::new();
    let worker = match prebuilt {
        Some(prebuilt) => prebuilt.checked(),
        None => {
            bar.set_message(format!("building the {feature} worker"));
            build_worker(feature, log_dir)
        }
    };
    let why_none = match worker {
        Ok(binary) => Workers { binary: &binary, budget, log_path: &log_path, bar }.run(jobs, &mut results),
        Err(e) => e,
    };
    // A job without a result: the worker failed to build, or stopped making progress.
    if results.len() < jobs.len() {
        bar.println(format!(
            "the {feature} worker left {} of {} jobs without a result: {why_none}\n{}",
            jobs.len() - results.len(),
            jobs.len(),
            log_tail(&log_path, 30)
        ));
    }
    jobs.iter()
        .map(|job| {
            results.remove(&job.id).unwrap_or_else(|| {
                let result = JobResult::error(
                    job,
                    format!("the {feature} worker ended without a result (see {})", log_path.display()),
                );
                bar.finished(&result);
                result
            })
        })
        .collect()
}

/// The built worker binary of one checker, and what each of its runs needs.
struct Workers<'a> {
    binary: &'a Path,
    budget: Budget,
    log_path: &'a Path,
    bar: &'a Progress,
}

impl Workers<'_> {
    /// Starts workers over what is left of `jobs` until each has a result or two
    /// workers in a row make no progress; returns how the last worker ended.
    fn run(&self, jobs: &[Job], results: &mut BTreeMap<usize, JobResult>) -> String {
        // A checker may abort the whole process (loom aborts on some deadlocks). The job
        // in flight is then judged from the log, and a new worker takes the rest.
        // A worker may also stop early on purpose (see `worker::run`): start another one
        // for what is left. One worker without progress may be a passing accident of the
        // machine; a second in a row ends the group.
        let mut idle_workers = 0;
        let mut last_end = String::new();
        let mut remaining: Vec<Job> = jobs.to_vec();
        while !remaining.is_empty() && idle_workers < 2 {
            let before = results.len();
            last_end = match self.spawn(&remaining, results) {
                Ok((in_flight, status)) => {
                    if let Some(id) = in_flight {
                        let job = remaining.iter().find(|j| j.id == id).expect("in-flight job is planned");
                        let result = judge_crash(job, self.log_path);
                        self.bar.finished(&result);
                        results.insert(id, result);
                    }
                    format!("its last run ended with {status}")
                }
                Err(e) => format!("could not start {}: {e}", self.binary.display()),
            };
            idle_workers = if results.len() == before { idle_workers + 1 } else { 0 };
            remaining.retain(|j| !results.contains_key(&j.id));
        }
        last_end
    }

    /// Runs one worker over `jobs`; returns the job it was running if it died mid-job, and
    /// how it ended.
    fn spawn(
        &self,
        jobs: &[Job],
        results: &mut BTreeMap<usize, JobResult>,
    ) -> std::io::Result<(Option<usize>, ExitStatus)> {
        let Workers { binary, budget, log_path, bar } = *self;
        let log = std::fs::OpenOptions::new().create(true).append(true).open(log_path)?;
        let mut command = Command::new(binary);
        command
            .arg("worker")
            .args(["--iterations", &budget.iterations.to_string()])
            .args(["--time", &budget.time.as_secs_f64().to_string()])
            .args(
                budget.loom_bound.map(|b| vec!["--loom-bound".to_owned(), b.to_string()]).unwrap_or_default(),
            )
            .args(["--seed", &budget.seed.to_string()])
            .args(
                budget.exact_seed.map(|s| vec!["--exact-seed".to_owned(), s.to_string()]).unwrap_or_default(),
            )
            .args(jobs.iter().map(Job::spec))
            // A failing history check draws its picture next to the worker's log.
            .env(
                crate::linearizability::HTML_DIR_VAR,
                std::env::var_os(crate::linearizability::HTML_DIR_VAR)
                    .unwrap_or_else(|| pictures_dir(log_path).into_os_string()),
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log));
        let mut child = command.spawn()?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut in_flight = None;
        // Lossy: one line that is not UTF-8 must not stop the reading (the worker would then
        // block on a full pipe).
        let mut lines = BufReader::new(stdout).split(b'\n');
        while let Some(Ok(line)) = lines.next() {
            let line = String::from_utf8_lossy(&line);
            if let Some(id) = line.strip_prefix(START_PREFIX) {
                in_flight = id.trim().parse().ok();
                if let Some(job) = in_flight.and_then(|id: usize| jobs.iter().find(|j| j.id == id)) {
                    bar.set_message(describe(job));
                }
            } else if let Some(json) = line.strip_prefix(RESULT_PREFIX)
                && let Ok(result) = serde_json::from_str::<JobResult>(json)
            {
                bar.finished(&result);
                in_flight = None;
                results.insert(result.job.id, result);
            }
        }
        let status = child.wait()?;
        Ok((in_flight, status))
    }
}

/// Builds the worker for `feature` once, and copies it into `log_dir`: every restart
/// then runs that very binary, without cargo, and no later build can replace it.
fn build_worker(feature: &str, log_dir: &Path) -> Result<PathBuf, String> {
    let Campaign { package, bin, .. } = *registry::campaign();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // The build's progress and diagnostics go to the terminal: a first build takes
    // minutes and must not look hung.
    let cargo_feature = cargo_feature(feature);
    // The workers are built in the campaign binary's own profile: `cargo run --release`
    // times release workers.
    let profile = std::env::current_exe().map(|exe| profile_args(&exe)).unwrap_or_default();
    let output = Command::new(&cargo)
        .args(["build", "-p", package, "--bin", bin, "--features", &cargo_feature])
        .args(&profile)
        .arg("--message-format=json-render-diagnostics")
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("could not start {cargo}: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`cargo build -p {package} --bin {bin} --features {cargo_feature}` failed ({})",
            output.status
        ));
    }
    let built = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact" && message["target"]["name"] == bin)
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| format!("`cargo build --features {cargo_feature}` named no `{bin}` executable"))?;
    let copy = log_dir.join(format!("{bin}-{feature}-worker{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(&built, &copy)
        .map_err(|e| format!("could not copy {} to {}: {e}", built.display(), copy.display()))?;
    Ok(copy)
}

/// The cargo arguments that build in the profile `exe` was built in, read from its
/// directory: `--release` for `…/release/` (or `…/release/deps/`), none otherwise
/// (the dev profile; a custom profile's workers are given with `--worker`).
fn profile_args(exe: &Path) -> Vec<String> {
    let dir = exe.parent().map(|d| if d.ends_with("deps") { d.parent().unwrap_or(d) } else { d });
    if dir.is_some_and(|d| d.ends_with("release")) { vec!["--release".to_owned()] } else { Vec::new() }
}

/// The last `count` lines of a worker's log, indented, for a report that must say why.
fn log_tail(log_path: &Path, count: usize) -> String {
    let log = std::fs::read_to_string(log_path).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    let tail = &lines[lines.len().saturating_sub(count)..];
    if tail.is_empty() {
        return format!("  ({} is empty)", log_path.display());
    }
    format!(
        "  last lines of {}:\n{}",
        log_path.display(),
        tail.iter().map(|l| format!("    {l}")).collect::<Vec<_>>().join("\n")
    )
}

/// The result of a job whose worker died (loom aborts when a model's panic panics
/// again while unwinding): the verdict the engine announced in the log at the job's
/// first failure says what broke.
fn judge_crash(job: &Job, log_path: &Path) -> JobResult {
    let log = std::fs::read_to_string(log_path).unwrap_or_default();
    // Only what this job logged: the worker marks each job's start on stderr too.
    let marker = format!("{START_PREFIX}{}\n", job.id);
    let tail = log.rsplit_once(&marker).map_or(log.as_str(), |(_, after)| after);
    match ChildVerdict::read(tail) {
        Some(verdict) => {
            let message = first_line(verdict.report.lines().nth(1).unwrap_or("")).to_owned();
            let label = verdict.invariant.map_or_else(|| verdict.kind.clone(), |i| i.name().to_owned());
            let executions = verdict.executions.unwrap_or(0);
            let fired = Fired { kind: verdict.kind, invariant: verdict.invariant, label, message };
            JobResult::new(job, Some(fired), executions, 0.0)
        }
        None => {
            JobResult::error(job, format!("the worker died during this job (see {})", log_path.display()))
        }
    }
}

#[cfg(test)]
mod profile_tests {
    use super::*;

    #[test]
    fn a_release_campaign_builds_release_workers() {
        assert_eq!(profile_args(Path::new("/w/target/release/mpmc-queue")), ["--release"]);
        assert_eq!(profile_args(Path::new("/w/target/release/deps/mpmc_queue-0a1b")), ["--release"]);
        assert!(profile_args(Path::new("/w/target/debug/mpmc-queue")).is_empty());
        assert!(profile_args(Path::new("/w/target/ci-workers/mpmc-queue-std")).is_empty());
    }

    #[test]
    fn each_worker_draws_its_pictures_in_a_directory_of_its_own() {
        let loom = pictures_dir(Path::new("/w/target/pipecheck-campaign/loom-worker.log"));
        let shuttle = pictures_dir(Path::new("/w/target/pipecheck-campaign/shuttle-worker.log"));
        assert_eq!(loom, Path::new("/w/target/pipecheck-campaign/loom-linearizability"));
        assert_ne!(loom, shuttle, "emptying one group's pictures keeps the other's");
    }
}
