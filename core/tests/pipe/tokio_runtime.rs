//! The pipe under tokio: writer and reader as tasks on a multi-thread runtime, moving a
//! few MiB with small pause/resume thresholds so that flushes really wait for the
//! reader (every flush crosses the pause threshold), byte-exact.

use crate::common::Recorder;
use crate::common::transfer::{check_pattern, fill_pattern};
use crate::common::watched::WatchFuture;
use pipecheck_pipe::{PipeEvent, PipeOptions};

const TOTAL: u64 = 4 << 20;
const CHUNK: usize = 3000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writer_and_reader_tasks_with_back_pressure() {
    let recorder = Recorder::new();
    let (mut writer, mut reader) = PipeOptions::new()
        .minimum_segment_size(1024)
        .maximum_segment_size(8192)
        .pause_writer_threshold(2048)
        .resume_writer_threshold(512)
        .observer(recorder.clone())
        .build()
        .unwrap();

    let writing = tokio::spawn(async move {
        let mut written = 0u64;
        while written < TOTAL {
            let n = CHUNK.min((TOTAL - written) as usize);
            let memory = writer.get_memory(n).unwrap();
            fill_pattern(&mut memory[..n], written);
            writer.advance(n).unwrap();
            written += n as u64;
            let result = writer.flush().watched().await.unwrap();
            assert!(!result.is_completed && !result.is_canceled);
        }
        writer.complete(None);
    });

    let reading = tokio::spawn(async move {
        let mut received = 0u64;
        let mut reads = 0u64;
        loop {
            let result = reader.read().watched().await.unwrap();
            reads += 1;
            let buffer = result.buffer();
            assert_eq!(buffer.start().offset(), received);
            for chunk in buffer.chunks() {
                check_pattern(chunk, received);
                received += chunk.len() as u64;
            }
            let done = result.is_completed();
            let end = buffer.end();
            reader.advance(end).unwrap();
            if done {
                break;
            }
            // Give the writer a chance to run between reads on a busy worker.
            if reads.is_multiple_of(16) {
                tokio::task::yield_now().watched().await;
            }
        }
        reader.complete(None);
        received
    });

    writing.watched().await.unwrap();
    assert_eq!(reading.watched().await.unwrap(), TOTAL);
    let events = recorder.events();
    let paused = events.iter().filter(|e| matches!(e, PipeEvent::Flushed { paused: true, .. })).count();
    let resumed = events.iter().filter(|e| matches!(e, PipeEvent::FlushResumed { .. })).count();
    eprintln!("{paused} flushes paused, {resumed} resumed");
    // Each full chunk adds 3000 bytes > the 2048-byte pause threshold, so its flush
    // pauses whatever the reader did before; the short last chunk may or may not.
    assert!(paused as u64 >= TOTAL / CHUNK as u64, "only {paused} flushes paused");
    assert!(resumed > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn canceling_a_read_from_another_task_releases_it() {
    let (_writer, mut reader) = pipecheck_pipe::pipe();
    let canceller = reader.read_canceller();
    let cancelling = tokio::spawn(async move { canceller.cancel_pending_read() });
    let result = reader.read().watched().await.unwrap();
    assert!(result.is_canceled());
    cancelling.watched().await.unwrap();
}
