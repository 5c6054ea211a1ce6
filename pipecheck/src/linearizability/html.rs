//! A picture of a checked history: one self-contained HTML page (inline CSS and
//! JavaScript, no network), in the spirit of porcupine's visualization.
//!
//! The page draws each thread's operations on a time axis (stamps ranked, so a long
//! quiet gap takes no room; thread names stay in view while it scrolls), colours the
//! longest linearizable prefix and the operation that could not follow it (scrolled
//! into view), draws the linearization as points inside the operations joined in order
//! (the failing step in red), shows on hover each operation's state before and after
//! ([`SequentialModel::describe_state`]) and its metadata, marks operations that never
//! returned as unknown outcomes, draws the history's [`Annotation`](super::Annotation)s,
//! and lists the dead ends: for each operation, the longest partial linearization that
//! ended with it and could not be extended; clicking one draws it. Labels are cut to
//! their bars, so none covers another.

use std::fmt::Write as _;
use std::path::Path;

use super::history::{History, OpId, PendingPolicy};
use super::model::SequentialModel;
use super::outcome::Linearization;
use super::partition::partitions;
use super::replay::replay;
use super::stats::CheckReport;

/// The colour of the operation that could not be placed (tests look for it in
/// screenshots).
pub const UNPLACED_COLOR: &str = "#d62728";

/// The page for `history`, checked against `model` with the result `report`.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::{Budget, History, SequentialModel, check_report, html};
///
/// #[derive(Debug)]
/// struct Constant;
/// impl SequentialModel for Constant {
///     type State = ();
///     type Input = &'static str;
///     type Output = u32;
///     fn init(&self) {}
///     fn step(&self, _: &(), _: &&'static str, seen: &u32) -> Option<()> { (*seen == 7).then_some(()) }
/// }
///
/// let mut history = History::new();
/// history.complete(0, "get", 8, 0, 1);
/// let report = check_report(&Constant, &history, Budget::default()).unwrap();
/// let page = html::render(&Constant, &history, &report);
/// assert!(page.starts_with("<!DOCTYPE html>"));
/// assert!(page.contains("\"unplaced\":0"));
/// ```
pub fn render<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    report: &CheckReport,
) -> String {
    let mut stamps: Vec<u64> =
        history.ops().iter().flat_map(|op| [Some(op.invoked), op.responded]).flatten().collect();
    stamps.extend(history.annotations().iter().flat_map(|note| [note.start, note.end]));
    stamps.sort_unstable();
    stamps.dedup();
    let rank = |stamp: u64| stamps.partition_point(|&s| s < stamp);
    let threads: Vec<usize> = history.by_thread().into_iter().map(|(thread, _)| thread).collect();
    let partition_of = partition_of(model, history);
    let (order, rejected) = match &report.verdict {
        Linearization::Linearizable(order) => (&order[..], None),
        Linearization::NonLinearizable(failure) => (&failure.longest_prefix[..], Some(failure.unplaced)),
        Linearization::Unknown { .. } => (&[][..], None),
    };
    let mut states = vec![None; history.len()];
    for around in replay(model, history, &partition_of, order, rejected) {
        states[around.op.0] = Some((around.before, around.after));
    }
    let mut data = String::from("{\"ops\":[");
    for (index, op) in history.ops().iter().enumerate() {
        if index > 0 {
            data.push(',');
        }
        let row = threads.iter().position(|thread| *thread == op.thread).unwrap_or(0);
        let end = op.responded.map_or("null".to_owned(), |stamp| rank(stamp).to_string());
        // An operation that did not return has no outcome, whatever it would have said.
        let shown = if op.is_complete() { op.output.as_ref() } else { None };
        let unknown =
            !op.is_complete() && history.pending_policy(OpId(index)) == PendingPolicy::MayHaveTakenEffect;
        let _ = write!(
            data,
            "{{\"id\":{index},\"row\":{row},\"thread\":{},\"label\":{},\"start\":{},\"end\":{end},\"part\":{},\"unknown\":{unknown},\"meta\":{},\"before\":{},\"after\":{}}}",
            op.thread,
            json_string(&model.describe(&op.input, shown)),
            rank(op.invoked),
            partition_of[index].map_or("null".to_owned(), |part| part.to_string()),
            history.metadata(OpId(index)).map_or("null".to_owned(), json_string),
            states[index].as_ref().map_or("null".to_owned(), |(before, _)| json_string(before)),
            states[index].as_ref().map_or("null".to_owned(), |(_, after)| json_string(after)),
        );
    }
    data.push_str("],\"notes\":[");
    for (index, note) in history.annotations().iter().enumerate() {
        if index > 0 {
            data.push(',');
        }
        let _ = write!(
            data,
            "{{\"row\":{},\"start\":{},\"end\":{},\"label\":{},\"details\":{},\"background\":{}}}",
            json_string(&note.row()),
            rank(note.start),
            rank(note.end),
            json_string(&note.description),
            json_string(&note.details),
            note.background.as_deref().map_or("null".to_owned(), json_string),
        );
    }
    let _ = write!(data, "],\"threads\":{},\"width\":{}", json_ids(threads.iter().copied()), stamps.len());
    let (verdict, focus, prefix, unplaced, order) = match &report.verdict {
        Linearization::Linearizable(order) => ("linearizable".to_owned(), None, &[][..], None, &order[..]),
        Linearization::NonLinearizable(failure) => (
            format!("not linearizable (partition {}, key {})", failure.partition, failure.key),
            Some(failure.partition),
            &failure.longest_prefix[..],
            Some(failure.unplaced),
            &[][..],
        ),
        Linearization::Unknown { why, states } => (
            format!("unknown: budget exhausted ({why:?}) after {states} states"),
            None,
            &[][..],
            None,
            &[][..],
        ),
    };
    let _ = write!(
        data,
        ",\"verdict\":{},\"focus\":{},\"prefix\":{},\"unplaced\":{},\"order\":{},\"deadEnds\":[",
        json_string(&verdict),
        focus.map_or("null".to_owned(), |part| part.to_string()),
        json_ids(prefix.iter().map(|id| id.0)),
        unplaced.map_or("null".to_owned(), |id| id.0.to_string()),
        json_ids(order.iter().map(|id| id.0)),
    );
    for (index, dead_end) in report.dead_ends.iter().take(200).enumerate() {
        if index > 0 {
            data.push(',');
        }
        data.push_str(&json_ids(dead_end.iter().map(|id| id.0)));
    }
    data.push_str("],\"partitions\":[");
    for (index, part) in report.partitions.iter().enumerate() {
        if index > 0 {
            data.push(',');
        }
        let _ = write!(
            data,
            "{{\"key\":{},\"ops\":{},\"states\":{},\"hits\":{},\"ms\":{:.3},\"verdict\":\"{:?}\"}}",
            json_string(&part.key),
            part.ops,
            part.states,
            part.cache_hits,
            part.elapsed.as_secs_f64() * 1e3,
            part.verdict
        );
    }
    let _ = write!(data, "],\"elapsedMs\":{:.3}}}", report.elapsed.as_secs_f64() * 1e3);
    PAGE.replace("/*DATA*/null", &data.replace("</", "<\\/")).replace("UNPLACED_COLOR", UNPLACED_COLOR)
}

