//! The campaign's command line.
//!
//! ```text
//! cargo campaign                 # every scenario under every engine, then the kill matrix
//! cargo campaign --faults        # only the kill matrix
//! cargo campaign --engine loom --scenario writer-complete-races-read
//! cargo campaign --shard 2/4 --json out.json
//! ```
//!
//! The orchestrator runs proptest jobs itself and builds one worker per checker
//! (`--features loom`, `--features shuttle`) with cargo, since loom and shuttle replace
//! the sync primitives of the whole program; it then runs that binary directly.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, Parser, Subcommand};

use crate::campaign::jobs::{Engine, Job, Shard, plan};
use crate::campaign::orchestrate::Prebuilt;
use crate::campaign::outcome::Outcome;
use crate::campaign::worker::Budget;
use crate::campaign::{baseline, checker_corpus, jobs, orchestrate, registry, report, worker};

/// A user's campaign binary also takes the traces commands (`pipecheck::main`).
const TRACES_HELP: &str = "A user crate's campaign binary also runs the traces commands over its targets \
(with --features shuttle): list, explore, minimize, replay, corpus (`<command> --help`).";

/// pipecheck's verification campaign: scenarios × engines, and the kill matrix of planted bugs.
#[derive(Parser, Debug)]
#[command(version, about, args_conflicts_with_subcommands = true, after_help = TRACES_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// With no subcommand: the campaign.
    #[command(flatten)]
    campaign: CampaignArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the campaign and print the summary and the kill matrix.
    Campaign(CampaignArgs),
    /// Print the sync backend this binary was built with (`std`, `faults` for std with
    /// planted bugs switchable, `loom` or `shuttle`; used by `campaign --worker`).
    #[command(hide = true)]
    Backend,
    /// Run jobs in this process and print one result line per job (used by `campaign`).
    #[command(hide = true)]
    Worker {
        #[command(flatten)]
        budget: BudgetArgs,
        /// Jobs, as `id:engine:target/scenario:fault`.
        jobs: Vec<Job>,
    },
}

#[derive(Args, Debug)]
struct CampaignArgs {
    /// Engines to run (default: all).
    #[arg(long = "engine", value_enum)]
    engines: Vec<Engine>,
    /// Only these scenarios (default: all); `op-sequences` names the proptest jobs.
    #[arg(long = "scenario")]
    scenarios: Vec<String>,
    /// Only these planted bugs in the kill matrix (default: all).
    #[arg(long = "fault")]
    faults: Vec<String>,
    /// Run only the kill matrix (planted bugs), not the clean runs.
    #[arg(long = "faults", conflicts_with = "no_faults")]
    only_faults: bool,
    /// Skip the kill matrix.
    #[arg(long)]
    no_faults: bool,
    /// Run shard `i` of `n` (e.g. `2/4`): jobs are dealt round-robin, no overlap.
    #[arg(long)]
    shard: Option<Shard>,
    /// Also write the results as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also check the linearizability checker itself against its corpus of histories
    /// with known verdicts (a `--fault` naming a planted checker bug implies it).
    #[arg(long)]
    checker_corpus: bool,
    /// Compare every cell of the kill matrix with this committed baseline: a catch
    /// lost, a "not run here" where the engine ran, or a cell the plan dropped fails
    /// the campaign, naming the cell (at the baseline's budget, any change does).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write every cell of this run's kill matrix to this file, as a baseline.
    #[arg(long, value_name = "FILE")]
    write_baseline: Option<PathBuf>,
    /// List the planned jobs and exit.
    #[arg(long)]
    list: bool,
    /// Run the `loom` or `shuttle` jobs with this worker, already built with that
    /// feature (e.g. by `cargo test --features loom`), instead of building one.
    #[arg(long = "worker", value_name = "FEATURE=PATH")]
    workers: Vec<Prebuilt>,
    #[command(flatten)]
    budget: BudgetArgs,
}

