//! The stale-waker family: a read polled once and given up leaves its waker registered
//! (and `READER_PARKED` set), and the reader goes on reading.
//!
//! A task waits for three bytes with `read_at_least(3)`, finds one, polls once and
//! gives up (a timeout). Its waker stays registered until a flush or the writer's
//! completion takes it. The reader then peeks at what is there (a plain read that
//! examines nothing; under the lock, since the read-at-least had flagged `READ_SLOW`)
//! and reads it again: that second read finds bytes while the stale waker is still
//! registered, so it must take the lock too. The `FastReadIgnoresParked` planted bug
//! takes them without it, which **fast-read-unparked** reports.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use pipecheck::ensure;
use pipecheck::thread;
use pipecheck_properties::{CheckConfig, Monitor, checked_pipe};

use super::drive::{expect_bytes, join};
use super::only_wake::AbandonedTask;
use crate::Scenario;
use pipecheck::Scale;

/// Scenarios of this family.
pub(crate) const SCENARIOS: &[Scenario] = &[Scenario {
    name: "read-at-least-abandoned-then-peeked",
    summary: "the writer flushes \"a\"; a task polls read_at_least(3) once and gives up, its waker left \
              registered; the reader peeks (examining nothing) and drains while the writer flushes \"b\" \
              and completes",
    scale: Scale::Small,
    config: CheckConfig::default,
    body: read_at_least_abandoned_then_peeked,
}];

fn read_at_least_abandoned_then_peeked(monitor: &Arc<Monitor>) {
    let (mut writer, mut reader) = checked_pipe(monitor);
    writer.send(b"a").unwrap();
    {
        // One byte of three: the read waits, and its task goes away.
        let mut read = reader.inner().read_at_least(3);
        let gone = Waker::from(Arc::new(AbandonedTask));
        let polled = Pin::new(&mut read).poll(&mut Context::from_waker(&gone));
        ensure(matches!(polled, Poll::Pending), pipecheck_pipe::invariant::BYTE_EXACT, || {
            "read_at_least(3) returned with one byte committed and the writer open".to_owned()
        });
    }
    let writer = thread::spawn(move || {
        writer.send(b"b").unwrap();
        writer.complete(None);
    });
    let peek = reader.read_held(None).expect("reads succeed");
    reader.advance_to(peek.start(), peek.start()).expect("examine nothing");
    let bytes = reader.drain().unwrap();
    reader.complete(None);
    join(writer);
    expect_bytes(&bytes, b"ab");
}
