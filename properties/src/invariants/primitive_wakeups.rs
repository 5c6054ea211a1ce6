//! **no-lost-wakeup**, the seed primitives' share: every wake a primitive owes is issued
//! by the operation that owes it, before that operation returns.
//!
//! The obligations, recorded the moment they arise:
//!
//! * an async-mutex exit that finds other tasks counted owes a hand-over (a queued
//!   waiter, woken; a permit reserved for an entrant not yet queued; or an abandoned
//!   waiter's count taken off, after which the next hand-over is owed in turn), and a
//!   waiter handed the lock is owed its wake: checked when the exit returns;
//! * a `Lock` future dropped after the lock was handed to it owes the next hand-over
//!   (it must pass the lock on): checked when its drop returns;
//! * a completion waiter is owed a wake when its result is set (checked when
//!   `set_result` returns) and when `reset` ends its operation (checked when `reset`
//!   returns: it must learn that its token is stale).
//!
//! A channel receiver waits on the async mutex or on the pipe underneath, so its wakes
//! are the mutex's obligations above and the pipe's own (the pipe's `no-lost-wakeup`).
//! The pipe's obligations are checked by [`NoLostWakeup`](super::NoLostWakeup); this
//! checker reports under the same id.

use std::collections::{HashMap, HashSet};

use pipecheck_pipe::{Handover, PrimitiveEvent, PrimitiveId};
use pipecheck::InvariantId;

use pipecheck::Invariant;
use crate::Observation;

/// One async mutex's open obligations.
#[derive(Debug, Default)]
struct MutexWakes {
    /// Contended exits that have not handed over yet.
    handover_owed: HashSet<u64>,
    /// Waiters handed the lock whose wake has not been issued, by exit.
    wake_owed: HashMap<u64, u64>,
    /// Waiters handed the lock that have not taken it yet.
    handed: HashSet<u64>,
}

/// One completion source's waiter and the wakes owed to it.
#[derive(Debug, Default)]
struct CompletionWakes {
    /// The operation whose waiter is registered.
    waiting: Option<u64>,
    /// The wake a `set_result` owes that waiter.
    owed_by_set: Option<String>,
    /// The wake a `reset` owes that waiter.
    owed_by_reset: Option<String>,
}

/// Tracks the wakes the seed primitives owe.
#[derive(Debug, Default)]
pub struct PrimitiveWakeups {
    mutexes: HashMap<PrimitiveId, MutexWakes>,
    sources: HashMap<PrimitiveId, CompletionWakes>,
}

impl PrimitiveWakeups {
    fn mutex(&mut self, mutex: PrimitiveId, event: &PrimitiveEvent) -> Result<(), String> {
        let state = self.mutexes.entry(mutex).or_default();
        match *event {
            PrimitiveEvent::MutexExitContended { exit, .. } => {
                state.handover_owed.insert(exit);
            }
            PrimitiveEvent::MutexHandedOver { exit, to, .. } => {
                state.handover_owed.remove(&exit);
                if let Handover::Waiter(ticket) = to {
                    state.wake_owed.insert(exit, ticket);
                    state.handed.insert(ticket);
                }
            }
            PrimitiveEvent::MutexWoke { exit, .. } => {
                state.wake_owed.remove(&exit);
            }
            PrimitiveEvent::MutexAcquired { ticket: Some(ticket), .. } => {
                state.handed.remove(&ticket);
            }
            PrimitiveEvent::MutexExitReturned { exit, .. } => {
                if state.handover_owed.remove(&exit) {
                    return Err(format!(
                        "an exit of async mutex {mutex} found other tasks waiting for the lock and returned \
                         without handing it over (no waiter woken, no permit reserved)"
                    ));
                }
                if let Some(ticket) = state.wake_owed.remove(&exit) {
                    return Err(format!(
                        "an exit of async mutex {mutex} handed the lock to waiter {ticket} and returned without \
                         waking it"
                    ));
                }
            }
            PrimitiveEvent::MutexLockDropped { ticket, .. } if state.handed.remove(&ticket) => {
                return Err(format!(
                    "the Lock future of waiter {ticket} of async mutex {mutex} was dropped after the lock was handed \
                     to it, and its drop returned without passing the lock on"
                ));
            }
            _ => {}
        }
        Ok(())
    }

    fn completion(&mut self, source: PrimitiveId, event: &PrimitiveEvent) -> Result<(), String> {
        let state = self.sources.entry(source).or_default();
        match *event {
            PrimitiveEvent::CompletionWaiting { version, .. } => state.waiting = Some(version),
            PrimitiveEvent::CompletionWoke { version, .. }
            | PrimitiveEvent::CompletionWaiterLeft { version, .. }
                if state.waiting == Some(version) =>
            {
                state.waiting = None;
                state.owed_by_set = None;
                state.owed_by_reset = None;
            }
            PrimitiveEvent::CompletionResultSet { token, .. } => {
                if let Some(version) = state.waiting {
                    state.owed_by_set = Some(format!(
                        "set_result for operation {token} returned without waking the waiter of operation {version}"
                    ));
                }
            }
            PrimitiveEvent::CompletionReset { version: new, .. } => {
                if let Some(version) = state.waiting.filter(|&v| v < new) {
                    state.owed_by_reset = Some(format!(
                        "reset to operation {new} returned without waking the waiter of operation {version}, whose \
                         token it made stale"
                    ));
                }
            }
            PrimitiveEvent::CompletionSetReturned { .. } => {
                if let Some(owed) = state.owed_by_set.take() {
                    return Err(format!("completion source {source}: {owed}"));
                }
            }
            PrimitiveEvent::CompletionResetReturned { .. } => {
                if let Some(owed) = state.owed_by_reset.take() {
                    return Err(format!("completion source {source}: {owed}"));
                }
            }
            _ => {}
        }
        Ok(())
    }
}

impl Invariant<Observation> for PrimitiveWakeups {
    fn id(&self) -> InvariantId {
        InvariantId::NO_LOST_WAKEUP
    }

    fn statement(&self) -> &'static str {
        "an async-mutex waiter wakes when the holder exits; a completion waiter when its result is set or its \
         operation is reset"
    }

    fn observe(&mut self, observation: &Observation) -> Result<(), String> {
        let Observation::Primitive(event) = observation else { return Ok(()) };
        use PrimitiveEvent as E;
        match *event {
            E::MutexExitContended { mutex, .. }
            | E::MutexHandedOver { mutex, .. }
            | E::MutexWoke { mutex, .. }
            | E::MutexAcquired { mutex, .. }
            | E::MutexExitReturned { mutex, .. }
            | E::MutexLockDropped { mutex, .. } => self.mutex(mutex, event),
            E::CompletionWaiting { source, .. }
            | E::CompletionWoke { source, .. }
            | E::CompletionWaiterLeft { source, .. }
            | E::CompletionResultSet { source, .. }
            | E::CompletionReset { source, .. }
            | E::CompletionSetReturned { source }
            | E::CompletionResetReturned { source } => self.completion(source, event),
            _ => Ok(()),
        }
    }
}
