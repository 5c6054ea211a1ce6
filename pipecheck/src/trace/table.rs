//! The failing execution as a per-task table, in the spirit of lincheck's interleaving
//! tables: one column per shuttle task that has a row, one row per observation in the
//! order the monitor logged it, the sync facade's own operations (atomics, locks,
//! cells, spawn and join: `pipecheck::record`) between them in the
//! order they happened, and the broken invariant as the last row.
//!
//! Each log entry belongs to the task that was running when it was logged: the task
//! chosen at the last scheduling decision before it; a facade operation names its task
//! itself. The table fits [`DEFAULT_WIDTH`] characters: cells are cut (`…`), and when
//! the threads would not fit one column each, threads that never run at once share a
//! column (each cell then starts with its task number, and a legend says which).

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::check::{FailureKind, Row, first_line};

use crate::trace::replay::Replayed;

/// The task that logged each entry.
fn owners(log: &[Row], marks: &[(usize, usize)]) -> Vec<usize> {
    let mut owners = Vec::with_capacity(log.len());
    let mut mark = 0;
    let mut task = marks.first().map_or(0, |m| m.1);
    for i in 0..log.len() {
        while mark < marks.len() && marks[mark].0 <= i {
            task = marks[mark].1;
            mark += 1;
        }
        owners.push(task);
    }
    owners
}

/// The interleaving by scheduling step, for scenarios that log no observations (the
/// seed primitives check their invariants themselves): one row per run of one task.
fn render_steps(replayed: &Replayed) -> String {
    let mut out = String::from("  (this scenario logs no events; the interleaving by scheduling step:)\n");
    let mut start = 0;
    for (i, mark) in replayed.marks.iter().enumerate() {
        let ends = replayed.marks.get(i + 1).is_none_or(|next| next.1 != mark.1);
        if ends {
            let column = " ".repeat(mark.1.min(8) * 12);
            let _ = writeln!(out, "  steps {:>4}-{:<4} {column}task {}", start + 1, i + 1, mark.1);
            start = i + 1;
        }
    }
    out
}

/// `message` (shuttle's deadlock report, `blocked tasks: [<unknown> (task TaskId(1),
/// pending future), main-thread (task main-thread(0))]`) with every task named as in
/// the table: `label(n)` is what to call task `n` (e.g. `task 1 (writer)`).
fn name_tasks(message: &str, label: impl Fn(usize) -> String) -> String {
    const LIST: &str = "blocked tasks: [";
    let Some(open) = message.find(LIST).map(|i| i + LIST.len()) else { return message.to_owned() };
    let Some(close) = message.rfind(']').filter(|&c| c >= open) else { return message.to_owned() };
    // Split the list at the commas outside parentheses.
    let (mut entries, mut depth, mut from) = (Vec::new(), 0usize, open);
    for (i, c) in message[open..close].char_indices().map(|(i, c)| (i + open, c)) {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                entries.push(message[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
    }
    entries.push(message[from..close].trim());
    let renamed: Vec<String> = entries
        .iter()
        .map(|entry| {
            // `NAME (task ID(N)REST)`: keep REST (", pending future", ", detached").
            let parsed = entry.split_once(" (task ").and_then(|(_, tail)| {
                let (_, after) = tail.split_once('(')?;
                let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
                let rest = after[digits.len()..].strip_prefix(')')?.strip_suffix(')')?;
                Some((digits.parse::<usize>().ok()?, rest.to_owned()))
            });
            match parsed {
                Some((task, rest)) => {
                    let (name, rest) = (label(task), rest.trim_start_matches(", "));
                    match name.strip_suffix(')') {
                        _ if rest.is_empty() => name,
                        Some(open) => format!("{open}; {rest})"),
                        None => format!("{name} ({rest})"),
                    }
                }
                None => (*entry).to_owned(),
            }
        })
        .collect();
    format!("{}{}{}", &message[..open], renamed.join(", "), &message[close..])
}

/// The widest a table line is by default, in characters.
pub const DEFAULT_WIDTH: usize = 120;

/// The narrowest a column gets before threads share columns.
const MIN_CELL: usize = 16;

/// How a replay table is drawn.
///
/// # Examples
///
/// ```
/// use pipecheck::trace::table::{DEFAULT_WIDTH, TableOptions};
///
/// let options = TableOptions { last: Some(20), ..TableOptions::default() };
/// assert_eq!(options.width, Some(DEFAULT_WIDTH));
/// assert!(options.target_events && options.facade);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableOptions {
    /// Only the last this many rows.
    pub last: Option<usize>,
    /// The widest a line of the table may be ([`DEFAULT_WIDTH`]); `None`: one column per
    /// thread, each as wide as its cells.
    pub width: Option<usize>,
    /// Show the target's own events.
    pub target_events: bool,
    /// Show the facade's operations the replay recorded ([`Replayed::facade`]).
    pub facade: bool,
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions { last: None, width: Some(DEFAULT_WIDTH), target_events: true, facade: true }
    }
}

