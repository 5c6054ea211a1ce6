//! A campaign over any targets under shuttle's random and PCT schedulers: every
//! scenario without a fault must pass, and every planted fault must be caught as the
//! invariant it breaks (the kill matrix). [`campaign_main`] is the entry a user crate
//! calls from a small binary; loom's cells are the user's loom tests
//! (`pipecheck_models::loom_harness::expect_target_caught`), since loom needs its own
//! build.

use std::process::ExitCode;

use pipecheck_models::target::Target;

use crate::explore::{Exploration, SchedulerKind, Settings, explore_in, hunt_in};

/// One cell of the kill matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// The target.
    pub target: &'static str,
    /// The planted fault.
    pub fault: &'static str,
    /// The invariant it must be caught as.
    pub breaks: &'static str,
    /// The scheduler.
    pub scheduler: SchedulerKind,
    /// What the first failure counted as (`None`: the fault escaped).
    pub caught_as: Option<String>,
    /// Executions to the first failure, or spent in vain.
    pub executions: usize,
}

impl Cell {
    /// Caught as the invariant the fault breaks.
    pub fn caught(&self) -> bool {
        self.caught_as.as_deref() == Some(self.breaks)
    }
}

/// The kill matrix of `targets` under both schedulers of `settings`.
pub fn kill_matrix(targets: &[Target], settings: &Settings) -> Vec<Cell> {
    let mut cells = Vec::new();
    for target in targets {
        for &fault in target.planted() {
            for scheduler in settings.schedulers() {
                let (found, spent) = hunt_in(target, fault, scheduler, settings);
                cells.push(Cell {
                    target: target.name(),
                    fault: fault.name(),
                    breaks: fault.breaks().name(),
                    scheduler,
                    executions: found.as_ref().map_or(spent, |f| spent + f.before + f.iteration as usize),
                    caught_as: found.map(|f| f.failure.invariant),
                });
            }
        }
    }
    cells
}

/// Runs the campaign over `targets` (settings from the `PIPECHECK_SHUTTLE_*`
/// environment), prints the clean runs and the kill matrix, and fails when a clean run
/// fails or a fault is caught as its own invariant by no scheduler.
///
/// # Examples
///
/// ```no_run
/// # fn my_target() -> pipecheck_models::Target { unimplemented!() }
/// // src/bin/campaign.rs of the user's crate, run with `--features shuttle`
/// fn main() -> std::process::ExitCode {
///     pipecheck_traces::campaign::campaign_main(vec![my_target()])
/// }
/// ```
pub fn campaign_main(targets: Vec<Target>) -> ExitCode {
    let settings = match Settings::from_env() {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "campaign: {} target(s), seed {}, {} iterations per scenario and scheduler\n",
        targets.len(),
        settings.seed,
        settings.iterations
    );
    let mut ok = true;
    println!("| target | scenario | scheduler | verdict |\n|---|---|---|---|");
    for target in &targets {
        if let Err(e) = target.validate() {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
        for scenario in target.all_scenarios() {
            for scheduler in settings.schedulers() {
                let verdict = match explore_in(target, scenario, None, scheduler, &settings) {
                    Exploration::Passed { iterations, .. } => format!("pass ({iterations} executions)"),
                    Exploration::Failed(found) => {
                        ok = false;
                        format!("FAIL: {}", pipecheck_properties::first_line(&found.failure.message()))
                    }
                };
                println!("| {} | {} | {scheduler} | {verdict} |", target.name(), scenario.name);
            }
        }
    }
    println!("\nKill matrix (a fault counts as caught only as the invariant it breaks):\n");
    println!("| target | fault (breaks) | scheduler | verdict |\n|---|---|---|---|");
    let cells = kill_matrix(&targets, &settings);
    for cell in &cells {
        let verdict = match &cell.caught_as {
            Some(name) if cell.caught() => format!("caught as {name} ({} executions)", cell.executions),
            Some(name) => format!("failed as {name}, not {} ({} executions)", cell.breaks, cell.executions),
            None => format!("ESCAPED ({} executions)", cell.executions),
        };
        println!("| {} | {} ({}) | {} | {verdict} |", cell.target, cell.fault, cell.breaks, cell.scheduler);
    }
    for target in &targets {
        for fault in target.planted() {
            let caught =
                cells.iter().any(|c| c.target == target.name() && c.fault == fault.name() && c.caught());
            if !caught {
                ok = false;
                println!(
                    "\n{} ({}) was caught as its invariant by no scheduler",
                    fault.name(),
                    target.name()
                );
            }
        }
    }
    if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
