//! Small driving helpers shared by scenario bodies.

use std::sync::Arc;

use pipecheck_core::PipeError;
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
        all.extend_from_slice(&outcome.bytes[..took]);
        if outcome.completed && took == outcome.bytes.len() {
            monitor.record_by("reader", Observation::Drained);
            return Ok(all);
        }
    }
}
