//! The failing execution as a per-task table, in the spirit of lincheck's interleaving
//! tables: one column per shuttle task, one row per observation in the order the
//! monitor logged it, and the broken invariant as the last row.
//!
//! Each log entry belongs to the task that was running when it was logged: the task
//! chosen at the last scheduling decision before it.

use std::collections::BTreeMap;
use std::fmt::Write;

use pipecheck_core::PipeEvent as E;
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
            E::FlushResumed { unconsumed } => format!("resume writer at {unconsumed}"),
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
            other => format!("{other:?}"),
        },
        Observation::Wrote { offset, bytes } => format!("write {} B at {offset}", bytes.len()),
        Observation::ReadData { start, bytes } => format!("got {} B at {start}", bytes.len()),
        Observation::FlushReturned { canceled, completed } => format!(
            "flush returns{}{}",
            if *canceled { " canceled" } else { "" },
            if *completed { " completed" } else { "" }
        ),
        Observation::Waiting(_) => "waits".to_owned(),
        Observation::Woken(_) => "woken".to_owned(),
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

/// The table of `replayed`, its last `last` rows if given.
pub fn render(replayed: &Replayed, last: Option<usize>) -> String {
    if replayed.log.is_empty() {
        let mut out = render_steps(replayed);
        if let Some(failure) = &replayed.failure {
            let message = failure.message();
            let _ = writeln!(out, "  ✗ `{}` broke: {}", failure.invariant, first_line(&message));
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
        let message = failure.message();
        let _ = writeln!(out, "  ✗ `{}` broke: {}", failure.invariant, first_line(&message));
        if matches!(failure.kind, FailureKind::Deadlock { .. }) {
            let _ = writeln!(out, "    every task is blocked and none can be woken: a wakeup was lost");
        }
    }
    out
}
