//! One invariant per file. Each checks the [`Observation`](crate::Observation)s of a
//! run; together they are the invariant table in docs/invariants.md.

mod backpressure;
mod balanced_pool;
mod bounded_after_reader_complete;
mod bounded_pool;
mod buffered_length;
mod byte_exact;
mod cancel_observed;
mod failure_cause;
mod fifo_pool;
mod linearizable;
mod message_delivery;
mod monotonic_offsets;
mod mutual_exclusion;
mod no_data_race;
mod no_double_return;
mod no_lost_wakeup;
mod primitive_wakeups;
mod release_once;
mod segments_in_use;
mod tentative_cancel;
mod token_reuse;

pub use backpressure::Backpressure;
pub use balanced_pool::BalancedPool;
pub use bounded_after_reader_complete::BoundedAfterReaderComplete;
pub use bounded_pool::BoundedPool;
pub use buffered_length::BufferedLength;
pub use byte_exact::ByteExact;
pub use cancel_observed::CancelObserved;
pub use failure_cause::FailureCause;
pub use fifo_pool::FifoPool;
pub use linearizable::Linearizable;
pub use message_delivery::MessageDelivery;
pub use monotonic_offsets::MonotonicOffsets;
pub use mutual_exclusion::MutualExclusion;
pub use no_data_race::NoDataRace;
pub use no_double_return::NoDoubleReturn;
pub use no_lost_wakeup::NoLostWakeup;
pub use primitive_wakeups::PrimitiveWakeups;
pub use release_once::ReleaseOnce;
pub use segments_in_use::SegmentsInUse;
pub use tentative_cancel::TentativeCancel;
pub use token_reuse::TokenReuse;