/// Writes [`render`]'s page to `path`.
///
/// # Errors
///
/// The I/O error if the file cannot be written.
pub fn write_html<M: SequentialModel>(
    path: &Path,
    model: &M,
    history: &History<M::Input, M::Output>,
    report: &CheckReport,
) -> std::io::Result<()> {
    std::fs::write(path, render(model, history, report))
}

/// Each operation's partition index (operations left out of every partition: `None`).
fn partition_of<M: SequentialModel>(model: &M, history: &History<M::Input, M::Output>) -> Vec<Option<usize>> {
    let mut parts = vec![None; history.len()];
    // A history whose partitions the check refused has no report to draw: no partitions.
    for (index, part) in partitions(model, history).unwrap_or_default().iter().enumerate() {
        for op in &part.ops {
            parts[op.id.0] = Some(index);
        }
    }
    parts
}

/// `[1,2,3]`.
fn json_ids(ids: impl Iterator<Item = usize>) -> String {
    let ids: Vec<String> = ids.map(|id| id.to_string()).collect();
    format!("[{}]", ids.join(","))
}

/// A JSON string literal.
fn json_string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        match c {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(quoted, "\\u{:04x}", c as u32);
            }
            c => quoted.push(c),
        }
    }
    quoted.push('"');
    quoted
}

/// The page; `/*DATA*/null` is replaced by the history's JSON.
const PAGE: &str = include_str!("html_page.html");
