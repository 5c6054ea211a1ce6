//! One invariant per file. Each checks the [`Observation`](crate::Observation)s of a
//! run; together they are the invariant table in docs/invariants.md.

use pipecheck_core::InvariantId;

use crate::registry::Registered;

/// Declares the invariants, one line each, in README order: the module (one file per
/// invariant) and its checker, the [`InvariantId`] it reports under, how to build it
/// for a run (`= |config| ...`; `Default` when omitted), and its flags: `per_pipe_run`
/// (restarted at a pipe reset, see the registry) or `share` (a further checker of an
/// invariant declared above, for another component). The registry, the ids and the
/// per-run list all derive from these lines.
macro_rules! invariants {
    ($( $module:ident :: $checker:ident ( $id:expr ) $( = $make:expr )? $( , $flag:ident )* ; )*) => {
        $(
            mod $module;
            pub use $module::$checker;
        )*

        /// Every invariant's registration, in declaration order.
        pub(crate) const ALL: &[Registered] = &[
            $( Registered::new($id, invariants!(@make $checker $(, $make)?)) $( .$flag() )* ),*
        ];
    };
    (@make $checker:ident) => { |_| Box::new(<$checker>::default()) };
    (@make $checker:ident, $make:expr) => { $make };
}

invariants! {
    no_double_return::NoDoubleReturn(InvariantId::NO_DOUBLE_RETURN);
    fifo_pool::FifoPool(InvariantId::FIFO_POOL);
    bounded_pool::BoundedPool(InvariantId::BOUNDED_POOL) = |c| Box::new(BoundedPool::new(c.max_pooled_segments));
    no_lost_wakeup::NoLostWakeup(InvariantId::NO_LOST_WAKEUP), per_pipe_run;
    byte_exact::ByteExact(InvariantId::BYTE_EXACT), per_pipe_run;
    no_data_race::NoDataRace(InvariantId::NO_DATA_RACE), per_pipe_run;
    release_once::ReleaseOnce(InvariantId::RELEASE_ONCE), per_pipe_run;
    backpressure::Backpressure(InvariantId::BACKPRESSURE) = |c| Box::new(Backpressure::new(c)), per_pipe_run;
    monotonic_offsets::MonotonicOffsets(InvariantId::MONOTONIC_OFFSETS), per_pipe_run;
    tentative_cancel::TentativeCancel(InvariantId::TENTATIVE_CANCEL), per_pipe_run;
    bounded_after_reader_complete::BoundedAfterReaderComplete(InvariantId::BOUNDED_AFTER_READER_COMPLETE), per_pipe_run;
    failure_cause::FailureCause(InvariantId::FAILURE_CAUSE), per_pipe_run;
    mutual_exclusion::MutualExclusion(InvariantId::MUTUAL_EXCLUSION);
    token_reuse::TokenReuse(InvariantId::TOKEN_REUSE);
    balanced_pool::BalancedPool(InvariantId::BALANCED_POOL);
    pool_size_class::PoolSizeClass(pool_size_class::POOL_SIZE_CLASS);
    segments_in_use::SegmentsInUse(InvariantId::SEGMENTS_IN_USE), per_pipe_run;
    buffered_length::BufferedLength(InvariantId::BUFFERED_LENGTH), per_pipe_run;
    cancel_observed::CancelObserved(InvariantId::CANCEL_OBSERVED), per_pipe_run;
    fast_read_unparked::FastReadUnparked(fast_read_unparked::FAST_READ_UNPARKED), per_pipe_run;
    linearizable::Linearizable(InvariantId::LINEARIZABLE) = |_| Box::new(Linearizable);
    progress::Progress(InvariantId::PROGRESS);
    primitive_wakeups::PrimitiveWakeups(InvariantId::NO_LOST_WAKEUP), share;
    message_delivery::MessageDelivery(InvariantId::BYTE_EXACT), share;
}

/// The id of **pool-size-class**, which no other crate's constant names.
pub use pool_size_class::POOL_SIZE_CLASS;

/// The id of **fast-read-unparked**, which no other crate's constant names.
pub use fast_read_unparked::FAST_READ_UNPARKED;
