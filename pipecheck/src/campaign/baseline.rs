//! The kill matrix against a committed baseline: every cell's verdict (caught as an
//! invariant, escaped, not run here) is written down once (`--write-baseline <file>`),
//! and a later campaign given the file (`--baseline <file>`) fails when a cell got
//! worse, naming it. A bug is "caught" when any engine catches it, so one engine going
//! blind to a whole class of bugs (a scheduling point lost, a happens-before edge
//! dropped, a wrong "not run here") leaves every row caught; only its cells tell.
//!
//! The file is text, one cell a line, under a header with the budget it was made with:
//!
//! ```text
//! # pipecheck kill-matrix baseline v1
//! # budget: iterations 100, seed 1, loom bound declared
//! counter/LostUpdate | loom | caught as counts-every-add
//! counter/RelaxedFlag | shuttle-random | not run here
//! ```
//!
//! Within one seed, a larger budget explores a superset of a smaller one's executions
//! (each job's seed does not depend on the budget; shuttle, PCT and proptest draw the
//! same first executions; loom's exploration is exhaustive): a cell caught at the
//! baseline's budget stays caught at any budget as large. So a run with the baseline's
//! budget must match it exactly (an improvement says the baseline is stale), a run
//! with a larger one may only improve on it, and a smaller one is not compared.

use std::fmt::Write as _;
use std::path::Path;

use super::jobs::Engine;
use super::report::{Kill, NotRun};
use super::worker::Budget;

/// The first line of a baseline file.
const FORMAT_LINE: &str = "# pipecheck kill-matrix baseline v1";

/// One cell: a planted bug of a target under one engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cell {
    /// `<target>/<fault>`.
    pub(crate) row: String,
    /// The engine's name.
    pub(crate) engine: String,
    /// `caught as <invariant>`, `escaped` or `not run here`.
    pub(crate) verdict: String,
}

impl Cell {
    fn caught(&self) -> bool {
        self.verdict.starts_with("caught as ")
    }
}

/// The cells of a campaign: one per kill, and one per engine of the run for each bug
/// not run here.
pub(crate) fn cells(kills: &[Kill], not_run: &[NotRun], engines: &[Engine]) -> Vec<Cell> {
    let mut cells: Vec<Cell> = kills
        .iter()
        .map(|k| Cell {
            row: format!("{}/{}", k.target, k.fault),
            engine: k.engine.name().to_owned(),
            verdict: match (&k.invariant, k.caught) {
                (Some(invariant), true) => format!("caught as {invariant}"),
                _ => "escaped".to_owned(),
            },
        })
        .collect();
    for skipped in not_run {
        for engine in engines {
            cells.push(Cell {
                row: format!("{}/{}", skipped.target, skipped.fault),
                engine: engine.name().to_owned(),
                verdict: "not run here".to_owned(),
            });
        }
    }
    cells
}

/// What the budget line of a baseline records: what decides which executions run.
fn budget_line(budget: &Budget) -> String {
    let bound = budget.loom_bound.map_or_else(|| "declared".to_owned(), |b| b.to_string());
    format!("# budget: iterations {}, seed {}, loom bound {bound}", budget.iterations, budget.seed)
}

/// The baseline file's text for `cells`, made with `budget`.
pub(crate) fn to_text(cells: &[Cell], budget: &Budget) -> String {
    let mut text = format!("{FORMAT_LINE}\n{}\n", budget_line(budget));
    for cell in cells {
        let _ = writeln!(text, "{} | {} | {}", cell.row, cell.engine, cell.verdict);
    }
    text
}

/// A baseline read from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Baseline {
    /// Iterations it was made with.
    iterations: u64,
    /// The rest of its budget line (seed, loom bound): must match exactly.
    rest: String,
    cells: Vec<Cell>,
}

/// Reads the baseline in `text` (from `path`, named in every error with the line).
pub(crate) fn parse(text: &str, path: &Path) -> Result<Baseline, String> {
    let error = |line: usize, what: &str| format!("{}:{line}: {what}", path.display());
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, FORMAT_LINE)) => {}
        _ => return Err(error(1, &format!("not a kill-matrix baseline (expected `{FORMAT_LINE}`)"))),
    }
    let (number, budget) = lines.next().ok_or_else(|| error(2, "no budget line"))?;
    let (iterations, rest) = budget
        .strip_prefix("# budget: iterations ")
        .and_then(|r| r.split_once(", "))
        .and_then(|(n, rest)| Some((n.parse::<u64>().ok()?, rest.to_owned())))
        .ok_or_else(|| error(number, "expected `# budget: iterations <n>, seed <s>, loom bound <b>`"))?;
    let mut cells = Vec::new();
    for (number, line) in lines {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.split(" | ").map(str::trim).collect();
        let [row, engine, verdict] = parts[..] else {
            return Err(error(number, "expected `<target>/<fault> | <engine> | <verdict>`"));
        };
        let known = verdict.starts_with("caught as ") || verdict == "escaped" || verdict == "not run here";
        if !known {
            return Err(error(number, &format!("unknown verdict `{verdict}`")));
        }
        cells.push(Cell { row: row.to_owned(), engine: engine.to_owned(), verdict: verdict.to_owned() });
    }
    Ok(Baseline { iterations, rest, cells })
}

