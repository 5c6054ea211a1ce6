//! Small driving helpers shared by scenario bodies.

use std::sync::Arc;

use pipecheck::ensure;
use pipecheck_pipe::PipeError;
use pipecheck_properties::{CheckedReader, Monitor, Observation};

/// Reads until the writer has completed and every byte is consumed, consuming
/// `consume(len)` bytes of each read (and examining all of them); records
/// [`Observation::Drained`] at the end. Returns the bytes consumed, in order.
///
/// Unlike [`CheckedReader::drain`], reads may leave bytes unconsumed, so the next read
/// waits for more data while bytes are pending (the examined/consumed distinction).
pub(crate) fn read_to_end(
    reader: &mut CheckedReader,
    monitor: &Arc<Monitor>,
    consume: impl Fn(usize) -> usize,
) -> Result<Vec<u8>, PipeError> {
    let mut all = Vec::new();
    loop {
        let mut took = 0;
        let outcome = reader.read_and_consume(|len| {
            took = consume(len).min(len);
            took
        })?;
        all.extend_from_slice(held(&outcome.bytes, took));
        if outcome.completed && took == outcome.bytes.len() {
            monitor.record_by("reader", Observation::Drained);
            return Ok(all);
        }
    }
}

/// The run's outcome: the reader got exactly `expected` (**byte-exact**), as a typed
/// violation every engine names. Checked after the joins where the body allows, so a
/// violation raised on another thread ends the run first and no two threads unwind at
/// once.
pub(crate) fn expect_bytes(got: &[u8], expected: &[u8]) {
    ensure(got == expected, pipecheck_pipe::invariant::BYTE_EXACT, || {
        format!("the reader drained {got:?}, expected {expected:?}")
    });
}

/// Joins `task`, re-raising its panic as it was: a checker's typed payload reaches the
/// engine unchanged, on plain threads as under loom and shuttle.
pub(crate) fn join<T>(task: pipecheck::thread::JoinHandle<T>) -> T {
    task.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The first `len` bytes of a read's buffer, which its length said it holds; a buffer
/// holding fewer is a torn read (**byte-exact**), named as such rather than a slice
/// panic in the scenario body.
pub(crate) fn held(bytes: &[u8], len: usize) -> &[u8] {
    bytes.get(..len).unwrap_or_else(|| {
        let detail = format!("a read's buffer reported {len} bytes but held {}", bytes.len());
        pipecheck::Violation::new(pipecheck_pipe::invariant::BYTE_EXACT, detail).raise()
    })
}
