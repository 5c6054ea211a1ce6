//! The failing execution as a per-task table, in the spirit of lincheck's interleaving
//! tables: one column per shuttle task, one row per observation in the order the
//! monitor logged it, and the broken invariant as the last row.
//!
//! Each log entry belongs to the task that was running when it was logged: the task
//! chosen at the last scheduling decision before it.

use std::collections::BTreeMap;
use std::fmt::Write;

use pipecheck_core::{PipeEnd, PipeEvent as E};
use pipecheck_properties::{Entry, FailureKind, Observation, first_line};

use crate::replay::Replayed;

const WIDTH: usize = 34;

/// What one observation says, in a few words.
pub fn describe(observation: &Observation) -> String {
    match observation {
        Observation::Pipe(event) => match event {
            E::SegmentCreated { segment, capacity } => format!("new segment #{segment} ({capacity} B)"),
            E::SegmentTaken { segment } => format!("take #{segment} from pool"),
            E::HeadReleased { segment } => format!("release head #{segment}"),
            E::SegmentReturned { segment } => format!("return #{segment} to pool"),
            E::SegmentDiscarded { segment } => format!("drop #{segment} (pool full)"),
            E::Flushed { committed, unconsumed, paused } => {
                format!(
                    "flush: commit {committed}, unread {unconsumed}{}",
                    if *paused { " PAUSE" } else { "" }
                )
            }
            E::FlushResumed { unconsumed } => format!("resumes the writer (unread {unconsumed})"),
            E::Consumed { consumed, examined, .. } => format!("advance_to({consumed}, {examined})"),
            E::WriterCompleted { committed, failed } => {
                format!("writer complete at {committed}{}", if *failed { " (failed)" } else { "" })
            }
            E::ReaderCompleted { failed } => {
                format!("reader complete{}", if *failed { " (failed)" } else { "" })
            }
            E::ReadReturned { start, end, completed, canceled } => format!(
                "read -> [{start}, {end}){}{}",
                if *completed { " done" } else { "" },
                if *canceled { " canceled" } else { "" }
            ),
            E::ReadCanceled => "cancel_pending_read".to_owned(),
            E::FlushCanceled => "cancel_pending_flush".to_owned(),
            E::FlushReturned { completed, canceled } => format!(
                "flush -> ready{}{}",
                if *completed { " done" } else { "" },
                if *canceled { " canceled" } else { "" }
            ),
            E::WakerRegistered { end: PipeEnd::Reader } => "read pending: waker registered".to_owned(),
            E::WakerRegistered { end: PipeEnd::Writer } => "flush paused: waker registered".to_owned(),
            E::Woke { end: PipeEnd::Reader } => "wakes the reader".to_owned(),
            E::Woke { end: PipeEnd::Writer } => "wakes the writer".to_owned(),
            E::ReadAtLeastPending { minimum, unconsumed, writer_stays_paused } => format!(
                "read_at_least({minimum}) waits (unread {unconsumed}){}",
                if *writer_stays_paused { ", writer STAYS PAUSED" } else { "" }
            ),
            E::LengthObserved { len } => format!("buffered_len -> {len}"),
            other => format!("{other:?}"),
        },
        Observation::Wrote { offset, bytes } => format!("write {} B at {offset}", bytes.len()),
        Observation::ReadData { start, bytes } => format!("got {} B at {start}", bytes.len()),
        Observation::FlushReturned { canceled, completed } => format!(
            "flush returns{}{}",
            if *canceled { " canceled" } else { "" },
            if *completed { " completed" } else { "" }
        ),
        Observation::Waiting(side) => format!("{side:?} waits").to_lowercase(),
        Observation::Woken(side) => format!("{side:?} woken").to_lowercase(),
        Observation::Quiescent => "quiescent".to_owned(),
        Observation::Rented { len, .. } => format!("rent {len} B buffer"),
        Observation::GaveBack { .. } => "give back buffer".to_owned(),
        Observation::Drained => "drained".to_owned(),
        other => format!("{other:?}"),
    }
}