/// How a campaign's cells compare with a baseline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Comparison {
    /// Cells that got worse (a catch lost, or the engine said "not run here"), or
    /// changed at the baseline's own budget, or are not in the baseline: each fails.
    pub(crate) changed: Vec<String>,
    /// Cells that improved at a larger budget than the baseline's (not a failure).
    pub(crate) improved: Vec<String>,
    /// Why the cells were not compared, if they were not.
    pub(crate) not_compared: Option<String>,
}

impl Comparison {
    /// Whether the campaign may stay green.
    pub(crate) fn green(&self) -> bool {
        self.changed.is_empty()
    }

    /// The report section.
    pub(crate) fn report(&self, path: &Path) -> String {
        let mut out = String::new();
        if let Some(why) = &self.not_compared {
            let _ = write!(out, "kill matrix against {}: not compared ({why})", path.display());
            return out;
        }
        if self.green() {
            let _ = write!(out, "kill matrix against {}: every cell as recorded", path.display());
        } else {
            let _ = writeln!(out, "KILL MATRIX CHANGED against {}:", path.display());
            for line in &self.changed {
                let _ = writeln!(out, "  {line}");
            }
            let _ = write!(
                out,
                "  (a change made on purpose, a budget or a new planted bug, rewrites the file in \
                 the same commit: --write-baseline {})",
                path.display()
            );
        }
        for line in &self.improved {
            let _ = write!(out, "\n  improved at this larger budget: {line}");
        }
        out
    }
}