/// One row of the table: a target event or a facade operation, by one thread.
struct Line {
    task: usize,
    /// The log position of a target event (`None`: a facade operation).
    step: Option<usize>,
    marker: &'static str,
    text: String,
}

/// The target's events and the facade's operations of `replayed`, in execution order.
fn lines(replayed: &Replayed, options: &TableOptions) -> Vec<Line> {
    let owners = owners(&replayed.log, &replayed.marks);
    let broke_at = replayed.failure.as_ref().and_then(|f| f.step);
    let mut lines = Vec::new();
    let mut ops = replayed.facade.iter().peekable();
    let mut push_ops = |lines: &mut Vec<Line>, upto: Option<usize>| {
        while let Some(op) = ops.next_if(|op| upto.is_none_or(|i| op.anchor <= i)) {
            if options.facade {
                let after = broke_at.is_some_and(|at| op.anchor > at);
                let marker = if after { "…" } else { " " };
                lines.push(Line { task: op.thread, step: None, marker, text: op.to_string() });
            }
        }
    };
    for (i, (entry, &task)) in replayed.log.iter().zip(&owners).enumerate() {
        push_ops(&mut lines, Some(i));
        if options.target_events {
            let marker = match broke_at {
                Some(at) if entry.step == at => "✗",
                Some(at) if entry.step > at => "…",
                _ => " ",
            };
            lines.push(Line { task, step: Some(entry.step), marker, text: entry.text.clone() });
        }
    }
    push_ops(&mut lines, None);
    lines
}

/// A column: the threads it shows (more than one only when they would not fit one
/// column each), and its cell width.
struct Lane {
    tasks: Vec<usize>,
    width: usize,
}

/// The columns for `lines` within `width`: one per thread while each gets at least
/// [`MIN_CELL`] characters; else threads that never run at once share a column, and
/// if that is still too many, the last column takes every thread left.
fn lanes(lines: &[Line], headers: &BTreeMap<usize, String>, width: Option<usize>) -> Vec<Lane> {
    let mut span: BTreeMap<usize, (usize, usize, usize)> = BTreeMap::new(); // first, last, widest
    for (i, line) in lines.iter().enumerate() {
        let entry = span.entry(line.task).or_insert((i, i, headers[&line.task].chars().count()));
        entry.1 = i;
        entry.2 = entry.2.max(line.text.chars().count());
    }
    let widest = |tasks: &[usize], shared: bool| {
        let prefix = if shared { 4 } else { 0 };
        tasks.iter().map(|t| span[t].2 + prefix).max().unwrap_or(0)
    };
    let alone: Vec<Vec<usize>> = span.keys().map(|&t| vec![t]).collect();
    let Some(width) = width else {
        return alone.into_iter().map(|tasks| Lane { width: widest(&tasks, false), tasks }).collect();
    };
    // "✗ 103 |" then " cell |" per column.
    let room = |n: usize| (width.saturating_sub(7) / n.max(1)).saturating_sub(3);
    let mut groups = alone;
    if room(groups.len()) < MIN_CELL {
        // Interval packing: each thread into the first column free since its last row.
        let mut by_start: Vec<(usize, usize, usize)> =
            span.iter().map(|(&t, &(a, b, _))| (a, b, t)).collect();
        by_start.sort_unstable();
        let mut packed: Vec<(usize, Vec<usize>)> = Vec::new();
        for (first, last, task) in by_start {
            match packed.iter_mut().find(|(end, _)| *end < first) {
                Some((end, tasks)) => {
                    *end = last;
                    tasks.push(task);
                }
                None => packed.push((last, vec![task])),
            }
        }
        groups = packed.into_iter().map(|(_, mut tasks)| (tasks.sort_unstable(), tasks).1).collect();
        groups.sort_unstable();
    }
    let fit = (width.saturating_sub(7) / (MIN_CELL + 3)).max(1);
    if groups.len() > fit {
        let rest: Vec<usize> = groups.drain(fit - 1..).flatten().collect();
        groups.push(rest);
    }
    let cell = room(groups.len()).max(4);
    groups.into_iter().map(|tasks| Lane { width: widest(&tasks, tasks.len() > 1).min(cell), tasks }).collect()
}

