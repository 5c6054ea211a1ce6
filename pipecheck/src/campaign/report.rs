//! The campaign's summary: scenario × engine, the kill matrix (fault × engine), and
//! the `--json` document.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::target::Target;
use pipecheck_sync::{InvariantId, PlantedFault};
use serde::Serialize;

use crate::campaign::jobs::Engine;
use crate::campaign::outcome::{JobResult, Outcome};
use crate::campaign::registry;

/// One cell of a table: a short verdict plus iterations and time.
fn cell(result: &JobResult) -> String {
    let verdict = match result.outcome {
        Outcome::Passed => "pass",
        Outcome::Failed => "FAIL",
        Outcome::Caught => "caught",
        Outcome::Misattributed => "NOT-ITS-INVARIANT",
        Outcome::Escaped => "ESCAPED",
        Outcome::Error => "error",
        Outcome::Incomplete => "INCOMPLETE",
    };
    format!("{verdict} {} it {:.1}s", result.iterations, result.seconds)
}

fn table(title: &str, rows: &[(String, Vec<String>)], engines: &[Engine]) -> String {
    let headers: Vec<String> = engines.iter().map(|e| e.name().to_owned()).collect();
    table_with(title, rows, &headers)
}

pub(crate) fn table_with(title: &str, rows: &[(String, Vec<String>)], headers: &[String]) -> String {
    let mut widths = vec![rows.iter().map(|(r, _)| r.len()).max().unwrap_or(0).max(title.len())];
    for (i, header) in headers.iter().enumerate() {
        widths.push(rows.iter().map(|(_, c)| c[i].len()).max().unwrap_or(0).max(header.len()));
    }
    let mut out = String::new();
    let line = |out: &mut String, first: &str, cells: &[String]| {
        let _ = write!(out, "| {first:<w$} ", w = widths[0]);
        for (i, c) in cells.iter().enumerate() {
            let _ = write!(out, "| {c:<w$} ", w = widths[i + 1]);
        }
        out.push_str("|\n");
    };
    line(&mut out, title, headers);
    line(&mut out, &"-".repeat(widths[0]), &widths[1..].iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>());
    for (row, cells) in rows {
        line(&mut out, row, cells);
    }
    out
}

/// The engines that appear in `results`, in canonical order.
fn engines_of(results: &[JobResult]) -> Vec<Engine> {
    let mut engines: Vec<Engine> = results.iter().map(|r| r.job.engine).collect();
    engines.sort();
    engines.dedup();
    engines
}

/// The `linearizable` column of the clean runs of one scenario: `-` when it records no
/// history; otherwise whether every clean run's history check ran green, under the
/// object whose sequential model checks it.
fn linearizable_cell(runs: &[&JobResult]) -> String {
    let Some(model) = runs.first().and_then(|r| model_of(r)) else {
        return "-".to_owned();
    };
    let linearizable = InvariantId::LINEARIZABLE.name();
    if runs.iter().any(|r| r.invariant.as_deref() == Some(linearizable)) {
        format!("FAIL ({model})")
    } else if runs.iter().all(|r| r.outcome == Outcome::Passed) {
        format!("green ({model})")
    } else {
        // A run that failed another way stopped before its history was checked.
        format!("unchecked ({model})")
    }
}

/// The `linearizable` column for the `--json` document: each scenario with a
/// sequential model that had clean runs, and its cell (`green (OneshotModel)`, ...).
pub(crate) fn linearizable_column(results: &[JobResult]) -> BTreeMap<String, String> {
    let mut runs: BTreeMap<&str, Vec<&JobResult>> = BTreeMap::new();
    for r in results.iter().filter(|r| r.job.fault.is_none()) {
        if model_of(r).is_some() {
            runs.entry(&r.job.scenario).or_default().push(r);
        }
    }
    runs.into_iter().map(|(scenario, runs)| (scenario.to_owned(), linearizable_cell(&runs))).collect()
}

/// The sequential model the job's scenario checks its histories against, if any.
fn model_of(result: &JobResult) -> Option<&'static str> {
    registry::scenario(&result.job.target, &result.job.scenario).and_then(|s| s.model)
}

