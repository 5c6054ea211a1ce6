//! The campaign's checker section: the linearizability checker's verdicts on the corpus
//! of histories whose verdicts are known
//! ([`Corpus::builtin`](crate::linearizability::corpus::Corpus::builtin)),
//! run every time beside the kill matrix. A flipped entry fails the campaign: a checker
//! grown more lenient would pass every `linearizable` cell of the summary unseen, and
//! one grown stricter would fail them for no bug of the target. `--fault` may name a
//! planted checker bug ([`faults::ALL`]), run against the corpus instead of the
//! targets' scenarios: its flips fail the campaign, showing the section can fail.

use std::fmt::Write as _;
use std::time::Instant;

use crate::linearizability::corpus::{Corpus, CorpusResult};
use crate::linearizability::faults;
use pipecheck_sync::PlantedFault;
use serde::Serialize;

use crate::campaign::report::table_with;

/// One entry's row: its expected verdict and the checker's.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Row {
    pub(crate) entry: String,
    pub(crate) line: usize,
    pub(crate) expected: String,
    pub(crate) actual: String,
    pub(crate) flipped: bool,
}

impl From<CorpusResult> for Row {
    fn from(result: CorpusResult) -> Row {
        Row {
            flipped: result.flipped(),
            entry: result.name,
            line: result.line,
            expected: result.expected.to_string(),
            actual: result.found.to_string(),
        }
    }
}

/// The checker section of one campaign: the corpus checked with no planted checker bug,
/// or with the one `--fault` named.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Section {
    /// The corpus file.
    pub(crate) file: String,
    /// The planted checker bug switched on, if any.
    pub(crate) fault: Option<String>,
    pub(crate) rows: Vec<Row>,
    /// The corpus could not be read: the file, line and reason.
    pub(crate) error: Option<String>,
    pub(crate) seconds: f64,
}

/// The planted checker bugs `--fault` may name.
pub(crate) fn fault_names() -> impl Iterator<Item = &'static str> {
    faults::ALL.iter().map(|f| f.name())
}

/// The planted checker bug called `name` (any case).
pub(crate) fn fault(name: &str) -> Option<&'static PlantedFault> {
    faults::ALL.iter().copied().find(|f| f.name().eq_ignore_ascii_case(name))
}

/// Checks the built-in corpus with `fault` (if any) switched on.
pub(crate) fn run(fault: Option<&'static PlantedFault>) -> Section {
    let started = Instant::now();
    let (file, rows, error) = match Corpus::builtin() {
        Ok(corpus) => {
            let results = PlantedFault::activate_opt(fault, || corpus.check());
            (corpus.file().to_owned(), results.into_iter().map(Row::from).collect(), None)
        }
        Err(e) => (e.file.clone(), Vec::new(), Some(e.to_string())),
    };
    Section {
        file,
        fault: fault.map(|f| f.name().to_owned()),
        rows,
        error,
        seconds: started.elapsed().as_secs_f64(),
    }
}

impl Section {
    /// Whether every entry got its expected verdict (and the corpus could be read).
    pub(crate) fn green(&self) -> bool {
        self.error.is_none() && self.rows.iter().all(|row| !row.flipped)
    }

    /// The entries whose verdict flipped.
    pub(crate) fn flipped(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|row| row.flipped)
    }

    /// The section as printed: a heading, the table, and for a flip or an unreadable
    /// corpus, what failed.
    pub(crate) fn report(&self) -> String {
        let with = self.fault.as_deref().map_or(String::new(), |f| format!(", planted checker bug {f} on"));
        let mut out = format!(
            "Linearizability checker corpus ({}{with}): each history's known verdict against the checker's\n\n",
            self.file
        );
        if let Some(error) = &self.error {
            let _ = writeln!(out, "CHECKER CORPUS UNREADABLE: {error}");
            return out;
        }
        let rows: Vec<(String, Vec<String>)> = self
            .rows
            .iter()
            .map(|row| {
                let verdict = if row.flipped { "FLIPPED" } else { "ok" };
                (row.entry.clone(), vec![row.expected.clone(), row.actual.clone(), verdict.to_owned()])
            })
            .collect();
        let headers = ["expected", "actual", "result"].map(str::to_owned);
        out.push_str(&table_with("corpus entry", &rows, &headers));
        let flipped: Vec<&Row> = self.flipped().collect();
        let _ = write!(out, "\n{} entries, {} flipped, {:.2}s", self.rows.len(), flipped.len(), self.seconds);
        if !flipped.is_empty() {
            let names: Vec<String> = flipped
                .iter()
                .map(|row| format!("{} (line {}: {} → {})", row.entry, row.line, row.expected, row.actual))
                .collect();
            let cause = self.fault.as_deref().map_or("the checker's verdicts changed".to_owned(), |f| {
                format!("caused by planted checker bug {f}")
            });
            let _ = write!(out, "\n\nCHECKER CORPUS FLIPPED ({cause}): {}", names.join(", "));
        }
        out.push('\n');
        out
    }
}

#[cfg(all(test, not(any(feature = "loom", feature = "shuttle"))))]
mod tests {
    use super::*;

    #[test]
    fn the_clean_corpus_is_green_and_each_checker_fault_fails_it() {
        let clean = run(None);
        assert!(clean.green(), "{}", clean.report());
        assert!(!clean.report().contains("FLIPPED"));
        for name in fault_names() {
            let section = run(fault(name));
            assert!(!section.green(), "{name} flipped nothing");
            let report = section.report();
            assert!(
                report.contains(&format!("CHECKER CORPUS FLIPPED (caused by planted checker bug {name})")),
                "{report}"
            );
        }
    }
}
