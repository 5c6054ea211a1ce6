//! The pipe's and its seed primitives' sequential models, checked by
//! [`pipecheck::linearizability`].

mod backpressure_model;
mod channel_model;
mod completion_model;
mod mutex_model;
mod mutex_spec;
mod pipe_model;
mod synthetic;

pub use backpressure_model::{BackpressureOp, BackpressurePipeModel, BackpressureState};
pub use channel_model::{ChannelOp, ChannelOutput, ChannelState, MessageChannelModel};
pub use completion_model::{CompletionModel, CompletionOp, CompletionOutput, Slot};
pub use mutex_model::{MutexModel, MutexOp};
pub use mutex_spec::{MutexSpec, SharedMutex};
pub use pipe_model::{PipeModel, PipeOp, PipeOutput, PipeState};
pub use synthetic::synthetic_pipe_history;
