//! **progress**: every execution ends within the checker's step bound; no thread keeps
//! running in a loop that waits for another's progress that never comes (a livelock).
//!
//! This is the engines' check, not the events': shuttle stops an execution at its
//! `max_steps` and loom at its branch limit, and the facade notes every wait
//! (`thread::yield_now`, `hint::spin_loop`, see
//! [`progress`](pipecheck::progress)). An execution stopped at the
//! bound while a thread waited over and over is a
//! [`FailureKind::Livelock`](crate::FailureKind::Livelock) naming that thread and where
//! it waited. The registry line names the invariant, so that verdicts, the kill matrix
//! and the docs table know it; its online part has nothing to check.

use pipecheck::InvariantId;

use pipecheck::Invariant;
use crate::Observation;

/// The registry's entry for **progress** (see the module docs: the engines check it).
#[derive(Debug, Default)]
pub struct Progress;

impl Invariant<Observation> for Progress {
    fn id(&self) -> InvariantId {
        InvariantId::PROGRESS
    }

    fn statement(&self) -> &'static str {
        "every execution ends within the checker's step bound: no thread keeps waiting for progress that never comes (a livelock)"
    }

    fn observe(&mut self, _: &Observation) -> Result<(), String> {
        Ok(())
    }
}