/// The task that logged each entry.
fn owners(log: &[Entry], marks: &[(usize, usize)]) -> Vec<usize> {
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

fn fit(text: &str) -> String {
    if text.chars().count() > WIDTH {
        let cut: String = text.chars().take(WIDTH - 1).collect();
        format!("{cut}…")
    } else {
        text.to_owned()
    }
}

/// The interleaving by scheduling step, for scenarios that log no observations (the
/// seed primitives check their invariants themselves): one row per run of one task.
fn render_steps(replayed: &Replayed) -> String {
    let mut out =
        String::from("  (this scenario logs no pipe observations; the interleaving by scheduling step:)\n");
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

/// The table of `replayed`, its last `last` rows if given.
pub fn render(replayed: &Replayed, last: Option<usize>) -> String {
    if replayed.log.is_empty() {
        let mut out = render_steps(replayed);
        if let Some(failure) = &replayed.failure {
            let message = failure.message();
            let what = name_tasks(first_line(&message), |t| format!("task {t}"));
            let _ = writeln!(out, "  ✗ `{}` broke: {what}", failure.invariant);
        }
        return out;
    }
    let owners = owners(&replayed.log, &replayed.marks);
    // Columns: every task that logged something, named by the side it acted for.
    let mut roles: BTreeMap<usize, BTreeMap<String, usize>> = BTreeMap::new();
    for (entry, &task) in replayed.log.iter().zip(&owners) {
        let role = entry
            .task
            .map(str::to_owned)
            .or_else(|| entry.observation.side().map(|s| format!("{s:?}").to_lowercase()));
        *roles.entry(task).or_default().entry(role.unwrap_or_default()).or_default() += 1;
    }
    let columns: Vec<usize> = roles.keys().copied().collect();
    let header: Vec<String> = columns
        .iter()
        .map(|t| {
            let role = roles[t]
                .iter()
                .filter(|(r, _)| !r.is_empty())
                .max_by_key(|(_, n)| **n)
                .map(|(r, _)| r.clone());
            match (t, role) {
                (_, Some(role)) => format!("task {t} ({role})"),
                (0, None) => "task 0 (main)".to_owned(),
                (_, None) => format!("task {t}"),
            }
        })
        .collect();
    let mut out = String::new();
    let rule = format!("------+{}", vec!["-".repeat(WIDTH + 2); columns.len()].join("+"));
    let _ = write!(out, "  log |");
    for h in &header {
        let _ = write!(out, " {:<WIDTH$} |", fit(h));
    }
    out.push('\n');
    out.push_str(&rule);
    out.push('\n');
    let from = last.map_or(0, |n| replayed.log.len().saturating_sub(n));
    if from > 0 {
        let _ = writeln!(out, "  ... | ({from} earlier rows not shown)");
    }
    let broke_at = replayed.failure.as_ref().and_then(|f| f.step);
    for (entry, task) in replayed.log.iter().zip(&owners).skip(from) {
        let marker = match broke_at {
            Some(at) if entry.step == at => "✗",
            Some(at) if entry.step > at => "…",
            _ => " ",
        };
        let _ = write!(out, "{marker}{:>4} |", entry.step);
        for column in &columns {
            let cell = if column == task { fit(&describe(&entry.observation)) } else { String::new() };
            let _ = write!(out, " {cell:<WIDTH$} |");
        }
        out.push('\n');
    }
    out.push_str(&rule);
    out.push('\n');
    if broke_at.is_some_and(|at| at + 1 < replayed.log.len()) {
        let _ = writeln!(
            out,
            "  (✗ marks the observation that broke the invariant; … rows were logged while unwinding)"
        );
    }
    if let Some(failure) = &replayed.failure {
        let label = |t: usize| match columns.iter().position(|c| *c == t) {
            Some(i) => header[i].clone(),
            None => format!("task {t} (logged nothing)"),
        };
        let message = failure.message();
        let what = name_tasks(first_line(&message), label);
        let _ = writeln!(out, "  ✗ `{}` broke: {what}", failure.invariant);
        if matches!(failure.kind, FailureKind::Deadlock { .. }) {
            let _ = writeln!(out, "    every task is blocked and none can be woken: a wakeup was lost");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::name_tasks;

    #[test]
    fn deadlock_reports_name_every_task() {
        let message = "deadlock! blocked tasks: [main-thread (task main-thread(0)), <unknown> (task TaskId(1), \
                       pending future)]";
        let named = name_tasks(message, |t| ["task 0 (reader)", "task 1"][t].to_owned());
        assert_eq!(named, "deadlock! blocked tasks: [task 0 (reader), task 1 (pending future)]");
        assert!(!named.contains("<unknown>"));
    }
}
