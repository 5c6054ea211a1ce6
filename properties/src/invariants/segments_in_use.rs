//! **segments-in-use**: segments in use never exceed what the unconsumed bytes need plus
//! the write head. Concretely, each `advance_to` gives back, before it returns, every
//! segment it consumed fully — consuming exactly to a segment's end included — and, once
//! everything is consumed while the writer is idle, the writer's head as well (.NET: a
//! fully consumed pipe keeps no segment).
//!
//! The checker keeps its own copy of the segment list from `SegmentLinked` (each with
//! its base, so a segment's end is the next one's base, or for a head the reader kept
//! with unconsumed bytes the end its `HeadKept` reports), the committed offset from
//! `Flushed`/`WriterCompleted`, and the writer's parked head from
//! `HeadParked`/`HeadResumed`/`HeadReclaimed`. At each `Consumed` (logged under the lock,
//! where the reader decides) it lists what that `advance_to` owes; at `AdvanceFinished`
//! (logged after the returns) everything owed must have been returned or discarded.
//!
//! The writer resumes its head without the lock, so at `Consumed` the log may still show
//! the head parked although the writer has already taken it back; the reader then
//! reports `HeadBusy` (its take found nothing), which waives the head — and that claim is
//! checked in turn: the writer must log taking that head back (`HeadResumed`, or
//! `HeadReleased` when it completes) before it parks again or the run ends.

use std::collections::{HashSet, VecDeque};

use pipecheck::InvariantId;
use pipecheck_pipe::{PipeEvent, SegmentId};

use pipecheck::Invariant;
use crate::Observation;

/// What one `advance_to` owes, decided at its `Consumed` event.
#[derive(Debug, Default)]
struct Owed {
    consumed: u64,
    /// Linked segments that end at or before `consumed`, each with its end.
    consumed_segments: Vec<(SegmentId, u64)>,
    /// The writer's idle head (and the last linked segment, which ends where the head
    /// starts), owed because everything is consumed; waived by `HeadBusy`.
    idle_head: Option<(SegmentId, Option<SegmentId>)>,
    /// Segments returned or discarded since the `Consumed` event.
    gone: HashSet<SegmentId>,
}

/// Tracks the linked segments, the parked head and each `advance_to`'s debts.
#[derive(Debug, Default)]
pub struct SegmentsInUse {
    /// Linked segments in list order, with their bases.
    linked: VecDeque<(SegmentId, u64)>,
    committed: u64,
    writer_completed: bool,
    reader_completed: bool,
    /// The writer's parked head, as the log shows it.
    parked: Option<SegmentId>,
    /// Heads the writer took back (resumed or released) and has not parked since: its
    /// resume may be logged after the reader's `Consumed`, but before the reader's
    /// `HeadBusy` — and so may a release of that head and of later ones.
    resumed: HashSet<SegmentId>,
    /// The `advance_to` in progress.
    owed: Option<Owed>,
    /// The reader said the head it should have reclaimed was busy: the writer must show
    /// that it took this head back.
    busy_claim: Option<SegmentId>,
    /// A head the reader claimed while it held unconsumed bytes (`HeadKept`), with its
    /// end: an advance that consumes to that end owes it, even as the last segment.
    kept: Option<(SegmentId, u64)>,
}

impl SegmentsInUse {
    /// What an `advance_to` consuming up to `consumed` owes, from the log so far.
    fn owed_at(&self, consumed: u64) -> Owed {
        let mut owed = Owed { consumed, ..Owed::default() };
        for (i, &(id, _)) in self.linked.iter().enumerate() {
            let end = match (self.linked.get(i + 1), self.kept) {
                (Some(&(_, next_base)), _) => next_base,
                (None, _) if self.writer_completed => self.committed,
                (None, Some((kept, end))) if kept == id => end,
                (None, _) => break,
            };
            if consumed < end {
                break;
            }
            owed.consumed_segments.push((id, end));
        }
        if let Some(head) = self.parked
            && !self.writer_completed
            && consumed >= self.committed
        {
            // A parked head holds only committed bytes, so the last linked segment ends
            // at the committed offset too (it is the head, or the head starts there).
            let last = self.linked.back().map(|&(id, _)| id).filter(|&id| id != head);
            owed.idle_head = Some((head, last));
        }
        owed
    }

