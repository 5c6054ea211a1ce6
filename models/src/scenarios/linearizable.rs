//! The linearizability family: small concurrent runs of the pipe and of the seed
//! primitives recorded as a history and checked against the object's sequential model
//! ([`PipeModel`], [`MutexModel`], [`CompletionModel`], [`MessageChannelModel`]),
//! besides the monitor's per-event invariants.
//!
//! Each thread records its operations in its own log on a relaxed atomic clock (see
//! [`Recorder`]), so recording adds no synchronization the pipe lacks. After the joins
//! the history must be **linearizable**: some order of the operations, respecting real
//! time, that the sequential byte stream accepts.

use std::sync::Arc;

use pipecheck::future::block_on;
use pipecheck::linearizability::{Budget, Recorder, ThreadLog, ensure_linearizable};
use pipecheck::thread;
use pipecheck_pipe::{AsyncMutex, ChannelError, CompletionSource, Message, message_channel_observed};
use pipecheck_properties::linearizability::{
    BackpressurePipeModel, ChannelOp, ChannelOutput, CompletionModel, CompletionOp, CompletionOutput,
    MessageChannelModel, MutexModel, MutexOp, PipeModel, PipeOp, PipeOutput,
};
use pipecheck_properties::{CheckConfig, CheckedReader, CheckedWriter, Monitor, Observation};

use super::drive::join;
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "pipe-linearizable",
        summary: "a writer sends two frames and completes, a third thread cancels the read, the reader drains: the history is linearizable",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: pipe_linearizable,
    },
    Scenario {
        name: "mutex-linearizable",
        summary: "one task locks and unlocks the async mutex while another tries to lock it three times: the history is linearizable",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: mutex_linearizable,
    },
    Scenario {
        name: "completion-linearizable",
        summary: "a task sets a completion source's result twice while another waits, resets and asks again: the history is linearizable",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: completion_linearizable,
    },
    Scenario {
        name: "channel-linearizable",
        summary: "a sender sends a message and the close frame while one task receives and another closes the receiving end: the history is linearizable",
        scale: Scale::Small,
        config: channel_config,
        body: channel_linearizable,
    },
    Scenario {
        name: "pipe-reread-linearizable",
        summary: "a writer flushes two frames and completes while the reader reads, examines nothing and reads again: the history is linearizable",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: pipe_reread_linearizable,
    },
    Scenario {
        name: "pipe-backpressure-linearizable",
        summary: "a writer's first flush reaches the pause threshold and waits while the reader reads and examines; then it flushes again and completes: the history is linearizable with back-pressure",
        scale: Scale::Small,
        config: backpressure_config,
        body: pipe_backpressure_linearizable,
    },
];

/// Each scenario of this family and the sequential model its history is checked
/// against, named for the object it specifies.
pub(crate) const MODELS: &[(&str, &str)] = &[
    ("pipe-linearizable", "pipe"),
    ("mutex-linearizable", "async mutex"),
    ("completion-linearizable", "completion source"),
    ("channel-linearizable", "message channel"),
    ("pipe-reread-linearizable", "pipe"),
    ("pipe-backpressure-linearizable", "pipe with back-pressure"),
];

/// Channel runs: 16-byte segments, so a data frame and the close frame share one (as
/// the channel scenarios of `primitives.rs`), and a pause threshold no run reaches:
/// [`MessageChannelModel`] has no back-pressure, and a sender paused behind a close
/// that stopped reading would deadlock rather than show the history.
fn channel_config() -> CheckConfig {
    CheckConfig {
        minimum_segment_size: 16,
        maximum_segment_size: 16,
        pause_writer_threshold: 64,
        resume_writer_threshold: 32,
        ..CheckConfig::default()
    }
}

/// One recorded reader step: the read (with its consume, done inside the same call) and
/// then the `advance_to` as an operation of its own, right after. Moving the advance
/// later inside the reader's own thread changes nothing another thread can observe:
/// [`PipeModel`]'s writer and cancel operations return nothing that depends on it
/// (with back-pressure a flush's return does: `pipe_backpressure_linearizable` records
/// the advance inside the call).
fn recorded_read(reader: &mut CheckedReader, log: &mut ThreadLog<PipeOp, PipeOutput>) -> (usize, bool) {
    let read = log.invoke(PipeOp::Read);
    let outcome = reader.read_and_consume(|len| len).unwrap();
    let len = outcome.bytes.len();
    let completed = outcome.completed;
    log.respond(read, PipeOutput::Read { bytes: outcome.bytes, completed, canceled: outcome.canceled });
    log.record(PipeOp::AdvanceTo { consumed: len, examined: len }, || PipeOutput::Done);
    (len, completed)
}

