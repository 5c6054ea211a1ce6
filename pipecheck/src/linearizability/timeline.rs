//! The failure as people read it: a per-thread timeline of the history (Lincheck's
//! interleaving table, porcupine's visualization in text), then the longest
//! linearizable prefix and the operation that could not follow it.

use std::fmt::Write as _;

use super::history::{History, OpId, Precedence};
use super::model::SequentialModel;
use super::outcome::NonLinearizable;

/// The history as a table: one column per thread, one row per operation in invocation
/// order, each cell the operation, its result and its `[invoked, responded]` span.
/// Operations of `prefix` carry their place in it (`L1`, `L2`, …), `unplaced` a `✗`.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::{History, SequentialModel, timeline};
///
/// #[derive(Debug)]
/// struct Anything;
/// impl SequentialModel for Anything {
///     type State = ();
///     type Input = &'static str;
///     type Output = u32;
///     fn init(&self) {}
///     fn step(&self, _: &(), _: &&'static str, _: &u32) -> Option<()> { Some(()) }
/// }
///
/// let mut history = History::new();
/// history.complete(0, "write", 0, 0, 10);
/// history.pending(1, "read", 5);
/// let table = timeline(&Anything, &history, &[], None);
/// assert!(table.contains("\"write\" -> 0 [0, 10]"));
/// assert!(table.contains("\"read\" -> (pending) [5, …]"));
/// ```
pub fn timeline<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    prefix: &[OpId],
    unplaced: Option<OpId>,
) -> String {
    let threads: Vec<usize> = history.by_thread().into_iter().map(|(thread, _)| thread).collect();
    let mut rows: Vec<OpId> = (0..history.len()).map(OpId).collect();
    rows.sort_by_key(|id| (history.get(*id).invoked, id.0));
    let cells: Vec<(usize, String)> = rows
        .iter()
        .map(|&id| {
            let op = history.get(id);
            let span = match op.responded {
                Some(responded) => format!("[{}, {responded}]", op.invoked),
                None => format!("[{}, …]", op.invoked),
            };
            let mut cell = format!("{id} {} {span}", model.describe(&op.input, op.output.as_ref()));
            if let Some(place) = prefix.iter().position(|placed| *placed == id) {
                let _ = write!(cell, " L{}", place + 1);
            }
            if unplaced == Some(id) {
                cell.push_str(" ✗");
            }
            let column = threads.iter().position(|thread| *thread == op.thread).unwrap_or(0);
            (column, cell)
        })
        .collect();
    let width = cells.iter().map(|(_, cell)| cell.chars().count()).max().unwrap_or(0).max(10);
    let mut table = String::new();
    let header: Vec<String> =
        threads.iter().map(|thread| format!("{:width$}", format!("thread {thread}"))).collect();
    let _ = writeln!(table, "| {} |", header.join(" | "));
    let _ = writeln!(table, "|{}|", vec!["-".repeat(width + 2); threads.len()].join("|"));
    for (column, cell) in cells {
        let row: Vec<String> = (0..threads.len())
            .map(|at| if at == column { format!("{cell:width$}") } else { " ".repeat(width) })
            .collect();
        let _ = writeln!(table, "| {} |", row.join(" | "));
    }
    table
}

/// The whole explanation of a non-linearizable history: the timeline, the longest
/// linearizable prefix in order, and the operation that could not be placed after it.
/// Under causal precedence (loom's histories) it says that the stamps carry no order,
/// and lists the edges between threads that do.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::{Budget, History, Linearization, SequentialModel, check, explain};
///
/// #[derive(Debug)]
/// struct Counter; // `increment` returns the value before it
/// impl SequentialModel for Counter {
///     type State = u32;
///     type Input = ();
///     type Output = u32;
///     fn init(&self) -> u32 { 0 }
///     fn step(&self, n: &u32, _: &(), seen: &u32) -> Option<u32> { (seen == n).then_some(n + 1) }
/// }
///
/// let mut history = History::causal();
/// let first = history.complete(0, (), 1, 0, 1);
/// let second = history.complete(1, (), 0, 0, 1);
/// history.order(first, second);
/// let Linearization::NonLinearizable(failure) = check(&Counter, &history, Budget::default()).unwrap() else {
///     unreachable!()
/// };
/// let text = explain(&Counter, &history, &failure);
/// assert!(text.contains("the [invoked, responded] stamps are drawn only"), "{text}");
/// assert!(text.contains("#0 → #1"), "{text}");
/// ```
pub fn explain<M: SequentialModel>(
    model: &M,
    history: &History<M::Input, M::Output>,
    failure: &NonLinearizable,
) -> String {
    let mut text = timeline(model, history, &failure.longest_prefix, Some(failure.unplaced));
    if history.precedence() == Precedence::Causal {
        let edges: Vec<String> = history
            .edges()
            .iter()
            .filter(|(a, b)| history.get(*a).thread != history.get(*b).thread)
            .map(|(a, b)| format!("{a} → {b}"))
            .collect();
        let _ = writeln!(
            text,
            "the [invoked, responded] stamps are drawn only: this history's order is causal (each thread's program \
             order, and happens-before edges between threads: {}), not real time",
            if edges.is_empty() { "none".to_owned() } else { edges.join(", ") }
        );
    }
    let describe = |id: OpId| {
        let op = history.get(id);
        format!("{id} {}", model.describe(&op.input, op.output.as_ref()))
    };
    let prefix: Vec<String> = failure.longest_prefix.iter().map(|id| describe(*id)).collect();
    let _ = writeln!(
        text,
        "longest linearizable prefix (partition {}): {}",
        failure.partition,
        if prefix.is_empty() { "(empty)".to_owned() } else { prefix.join(", ") }
    );
    let _ = write!(
        text,
        "could not place: {} (thread {}), nor any operation that must precede it",
        describe(failure.unplaced),
        history.get(failure.unplaced).thread
    );
    text
}