#[derive(Args, Debug, Clone)]
struct BudgetArgs {
    /// Shuttle iterations and proptest cases per job.
    #[arg(long, default_value_t = 300)]
    iterations: u64,
    /// Wall-clock limit per job, in seconds: a loom exploration still running then stops
    /// and its job is INCOMPLETE (not a pass).
    #[arg(long, default_value_t = 60.0)]
    time: f64,
    /// Loom's preemption bound for every scenario (default: LOOM_MAX_PREEMPTIONS, else
    /// each scenario's own, as its target declares it).
    #[arg(long)]
    loom_bound: Option<usize>,
    /// Base seed of randomized engines; each job derives its own (printed on failure).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Use exactly this seed for every job (to reproduce one failure).
    #[arg(long)]
    exact_seed: Option<u64>,
}

impl BudgetArgs {
    fn budget(&self) -> Budget {
        let env_bound = std::env::var("LOOM_MAX_PREEMPTIONS").ok().and_then(|v| v.parse().ok());
        Budget {
            iterations: self.iterations.max(1),
            time: Duration::from_secs_f64(self.time.max(0.0)),
            loom_bound: self.loom_bound.or(env_bound),
            seed: self.seed,
            exact_seed: self.exact_seed,
        }
    }
}

pub(crate) fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Worker { budget, jobs }) => {
            worker::run(&jobs, budget.budget());
            ExitCode::SUCCESS
        }
        Some(Command::Backend) => {
            // A std build that can switch planted bugs on is a `faults` worker.
            let std_with_faults =
                pipecheck_sync::BACKEND == "std" && pipecheck_sync::PlantedFault::can_activate();
            println!("{}", if std_with_faults { "faults" } else { pipecheck_sync::BACKEND });
            ExitCode::SUCCESS
        }
        Some(Command::Campaign(args)) => campaign(args),
        None => campaign(cli.campaign),
    }
}

/// The scenarios `--scenario` may name: every target's scenarios, and the proptest
/// engine's operation sequences.
fn known_scenarios() -> Vec<&'static str> {
    let mut names: Vec<&'static str> =
        registry::targets().iter().flat_map(|t| t.all_scenarios().iter().map(|s| s.name)).collect();
    names.push(jobs::OP_SEQUENCES);
    names
}

/// The planted bugs `--fault` may name: the targets', and the linearizability
/// checker's (run against the checker corpus).
fn known_faults() -> Vec<&'static str> {
    registry::targets()
        .iter()
        .flat_map(|t| t.planted().iter().map(|f| f.name()))
        .chain(checker_corpus::fault_names())
        .collect()
}

/// What a job's scenario does, for `--list`.
fn summary_of(job: &Job) -> &'static str {
    if job.scenario == jobs::OP_SEQUENCES {
        return "random operation sequences against the reference model";
    }
    registry::scenario(&job.target, &job.scenario).map_or("", |s| s.summary)
}

/// Prints the planned jobs under a header; stops quietly when stdout closes (`| head`).
fn list(jobs: &[Job]) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let mut lines = std::iter::once(format!(
        "{:<5} {:<15} {:<12} {:<36} {:<20} what the scenario does",
        "id", "engine", "target", "scenario", "fault"
    ))
    .chain(jobs.iter().map(|job| {
        format!(
            "{:<5} {:<15} {:<12} {:<36} {:<20} {}",
            job.id,
            job.engine.name(),
            job.target,
            job.scenario,
            job.fault.as_deref().unwrap_or("-"),
            summary_of(job)
        )
    }));
    // A closed pipe is the reader saying it has seen enough: not an error.
    let _ = lines.try_for_each(|line| writeln!(out, "{line}")).and_then(|()| out.flush());
}