/// Reads (each read recorded by [`recorded_read`]) until the writer's completion with
/// nothing left, then reports the drain and completes the reader.
fn recorded_drain(reader: &mut CheckedReader, log: &mut ThreadLog<PipeOp, PipeOutput>, monitor: &Monitor) {
    loop {
        let (len, completed) = recorded_read(reader, log);
        if completed && len == 0 {
            break;
        }
    }
    monitor.record_by("reader", Observation::Drained);
    reader.complete(None);
}
/// The writer's thread: each frame sent (written and flushed) as one recorded
/// `WriteFlush`, then the completion; returns its log.
fn recorded_writer(
    mut writer: CheckedWriter,
    mut log: ThreadLog<PipeOp, PipeOutput>,
    frames: &[&'static [u8]],
) -> thread::JoinHandle<ThreadLog<PipeOp, PipeOutput>> {
    let frames = frames.to_vec();
    thread::spawn(move || {
        for frame in frames {
            log.record(PipeOp::WriteFlush(frame.to_vec()), || {
                writer.send(frame).unwrap();
                PipeOutput::Done
            });
        }
        log.record(PipeOp::CompleteWriter, || {
            writer.complete(None);
            PipeOutput::Done
        });
        log
    })
}

fn pipe_linearizable(monitor: &Arc<Monitor>) {
    let recorder = Recorder::new();
    let (writer, mut reader) = pipecheck_properties::checked_pipe(monitor);
    let canceller = reader.inner().read_canceller();
    let writer_log = recorder.thread(0);
    let mut cancel_log = recorder.thread(2);
    let mut reader_log = recorder.thread(1);
    let cancel = thread::spawn(move || {
        cancel_log.record(PipeOp::CancelRead, || {
            canceller.cancel_pending_read();
            PipeOutput::Done
        });
        cancel_log
    });
    let writer = recorded_writer(writer, writer_log, &[&b"ab"[..], b"c"]);
    recorded_drain(&mut reader, &mut reader_log, monitor);
    let logs = [join(writer), reader_log, join(cancel)];
    ensure_linearizable(&PipeModel, &Recorder::history(logs), Budget::default());
}

/// One task takes and releases the lock; another tries three times to take it (and
/// releases it each time it did). A `try_lock` that starts after the release must succeed: a refusal then is
/// visible to no per-event invariant (nobody holds the lock twice, nobody waits), only
/// to the history.
fn mutex_linearizable(monitor: &Arc<Monitor>) {
    let recorder = Recorder::new();
    let mutex = pipecheck::sync::Arc::new(AsyncMutex::new(()).observed(monitor.primitive_observer()));
    let mut locker_log = recorder.thread(0);
    let mut trier_log = recorder.thread(1);
    let locker = {
        let mutex = mutex.clone();
        thread::spawn(move || {
            let lock = locker_log.invoke(MutexOp::Lock);
            let guard = block_on(mutex.lock());
            locker_log.respond(lock, true);
            let unlock = locker_log.invoke(MutexOp::Unlock);
            drop(guard);
            locker_log.respond(unlock, true);
            locker_log
        })
    };
    let attempt = |log: &mut ThreadLog<MutexOp, bool>| {
        let attempt = log.invoke(MutexOp::TryLock);
        let guard = mutex.try_lock();
        log.respond(attempt, guard.is_some());
        if let Some(guard) = guard {
            let unlock = log.invoke(MutexOp::Unlock);
            drop(guard);
            log.respond(unlock, true);
        }
    };
    // Three attempts, a yield before each, so that a random schedule often lets the
    // other task finish first (one attempt is almost always made before it runs).
    for _ in 0..3 {
        thread::yield_now();
        attempt(&mut trier_log);
    }
    // One after joining the locker: its release happens before it (a recorded join
    // edge), so it must succeed under loom too, where only such edges order threads.
    trier_log.join(join(locker));
    attempt(&mut trier_log);
    let logs = [trier_log];
    ensure_linearizable(&MutexModel, &Recorder::history(logs), Budget::default());
}

/// Operation 1 starts; one task sets its result, then sets it again (refused: already
/// completed, or stale once the other task reset); the other waits for it, resets, and
/// asks for the old operation's result (stale).
fn completion_linearizable(monitor: &Arc<Monitor>) {
    let recorder = Recorder::new();
    let source = pipecheck::sync::Arc::new(CompletionSource::new().observed(monitor.primitive_observer()));
    let mut waiter_log = recorder.thread(0);
    let mut setter_log = recorder.thread(1);
    let started = waiter_log.invoke(CompletionOp::Reset);
    let token = source.reset();
    waiter_log.respond(started, CompletionOutput::Token(token.version()));
    let setter = {
        let source = source.clone();
        thread::spawn(move || {
            for value in [7, 8] {
                setter_log.record(CompletionOp::SetResult { token: token.version(), value }, || {
                    CompletionOutput::Set(source.set_result(token, value))
                });
            }
            setter_log
        })
    };
    waiter_log.record(CompletionOp::Wait { token: token.version() }, || {
        CompletionOutput::Value(block_on(source.wait(token)))
    });
    waiter_log.record(CompletionOp::Reset, || CompletionOutput::Token(source.reset().version()));
    waiter_log.record(CompletionOp::GetResult { token: token.version() }, || {
        CompletionOutput::Value(source.get_result(token))
    });
    let logs = [waiter_log, join(setter)];
    ensure_linearizable(&CompletionModel, &Recorder::history(logs), Budget::default());
}

/// The writer flushes `a`, then `b`, and completes; the reader's first read examines
/// nothing (`read_at_least(1)`, consuming and examining none), so its second read
/// returns at once: it must return `b` too if `b`'s flush returned before it began.
/// Missing it breaks no per-event invariant (the bytes come at a later read, in order):
/// only the history shows it (`ReadSkipsPublishedEnd`).
fn pipe_reread_linearizable(monitor: &Arc<Monitor>) {
    let recorder = Recorder::new();
    let (writer, mut reader) = pipecheck_properties::checked_pipe(monitor);
    let writer_log = recorder.thread(0);
    let mut reader_log = recorder.thread(1);
    let writer = recorded_writer(writer, writer_log, &[&b"a"[..], b"b"]);
    let read = reader_log.invoke(PipeOp::Read);
    let outcome = reader.read_at_least_and_consume(1, |_| 0).unwrap();
    let output =
        PipeOutput::Read { bytes: outcome.bytes, completed: outcome.completed, canceled: outcome.canceled };
    reader_log.respond(read, output);
    reader_log.record(PipeOp::AdvanceTo { consumed: 0, examined: 0 }, || PipeOutput::Done);
    // A yield, so that a random schedule often lets the writer flush in between.
    thread::yield_now();
    recorded_drain(&mut reader, &mut reader_log, monitor);
    let logs = [join(writer), reader_log];
    ensure_linearizable(&PipeModel, &Recorder::history(logs), Budget::default());
}

/// What a receive returned, as the model's output.
fn received(result: Result<Message, ChannelError>) -> ChannelOutput {
    match result {
        Ok(Message::Data(payload)) => ChannelOutput::Message(payload),
        Ok(Message::Closed) => ChannelOutput::Closed,
        Err(error) => ChannelOutput::Failed(error.to_string()),
    }
}

/// What a send returned, as the model's output.
fn sent(result: Result<(), ChannelError>) -> ChannelOutput {
    match result {
        Ok(()) => ChannelOutput::Done,
        Err(ChannelError::ReceiverGone) => ChannelOutput::Refused,
        Err(error) => ChannelOutput::Failed(error.to_string()),
    }
}

/// The sender sends `m` and the close frame; one task receives once while another
/// closes the receiving end (a receive loop until the close frame, which the model
/// checks as such: [`MessageChannelModel::split_closes`]). The history must be
/// linearizable: the message to one caller, and a close that returns only after the
/// close frame was sent, with the message if no receive took it. One message keeps
/// loom's bound-2 search near 10 s (two take it past a minute: models/LOOM.md).
fn channel_linearizable(monitor: &Arc<Monitor>) {
    let recorder = Recorder::new();
    let (mut sender, receiver) =
        message_channel_observed(monitor.pipe_options(), monitor.primitive_observer())
            .expect("valid options");
    let receiver = pipecheck::sync::Arc::new(receiver);
    let mut sender_log = recorder.thread(0);
    let mut receiver_log = recorder.thread(1);
    let mut closer_log = recorder.thread(2);
    let receiving = {
        let receiver = receiver.clone();
        thread::spawn(move || {
            receiver_log.record(ChannelOp::Receive, || received(block_on(receiver.receive())));
            receiver_log
        })
    };
    let sending = thread::spawn(move || {
        sender_log.record(ChannelOp::Send(b"m".to_vec()), || sent(block_on(sender.send(b"m"))));
        sender_log.record(ChannelOp::CloseSender, || sent(block_on(sender.close())));
        sender_log
    });
    closer_log.record(ChannelOp::Close, || match block_on(receiver.close()) {
        Ok(drained) => ChannelOutput::Drained(drained),
        Err(error) => ChannelOutput::Failed(error.to_string()),
    });
    let logs = [join(sending), join(receiving), closer_log];
    let history = MessageChannelModel::split_closes(&Recorder::history(logs), 100);
    ensure_linearizable(&MessageChannelModel, &history, Budget::default());
}

/// Back-pressure within reach: a 2-byte flush pauses the writer, and it resumes once
/// fewer than 1 byte is unexamined.
fn backpressure_config() -> CheckConfig {
    CheckConfig { pause_writer_threshold: 2, resume_writer_threshold: 1, ..CheckConfig::default() }
}

/// The writer flushes "ab" (reaching the pause threshold: the flush waits until the
/// reader has examined both bytes), then "c", and completes; the reader reads and
/// examines everything until the writer completed. Checked against
/// [`BackpressurePipeModel`] (each flush a commit, then a return enabled only while
/// the writer is not paused): a flush must not return before the reader released it.
fn pipe_backpressure_linearizable(monitor: &Arc<Monitor>) {
    let config = monitor.config();
    let model = BackpressurePipeModel {
        pause: usize::try_from(config.pause_writer_threshold).expect("a small threshold"),
        resume: usize::try_from(config.resume_writer_threshold).expect("a small threshold"),
    };
    let recorder = Recorder::new();
    let (writer, mut reader) = pipecheck_properties::checked_pipe(monitor);
    let writer_log = recorder.thread(0);
    let mut reader_log = recorder.thread(1);
    let writer = recorded_writer(writer, writer_log, &[&b"ab"[..], b"c"]);
    loop {
        // The advance that releases the writer is recorded where it happens, inside
        // the call (after the read returned), not after it as `recorded_read` does.
        let read = reader_log.invoke(PipeOp::Read);
        let mut advance = None;
        let outcome = reader
            .read_and_consume_observed(
                |len| len,
                |outcome| {
                    let bytes = outcome.bytes.clone();
                    let (completed, canceled) = (outcome.completed, outcome.canceled);
                    reader_log.respond(read, PipeOutput::Read { bytes, completed, canceled });
                    let len = outcome.bytes.len();
                    advance = Some(reader_log.invoke(PipeOp::AdvanceTo { consumed: len, examined: len }));
                },
            )
            .unwrap();
        reader_log.respond(advance.expect("the read returned"), PipeOutput::Done);
        if outcome.completed && outcome.bytes.is_empty() {
            break;
        }
    }
    monitor.record_by("reader", Observation::Drained);
    reader.complete(None);
    let logs = [join(writer), reader_log];
    let history = BackpressurePipeModel::split_flushes(&Recorder::history(logs));
    ensure_linearizable(&model, &history, Budget::default());
}

#[cfg(test)]
mod tests {
    use super::{MODELS, SCENARIOS};

    #[test]
    fn every_scenario_of_the_family_names_its_model() {
        let names: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
        let modelled: Vec<&str> = MODELS.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, modelled, "keep MODELS in step with SCENARIOS");
    }
}
