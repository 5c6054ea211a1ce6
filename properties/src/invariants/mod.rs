//! One invariant per file. Each checks the [`Observation`](crate::Observation)s of a
//! run; together they are the table in README.

mod backpressure;
mod bounded_after_reader_complete;
mod bounded_pool;
mod byte_exact;
mod cancel_observed;
mod failure_cause;
mod fifo_pool;
mod monotonic_offsets;
mod no_data_race;
mod no_double_return;
mod no_lost_wakeup;
mod release_once;
mod tentative_cancel;

pub use backpressure::Backpressure;
pub use bounded_after_reader_complete::BoundedAfterReaderComplete;
pub use bounded_pool::BoundedPool;
pub use byte_exact::ByteExact;
pub use cancel_observed::CancelObserved;
pub use failure_cause::FailureCause;
pub use fifo_pool::FifoPool;
pub use monotonic_offsets::MonotonicOffsets;
pub use no_data_race::NoDataRace;
pub use no_double_return::NoDoubleReturn;
pub use no_lost_wakeup::NoLostWakeup;
pub use release_once::ReleaseOnce;
pub use tentative_cancel::TentativeCancel;
