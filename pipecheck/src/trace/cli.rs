//! The traces command line, for any campaign binary's targets, and for a
//! user crate's ([`main`]; its campaign binary, `pipecheck::campaign_main!`,
//! hands these commands to it, so one `src/main.rs` serves both):
//!
//! ```text
//! <command> list
//! <command> explore --scenario <name> [--target <name>] [--fault <name>] [--scheduler random|pct]
//! <command> replay <file.trace> [--times N] [--fault-off] [--last N] [--facade none|sync|all]
//!                                [--no-target-events] [--full-width]
//! <command> minimize <file.trace>
//! <command> corpus [--out <dir>]
//! <command> corpus --rerecord [--force] [--out <dir>]
//! ```
//!
//! A user crate's command saves and lists traces under its own `traces/` directory, and
//! every trace it saves carries the one command that replays it:
//! `cargo run -p <crate> --features shuttle --bin <bin> -- replay <file>`.
//!
//! `corpus --rerecord` records each saved trace again from its header after a change
//! moved the program's scheduling points (module `rerecord`, with feature `shuttle`):
//! every trace runs in a child process, the same binary (`std::env::current_exe`)
//! started with the hidden `rerecord-one` subcommand, so it works for whichever
//! targets the binary serves.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::target::Target;
use clap::{Parser, Subcommand};
use pipecheck_sync::record::Detail;

/// Which targets the command serves and where their traces live.
// Without shuttle only `list` runs, which reads none of the directories but the list's.
#[derive(Debug)]
#[cfg_attr(not(feature = "shuttle"), allow(dead_code))]
struct Setup {
    targets: Vec<Target>,
    /// Directories `list` shows, with a title each.
    trace_dirs: Vec<(&'static str, PathBuf)>,
    /// Where `explore` and `corpus` save traces by default.
    found_dir: PathBuf,
    corpus_dir: PathBuf,
    /// Where a relative trace path is also looked for (the crate's directory).
    base: Option<PathBuf>,
}

/// The traces command line for `targets` defined in the calling crate: call it from a
/// small binary of that crate (built with its `shuttle` feature for everything but
/// `list`). Failing schedules that `explore` finds are saved under the target directory
/// (`target/pipecheck/traces/`, [`found_dir`](crate::trace::location::found_dir)); the
/// committed corpus is the crate's `traces/` (`corpus`). Each carries the command that
/// replays it, which runs this binary.
///
/// # Examples
///
/// ```no_run
/// # fn my_target() -> pipecheck::Target { unimplemented!() }
/// // a binary of its own (a campaign binary, `pipecheck::campaign_main!`, calls
/// // this when its first argument is one of these commands: see [`is_command`])
/// fn main() -> std::process::ExitCode {
///     pipecheck::trace::cli::main(vec![my_target()])
/// }
/// ```
pub fn main(targets: Vec<Target>) -> ExitCode {
    // Cargo sets both for the programs it runs (`cargo run`); the fallbacks serve a
    // binary started by hand.
    let base = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default();
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_else(|_| "<your crate>".to_owned());
    let bin = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "<bin>".to_owned());
    let command = format!("cargo run -p {package} --features shuttle --bin {bin} --");
    // Shown relative to the workspace root, where `cargo run -p` is typed.
    crate::trace::trace_file::set_replay_command(
        format!("{command} replay"),
        crate::trace::location::workspace_root(),
    );
    crate::trace::trace_file::set_rerecord_command(format!("{command} corpus --rerecord"));
    // What `explore` finds goes under the target directory, never into the source
    // tree; the committed corpus is the crate's `traces/`, written only when asked
    // (`corpus`).
    let found = crate::trace::location::found_dir();
    let corpus = base.join("traces");
    run_main(Setup {
        targets,
        trace_dirs: vec![("found", found.clone()), ("committed", corpus.clone())],
        found_dir: found,
        corpus_dir: corpus,
        base: Some(base),
    })
}

/// Whether `name` is one of this command line's subcommands (`list`, `explore`,
/// `replay`, `minimize`, `corpus` and the hidden `rerecord-one`): a campaign binary
/// (`pipecheck::campaign_main!`) hands such a command line to [`main`], so that
/// one binary serves both.
pub fn is_command(name: &str) -> bool {
    use clap::CommandFactory as _;
    Cli::command().find_subcommand(name).is_some()
}

