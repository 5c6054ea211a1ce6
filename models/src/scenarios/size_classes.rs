//! The size-class buffer pool family: buffers of several size classes rented and given
//! back concurrently to a [`LockedBufferPool`] (its classes' locks are the facade's, so
//! loom and shuttle schedule every rent and return), observed by the run's monitor,
//! which checks **pool-size-class** at each: a returned buffer goes into its own size
//! class, and a rent gets a buffer of its class's length.
//!
//! The `ClassOfNextSize` planted bug files each returned buffer one class up, so a
//! 64-byte buffer sits in the 128-byte class and a rent of 128 bytes may get it.

use std::sync::Arc as StdArc;

use pipecheck::ensure;
use pipecheck::sync::Arc;
use pipecheck::thread;
use pipecheck_pipe::{BufferPool, LockedBufferPool};
use pipecheck_properties::invariants::POOL_SIZE_CLASS;
use pipecheck_properties::{CheckConfig, Monitor};

use crate::Scenario;
use crate::scenarios::join;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "size-classes-returned-concurrently",
    summary: "two tasks each give back a buffer of one size class (64 and 128 bytes) and rent one of the \
              other's (for 100 and 40 bytes, between class lengths), on a locked size-class pool",
    scale: Scale::Small,
    config: CheckConfig::default,
    body: size_classes_returned_concurrently,
}];

/// Rents a buffer of each class first (64 and 128 bytes), then each task, concurrently
/// with the other, gives one back and rents for a length between class lengths in the
/// other's class (which the other task's return may serve, or a new buffer of the
/// class's length), and gives that back too. Stated outcome: every rent got at least
/// what it asked for.
fn size_classes_returned_concurrently(monitor: &StdArc<Monitor>) {
    let pool = Arc::new(LockedBufferPool::new().observed(monitor.primitive_observer()));
    let (small, large) = (pool.rent(64), pool.rent(128));
    let swap = |pool: &LockedBufferPool, give: Box<[u8]>, take: usize| {
        pool.give_back(give);
        let rented = pool.rent(take);
        let len = rented.len();
        pool.give_back(rented);
        ensure(len >= take, POOL_SIZE_CLASS, || format!("a rent of {take} bytes got {len}"));
    };
    let other = {
        let pool = pool.clone();
        thread::spawn(move || swap(&pool, small, 100))
    };
    swap(&pool, large, 40);
    join(other);
}