/// Compares `cells` of a campaign run with `budget` against `baseline`. `planned`
/// says whether the campaign meant to run a cell (its engine ran and its bug was
/// selected): a baseline cell it meant to run and has no verdict for fails (the plan
/// dropped it); cells it did not mean to run (another engine, a `--fault` selection)
/// are not compared, nor is a "not run here" the baseline has no line for (a run
/// without loom says it of every weak-memory bug).
pub(crate) fn compare(
    baseline: &Baseline,
    cells: &[Cell],
    budget: &Budget,
    planned: &dyn Fn(&str, &str) -> bool,
) -> Comparison {
    let mut comparison = Comparison::default();
    let line = budget_line(budget);
    let rest = line.split_once(", ").map_or("", |(_, rest)| rest);
    if rest != baseline.rest {
        comparison.not_compared =
            Some(format!("the baseline was made with {}, this run has {rest}", baseline.rest));
        return comparison;
    }
    if budget.iterations < baseline.iterations {
        comparison.not_compared = Some(format!(
            "the baseline was made with {} iterations, this run has {}: fewer may miss what it caught",
            baseline.iterations, budget.iterations
        ));
        return comparison;
    }
    let same_budget = budget.iterations == baseline.iterations;
    for cell in cells {
        let name = format!("{} under {}", cell.row, cell.engine);
        let Some(recorded) = baseline.cells.iter().find(|b| b.row == cell.row && b.engine == cell.engine)
        else {
            if cell.verdict != "not run here" {
                comparison.changed.push(format!("{name}: {} (not in the baseline)", cell.verdict));
            }
            continue;
        };
        if recorded.verdict == cell.verdict {
            continue;
        }
        let change = format!("{name}: was {}, now {}", recorded.verdict, cell.verdict);
        if cell.caught() && !recorded.caught() && !same_budget {
            comparison.improved.push(change);
        } else {
            comparison.changed.push(change);
        }
    }
    for recorded in &baseline.cells {
        let ran = cells.iter().any(|c| c.row == recorded.row && c.engine == recorded.engine);
        if !ran && planned(&recorded.row, &recorded.engine) {
            comparison.changed.push(format!(
                "{} under {}: was {}, now not planned",
                recorded.row, recorded.engine, recorded.verdict
            ));
        }
    }
    comparison
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn budget(iterations: u64) -> Budget {
        Budget { iterations, time: Duration::from_secs(20), loom_bound: None, seed: 1, exact_seed: None }
    }

    fn cell(row: &str, engine: &str, verdict: &str) -> Cell {
        Cell { row: row.to_owned(), engine: engine.to_owned(), verdict: verdict.to_owned() }
    }

    /// A campaign that meant to run no cell it has no verdict for.
    fn none(_: &str, _: &str) -> bool {
        false
    }

    fn recorded() -> Baseline {
        let cells = [
            cell("pipe/LifoPool", "shuttle-random", "caught as fifo-pool"),
            cell("pipe/LifoPool", "loom", "caught as fifo-pool"),
            cell("pipe/RelaxedPublish", "loom", "caught as no-data-race"),
            cell("pipe/SlowBug", "shuttle-pct", "escaped"),
        ];
        parse(&to_text(&cells, &budget(100)), Path::new("kill-matrix.baseline")).unwrap()
    }

    #[test]
    fn a_baseline_reads_back_what_was_written() {
        assert_eq!(recorded().cells.len(), 4);
        assert_eq!(recorded().iterations, 100);
    }

    #[test]
    fn a_lost_catch_fails_naming_the_cell() {
        let now = [
            cell("pipe/LifoPool", "shuttle-random", "escaped"),
            cell("pipe/LifoPool", "loom", "caught as fifo-pool"),
        ];
        let comparison = compare(&recorded(), &now, &budget(100), &none);
        assert!(!comparison.green());
        assert_eq!(
            comparison.changed,
            ["pipe/LifoPool under shuttle-random: was caught as fifo-pool, now escaped"]
        );
        let report = comparison.report(Path::new("kill-matrix.baseline"));
        assert!(report.starts_with("KILL MATRIX CHANGED"), "{report}");
    }

    #[test]
    fn not_run_here_where_the_engine_caught_it_fails() {
        let now = [cell("pipe/RelaxedPublish", "loom", "not run here")];
        let comparison = compare(&recorded(), &now, &budget(100), &none);
        assert_eq!(
            comparison.changed,
            ["pipe/RelaxedPublish under loom: was caught as no-data-race, now not run here"]
        );
    }

    #[test]
    fn a_new_catch_is_stale_at_the_same_budget_and_an_improvement_at_a_larger_one() {
        let now = [cell("pipe/SlowBug", "shuttle-pct", "caught as slow")];
        assert!(!compare(&recorded(), &now, &budget(100), &none).green());
        let larger = compare(&recorded(), &now, &budget(300), &none);
        assert!(larger.green());
        assert_eq!(larger.improved.len(), 1);
    }

    #[test]
    fn a_smaller_budget_or_another_seed_is_not_compared() {
        let now = [cell("pipe/LifoPool", "shuttle-random", "escaped")];
        assert!(compare(&recorded(), &now, &budget(50), &none).not_compared.is_some());
        let other_seed = Budget { seed: 2, ..budget(100) };
        assert!(compare(&recorded(), &now, &other_seed, &none).not_compared.is_some());
    }

    #[test]
    fn a_cell_not_in_the_baseline_fails_and_cells_not_run_are_skipped() {
        let now = [cell("pipe/NewBug", "loom", "caught as x")];
        assert_eq!(compare(&recorded(), &now, &budget(100), &none).changed.len(), 1);
        assert!(compare(&recorded(), &[], &budget(100), &none).green());
    }

    #[test]
    fn a_cell_the_plan_dropped_fails_and_a_not_run_here_without_a_line_does_not() {
        let shuttle_random = |_: &str, engine: &str| engine == "shuttle-random";
        let comparison = compare(&recorded(), &[], &budget(100), &shuttle_random);
        assert_eq!(
            comparison.changed,
            ["pipe/LifoPool under shuttle-random: was caught as fifo-pool, now not planned"]
        );
        let weak = [cell("pipe/Unlisted", "shuttle-pct", "not run here")];
        assert!(compare(&recorded(), &weak, &budget(100), &none).green());
    }

    #[test]
    fn a_corrupt_baseline_names_the_file_and_line() {
        let path = Path::new("kill-matrix.baseline");
        let text =
            format!("{FORMAT_LINE}\n# budget: iterations 100, seed 1, loom bound declared\npipe/X | loom\n");
        assert_eq!(
            parse(&text, path).unwrap_err(),
            "kill-matrix.baseline:3: expected `<target>/<fault> | <engine> | <verdict>`"
        );
        assert!(
            parse("hello", path)
                .unwrap_err()
                .starts_with("kill-matrix.baseline:1: not a kill-matrix baseline")
        );
    }
}