    fn check_finished(&self, owed: &Owed) -> Result<(), String> {
        let in_use = self.linked.len();
        for &(id, end) in &owed.consumed_segments {
            if !owed.gone.contains(&id) {
                return Err(format!(
                    "advance_to consumed to {} but kept segment {id}, which ends at {end}: {in_use} linked \
                     segment(s) in use where the unconsumed bytes need fewer (a fully consumed segment goes \
                     back in the same advance_to)",
                    owed.consumed
                ));
            }
        }
        if let Some((head, last)) = owed.idle_head {
            for id in std::iter::once(head).chain(last) {
                if !owed.gone.contains(&id) {
                    return Err(format!(
                        "advance_to consumed everything (to {}) while the writer was idle, but segment {id} \
                         stayed rented (the idle head is {head}): a fully consumed pipe keeps no segment",
                        owed.consumed
                    ));
                }
            }
        }
        Ok(())
    }

    fn verify_claim(&mut self, now: &str) -> Result<(), String> {
        match self.busy_claim.take() {
            Some(head) => Err(format!(
                "the reader left segment {head} rented saying the writer had taken it back, but the \
                 writer {now} without ever resuming it"
            )),
            None => Ok(()),
        }
    }
}

impl Invariant<Observation> for SegmentsInUse {
    fn id(&self) -> InvariantId {
        pipecheck_pipe::invariant::SEGMENTS_IN_USE
    }

