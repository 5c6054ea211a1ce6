//! The pipe's [`Monitor`] as a [`RunLog`], and [`describe`]: an observation in a few words.

use pipecheck_pipe::{PipeEnd, PipeEvent as E};

use pipecheck::{Row, RunLog};

use crate::monitor::Monitor;
use crate::observation::Observation;

impl RunLog for Monitor {
    fn len(&self) -> usize {
        self.log_len()
    }

    fn rows(&self) -> Vec<Row> {
        self.events().rows()
    }
}

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
            E::ReadParked { awaits_end } => format!("read parked: waits for end {awaits_end}"),
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
