//! The seed primitives: concurrent designs beside the pipe, on the same sync facade and
//! checked the same way, with the events their checkers observe.

pub(crate) mod async_mutex;
pub(crate) mod completion_source;
pub(crate) mod message_channel;
pub(crate) mod partitioned_pool;
pub(crate) mod primitive_event;