#[derive(Debug, Parser)]
#[command(about = "Find, minimize, save and replay failing shuttle schedules")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the targets, their scenarios and faults, and the saved traces.
    List,
    /// Replay a trace: it must break its recorded invariant; prints the per-task table.
    Replay {
        /// The trace file.
        file: PathBuf,
        /// Replay this many times and check that every run fails the same way.
        #[arg(long, default_value_t = 1)]
        times: usize,
        /// Replay with the recorded fault off instead: the run must pass.
        #[arg(long)]
        fault_off: bool,
        /// Show only the last N rows of the table.
        #[arg(long)]
        last: Option<usize>,
        /// How much of the sync facade's own operations to show beside the target's events:
        /// `none`, `sync` (atomics, fences, locks, spawn, join) or `all` (also every
        /// `UnsafeCell` access). Default: PIPECHECK_FACADE_LOG, or `sync`.
        #[arg(long)]
        facade: Option<Detail>,
        /// Leave the target's own events out of the table (only the facade's operations).
        #[arg(long)]
        no_target_events: bool,
        /// One column per task, as wide as its cells (default: at most 120 characters).
        #[arg(long)]
        full_width: bool,
    },
    /// Explore a scenario under shuttle; on failure, minimize and save the schedule.
    Explore {
        /// Scenario name (see `list`).
        #[arg(long)]
        scenario: String,
        /// The target (default: the one that has the scenario).
        #[arg(long)]
        target: Option<String>,
        /// A planted bug to switch on.
        #[arg(long)]
        fault: Option<String>,
        /// `random`, `pct` or `pct(depth=N)`.
        #[arg(long, default_value = "random")]
        scheduler: String,
        /// Iterations (default: PIPECHECK_SHUTTLE_ITERATIONS or 300).
        #[arg(long)]
        iterations: Option<usize>,
        /// Seed (default: PIPECHECK_SHUTTLE_SEED or the built-in seed).
        #[arg(long)]
        seed: Option<u64>,
        /// Where to save the trace (default: target/pipecheck/traces/, or a user crate's traces/).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Minimize a trace file again, in place (fewer preemptions, then fewer steps).
    Minimize {
        /// The trace file.
        file: PathBuf,
    },
    /// Regenerate the corpus: one minimized trace per planted fault, and the per-fault table.
    /// A fault whose trace still reproduces it (same target, a scenario that still claims
    /// the fault, and a schedule that replays as recorded) is kept; `--fault` records the
    /// named ones again anyway.
    /// With `--rerecord`: record each saved trace again from its header instead.
    Corpus {
        /// Where to save the traces (default: the committed corpus, traces/corpus/, or a user
        /// crate's traces/); with `--rerecord`, the directory whose traces are re-recorded in place.
        #[arg(long)]
        out: Option<PathBuf>,
        /// For each trace: keep it if it still replays as recorded; otherwise hunt its
        /// fault in its scenario again, minimize, check it breaks the same invariant and
        /// passes with the fault off, and rewrite it. Exits non-zero if any trace cannot
        /// be recorded again.
        #[arg(long)]
        rerecord: bool,
        /// With `--rerecord`: rewrite every trace, even one that still replays.
        #[arg(long, requires = "rerecord")]
        force: bool,
        /// Only these planted bugs (default: all, keeping each trace that still reproduces
        /// its fault): record their traces again, or with `--rerecord` re-record only the
        /// traces of theirs.
        #[arg(long = "fault")]
        faults: Vec<String>,
    },
    /// `corpus --rerecord`'s worker: re-records one trace, prints its status line.
    #[command(hide = true)]
    RerecordOne {
        /// The trace file.
        file: PathBuf,
        /// Rewrite it even if it still replays.
        #[arg(long)]
        force: bool,
    },
}

