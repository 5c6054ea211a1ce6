//! The only-wake family: waits that exactly one wake can end, so a lost wake is never
//! rescued by a later one (the writer's completion wakes a pending read too, and in
//! the other families it comes right after the flush).
//!
//! * the writer waits for the reader's reply on a second pipe before it completes, so
//!   the flush's wake is the only one that can end the reader's first wait
//!   (`FlushForgetsWake` leaves both waiting);
//! * the reader's read is first polled from one task (a waker that nobody waits on),
//!   then from another (the task moved): only a wake of the second task's waker ends
//!   the wait (`KeepsStaleWaker` keeps the first waker and wakes the wrong task).
//!
//! **no-lost-wakeup** is checked online: the flush that owes the wake is named as it
//! releases the pipe lock, before any deadlock (see the invariant's module).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Wake, Waker};

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use super::drive::join;
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "flush-wake-is-the-only-wake",
        summary: "the writer flushes a byte, then waits for the reader's reply on a second pipe before \
                  completing: only the flush can wake the reader's first read",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: flush_wake_is_the_only_wake,
    },
    Scenario {
        name: "read-repolled-from-another-task",
        summary: "a read polled from one task is polled again from another before the writer flushes a byte \
                  and completes: only the second task's waker ends the wait",
        scale: Scale::Small,
        config: CheckConfig::default,
        body: read_repolled_from_another_task,
    },
];

/// The reply pipe runs under a monitor of its own (its events must not mix with the
/// data pipe's), with the same settings and no planted bug.
pub(super) fn reply_monitor(monitor: &Monitor) -> Arc<Monitor> {
    Monitor::new(monitor.config().clone())
}

fn flush_wake_is_the_only_wake(monitor: &Arc<Monitor>) {
    let replies = reply_monitor(monitor);
    let (mut writer, mut reader) = checked_pipe(monitor);
    let (mut reply_writer, mut reply_reader) = checked_pipe(&replies);
    let writer = thread::spawn(move || {
        writer.send(b"a").unwrap();
        // Completing before the reply would wake the reader anyway: wait for it first.
        let reply = reply_reader.drain().unwrap();
        ensure(reply == b"r", pipecheck_pipe::invariant::BYTE_EXACT, || {
            format!("the reply was {reply:?}, not \"r\"")
        });
        reply_reader.complete(None);
        writer.complete(None);
    });
    let first = reader.read_and_consume(|len| len).unwrap();
    reply_writer.send(b"r").unwrap();
    reply_writer.complete(None);
    let rest = reader.drain().unwrap();
    reader.complete(None);
    join(writer);
    // Checked after the join, so a violation raised by the writer ends the run first.
    ensure(first.bytes == b"a" && !first.completed, pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the first read returned {first:?}: the flushed byte, before completion, was expected")
    });
    ensure(rest.is_empty(), pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("bytes after the only one: {rest:?}")
    });
    replies.assert_finished();
}

/// The waker of a task that polled once and went away: waking it does nothing. A heap
/// waker, not `Waker::noop()`, so its identity (a data pointer) cannot coincide with an
/// engine's task waker (shuttle's carry small task numbers as data).
pub(super) struct AbandonedTask;

impl Wake for AbandonedTask {
    fn wake(self: Arc<Self>) {}
}

fn read_repolled_from_another_task(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    // The first task polls the read once (nothing is committed yet, so it waits) and
    // gives up: its waker stays registered, and nobody waits on it.
    {
        let mut read = reader.inner().read();
        let gone = Waker::from(Arc::new(AbandonedTask));
        let pending = Pin::new(&mut read).poll(&mut Context::from_waker(&gone)).is_pending();
        ensure(pending, pipecheck_pipe::invariant::BYTE_EXACT, || {
            "a read of an empty pipe returned".to_owned()
        });
    }
    let writer = thread::spawn(move || {
        writer.send(b"a").unwrap();
        writer.complete(None);
    });
    // The task that polls now waits on its own waker.
    let bytes = reader.drain().unwrap();
    reader.complete(None);
    join(writer);
    ensure(bytes == b"a", pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reader drained {bytes:?}, not \"a\"")
    });
}