/// Scenario × engine for runs without faults, and the `linearizable` column: whether
/// each scenario with a sequential model had its recorded histories checked green.
pub(crate) fn summary(results: &[JobResult]) -> Option<String> {
    let clean: Vec<&JobResult> = results.iter().filter(|r| r.job.fault.is_none()).collect();
    if clean.is_empty() {
        return None;
    }
    let engines = engines_of(results);
    // A row per target's scenario: two targets may name a scenario alike, and one's
    // failure must not read as the other's pass. The target is named when there are several.
    let several = clean.iter().any(|r| r.job.target != clean[0].job.target);
    let row_name = |r: &JobResult| {
        if several { format!("{}: {}", r.job.target, r.job.scenario) } else { r.job.scenario.clone() }
    };
    let mut rows: BTreeMap<String, (Vec<String>, Vec<&JobResult>)> = BTreeMap::new();
    for r in &clean {
        let (cells, runs) =
            rows.entry(row_name(r)).or_insert_with(|| (vec!["-".to_owned(); engines.len()], Vec::new()));
        cells[engines.iter().position(|e| *e == r.job.engine).expect("engine listed")] = cell(r);
        runs.push(r);
    }
    let rows: Vec<(String, Vec<String>)> = rows
        .into_iter()
        .map(|(scenario, (mut cells, runs))| {
            cells.push(linearizable_cell(&runs));
            (scenario, cells)
        })
        .collect();
    let mut headers: Vec<String> = engines.iter().map(|e| e.name().to_owned()).collect();
    headers.push(InvariantId::LINEARIZABLE.name().to_owned());
    Some(table_with("scenario", &rows, &headers))
}

/// One kill-matrix cell: the first catch of a fault under an engine.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Kill {
    pub(crate) target: String,
    pub(crate) fault: String,
    pub(crate) engine: Engine,
    /// Caught as the invariant the fault breaks, by at least one of its jobs.
    pub(crate) caught: bool,
    /// The scenario that caught it first (fewest iterations; of those, the first by name).
    pub(crate) scenario: Option<String>,
    /// The invariant that fired: when `caught`, always the fault's own.
    pub(crate) invariant: Option<String>,
    /// What the failure was when it was not caught as its invariant (`model mismatch`,
    /// `panic: ...`, another invariant).
    pub(crate) instead: Option<String>,
    pub(crate) iterations: u64,
    pub(crate) seconds: f64,
}

/// Fault × engine: caught or escaped, with iterations and seconds to the first catch.
pub(crate) fn kills(results: &[JobResult]) -> Vec<Kill> {
    let mut kills = Vec::new();
    for (target, fault) in declared_faults() {
        for engine in engines_of(results) {
            let runs: Vec<&JobResult> = results
                .iter()
                .filter(|r| {
                    r.job.target == target.name()
                        && r.job.fault.as_deref() == Some(fault.name())
                        && r.job.engine == engine
                })
                .collect();
            if runs.is_empty() {
                continue;
            }
            // Fewest iterations, ties broken by the scenario's name, never by time: the
            // cell (and so the baseline) is the same on every run of the same budget.
            let best = runs.iter().filter(|r| r.outcome == Outcome::Caught).min_by(|a, b| {
                a.iterations.cmp(&b.iterations).then_with(|| a.job.scenario.cmp(&b.job.scenario))
            });
            let (target, fault) = (target.name().to_owned(), fault.name().to_owned());
            kills.push(match best {
                Some(r) => Kill {
                    target,
                    fault,
                    engine,
                    caught: true,
                    scenario: Some(r.job.scenario.clone()),
                    invariant: r.invariant.clone(),
                    instead: None,
                    iterations: r.iterations,
                    seconds: r.seconds,
                },
                None => Kill {
                    target,
                    fault,
                    engine,
                    caught: false,
                    scenario: None,
                    invariant: None,
                    instead: runs
                        .iter()
                        .find(|r| r.outcome == Outcome::Misattributed)
                        .and_then(|r| r.label.clone()),
                    iterations: runs.iter().map(|r| r.iterations).sum(),
                    seconds: runs.iter().map(|r| r.seconds).sum(),
                },
            });
        }
    }
    kills
}

/// Every planted bug of the campaign's targets, with its target, in declaration order.
fn declared_faults() -> impl Iterator<Item = (&'static Target, &'static PlantedFault)> {
    registry::targets().iter().flat_map(|t| t.planted().iter().map(move |&f| (t, f)))
}

/// A planted bug that no engine of this run can see, and why.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct NotRun {
    pub(crate) target: String,
    pub(crate) fault: String,
    pub(crate) why: &'static str,
}

/// The planted bugs (among `wanted`, all if empty) that none of `engines` can see: a
/// weak-memory bug when loom does not run. They are "not run here", neither caught nor
/// escaped.
pub(crate) fn not_run_here(targets: &[Target], engines: &[Engine], wanted: &[String]) -> Vec<NotRun> {
    let loom = engines.contains(&Engine::Loom);
    targets
        .iter()
        .flat_map(|t| t.planted().iter().map(move |f| (t, f)))
        .filter(|(_, f)| wanted.is_empty() || wanted.iter().any(|w| w.eq_ignore_ascii_case(f.name())))
        .filter(|(_, f)| f.needs_weak_memory() && !loom)
        .map(|(t, f)| NotRun {
            target: t.name().to_owned(),
            fault: f.name().to_owned(),
            why: "weak memory: only loom sees it, and loom is not in this run",
        })
        .collect()
}

