//! [`ensure_linearizable`]: a history check as a `linearizable` [`Violation`], so that
//! engines, the verdict layer and the kill matrix see it like any invariant.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use pipecheck_sync::{InvariantId, Violation};

use super::check::{check_report, check_report_as};
use super::history::History;
use super::html;
use super::model::SequentialModel;
use super::outcome::{Budget, Linearization};
use super::overlap::Criterion;
use super::stats::CheckReport;
use super::timeline::explain;

/// The environment variable naming a directory where every failing history's HTML
/// picture is written (see [`html::render`]).
pub const HTML_DIR_VAR: &str = "PIPECHECK_LINEARIZABILITY_HTML";

/// Checks `history` against `model` and raises a [`InvariantId::LINEARIZABLE`]
/// violation, with the per-thread timeline, the longest linearizable prefix and the
/// unplaced operation, if it is not linearizable. When the model's
/// [relaxed answers](SequentialModel::step_while_overlapped) would explain a history its
/// strict check refuses, the violation names them (the check stays strict: wrap the
/// model in [`PendingAware`](super::PendingAware) to accept them). An exhausted budget is returned as
/// [`Linearization::Unknown`], never raised: not knowing is not a violation.
///
/// With the environment variable [`HTML_DIR_VAR`] (`PIPECHECK_LINEARIZABILITY_HTML`)
/// set to a directory, a failing history's HTML picture is written there and its path
/// ends the violation's text.
///
/// # Examples
///
/// ```
/// use pipecheck::{InvariantId, Violation};
/// use pipecheck::linearizability::{Budget, History, SequentialModel, ensure_linearizable};
///
/// #[derive(Debug)]
/// struct Constant;
/// impl SequentialModel for Constant {
///     type State = ();
///     type Input = ();
///     type Output = u32;
///     fn init(&self) {}
///     fn step(&self, _: &(), _: &(), seen: &u32) -> Option<()> { (*seen == 7).then_some(()) }
/// }
///
/// let mut history = History::new();
/// history.complete(0, (), 8, 0, 1);
/// let caught = std::panic::catch_unwind(|| ensure_linearizable(&Constant, &history, Budget::default()));
/// let violation = caught.unwrap_err().downcast::<Violation>().unwrap();
/// assert_eq!(violation.invariant, InvariantId::LINEARIZABLE);
/// ```
///
/// # Panics
///
/// With the violation, as its payload; with a plain message if the history is
/// malformed (a recording bug, not a finding).
#[track_caller]
pub fn ensure_linearizable<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    budget: Budget,
) -> Linearization {
    let report = check_report(model, history, budget)
        .unwrap_or_else(|malformed| panic!("malformed history: {malformed}"));
    match &report.verdict {
        Linearization::NonLinearizable(failure) => {
            let picture = html_picture(model, history, &report);
            let unplaced = history.get(failure.unplaced);
            // The first line stands alone in one-line reports; the timeline follows.
            let headline = format!(
                "no sequential order explains this history: {} {} (thread {}) fits after none of the orders of {} operations found",
                failure.unplaced,
                model.describe(&unplaced.input, unplaced.output.as_ref()),
                unplaced.thread,
                failure.longest_prefix.len()
            );
            let relaxed = relaxed_explanation(model, history, budget);
            Violation::new(
                InvariantId::LINEARIZABLE,
                format!("{headline}\n{relaxed}{}{picture}", explain(model, history, failure)),
            )
            .raise()
        }
        _ => report.verdict,
    }
}

/// For a strict model, the lines that name the relaxed answers which would explain
/// `history` (checked again under [`Criterion::PendingAware`]); empty when there are
/// none, or when they would not.
fn relaxed_explanation<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    budget: Budget,
) -> String {
    if model.criterion() != Criterion::Strict {
        return String::new();
    }
    let Ok(report) = check_report_as(model, history, budget, Criterion::PendingAware, false) else {
        return String::new();
    };
    if !report.verdict.is_linearizable() || report.relaxed.is_empty() {
        return String::new();
    }
    let answers: Vec<String> = report
        .relaxed
        .iter()
        .map(|relaxed| {
            let op = history.get(relaxed.op);
            format!("{} {} `{}`", relaxed.op, model.describe(&op.input, op.output.as_ref()), relaxed.answer)
        })
        .collect();
    format!(
        "relaxed answers the model allows while an overlapping operation is in flight would explain it: {} \
         (the check is strict; PendingAware(model) accepts them)\n",
        answers.join(", ")
    )
}

/// Writes the picture if [`HTML_DIR_VAR`] names a directory; the text that points to it.
fn html_picture<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    report: &CheckReport,
) -> String {
    static PICTURES: AtomicUsize = AtomicUsize::new(0);
    let Some(dir) = std::env::var_os(HTML_DIR_VAR).map(PathBuf::from) else { return String::new() };
    let number = PICTURES.fetch_add(1, Ordering::Relaxed);
    let path = dir.join(format!("linearizability-{}-{number}.html", std::process::id()));
    match std::fs::create_dir_all(&dir).and_then(|()| html::write_html(&path, model, history, report)) {
        Ok(()) => format!("\npicture: {}", path.display()),
        Err(error) => format!("\npicture not written to {}: {error}", path.display()),
    }
}
