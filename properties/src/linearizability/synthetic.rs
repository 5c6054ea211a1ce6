//! [`synthetic_pipe_history`]: a large, linearizable pipe history made by simulation,
//! for the checker's benchmark and its scale tests.

use super::pipe_model::{PipeModel, PipeOp, PipeOutput, PipeState};
use pipecheck::linearizability::SequentialModel;
use pipecheck::linearizability::{History, Operation};

/// Where a simulated thread is in its current operation.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Invoke,
    Effect,
    Respond,
}

/// A history of `ops` pipe operations on two threads — a writer's 4-byte write+flush
/// operations ending with its completion, a reader's read/`advance_to` pairs — whose
/// invocations, effects and responses interleave at random (xorshift from `seed`), each
/// operation taking effect between its invocation and its response. It is
/// linearizable by construction, and the spans overlap as much as the interleaving makes
/// them, which is what the checker's search must untangle.
///
/// # Examples
///
/// ```
/// use pipecheck::linearizability::{Budget, check};
/// use pipecheck_properties::linearizability::{PipeModel, synthetic_pipe_history};
///
/// let history = synthetic_pipe_history(100, 1);
/// assert_eq!(history.len(), 100);
/// assert!(check(&PipeModel, &history, Budget::default()).unwrap().is_linearizable());
/// ```
///
/// # Panics
///
/// If `ops` is smaller than 4.
pub fn synthetic_pipe_history(ops: usize, seed: u64) -> History<PipeOp, PipeOutput> {
    assert!(ops >= 4, "a synthetic history needs at least a write, the completion and a read/advance pair");
    let writes = ops / 2 - 1;
    let reader_ops = ops - writes - 1;
    let mut rng = seed.max(1);
    let mut next_random = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let model = PipeModel;
    let mut state: PipeState = model.init();
    let mut clock = 0u64;
    let mut ops_done = [0usize; 2];
    let mut phases = [Phase::Invoke; 2];
    let mut current: [Option<Operation<PipeOp, PipeOutput>>; 2] = [None, None];
    let mut last_read = 0usize;
    let mut history = History::new();
    let totals = [writes + 1, reader_ops];
    while ops_done != totals {
        let thread = (next_random() % 2) as usize;
        if ops_done[thread] == totals[thread] {
            continue;
        }
        match phases[thread] {
            Phase::Invoke => {
                let input = match (thread, ops_done[thread]) {
                    (0, done) if done == writes => PipeOp::CompleteWriter,
                    (0, done) => PipeOp::WriteFlush((0..4).map(|i| (done * 4 + i) as u8).collect()),
                    (_, done) if done % 2 == 0 => PipeOp::Read,
                    _ => PipeOp::AdvanceTo { consumed: last_read, examined: last_read },
                };
                current[thread] =
                    Some(Operation { thread, input, output: None, invoked: clock, responded: None });
                clock += 1;
                phases[thread] = Phase::Effect;
            }
            Phase::Effect => {
                let op = current[thread].as_mut().expect("invoked");
                let output = match op.input {
                    PipeOp::Read => PipeOutput::Read {
                        bytes: state.unread().to_vec(),
                        completed: state.writer_completed(),
                        canceled: false,
                    },
                    _ => PipeOutput::Done,
                };
                // A read not enabled yet waits, as the real one does.
                let Some(next) = model.step(&state, &op.input, &output) else { continue };
                if op.input == PipeOp::Read {
                    last_read = state.unread().len();
                }
                state = next;
                op.output = Some(output);
                phases[thread] = Phase::Respond;
            }
            Phase::Respond => {
                let mut op = current[thread].take().expect("invoked");
                op.responded = Some(clock);
                clock += 1;
                history.push(op);
                ops_done[thread] += 1;
                phases[thread] = Phase::Invoke;
            }
        }
    }
    history
}