    fn statement(&self) -> &'static str {
        "segments in use never exceed what the unconsumed bytes need plus the write head: a fully \
         consumed segment, and the idle head once all is consumed, goes back in the same advance_to"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Pipe(event) = observation else { return Ok(()) };
        match *event {
            PipeEvent::SegmentLinked { segment, base } => self.linked.push_back((segment, base)),
            PipeEvent::Flushed { committed, .. } | PipeEvent::Published { committed } => {
                self.committed = committed
            }
            PipeEvent::WriterCompleted { committed, .. } => {
                self.committed = committed;
                self.writer_completed = true;
            }
            PipeEvent::ReaderCompleted { .. } => self.reader_completed = true,
            PipeEvent::HeadParked { segment } => {
                self.verify_claim("parked another head")?;
                self.parked = Some(segment);
                self.resumed.remove(&segment);
            }
            PipeEvent::HeadResumed { segment } | PipeEvent::HeadReleased { segment } => {
                if self.parked == Some(segment) {
                    self.parked = None;
                }
                self.resumed.insert(segment);
                if self.busy_claim == Some(segment) {
                    self.busy_claim = None;
                }
            }
            PipeEvent::HeadReclaimed { segment } | PipeEvent::HeadKept { segment, .. }
                if self.busy_claim == Some(segment) =>
            {
                if let PipeEvent::HeadKept { end, .. } = *event {
                    self.kept = Some((segment, end));
                }
                // A fast flush reports `HeadParked` just before its park, so a reader's
                // take in between finds the slot empty (`HeadBusy`) though the writer
                // never took the head back; the reader taking it later settles that.
                self.busy_claim = None;
                if self.parked == Some(segment) {
                    self.parked = None;
                }
                if let Some(owed) = &mut self.owed
                    && owed.idle_head.is_some_and(|(head, _)| head == segment)
                    && matches!(event, PipeEvent::HeadKept { .. })
                {
                    owed.idle_head = None;
                }
            }
            PipeEvent::HeadReclaimed { segment } if self.parked == Some(segment) => self.parked = None,
            PipeEvent::HeadKept { segment, end } => {
                // A fast flush published into the head after the reader looked: it holds
                // unconsumed bytes, so it is not idle and nothing is owed for it yet; it
                // stays linked, with its end known, and the writer starts a new head.
                self.kept = Some((segment, end));
                if self.parked == Some(segment) {
                    self.parked = None;
                }
                if let Some(owed) = &mut self.owed
                    && owed.idle_head.is_some_and(|(head, _)| head == segment)
                {
                    owed.idle_head = None;
                }
            }
            PipeEvent::Consumed { consumed, .. } => {
                let owed = self.owed_at(consumed);
                // The reader unlinks them now, under this lock section; whether they
                // really went back is checked at `AdvanceFinished`.
                self.linked.retain(|(id, _)| !owed.consumed_segments.iter().any(|(gone, _)| gone == id));
                self.owed = Some(owed);
            }
            PipeEvent::HeadBusy => {
                if let Some(owed) = &mut self.owed
                    && let Some((head, _)) = owed.idle_head.take()
                    && !self.resumed.contains(&head)
                {
                    self.busy_claim = Some(head);
                }
            }
            PipeEvent::SegmentReturned { segment } | PipeEvent::SegmentDiscarded { segment } => {
                self.linked.retain(|&(id, _)| id != segment);
                if self.kept.is_some_and(|(kept, _)| kept == segment) {
                    self.kept = None;
                }
                if let Some(owed) = &mut self.owed {
                    owed.gone.insert(segment);
                }
            }
            PipeEvent::AdvanceFinished => {
                if let Some(owed) = self.owed.take() {
                    self.check_finished(&owed)?;
                }
            }
            _ => {}
        }
        if self.writer_completed && self.reader_completed {
            // Both sides are done: the pipe releases everything (and a reset pipe starts
            // a new stream), so the next events start from scratch.
            let claim = self.busy_claim;
            *self = SegmentsInUse { busy_claim: claim, ..SegmentsInUse::default() };
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), String> {
        self.verify_claim("finished")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(events: &[PipeEvent]) -> Result<(), String> {
        let mut checker = SegmentsInUse::default();
        for event in events {
            checker.observe(&Observation::Pipe(event.clone()))?;
        }
        checker.finish()
    }

    /// Head 0 is parked with everything consumed; the reader's take finds the slot
    /// empty because the writer has taken the head back.
    fn consumed_everything_with_head_parked() -> Vec<PipeEvent> {
        vec![
            PipeEvent::SegmentLinked { segment: 0, base: 0 },
            PipeEvent::HeadParked { segment: 0 },
            PipeEvent::Flushed { committed: 8, unconsumed: 8, paused: false },
            PipeEvent::Consumed { consumed: 8, examined: 8, unconsumed: 0 },
        ]
    }

    #[test]
    fn a_busy_head_the_writer_resumed_and_released_before_the_claim_is_waived() {
        // Between the reader's `Consumed` and its `HeadBusy`, the writer resumes head 0,
        // releases it (full) and then releases a second head: the claim names head 0.
        let mut events = consumed_everything_with_head_parked();
        events.extend([
            PipeEvent::HeadResumed { segment: 0 },
            PipeEvent::HeadReleased { segment: 0 },
            PipeEvent::HeadReleased { segment: 1 },
            PipeEvent::HeadBusy,
            PipeEvent::AdvanceFinished,
        ]);
        assert_eq!(run(&events), Ok(()));
    }

    #[test]
    fn a_busy_head_the_writer_never_took_back_is_a_violation() {
        let mut events = consumed_everything_with_head_parked();
        events.extend([PipeEvent::HeadBusy, PipeEvent::AdvanceFinished]);
        let error = run(&events).expect_err("the head stays rented");
        assert!(error.contains("without ever resuming it"), "{error}");
    }

    #[test]
    fn a_head_parked_again_after_its_resume_needs_a_new_one() {
        let mut events = vec![
            PipeEvent::SegmentLinked { segment: 0, base: 0 },
            PipeEvent::HeadParked { segment: 0 },
            PipeEvent::HeadResumed { segment: 0 },
            PipeEvent::HeadParked { segment: 0 },
            PipeEvent::Flushed { committed: 8, unconsumed: 8, paused: false },
            PipeEvent::Consumed { consumed: 8, examined: 8, unconsumed: 0 },
        ];
        events.extend([PipeEvent::HeadBusy, PipeEvent::AdvanceFinished]);
        assert!(run(&events).is_err(), "the resume before the second park does not count");
    }
}