/// The kill matrix as a table: a row per planted bug that ran (and one per bug not run
/// here, saying so).
/// The kill matrix: a column per engine a planted bug ran under, or, when none ran (a
/// plan may hold only bugs that no engine of the run can see), per engine `requested`.
pub(crate) fn kill_matrix(requested: &[Engine], kills: &[Kill], not_run: &[NotRun]) -> Option<String> {
    if kills.is_empty() && not_run.is_empty() {
        return None;
    }
    let mut engines: Vec<Engine> = kills.iter().map(|k| k.engine).collect();
    if engines.is_empty() {
        engines = requested.to_vec();
    }
    engines.sort();
    engines.dedup();
    let several = registry::targets().len() > 1;
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    for (target, fault) in declared_faults() {
        let label = if several {
            format!("{}: {} ({})", target.name(), fault.name(), fault.breaks())
        } else {
            format!("{} ({})", fault.name(), fault.breaks())
        };
        if let Some(skipped) = not_run.iter().find(|n| n.target == target.name() && n.fault == fault.name()) {
            let cells = engines.iter().map(|_| format!("not run here ({})", skipped.why)).collect();
            rows.push((label, cells));
            continue;
        }
        let mine: Vec<&Kill> =
            kills.iter().filter(|k| k.target == target.name() && k.fault == fault.name()).collect();
        if mine.is_empty() {
            continue;
        }
        let cells = engines
            .iter()
            .map(|e| match mine.iter().find(|k| k.engine == *e) {
                Some(k) if k.caught => format!(
                    "caught as {} in {} {} it {:.2}s",
                    k.invariant.as_deref().unwrap_or("?"),
                    k.scenario.as_deref().unwrap_or("?"),
                    k.iterations,
                    k.seconds
                ),
                Some(Kill { instead: Some(instead), .. }) => format!("ESCAPED (failed as {instead})"),
                Some(k) => format!("ESCAPED ({} it)", k.iterations),
                None => "-".to_owned(),
            })
            .collect();
        rows.push((label, cells));
    }
    Some(table("fault (invariant it breaks)", &rows, &engines))
}

/// The legend of the kill matrix: each invariant a listed fault breaks, with its statement.
pub(crate) fn legend(kills: &[Kill]) -> String {
    // Every invariant a cell can show: those each listed fault breaks (also_breaks too),
    // and those a failure named instead.
    let mut shown: Vec<InvariantId> = Vec::new();
    for kill in kills {
        let fault = registry::fault(&kill.target, &kill.fault);
        let named =
            [&kill.invariant, &kill.instead].into_iter().flatten().map(|name| InvariantId::intern(name));
        for id in fault.map(|f| f.broken_as()).unwrap_or_default().into_iter().chain(named) {
            if !shown.contains(&id) {
                shown.push(id);
            }
        }
    }
    let mut out = String::new();
    for id in shown {
        let declared =
            registry::targets().iter().flat_map(|t| t.invariants()).find(|(known, _)| *known == id);
        let statement = declared.map(|(_, s)| *s).or_else(|| engine_statement(id));
        // A failure that named no invariant (a panic, a model mismatch) has no line.
        if let Some(statement) = statement {
            let _ = writeln!(out, "  {id}: {statement}");
        }
    }
    out
}

/// What an invariant the engines report themselves states, when no target declares it.
fn engine_statement(id: InvariantId) -> Option<&'static str> {
    Some(match id {
        InvariantId::NO_LOST_WAKEUP => {
            "every waiting thread is woken: a deadlock (every thread blocked) breaks it"
        }
        InvariantId::NO_DATA_RACE => {
            "no two threads touch the same cell without a happens-before edge (loom's causality check)"
        }
        InvariantId::PROGRESS => {
            "every execution ends within the engine's bound: no thread waits forever for what never comes (a livelock)"
        }
        InvariantId::NO_PANIC => {
            "no execution panics outside a checker (an assertion, an index out of bounds, an unwrap)"
        }
        InvariantId::LINEARIZABLE => crate::linearizability::STATEMENT,
        _ => return None,
    })
}