fn run_main(setup: Setup) -> ExitCode {
    let cli = Cli::parse();
    match run(&setup, cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn list(setup: &Setup) {
    for target in &setup.targets {
        println!("target {}: {}", target.name(), target.summary());
        println!("  scenarios:");
        for s in target.all_scenarios() {
            let catches: Vec<_> = s.catches.iter().map(|f| f.name()).collect();
            println!("    {:<36} {:?}  catches: {}", s.name, s.scale, catches.join(", "));
        }
        println!("  faults:");
        for f in target.planted() {
            println!("    {:<32} breaks {}", f.name(), f.breaks());
        }
        println!("  invariants:");
        for (id, statement) in target.invariants() {
            println!("    {:<32} {statement}", id.name());
        }
    }
    use crate::trace::location::{from_root, traces_in};
    for (title, dir) in &setup.trace_dirs {
        let traces = traces_in(dir);
        if !traces.is_empty() {
            println!("traces ({title}, {}):", from_root(dir).display());
        }
        for path in traces {
            match crate::trace::trace_file::Trace::load(&path, &setup.targets) {
                Ok(t) => println!(
                    "  {:<44} {}/{} · {} · {}",
                    from_root(&path).display(),
                    t.target,
                    t.scenario,
                    t.invariant,
                    t.minimized
                ),
                Err(e) => println!("  {e}"),
            }
        }
    }
}

/// `file` as given, or relative to the crate's directory when it is not found as given.
#[cfg(feature = "shuttle")]
fn locate(setup: &Setup, file: PathBuf) -> PathBuf {
    match &setup.base {
        Some(base) if !file.exists() && file.is_relative() && base.join(&file).exists() => base.join(file),
        _ => file,
    }
}

#[cfg(not(feature = "shuttle"))]
fn run(setup: &Setup, command: Command) -> Result<(), String> {
    match command {
        Command::List => {
            list(setup);
            Ok(())
        }
        _ => Err("this command runs shuttle: build with `--features shuttle`, e.g. \
                  `cargo run --features shuttle -- replay <file>`"
            .into()),
    }
}

/// A found failure as a trace, minimized (in this process).
#[cfg(feature = "shuttle")]
fn minimize_here(
    found: &crate::trace::explore::Found,
    settings: &crate::trace::explore::Settings,
) -> crate::trace::trace_file::Trace {
    use crate::trace::minimize;
    minimize::minimized_trace(found, settings.max_steps, minimize::DEFAULT_RUNS)
}

/// A found failure as a minimized trace. The minimizer runs in a child process (this
/// binary's `minimize`) whose stderr is discarded: shuttle prints a line for every
/// failing candidate. Falls back to this process if the child cannot run.
#[cfg(feature = "shuttle")]
fn minimized_trace(
    found: &crate::trace::explore::Found,
    settings: &crate::trace::explore::Settings,
    targets: &[Target],
) -> crate::trace::trace_file::Trace {
    use crate::trace::trace_file::Trace;
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let unminimized = found.trace_with(found.size, found.schedule.clone());
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let temp = std::env::temp_dir().join(format!("pipecheck-minimize-{}-{n}.trace", std::process::id()));
    let child = unminimized.save(&temp).ok().and_then(|()| {
        let exe = std::env::current_exe().ok()?;
        let status = std::process::Command::new(exe)
            .arg("minimize")
            .arg(&temp)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .ok()?;
        status.success().then(|| Trace::load(&temp, targets).ok()).flatten()
    });
    let _ = std::fs::remove_file(&temp);
    child.unwrap_or_else(|| minimize_here(found, settings))
}

#[cfg(feature = "shuttle")]
fn run(setup: &Setup, command: Command) -> Result<(), String> {
    use crate::target::engine::shuttle::SchedulerKind;
    use crate::target::find_target;
    use crate::trace::explore::{Exploration, Found, Settings, explore_in, hunt_in};
    use crate::trace::location;
    use crate::trace::replay::{replay_recording, replay_without_fault};
    use crate::trace::table::{DEFAULT_WIDTH, TableOptions, render_with};
    use crate::trace::trace_file::{Trace, replay_command};
    let targets = &setup.targets;

    /// Minimizes and saves a found failure.
    fn save(found: &Found, settings: &Settings, targets: &[Target], path: PathBuf) -> Result<Trace, String> {
        let trace = minimized_trace(found, settings, targets);
        trace.save(&path).map_err(|e| e.to_string())?;
        eprintln!(
            "saved {} ({} -> {})\nreplay it with:\n    {}",
            path.display(),
            trace.original,
            trace.minimized,
            replay_command(&path)
        );
        Ok(trace)
    }

    let settings = Settings::from_env()?;
    match command {
        Command::List => list(setup),
        Command::Replay { file, times, fault_off, last, facade, no_target_events, full_width } => {
            let file = locate(setup, file);
            let trace = Trace::load(&file, targets).map_err(|e| e.to_string())?;
            let detail = facade.unwrap_or_else(crate::trace::replay::default_detail);
            let options = TableOptions {
                last,
                width: if full_width { None } else { Some(DEFAULT_WIDTH) },
                target_events: !no_target_events,
                facade: detail != Detail::None,
            };
            if fault_off {
                let replayed = replay_without_fault(&trace, &file, targets).map_err(|e| e.to_string())?;
                if let Some(f) = &replayed.failure {
                    println!("{}", render_with(&replayed, &options));
                    return Err(format!(
                        "{}: with the fault off the run still breaks `{}`",
                        file.display(),
                        f.invariant
                    ));
                }
                println!("{}: passes with the fault off ({} steps)", file.display(), replayed.size.steps);
                return Ok(());
            }
            let first = replay_recording(&trace, &file, targets, detail).map_err(|e| e.to_string())?;
            for i in 1..times {
                let again = replay_recording(&trace, &file, targets, detail).map_err(|e| e.to_string())?;
                if again.fingerprint() != first.fingerprint() {
                    let (a, b) = (first.fingerprint(), again.fingerprint());
                    let at = a.2.iter().zip(&b.2).position(|(x, y)| x != y);
                    return Err(format!(
                        "{}: replay {} differed from the first: {:?}/{:?} vs {:?}/{:?}, first different log row {:?}",
                        file.display(),
                        i + 1,
                        a.0,
                        a.1,
                        b.0,
                        b.1,
                        at
                    ));
                }
            }
            println!(
                "{}\ntarget {} · scenario {} · fault {} · recorded {} by {} (seed {}, iteration {})\nschedule: {} (original {})\n",
                file.display(),
                trace.target,
                trace.scenario,
                trace.fault.as_deref().unwrap_or("none"),
                trace.date,
                trace.scheduler,
                trace.seed,
                trace.iteration,
                trace.minimized,
                trace.original
            );
            println!("{}", render_with(&first, &options));
            println!(
                "reproduced: `{}` broke, as recorded{}",
                trace.invariant,
                if times > 1 { format!(" ({times} identical replays)") } else { String::new() }
            );
        }
        Command::Explore { scenario, target, fault, scheduler, iterations, seed, out } => {
            let target = match target {
                Some(name) => find_target(targets, &name).map_err(|e| e.to_string())?,
                None => targets
                    .iter()
                    .find(|t| t.scenario(&scenario).is_ok())
                    .ok_or_else(|| format!("no target has a scenario `{scenario}` (see `list`)"))?,
            };
            let scenario = target.scenario(&scenario).map_err(|e| e.to_string())?;
            let fault = fault.map(|f| target.fault(&f)).transpose().map_err(|e| e.to_string())?;
            let kind: SchedulerKind = scheduler.parse()?;
            let settings = Settings {
                iterations: iterations.unwrap_or(settings.iterations),
                seed: seed.unwrap_or(settings.seed),
                ..settings
            };
            eprintln!(
                "exploring {} under {kind}, seed {}, {} iterations",
                scenario.name, settings.seed, settings.iterations
            );
            match explore_in(target, scenario, fault, kind, &settings) {
                Exploration::Passed { iterations, seconds } => {
                    println!("passed: {iterations} iterations in {seconds:.2}s");
                }
                Exploration::Failed(found) => {
                    println!(
                        "`{}` broke at iteration {} after {:.2}s: {}",
                        found.failure.invariant,
                        found.iteration,
                        found.seconds,
                        crate::check::first_line(&found.failure.message())
                    );
                    let out = out.unwrap_or_else(|| setup.found_dir.clone());
                    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
                    let name = location::file_name(
                        fault.map(|f| f.name()),
                        scenario.name,
                        &kind.to_string(),
                        found.seed,
                    );
                    save(&found, &settings, targets, out.join(name))?;
                }
            }
        }
        Command::Minimize { file } => {
            let file = locate(setup, file);
            let trace = Trace::load(&file, targets).map_err(|e| e.to_string())?;
            let found = Found::from_trace(&trace, targets).map_err(|e| format!("{}: {e}", file.display()))?;
            let mut minimized = minimize_here(&found, &settings);
            minimized.date = trace.date.clone();
            minimized.save(&file).map_err(|e| e.to_string())?;
            println!("{}: {} -> {}", file.display(), trace.minimized, minimized.minimized);
        }
        Command::RerecordOne { file, force } => {
            let file = locate(setup, file);
            let minimize = |found: &Found| minimize_here(found, &settings);
            let rerecorder =
                crate::trace::rerecord::Rerecorder { targets, settings, force, minimize: &minimize };
            println!("{}", rerecorder.file(&file).status.to_line());
        }
        Command::Corpus { out, rerecord: true, force, faults } => {
            let dir = out.unwrap_or_else(|| setup.corpus_dir.clone());
            rerecord_corpus(&dir, targets, settings, force, &faults)?;
        }
        Command::Corpus { out, rerecord: false, faults, .. } => {
            let wanted = |fault: &pipecheck_sync::PlantedFault| {
                !fault.needs_weak_memory()
                    && (faults.is_empty() || faults.iter().any(|f| f.eq_ignore_ascii_case(fault.name())))
            };
            let out = out.unwrap_or_else(|| setup.corpus_dir.clone());
            std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
            println!(
                "| fault | scenario | random: iterations | random: seconds | PCT: iterations | PCT: seconds | original | minimized |"
            );
            println!("|---|---|---|---|---|---|---|---|");
            for (target, &fault) in targets
                .iter()
                .flat_map(|t| t.planted().iter().map(move |f| (t, f)))
                .filter(|(_, f)| wanted(f))
            {
                // Without `--fault`, a fault whose trace still reproduces it is left alone:
                // hunting again would rewrite it with another schedule for no change.
                if faults.is_empty() {
                    match crate::trace::rerecord::current_trace(&out, target, fault, targets) {
                        Ok(path) => {
                            let kept = Trace::load(&path, targets).map_err(|e| e.to_string())?;
                            eprintln!("kept {} (it still reproduces {})", path.display(), fault.name());
                            println!(
                                "| {} | {} | kept | - | kept | - | {} | {} |",
                                fault.name(),
                                kept.scenario,
                                kept.original,
                                kept.minimized
                            );
                            continue;
                        }
                        Err(why) => eprintln!("recording {}: {why}", fault.name()),
                    }
                }
                let results: Vec<_> =
                    settings.schedulers().iter().map(|&k| hunt_in(target, fault, k, &settings)).collect();
                let cell = |r: &(Option<Found>, usize)| match &r.0 {
                    Some(f) => {
                        let depth = match f.scheduler {
                            SchedulerKind::Pct { depth } if depth != settings.pct_depth => {
                                format!(" (depth {depth})")
                            }
                            _ => String::new(),
                        };
                        (
                            format!("{}{depth}", r.1 + f.before + f.iteration as usize),
                            format!("{:.2}", f.seconds),
                        )
                    }
                    None => (format!("not found in {}", r.1), "-".into()),
                };
                let (ri, rs) = cell(&results[0]);
                let (pi, ps) = cell(&results[1]);
                // Keep the failure with the smaller minimized schedule.
                let mut best: Option<(Trace, PathBuf)> = None;
                for found in results.iter().filter_map(|r| r.0.as_ref()) {
                    let name = location::file_name(
                        Some(fault.name()),
                        found.scenario.name,
                        &found.scheduler.to_string(),
                        found.seed,
                    );
                    let path = out.join(name);
                    let trace = minimized_trace(found, &settings, targets);
                    // Prefer the fault's own invariant, then the smaller schedule.
                    let rank = |t: &Trace| (t.invariant != fault.breaks().name(), t.minimized);
                    if best.as_ref().is_none_or(|(b, _)| rank(&trace) < rank(b)) {
                        best = Some((trace, path));
                    }
                }
                if let Some((trace, path)) = &best {
                    // The fault's previous trace gives way to the new one.
                    for old in location::traces_in(&out) {
                        let name = old.file_name().map(|n| n.to_string_lossy().into_owned());
                        if name.is_some_and(|n| n.starts_with(&format!("{}-", fault.name()))) {
                            std::fs::remove_file(&old).map_err(|e| format!("{}: {e}", old.display()))?;
                        }
                    }
                    trace.save(path).map_err(|e| e.to_string())?;
                    eprintln!("saved {}\n    {}", path.display(), replay_command(path));
                }
                let best = best.map(|(t, _)| t);
                match best {
                    Some(t) => println!(
                        "| {} | {} | {ri} | {rs} | {pi} | {ps} | {} | {} |",
                        fault.name(),
                        t.scenario,
                        t.original,
                        t.minimized
                    ),
                    // Nothing hunted (no scenario declares it), or the hunts came back
                    // empty: say which, with the schedules each tried.
                    None if results.iter().all(|r| r.1 == 0) => {
                        println!("| {} | (no scenario declares it) | - | - | - | - | - | - |", fault.name())
                    }
                    None => {
                        println!("| {} | (not found) | {ri} | {rs} | {pi} | {ps} | - | - |", fault.name())
                    }
                }
            }
        }
    }
    Ok(())
}

/// `corpus --rerecord`: every trace in `dir` kept, recorded again, or reported as
/// failed; a table and a one-line summary on stdout, progress on stderr.
#[cfg(feature = "shuttle")]
fn rerecord_corpus(
    dir: &std::path::Path,
    targets: &[Target],
    settings: crate::trace::explore::Settings,
    force: bool,
    faults: &[String],
) -> Result<(), String> {
    use crate::trace::location::from_root;
    use crate::trace::rerecord::{Outcome, Rerecorder, Status};

    if !dir.is_dir() {
        return Err(format!("{}: no such directory", dir.display()));
    }
    let mut files = crate::trace::location::traces_in(dir);
    if !faults.is_empty() {
        // A trace's name starts with its fault's (`<fault>-<scenario>-...`).
        files.retain(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            faults
                .iter()
                .any(|f| name.to_ascii_lowercase().starts_with(&format!("{}-", f.to_ascii_lowercase())))
        });
    }
    if files.is_empty() {
        return Err(format!("{}: holds no .trace files", dir.display()));
    }
    eprintln!(
        "re-recording the traces in {} (each trace's own seed, then {}; {} executions per scheduler)",
        from_root(dir).display(),
        settings.seed,
        settings.iterations
    );
    let mut outcomes = Vec::with_capacity(files.len());
    for (i, path) in files.iter().enumerate() {
        let status = rerecord_in_child(path, force).unwrap_or_else(|| {
            // No child process: re-record here (shuttle's messages then reach stderr).
            let minimize = |found: &crate::trace::explore::Found| minimized_trace(found, &settings, targets);
            Rerecorder { targets, settings, force, minimize: &minimize }.file(path).status
        });
        let what = match &status {
            Status::Kept => "kept: still replays as recorded".to_owned(),
            Status::Rewritten { path, minimized, .. } => {
                format!("rewritten as {} ({minimized})", from_root(path).display())
            }
            Status::Failed(why) => format!("FAILED: {why}"),
        };
        eprintln!("[{}/{}] {}: {what}", i + 1, files.len(), from_root(path).display());
        outcomes.push(Outcome { path: path.clone(), status });
    }
    println!("| trace | result | detail |\n|---|---|---|");
    let mut failed = Vec::new();
    let (mut kept, mut rewritten) = (0, 0);
    for outcome in &outcomes {
        let name = outcome.path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let (result, detail) = match &outcome.status {
            Status::Kept => {
                kept += 1;
                ("kept", "still replays as recorded".to_owned())
            }
            Status::Rewritten { why, path, minimized } => {
                rewritten += 1;
                let renamed = path.file_name().filter(|n| n.to_string_lossy() != name);
                let renamed = renamed.map_or_else(String::new, |n| format!(" as {}", n.to_string_lossy()));
                let why = crate::check::first_line(why);
                ("rewritten", format!("{minimized}{renamed}; was stale: {why}"))
            }
            Status::Failed(why) => {
                failed.push(why.clone());
                ("FAILED", crate::check::first_line(why).to_owned())
            }
        };
        println!("| {name} | {result} | {} |", detail.replace('|', "\\|"));
    }
    println!("\n{} traces: {kept} kept, {rewritten} rewritten, {} failed", outcomes.len(), failed.len());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("{} trace(s) could not be recorded again:\n  {}", failed.len(), failed.join("\n  ")))
    }
}

/// Re-records `path` in a child process: this same binary (`current_exe`, so a user
/// crate's command re-invokes itself with its own targets) run as `rerecord-one`, whose
/// stderr is kept out of the way and shown only if the child crashes. `None` if no
/// child could be started.
#[cfg(feature = "shuttle")]
fn rerecord_in_child(path: &std::path::Path, force: bool) -> Option<crate::trace::rerecord::Status> {
    use crate::trace::rerecord::Status;
    let mut command = std::process::Command::new(std::env::current_exe().ok()?);
    command.arg("rerecord-one").arg(path);
    if force {
        command.arg("--force");
    }
    let output = command.output().ok()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let status = stdout.lines().rev().find_map(Status::from_line);
    Some(status.unwrap_or_else(|| {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("test panicked in task")).collect();
        let tail = tail[tail.len().saturating_sub(5)..].join(" / ");
        Status::Failed(format!("{}: re-recording it crashed ({}): {tail}", path.display(), output.status))
    }))
}