fn fit_to(text: &str, width: usize) -> String {
    if text.chars().count() > width {
        let cut: String = text.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    } else {
        text.to_owned()
    }
}

/// The table of `replayed`, its last `last` rows if given, at most [`DEFAULT_WIDTH`]
/// characters wide, with the facade's recorded operations: [`render_with`] and the
/// default [`TableOptions`].
pub fn render(replayed: &Replayed, last: Option<usize>) -> String {
    render_with(replayed, &TableOptions { last, ..TableOptions::default() })
}

/// The table of `replayed`: one column per thread of the failing execution that has a
/// row in it (threads share columns when they would not fit, with a legend), one row
/// per target event or facade operation in the order they happened, the broken
/// invariant last.
pub fn render_with(replayed: &Replayed, options: &TableOptions) -> String {
    let shows_ops = options.facade && !replayed.facade.is_empty();
    if replayed.log.is_empty() && !shows_ops {
        let mut out = render_steps(replayed);
        if let Some(failure) = &replayed.failure {
            let message = failure.message();
            let what = name_tasks(first_line(&message), |t| format!("task {t}"));
            let _ = writeln!(out, "  ✗ `{}` broke: {what}", failure.invariant);
        }
        return out;
    }
    let owners = owners(&replayed.log, &replayed.marks);
    // Every task is named by the side it acted for most.
    let mut roles: BTreeMap<usize, BTreeMap<String, usize>> = BTreeMap::new();
    for (entry, &task) in replayed.log.iter().zip(&owners) {
        let role = entry.role.clone();
        *roles.entry(task).or_default().entry(role.unwrap_or_default()).or_default() += 1;
    }
    let label = |t: usize| {
        let role = roles.get(&t).and_then(|r| {
            r.iter().filter(|(r, _)| !r.is_empty()).max_by_key(|(_, n)| **n).map(|(r, _)| r.clone())
        });
        match (t, role) {
            (_, Some(role)) => format!("task {t} ({role})"),
            (0, None) => "task 0 (main)".to_owned(),
            (_, None) => format!("task {t}"),
        }
    };
    let all = lines(replayed, options);
    let from = options.last.map_or(0, |n| all.len().saturating_sub(n));
    let shown = &all[from..];
    let headers: BTreeMap<usize, String> = shown.iter().map(|l| (l.task, label(l.task))).collect();
    let lanes = lanes(shown, &headers, options.width);
    let lane_of: BTreeMap<usize, usize> =
        lanes.iter().enumerate().flat_map(|(i, lane)| lane.tasks.iter().map(move |&t| (t, i))).collect();
    let mut out = String::new();
    let rule = format!(
        "------+{}",
        lanes.iter().map(|lane| "-".repeat(lane.width + 2)).collect::<Vec<_>>().join("+")
    );
    let _ = write!(out, "  log |");
    for lane in &lanes {
        let title = match lane.tasks.as_slice() {
            [task] => headers[task].clone(),
            tasks => format!("tasks {}", tasks.iter().map(usize::to_string).collect::<Vec<_>>().join(",")),
        };
        let _ = write!(out, " {:<w$} |", fit_to(&title, lane.width), w = lane.width);
    }
    out.push('\n');
    out.push_str(&rule);
    out.push('\n');
    if from > 0 {
        let _ = writeln!(out, "  ... | ({from} earlier rows not shown)");
    }
    for line in shown {
        let step = line.step.map_or_else(String::new, |s| s.to_string());
        let _ = write!(out, "{}{step:>4} |", line.marker);
        let lane = lane_of[&line.task];
        for (i, column) in lanes.iter().enumerate() {
            let cell = match i == lane {
                true if column.tasks.len() > 1 => {
                    fit_to(&format!("{}: {}", line.task, line.text), column.width)
                }
                true => fit_to(&line.text, column.width),
                false => String::new(),
            };
            let _ = write!(out, " {cell:<w$} |", w = column.width);
        }
        out.push('\n');
    }
    out.push_str(&rule);
    out.push('\n');
    for lane in lanes.iter().filter(|lane| lane.tasks.len() > 1) {
        let names: Vec<String> = lane.tasks.iter().map(|t| headers[t].clone()).collect();
        let legend = format!("  (one column for {}; each cell starts with its task)", names.join(", "));
        for chunk in wrap(&legend, options.width.unwrap_or(usize::MAX)) {
            let _ = writeln!(out, "{chunk}");
        }
    }
    if shows_ops {
        let _ = writeln!(
            out,
            "  (rows without a log number are the sync facade's own operations, `op ordering value @file:line`)"
        );
    }
    let broke_at = replayed.failure.as_ref().and_then(|f| f.step);
    if broke_at.is_some_and(|at| at + 1 < replayed.log.len()) {
        let _ = writeln!(
            out,
            "  (✗ marks the observation that broke the invariant; … rows were logged while unwinding)"
        );
    }
    if let Some(failure) = &replayed.failure {
        let message = failure.message();
        let what = name_tasks(first_line(&message), |t| headers.get(&t).cloned().unwrap_or_else(|| label(t)));
        let _ = writeln!(out, "  ✗ `{}` broke: {what}", failure.invariant);
        if matches!(failure.kind, FailureKind::Deadlock { .. }) {
            let _ = writeln!(out, "    every task is blocked and none can be woken: a wakeup was lost");
        }
    }
    out
}