/// Faults that no engine caught as their own invariant.
pub(crate) fn escaped_everywhere(kills: &[Kill]) -> Vec<String> {
    let mut faults: Vec<(String, String)> =
        kills.iter().map(|k| (k.target.clone(), k.fault.clone())).collect();
    faults.dedup();
    faults
        .into_iter()
        .filter(|(t, f)| !kills.iter().any(|k| &k.target == t && &k.fault == f && k.caught))
        .map(|(_, f)| f)
        .collect()
}

/// Whether the campaign is green: no real failure, no job that could not run, and
/// every planted bug caught as its own invariant by at least one engine.
pub(crate) fn green(results: &[JobResult], kills: &[Kill]) -> bool {
    let problems =
        results.iter().any(|r| matches!(r.outcome, Outcome::Failed | Outcome::Error | Outcome::Incomplete));
    !problems && escaped_everywhere(kills).is_empty()
}

/// The `--json` document.
#[derive(Serialize)]
pub(crate) struct Document<'a> {
    pub(crate) jobs: &'a [JobResult],
    pub(crate) kill_matrix: &'a [Kill],
    pub(crate) escaped_everywhere: Vec<String>,
    /// Planted bugs no engine of this run can see.
    pub(crate) not_run_here: &'a [NotRun],
    pub(crate) failed: Vec<String>,
    /// The summary's `linearizable` column: scenario → cell.
    pub(crate) linearizable: BTreeMap<String, String>,
    /// The checker corpus: each entry's expected and actual verdict (one section per
    /// planted checker bug run, or one with none).
    pub(crate) checker_corpus: &'a [crate::campaign::checker_corpus::Section],
}