fn campaign(args: CampaignArgs) -> ExitCode {
    let known = known_scenarios();
    let unknown: Vec<&String> = args.scenarios.iter().filter(|s| !known.contains(&s.as_str())).collect();
    if !unknown.is_empty() {
        let names: Vec<String> = unknown.iter().map(|s| format!("`{s}`")).collect();
        eprintln!("error: unknown scenario {} (known: {})", names.join(", "), known.join(", "));
        return ExitCode::from(2);
    }
    let known = known_faults();
    let unknown: Vec<&String> =
        args.faults.iter().filter(|f| !known.iter().any(|k| k.eq_ignore_ascii_case(f))).collect();
    if !unknown.is_empty() {
        let names: Vec<String> = unknown.iter().map(|s| format!("`{s}`")).collect();
        eprintln!("error: unknown planted bug {} (known: {})", names.join(", "), known.join(", "));
        return ExitCode::from(2);
    }
    let engines = if args.engines.is_empty() { Engine::ALL.to_vec() } else { args.engines.clone() };
    let clean = !args.only_faults && args.faults.is_empty();
    let faults = !args.no_faults;
    let wanted =
        |fault: &str| args.faults.is_empty() || args.faults.iter().any(|f| f.eq_ignore_ascii_case(fault));
    let jobs: Vec<Job> = plan(registry::targets(), &engines, clean, faults)
        .into_iter()
        .filter(|j| args.scenarios.is_empty() || args.scenarios.contains(&j.scenario))
        .filter(|j| args.faults.is_empty() || j.fault.as_deref().is_some_and(wanted))
        .filter(|j| args.shard.is_none_or(|s| s.owns(j.id)))
        .collect();
    if args.list {
        list(&jobs);
        return ExitCode::SUCCESS;
    }
    let budget = args.budget.budget();
    let mut running: Vec<Engine> = jobs.iter().map(|j| j.engine).collect();
    running.sort();
    running.dedup();
    let loom_bound = if running.contains(&Engine::Loom) {
        match budget.loom_bound {
            Some(bound) => format!(", loom preemption bound {bound} (every scenario)"),
            None => ", loom preemption bound as each scenario declares".to_owned(),
        }
    } else {
        String::new()
    };
    println!(
        "{} campaign: {} jobs ({}), seed {}, {} iterations/job{loom_bound}, {}s/job limit{}",
        registry::campaign().package,
        jobs.len(),
        running.iter().map(|e| e.name()).collect::<Vec<_>>().join(", "),
        budget.seed,
        budget.iterations,
        budget.time.as_secs_f64(),
        args.shard.map_or(String::new(), |s| format!(", shard {}/{}", s.index, s.count)),
    );
    let log_dir = crate::trace::location::target_dir().join("pipecheck-campaign");
    let _ = std::fs::create_dir_all(&log_dir);
    let start = Instant::now();
    let results = orchestrate::run(&jobs, budget, &log_dir, &args.workers);

    if let Some(table) = report::summary(&results) {
        println!("\nScenarios × engines (no planted bug): verdict, executions or cases, time\n\n{table}");
    }
    let kills = report::kills(&results);
    let not_run = if faults && args.shard.is_none() && args.scenarios.is_empty() {
        report::not_run_here(registry::targets(), &engines, &args.faults)
    } else {
        Vec::new()
    };
    if let Some(table) = report::kill_matrix(&engines, &kills, &not_run) {
        println!(
            "\nKill matrix: each planted bug under each engine (caught only as the invariant it breaks; \
             first catch: executions, time)\n\n{table}\n{}",
            report::legend(&kills)
        );
    }
    let problems: Vec<_> = results
        .iter()
        .filter(|r| matches!(r.outcome, Outcome::Failed | Outcome::Error | Outcome::Incomplete))
        .collect();
    let cells = baseline::cells(&kills, &not_run, &engines);
    if let Some(path) = &args.write_baseline {
        // A job that failed, errored or was cut would record a cell as escaped that a
        // finished run might catch.
        let written = if problems.is_empty() {
            std::fs::write(path, baseline::to_text(&cells, &budget)).map_err(|e| e.to_string())
        } else {
            Err(format!("{} jobs failed, could not run or were cut", problems.len()))
        };
        match written {
            Ok(()) => println!("\nkill matrix written to {} as a baseline", path.display()),
            Err(e) => println!("\nbaseline not written to {}: {e}", path.display()),
        }
    }
    let against_baseline = args.baseline.as_ref().map(|path| {
        // Relative to the workspace root when not found from here (`cargo campaign` from a
        // subdirectory).
        let root_relative = crate::trace::location::workspace_root().join(path);
        let path = if path.exists() || !root_relative.exists() { path.clone() } else { root_relative };
        let path = &path;
        let comparison = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: {e}", path.display()))
            .and_then(|text| baseline::parse(&text, path))
            .map(|recorded| {
                // A cell was meant to run when its engine ran and its bug was selected
                // in a whole (unsharded, every scenario) plan.
                let whole = args.shard.is_none() && args.scenarios.is_empty() && faults;
                let planned = |row: &str, engine: &str| {
                    let fault = row.rsplit('/').next().unwrap_or(row);
                    whole && engines.iter().any(|e| e.name() == engine) && wanted(fault)
                };
                baseline::compare(&recorded, &cells, &budget, &planned)
            });
        match comparison {
            Ok(comparison) => {
                println!("\n{}", comparison.report(path));
                comparison.green()
            }
            Err(e) => {
                println!("\nKILL MATRIX BASELINE UNREADABLE: {e}");
                false
            }
        }
    });
    for r in results.iter().filter(|r| r.outcome == Outcome::Passed) {
        if let Some(caveat) = &r.caveat {
            println!(
                "\npassed with a caveat: {} {}/{} — {caveat}",
                r.job.engine, r.job.target, r.job.scenario
            );
        }
    }
    for r in &problems {
        println!(
            "\n{:?}: {} {}/{} — {}",
            r.outcome,
            r.job.engine,
            r.job.target,
            r.job.scenario,
            r.message.as_deref().unwrap_or("")
        );
        if let Some(seed) = r.seed {
            println!("  seed: {seed}");
        }
        if let Some(trace) = &r.trace {
            println!("  trace: {trace}");
        }
        if let Some(cmd) = &r.reproduce {
            println!("  reproduce: {cmd}");
        }
    }
    let escaped = report::escaped_everywhere(&kills);
    for fault in &escaped {
        println!("\nESCAPED: planted bug {fault} was caught as its own invariant by no engine");
    }
    // The checker's own corpus, when asked for: a sharded campaign checks it in its first
    // shard. A planted checker bug named by `--fault` runs against it instead.
    let checker_faults: Vec<_> = args.faults.iter().filter_map(|f| checker_corpus::fault(f)).collect();
    let wanted = args.checker_corpus || !checker_faults.is_empty();
    let corpus_runs =
        if checker_faults.is_empty() { vec![None] } else { checker_faults.into_iter().map(Some).collect() };
    let corpus: Vec<checker_corpus::Section> = if wanted && args.shard.is_none_or(|s| s.index == 1) {
        corpus_runs.into_iter().map(checker_corpus::run).collect()
    } else {
        Vec::new()
    };
    for section in &corpus {
        println!("\n{}", section.report());
    }
    if let Some(path) = &args.json {
        let document = report::Document {
            jobs: &results,
            kill_matrix: &kills,
            escaped_everywhere: escaped.clone(),
            not_run_here: &not_run,
            failed: problems.iter().map(|r| r.job.spec()).collect(),
            linearizable: report::linearizable_column(&results),
            checker_corpus: &corpus,
        };
        match std::fs::write(path, serde_json::to_string_pretty(&document).expect("results serialize")) {
            Ok(()) => println!("\nresults written to {}", path.display()),
            Err(e) => println!("\ncould not write {}: {e}", path.display()),
        }
    }
    let green = report::green(&results, &kills)
        && corpus.iter().all(checker_corpus::Section::green)
        && against_baseline.unwrap_or(true);
    let seconds = start.elapsed().as_secs_f64();
    if green && results.is_empty() {
        println!("\nnothing run: 0 jobs; no planted bug selected can be seen by an engine of this run");
    } else if green {
        println!("\nall green: {} jobs in {seconds:.1}s", results.len());
    } else {
        let escaped = report::escaped_everywhere(&kills).len();
        let changed = if against_baseline == Some(false) {
            ", the kill matrix changed against its baseline"
        } else {
            ""
        };
        println!(
            "\nPROBLEMS FOUND: {} of {} jobs failed, could not run or were cut, {escaped} planted bugs \
             escaped every engine{changed} ({seconds:.1}s)",
            problems.len(),
            results.len()
        );
    }
    if green { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
