//! Frees large buffers on a background thread, so that a check answers when its search
//! stops rather than after the allocator has unmapped its visited sets (tens of
//! milliseconds for a few hundred megabytes).

use std::sync::OnceLock;
use std::sync::mpsc::{Sender, channel};

/// Below this many bytes, freeing on the spot costs less than the hand-over.
const INLINE_BELOW: u64 = 1 << 20;

/// Something to drop.
type Garbage = Box<dyn Send>;

/// The reaper's inbox; `None` if its thread could not be started.
static REAPER: OnceLock<Option<Sender<Garbage>>> = OnceLock::new();

/// Drops `garbage`, which holds about `bytes` of memory: here if it is small, else on
/// the reaper thread (started on first use; here if it cannot start).
pub(super) fn free<T: Send + 'static>(garbage: T, bytes: u64) {
    if bytes < INLINE_BELOW {
        return drop(garbage);
    }
    let inbox = REAPER.get_or_init(|| {
        let (inbox, garbage) = channel::<Garbage>();
        std::thread::Builder::new()
            .name("pipecheck-reaper".to_owned())
            .spawn(move || garbage.into_iter().for_each(drop))
            .ok()
            .map(|_| inbox)
    });
    match inbox {
        Some(inbox) => {
            if let Err(unsent) = inbox.send(Box::new(garbage)) {
                drop(unsent.0);
            }
        }
        None => drop(garbage),
    }
}