// The tests run real proptest jobs of the fixture campaign (`campaign::fixture`), whose
// counter runs on std primitives: not in the loom or shuttle worker builds, where the
// primitives only work inside a model.
#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::*;
    use crate::campaign::jobs::{Job, OP_SEQUENCES};
    use crate::campaign::outcome::{Fired, judge};
    use crate::campaign::worker::{Budget, run_one};
    use crate::target::{LARGE_SCENARIO, SMALL_SCENARIO};

    /// A real proptest job of the fixture's counter with `fault`, small budget.
    fn run(fault: &str) -> JobResult {
        let job = Job {
            id: 0,
            engine: Engine::Proptest,
            target: "counter".into(),
            scenario: OP_SEQUENCES.into(),
            fault: Some(fault.into()),
        };
        let budget = Budget {
            iterations: 2_000,
            time: std::time::Duration::from_secs(60),
            loom_bound: Some(2),
            seed: 1,
            exact_seed: None,
        };
        run_one(&job, budget)
    }

    #[test]
    fn a_planted_bug_caught_as_its_invariant_is_green() {
        let results = vec![run("StuckAtZero")];
        assert_eq!(results[0].outcome, Outcome::Caught, "{:?}", results[0]);
        let kills = kills(&results);
        assert!(kills[0].caught && kills[0].invariant.as_deref() == Some("counts-every-add"), "{kills:?}");
        assert!(green(&results, &kills));
    }

    #[test]
    fn a_tie_in_executions_goes_to_the_first_scenario_by_name_whatever_the_times() {
        let caught = |scenario: &str, invariant: &str, seconds: f64| {
            let mut result = run("StuckAtZero");
            assert_eq!(result.outcome, Outcome::Caught, "{result:?}");
            result.job.scenario = scenario.into();
            result.invariant = Some(invariant.into());
            (result.iterations, result.seconds) = (2, seconds);
            result
        };
        for (slow, fast) in [(9.0, 0.1), (0.1, 9.0)] {
            let results = vec![caught("zeta", "second", fast), caught("alpha", "first", slow)];
            let kills = kills(&results);
            assert_eq!(kills[0].scenario.as_deref(), Some("alpha"), "{kills:?}");
            assert_eq!(kills[0].invariant.as_deref(), Some("first"), "{kills:?}");
        }
    }

    /// The fixture target that has `scenario`.
    fn target_of(scenario: &str) -> &'static str {
        registry::targets().iter().find(|t| t.scenario(scenario).is_ok()).expect("a fixture scenario").name()
    }

    /// A clean result of `scenario` under `engine`, as a worker reports it.
    fn clean(scenario: &str, engine: Engine, outcome: Outcome, invariant: Option<&str>) -> JobResult {
        JobResult {
            job: Job {
                id: 0,
                engine,
                target: target_of(scenario).into(),
                scenario: scenario.into(),
                fault: None,
            },
            outcome,
            kind: None,
            invariant: invariant.map(str::to_owned),
            label: None,
            message: None,
            iterations: 1,
            seconds: 0.0,
            seed: None,
            trace: None,
            reproduce: None,
            caveat: None,
        }
    }

    /// The `linearizable` column: green for a scenario with a model whose clean runs
    /// all passed, FAIL when one failed as `linearizable`, `-` without a model. The
    /// fixture's counter checks its generated scenarios against `CounterSpec`; its
    /// `two-adds` has no model.
    #[test]
    fn the_summary_shows_the_linearizable_column() {
        let results = vec![
            clean(SMALL_SCENARIO, Engine::Loom, Outcome::Passed, None),
            clean(SMALL_SCENARIO, Engine::ShuttleRandom, Outcome::Passed, None),
            clean(LARGE_SCENARIO, Engine::ShuttleRandom, Outcome::Passed, None),
            clean(LARGE_SCENARIO, Engine::ShuttlePct, Outcome::Failed, Some("linearizable")),
            clean("two-adds", Engine::Loom, Outcome::Passed, None),
        ];
        let table = summary(&results).expect("a table");
        let row =
            |name: &str| table.lines().find(|l| l.starts_with(&format!("| {name} "))).expect(name).to_owned();
        assert!(table.lines().next().expect("a header").contains("| linearizable"), "{table}");
        assert!(row(SMALL_SCENARIO).contains("green (CounterSpec)"), "{table}");
        assert!(row(LARGE_SCENARIO).contains("FAIL (CounterSpec)"), "{table}");
        let last =
            |name: &str| row(name).split('|').map(str::trim).rfind(|c| !c.is_empty()).map(str::to_owned);
        assert_eq!(last("two-adds").as_deref(), Some("-"), "{table}");
        let column = linearizable_column(&results);
        assert_eq!(column.get(SMALL_SCENARIO).map(String::as_str), Some("green (CounterSpec)"));
        assert_eq!(column.get(LARGE_SCENARIO).map(String::as_str), Some("FAIL (CounterSpec)"));
        assert!(!column.contains_key("two-adds"));
    }

    /// A broken checker: the fault's own invariant is not what fires (here, as if
    /// `breaks()` named another invariant than the one whose checker catches it). The
    /// fault is reported as escaped, the cell says what fired instead, the JSON has no
    /// `caught`, and the campaign is not green.
    #[test]
    fn a_fault_whose_checker_is_broken_escapes_and_fails_the_campaign() {
        let mut result = run("StuckAtZero");
        let fired = Fired {
            kind: result.kind.clone().expect("it failed"),
            invariant: result.invariant.as_deref().map(InvariantId::intern),
            label: result.label.clone().expect("it failed"),
            message: result.message.clone().expect("it failed"),
        };
        result.outcome = judge(Some(InvariantId::new("broken-checker")), Some(&fired));
        assert_eq!(result.outcome, Outcome::Misattributed);
        let results = vec![result];
        let kills = kills(&results);
        assert!(!kills[0].caught);
        assert_eq!(kills[0].instead.as_deref(), Some("counts-every-add"));
        assert_eq!(escaped_everywhere(&kills), ["StuckAtZero"]);
        assert!(!green(&results, &kills));
        let table = kill_matrix(&[Engine::Proptest], &kills, &[]).expect("a row");
        assert!(table.contains("ESCAPED (failed as counts-every-add)"), "{table}");
        let not_run = not_run_here(registry::targets(), &[Engine::ShuttleRandom], &[]);
        assert!(not_run.iter().any(|n| n.fault == "RelaxedPublish"), "{not_run:?}");
        let table = kill_matrix(&[Engine::Proptest], &kills, &not_run).expect("rows");
        assert!(table.contains("not run here"), "{table}");
        // Only bugs no engine of the run can see: every row "not run here", no panic.
        let table = kill_matrix(&[Engine::ShuttleRandom], &[], &not_run).expect("rows");
        assert!(table.contains("| RelaxedPublish (counts-every-add) | not run here"), "{table}");
        let json = serde_json::to_string(&Document {
            jobs: &results,
            kill_matrix: &kills,
            escaped_everywhere: escaped_everywhere(&kills),
            not_run_here: &[],
            failed: Vec::new(),
            checker_corpus: &[],
            linearizable: linearizable_column(&results),
        })
        .expect("serializes");
        assert!(
            !json.contains(r#""outcome":"caught""#) && json.contains(r#""outcome":"misattributed""#),
            "{json}"
        );
    }
}

#[cfg(test)]
mod engine_statement_tests {
    use super::*;

    /// The legend has a line for every invariant a cell may show without a checker of the target's.
    #[test]
    fn every_engine_named_invariant_has_a_legend_line() {
        for id in crate::check::ENGINE_NAMED {
            assert!(engine_statement(id).is_some(), "{id}");
        }
    }
}
