//! One invariant per file. Each checks the [`Observation`](crate::Observation)s of a
//! run; together they are the invariant table in docs/invariants.md.

use pipecheck::InvariantId;

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
    no_double_return::NoDoubleReturn(pipecheck_pipe::invariant::NO_DOUBLE_RETURN);
    fifo_pool::FifoPool(pipecheck_pipe::invariant::FIFO_POOL);
    bounded_pool::BoundedPool(pipecheck_pipe::invariant::BOUNDED_POOL) = |c| Box::new(BoundedPool::new(c.max_pooled_segments));
    no_lost_wakeup::NoLostWakeup(InvariantId::NO_LOST_WAKEUP), per_pipe_run;
    byte_exact::ByteExact(pipecheck_pipe::invariant::BYTE_EXACT), per_pipe_run;
    no_data_race::NoDataRace(InvariantId::NO_DATA_RACE), per_pipe_run;
    release_once::ReleaseOnce(pipecheck_pipe::invariant::RELEASE_ONCE), per_pipe_run;
    backpressure::Backpressure(pipecheck_pipe::invariant::BACKPRESSURE) = |c| Box::new(Backpressure::new(c)), per_pipe_run;
    monotonic_offsets::MonotonicOffsets(pipecheck_pipe::invariant::MONOTONIC_OFFSETS), per_pipe_run;
    tentative_cancel::TentativeCancel(pipecheck_pipe::invariant::TENTATIVE_CANCEL), per_pipe_run;
    bounded_after_reader_complete::BoundedAfterReaderComplete(pipecheck_pipe::invariant::BOUNDED_AFTER_READER_COMPLETE), per_pipe_run;
    failure_cause::FailureCause(pipecheck_pipe::invariant::FAILURE_CAUSE), per_pipe_run;
    mutual_exclusion::MutualExclusion(pipecheck_pipe::invariant::MUTUAL_EXCLUSION);
    token_reuse::TokenReuse(pipecheck_pipe::invariant::TOKEN_REUSE);
    balanced_pool::BalancedPool(pipecheck_pipe::invariant::BALANCED_POOL);
    pool_size_class::PoolSizeClass(pool_size_class::POOL_SIZE_CLASS);
    segments_in_use::SegmentsInUse(pipecheck_pipe::invariant::SEGMENTS_IN_USE), per_pipe_run;
    buffered_length::BufferedLength(pipecheck_pipe::invariant::BUFFERED_LENGTH), per_pipe_run;
    cancel_observed::CancelObserved(pipecheck_pipe::invariant::CANCEL_OBSERVED), per_pipe_run;
    fast_read_unparked::FastReadUnparked(fast_read_unparked::FAST_READ_UNPARKED), per_pipe_run;
    linearizable::Linearizable(InvariantId::LINEARIZABLE) = |_| Box::new(Linearizable);
    progress::Progress(InvariantId::PROGRESS);
    primitive_wakeups::PrimitiveWakeups(InvariantId::NO_LOST_WAKEUP), share;
    message_delivery::MessageDelivery(pipecheck_pipe::invariant::BYTE_EXACT), share;
}

/// The id of **pool-size-class**, which no other crate's constant names.
pub use pool_size_class::POOL_SIZE_CLASS;

/// The id of **fast-read-unparked**, which no other crate's constant names.
pub use fast_read_unparked::FAST_READ_UNPARKED;
