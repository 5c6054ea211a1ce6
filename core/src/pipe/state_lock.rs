//! Taking the pipe lock: the committed end and the reader's offsets brought up to date
//! in the state, and the handshake that keeps a lock-free `advance_to` out of every
//! other holder's locked section (see `published`).

use std::ops::{Deref, DerefMut};

use crate::fault;
use crate::pipe::{Shared, State};
use pipecheck_sync::sync::MutexGuard;

/// The pipe lock held: the state, and (for every holder but the reader) the word's
/// [`LOCKED`](super::published::LOCKED) flag, cleared on drop.
pub(crate) struct StateGuard<'a> {
    state: MutexGuard<'a, State>,
    /// The holder set `LOCKED` and must clear it.
    shared: Option<&'a Shared>,
}

impl Shared {
    /// Takes the pipe lock, with the committed end as the writer last published it and
    /// the reader's offsets as of its last `advance_to` (which may have taken no lock).
    /// For every holder but the reader: the writer, the cancellers, a reset.
    pub(crate) fn lock(&self) -> StateGuard<'_> {
        // The fast flush publishes without the lock; under it, the end only grows
        // (every earlier holder's read-modify-write of the word comes before this one's).
        let (mut guard, committed) = self.lock_excluding_advance(false);
        guard.state.committed = committed.unwrap_or_else(|| self.published.committed());
        guard
    }

    /// The writer takes the pipe lock: it knows the committed end (only it moves it),
    /// so no load of the word is needed (one atomic access less, which under loom is
    /// one scheduling point less on every locked flush).
    pub(crate) fn lock_as_writer(&self, published_end: u64) -> StateGuard<'_> {
        let (mut guard, _) = self.lock_excluding_advance(false);
        guard.state.committed = published_end;
        guard
    }

    /// [`lock_as_writer`](Self::lock_as_writer) for a flush. The `AdvanceSkipsHandshake`
    /// planted bug lives here: the flush does not wait for a lock-free `advance_to` in
    /// progress.
    pub(crate) fn lock_for_flush(&self, published_end: u64) -> StateGuard<'_> {
        let skip_wait = fault::AdvanceSkipsHandshake.is_active();
        let (mut guard, _) = self.lock_excluding_advance(skip_wait);
        guard.state.committed = published_end;
        guard
    }

    /// The reader takes the pipe lock. It cannot be inside its own lock-free
    /// `advance_to`, so it skips the handshake, and it knows its offsets
    /// (`consumed`, `examined`) better than the state does.
    pub(crate) fn lock_as_reader(&self, consumed: u64, examined: u64) -> StateGuard<'_> {
        let mut state = self.state.lock();
        state.committed = self.published.committed();
        state.consumed = consumed;
        state.examined = examined;
        StateGuard { state, shared: None }
    }

    /// The `ReadSkipsPublishedEnd` planted bug's lock: as
    /// [`lock_as_reader`](Self::lock_as_reader), except that the published end is not
    /// loaded when the state already shows unexamined bytes (the end the last lock
    /// holder loaded may be older than a fast flush that has returned).
    pub(crate) fn lock_as_reader_unless_unexamined(&self, consumed: u64, examined: u64) -> StateGuard<'_> {
        let mut state = self.state.lock();
        state.consumed = consumed;
        state.examined = examined;
        if state.unexamined() == 0 {
            state.committed = self.published.committed();
        }
        StateGuard { state, shared: None }
    }

    /// The mutex, then the handshake: no lock-free `advance_to` runs until the guard
    /// is dropped, and the state gets the offsets the last one stored. Also returns the
    /// committed end the handshake read, if it ran. The pre-seed design
    /// ([`LockScope::EveryOperation`](crate::LockScope::EveryOperation)) never advances
    /// without the lock and skips it.
    fn lock_excluding_advance(&self, skip_wait: bool) -> (StateGuard<'_>, Option<u64>) {
        let mut state = self.state.lock();
        if self.config.lock_every_operation {
            return (StateGuard { state, shared: None }, None);
        }
        let (committed, offsets) = self.published.begin_locked(skip_wait, &mut state.advances_seen);
        if let Some((consumed, examined)) = offsets {
            state.consumed = consumed;
            state.examined = examined;
            // What that advance stored as released, computed rather than loaded.
            state.released_published = state.released();
        }
        (StateGuard { state, shared: Some(self) }, Some(committed))
    }
}

impl Deref for StateGuard<'_> {
    type Target = State;

    fn deref(&self) -> &State {
        &self.state
    }
}

impl DerefMut for StateGuard<'_> {
    fn deref_mut(&mut self) -> &mut State {
        &mut self.state
    }
}

impl Drop for StateGuard<'_> {
    fn drop(&mut self) {
        if let Some(shared) = self.shared
            && !pipecheck_sync::skip_locking_cleanup()
        {
            // Before the mutex is released (the field drops after this body).
            shared.published.end_locked();
        }
    }
}
