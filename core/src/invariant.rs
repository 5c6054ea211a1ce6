//! The names of the pipe's invariants and of its seed primitives' ([`InvariantId`]s):
//! the planted bugs ([`crate::fault`]) name the one each breaks, the checkers in
//! `pipecheck-properties` the one each checks. The invariants every engine reports
//! (`no-lost-wakeup`, `no-data-race`, `linearizable`, `progress`) are
//! [`InvariantId`]'s own constants.

use pipecheck_sync::InvariantId;

/// A segment is never in the pool twice, never returned while linked or being written.
pub const NO_DOUBLE_RETURN: InvariantId = InvariantId::new("no-double-return");
/// Segments are reused in the order they were returned.
pub const FIFO_POOL: InvariantId = InvariantId::new("fifo-pool");
/// The pool never holds more than its maximum.
pub const BOUNDED_POOL: InvariantId = InvariantId::new("bounded-pool");
/// Every committed byte is read exactly once, in order.
pub const BYTE_EXACT: InvariantId = InvariantId::new("byte-exact");
/// Every rented buffer is returned exactly once.
pub const RELEASE_ONCE: InvariantId = InvariantId::new("release-once");
/// Flush waits above the pause threshold and resumes below the resume threshold.
pub const BACKPRESSURE: InvariantId = InvariantId::new("backpressure");
/// Stream offsets and positions only move forward.
pub const MONOTONIC_OFFSETS: InvariantId = InvariantId::new("monotonic-offsets");
/// The async mutex admits one holder at a time.
pub const MUTUAL_EXCLUSION: InvariantId = InvariantId::new("mutual-exclusion");
/// A reusable completion source rejects stale tokens and double results.
pub const TOKEN_REUSE: InvariantId = InvariantId::new("token-reuse");
/// A partitioned pool's rents and returns balance.
pub const BALANCED_POOL: InvariantId = InvariantId::new("balanced-pool");
/// `tentative-cancel`: a canceled read needs no `advance_to` before the next read.
pub const TENTATIVE_CANCEL: InvariantId = InvariantId::new("tentative-cancel");
/// `bounded-after-reader-complete`: writes after the reader completed hold at most
/// one segment.
pub const BOUNDED_AFTER_READER_COMPLETE: InvariantId = InvariantId::new("bounded-after-reader-complete");
/// `failure-cause`: a side completed with an error hands the other side that error.
pub const FAILURE_CAUSE: InvariantId = InvariantId::new("failure-cause");
/// `segments-in-use`: segments in use never exceed what the unconsumed bytes need
/// plus the write head; a fully consumed segment (and the idle head, once everything
/// is consumed) goes back in the same `advance_to`.
pub const SEGMENTS_IN_USE: InvariantId = InvariantId::new("segments-in-use");
/// `buffered-length`: the length the reader sees is committed − examined bytes.
pub const BUFFERED_LENGTH: InvariantId = InvariantId::new("buffered-length");
/// `cancel-observed`: a canceled read (or flush) is reported, by the pending read
/// (flush) or the next.
pub const CANCEL_OBSERVED: InvariantId = InvariantId::new("cancel-observed");