/// `text` cut at spaces into lines of at most `width` characters (a longer word stays whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let last = lines.last_mut().expect("never empty");
        if !last.is_empty() && last.chars().count() + 1 + word.chars().count() > width {
            lines.push(format!("    {word}"));
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use std::panic::Location;

    use crate::check::Row;
    use pipecheck_sync::record::{FacadeOp, OpKind, Value};

    use super::{DEFAULT_WIDTH, TableOptions, name_tasks, render, render_with};
    use crate::trace::replay::Replayed;
    use crate::trace::trace_file::Size;

    /// `threads` tasks, one after the other, each loading, logging one event, loading.
    fn many_threads(threads: usize) -> Replayed {
        let (mut log, mut marks, mut facade) = (Vec::new(), Vec::new(), Vec::new());
        for task in 0..threads {
            let step = log.len();
            marks.push((step, task));
            log.push(Row {
                step,
                role: Some(format!("thread {task}")),
                text: format!("(Push({task}), Pushed)"),
            });
            for anchor in [step, step + 1] {
                let kind = OpKind::Load { value: Value::Int(task as u64) };
                let order = Some(std::sync::atomic::Ordering::Acquire);
                facade.push(FacadeOp { thread: task, kind, order, location: Location::caller(), anchor });
            }
        }
        Replayed { failure: None, size: Size { preemptions: 0, steps: threads }, log, marks, facade }
    }

    #[test]
    fn a_many_thread_table_fits_the_default_width_and_full_width_has_a_column_each() {
        let replayed = many_threads(22);
        let table = render(&replayed, None);
        let widest = table.lines().filter(|l| l.contains('|')).map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= DEFAULT_WIDTH, "{widest} wide:\n{table}");
        assert!(
            table.contains("(Push(21), Pushed)") && table.contains("load Acq → 21 @table.rs:"),
            "{table}"
        );
        assert!(table.contains("(one column for "), "a legend names the threads sharing a column:\n{table}");
        let full = render_with(&replayed, &TableOptions { width: None, ..TableOptions::default() });
        assert_eq!(full.lines().next().unwrap().matches("task ").count(), 22, "{full}");
    }

    #[test]
    fn threads_that_did_nothing_shown_have_no_column() {
        let replayed = many_threads(3);
        let table = render(&replayed, Some(2));
        assert_eq!(table.lines().next().unwrap().matches("task ").count(), 1, "{table}");
        let ops_only =
            render_with(&replayed, &TableOptions { target_events: false, ..TableOptions::default() });
        assert!(!ops_only.contains("Pushed") && ops_only.contains("load Acq → 2"), "{ops_only}");
    }

    #[test]
    fn deadlock_reports_name_every_task() {
        let message = "deadlock! blocked tasks: [main-thread (task main-thread(0)), <unknown> (task TaskId(1), \
                       pending future)]";
        let named = name_tasks(message, |t| ["task 0 (reader)", "task 1"][t].to_owned());
        assert_eq!(named, "deadlock! blocked tasks: [task 0 (reader), task 1 (pending future)]");
        assert!(!named.contains("<unknown>"));
    }
}
