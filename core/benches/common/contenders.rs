//! The transports under test. Each function moves `total` bytes in `chunk`-byte chunks
//! from a spawned writer thread to the calling thread, times the whole transfer (thread
//! start to last byte touched), checks the reader's sum and returns an [`Outcome`].

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use pipecheck_pipe::{LockScope, LockedBufferPool, PipeOptions, PoolDesign, Reader, Writer};
use pipecheck_sync::future::block_on;

use super::conditions;
use super::{IN_FLIGHT, expected_sum, source, touch};

/// Starts the writer thread. With [`conditions::PLACE_VAR`] set, the writer runs on its
/// CPU and the calling thread, the reader, on the other, so every transfer of a report
/// crosses the same two cores instead of wherever the scheduler puts them.
///
/// # Panics
///
/// If the placement cannot be applied (a CPU not allowed): the figure would be reported
/// under the wrong placement.
fn spawn_writer<T: Send + 'static>(writer: impl FnOnce() -> T + Send + 'static) -> thread::JoinHandle<T> {
    let Some((writer_cpu, reader_cpu)) = conditions::placement() else {
        return thread::spawn(writer);
    };
    let pin =
        |cpu| conditions::pin_current_thread(cpu).unwrap_or_else(|e| panic!("cannot place a thread: {e}"));
    pin(reader_cpu);
    thread::spawn(move || {
        pin(writer_cpu);
        writer()
    })
}

/// What one transfer measured.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// Wall time from starting the writer to the reader's last byte.
    pub elapsed: Duration,
    /// Contended lock acquisitions (pipes built with `contention-stats` only).
    pub contention: Option<Contention>,
}

/// Contended acquisitions of each lock a pipe uses, over one transfer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Contention {
    /// The pipe's state lock.
    pub pipe_lock: u64,
    /// The segment pool's lock (the locked stack only; the FIFO has none).
    pub segment_pool: u64,
    /// The buffer pool's size-class locks (the locked pool of the "before" design only;
    /// the default pool is lock-free).
    pub buffer_pool: u64,
    /// All acquisitions of the pipe lock, contended or not.
    pub pipe_lock_acquisitions: u64,
}

impl Contention {
    /// All contended acquisitions (not counting `pipe_lock_acquisitions`).
    pub fn total(&self) -> u64 {
        self.pipe_lock + self.segment_pool + self.buffer_pool
    }
}

/// The two pipe designs of seed 000's A/B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Design {
    /// Before seeds 000/001: a LIFO segment stack behind a mutex, buffers rented and
    /// returned inside the pipe lock from a pool with a lock per size class
    /// ([`LockedBufferPool`]), the pipe lock taken by every operation.
    Before,
    /// The default pipe: the SPSC FIFO pool, rent and return outside the lock from the
    /// lock-free default buffer pool, lock-free `get_memory`/`advance` and fast flush.
    After,
}

impl Design {
    /// Both designs, in report order.
    pub const BOTH: [Design; 2] = [Design::Before, Design::After];

    /// The name used in benchmark ids and tables.
    pub fn name(self) -> &'static str {
        match self {
            Design::Before => "before",
            Design::After => "after",
        }
    }

    /// The pipe options of this design.
    pub fn options(self) -> PipeOptions {
        match self {
            Design::Before => {
                PipeOptions::new().pool_design(PoolDesign::LockedStack).lock_scope(LockScope::EveryOperation)
            }
            Design::After => PipeOptions::new(),
        }
    }
}

/// pipecheck's pipe with default options: `get_memory`, copy, `advance`, `flush` per
/// chunk; the reader reads everything committed, touches it, and consumes it all.
pub fn pipe(chunk: usize, total: u64) -> Outcome {
    pipe_design(Design::After, chunk, total)
}

/// pipecheck's pipe in one of the two designs of seed 000 (see [`pipe`]).
pub fn pipe_design(design: Design, chunk: usize, total: u64) -> Outcome {
    match design {
        Design::Before => {
            let buffers = Arc::new(LockedBufferPool::new());
            let options = design.options().buffer_pool(buffers.clone());
            pipe_with(options, Some(&buffers), chunk, total)
        }
        Design::After => pipe_with(design.options(), None, chunk, total),
    }
}

/// Chunks a [`pipe_four_chunks`] pipe lets the writer have in flight before it pauses.
pub const CHUNKS_IN_FLIGHT: u64 = 4;

/// The default pipe, except that its pause threshold lets [`CHUNKS_IN_FLIGHT`] chunks be
/// in flight (and a paused flush resumes at half that), instead of the default 64 KiB:
/// at 64 KiB chunks the default pauses after every flush, which serializes the threads.
pub fn pipe_four_chunks(chunk: usize, total: u64) -> Outcome {
    let in_flight = CHUNKS_IN_FLIGHT * chunk as u64;
    let options = PipeOptions::new().pause_writer_threshold(in_flight).resume_writer_threshold(in_flight / 2);
    pipe_with(options, None, chunk, total)
}

/// The pipe built from `options` (see [`pipe`]); `locked_buffers`, the buffer pool in
/// `options` when it is the locked one, to count its contention (the default pool is
/// lock-free: nothing to count).
fn pipe_with(
    options: PipeOptions,
    locked_buffers: Option<&LockedBufferPool>,
    chunk: usize,
    total: u64,
) -> Outcome {
    let (mut writer, mut reader) = options.build().expect("valid options");
    let source = source(chunk);
    let start = Instant::now();
    let writing = spawn_writer(move || {
        let mut sent = 0;
        while sent < total {
            let memory = writer.get_memory(chunk).expect("chunk fits a segment");
            memory[..chunk].copy_from_slice(source.bytes());
            writer.advance(chunk).expect("advance within the memory");
            block_on(writer.flush()).expect("the reader is alive");
            sent += chunk as u64;
        }
        writer.complete(None);
        writer // kept alive so its counters can be read after the reader finishes
    });
    let (mut sum, mut received) = (0u64, 0u64);
    loop {
        let result = block_on(reader.read()).expect("the writer completes without failure");
        let buffer = result.buffer();
        for piece in buffer.chunks() {
            sum = sum.wrapping_add(touch(piece));
        }
        received += buffer.len() as u64;
        let (end, done) = (buffer.end(), result.is_completed());
        reader.advance_to(end, end).expect("the end of the buffer just read");
        if done {
            break;
        }
    }
    let elapsed = start.elapsed();
    let writer = writing.join().expect("writer thread");
    check(received, sum, chunk, total);
    #[cfg(feature = "contention-stats")]
    let contention = Some(Contention {
        pipe_lock: writer.lock_contention(),
        segment_pool: writer.segment_pool_contention(),
        buffer_pool: locked_buffers.map_or(0, LockedBufferPool::lock_contention),
        pipe_lock_acquisitions: writer.lock_acquisitions(),
    });
    #[cfg(not(feature = "contention-stats"))]
    let contention = {
        let _ = locked_buffers; // nothing to count without the feature
        None
    };
    drop((writer, reader));
    Outcome { elapsed, contention }
}

/// `tokio::io::duplex` with a 64 KiB buffer; each side on its own current-thread
/// runtime. The writer `write_all`s each chunk; the reader reads into a 64 KiB buffer.
pub fn tokio_duplex(chunk: usize, total: u64) -> Outcome {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let (mut tx, mut rx) = tokio::io::duplex(IN_FLIGHT);
    let source = source(chunk);
    let runtime = || tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let start = Instant::now();
    let writing = spawn_writer(move || {
        runtime().block_on(async move {
            let mut sent = 0;
            while sent < total {
                tx.write_all(source.bytes()).await.expect("the reader is alive");
                sent += chunk as u64;
            }
            // Dropping `tx` makes the reader see end of stream.
        })
    });
    let (sum, received) = runtime().block_on(async move {
        let mut buf = vec![0; IN_FLIGHT];
        let (mut sum, mut received) = (0u64, 0u64);
        loop {
            let n = rx.read(&mut buf).await.expect("duplex read");
            if n == 0 {
                return (sum, received);
            }
            sum = sum.wrapping_add(touch(&buf[..n]));
            received += n as u64;
        }
    });
    let elapsed = start.elapsed();
    writing.join().expect("writer thread");
    check(received, sum, chunk, total);
    Outcome { elapsed, contention: None }
}

/// An [`rtrb`] ring of 64 KiB bytes: the lock-free SPSC ring as the practical limit
/// for moving bytes between two threads (one index per side, each written only by its
/// owner and cached by the other). The writer copies each chunk in with
/// `push_partial_slice`, the reader takes everything readable with `read_chunk`, touches
/// both slices and commits. The ring never blocks: a side that finds it full or empty
/// yields its time slice and tries again (the pipe and the duplex park instead).
pub fn rtrb_ring(chunk: usize, total: u64) -> Outcome {
    let (mut tx, mut rx) = rtrb::RingBuffer::<u8>::new(IN_FLIGHT.max(chunk));
    let source = source(chunk);
    let start = Instant::now();
    let writing = spawn_writer(move || {
        let mut sent = 0;
        while sent < total {
            let mut rest = source.bytes();
            while let (_, remainder @ [_, ..]) = tx.push_partial_slice(rest) {
                rest = remainder;
                thread::yield_now();
            }
            sent += chunk as u64;
        }
        // Dropping `tx` makes the reader see the end (`is_abandoned`).
    });
    let (mut sum, mut received) = (0u64, 0u64);
    while received < total {
        let readable = rx.slots();
        if readable == 0 {
            if rx.is_abandoned() && rx.slots() == 0 {
                break;
            }
            thread::yield_now();
            continue;
        }
        let read = rx.read_chunk(readable).expect("the slots just counted");
        let (first, second) = read.as_slices();
        sum = sum.wrapping_add(touch(first)).wrapping_add(touch(second));
        received += readable as u64;
        read.commit_all();
    }
    let elapsed = start.elapsed();
    writing.join().expect("writer thread");
    check(received, sum, chunk, total);
    Outcome { elapsed, contention: None }
}

/// `std::sync::mpsc::sync_channel::<Vec<u8>>` holding 64 KiB of chunks (at least one):
/// a new `Vec` per chunk, dropped by the reader.
pub fn std_mpsc(chunk: usize, total: u64) -> Outcome {
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>((IN_FLIGHT / chunk).max(1));
    let source = source(chunk);
    let start = Instant::now();
    let writing = spawn_writer(move || {
        let mut sent = 0;
        while sent < total {
            tx.send(source.bytes().to_vec()).expect("the reader is alive");
            sent += chunk as u64;
        }
    });
    let (mut sum, mut received) = (0u64, 0u64);
    for bytes in rx {
        sum = sum.wrapping_add(touch(&bytes));
        received += bytes.len() as u64;
    }
    let elapsed = start.elapsed();
    writing.join().expect("writer thread");
    check(received, sum, chunk, total);
    Outcome { elapsed, contention: None }
}

/// A bounded crossbeam channel holding 64 KiB of chunks (at least one), with buffer
/// recycling: the reader sends each `Vec` back on a second channel, and the writer
/// reuses it (allocating only while none has come back yet).
pub fn crossbeam_recycled(chunk: usize, total: u64) -> Outcome {
    let capacity = (IN_FLIGHT / chunk).max(1);
    let (tx, rx) = crossbeam_channel::bounded::<Vec<u8>>(capacity);
    // At most capacity + 2 buffers exist (in the channel, at the reader, at the writer).
    let (recycle_tx, recycle_rx) = crossbeam_channel::bounded::<Vec<u8>>(capacity + 2);
    let source = source(chunk);
    let start = Instant::now();
    let writing = spawn_writer(move || {
        let mut sent = 0;
        while sent < total {
            let mut buffer = recycle_rx.try_recv().unwrap_or_else(|_| Vec::with_capacity(chunk));
            buffer.clear();
            buffer.extend_from_slice(source.bytes());
            tx.send(buffer).expect("the reader is alive");
            sent += chunk as u64;
        }
    });
    let (mut sum, mut received) = (0u64, 0u64);
    for buffer in rx {
        sum = sum.wrapping_add(touch(&buffer));
        received += buffer.len() as u64;
        let _ = recycle_tx.try_send(buffer); // the writer may have finished
    }
    let elapsed = start.elapsed();
    writing.join().expect("writer thread");
    check(received, sum, chunk, total);
    Outcome { elapsed, contention: None }
}

/// The physical-limit reference: one thread copies the same chunks into a 64 KiB
/// buffer and touches each 64 KiB once it is full — the bytes' work at both ends of
/// every transport above, without a second thread or any synchronization.
pub fn memcpy(chunk: usize, total: u64) -> Outcome {
    let source = source(chunk);
    let mut ring = vec![0u8; IN_FLIGHT.max(chunk)];
    let start = Instant::now();
    let (mut sum, mut received, mut filled) = (0u64, 0u64, 0usize);
    let mut sent = 0;
    while sent < total {
        std::hint::black_box(&mut ring[filled..filled + chunk]).copy_from_slice(source.bytes());
        filled += chunk;
        sent += chunk as u64;
        if filled + chunk > ring.len() || sent == total {
            sum = sum.wrapping_add(touch(std::hint::black_box(&ring[..filled])));
            received += filled as u64;
            filled = 0;
        }
    }
    let elapsed = start.elapsed();
    check(received, sum, chunk, total);
    Outcome { elapsed, contention: None }
}

/// One chunk through a pipe on one thread: `get_memory`, copy, `advance`, `flush`,
/// then `read`, touch every byte, `advance_to` its end. Returns the bytes' sum and how
/// many were read. Needs a pipe that does not pause (a paused flush would wait for
/// itself).
pub fn write_then_read(writer: &mut Writer, reader: &mut Reader, chunk: &[u8]) -> (u64, u64) {
    let memory = writer.get_memory(chunk.len()).expect("chunk fits a segment");
    memory[..chunk.len()].copy_from_slice(chunk);
    writer.advance(chunk.len()).expect("advance within the memory");
    block_on(writer.flush()).expect("the reader is alive");
    let result = block_on(reader.read()).expect("no failure");
    let buffer = result.buffer();
    let sum = buffer.chunks().map(touch).fold(0u64, u64::wrapping_add);
    let (len, end) = (buffer.len() as u64, buffer.end());
    reader.advance_to(end, end).expect("the end of the buffer just read");
    (sum, len)
}

/// The pipe's code path alone, for instruction counts: one thread writes a chunk
/// (`get_memory`, copy, `advance`, `flush`) and reads it (`read`, touch, `advance_to`),
/// chunk after chunk, so nothing parks and no schedule changes the count (under
/// callgrind, two threads' counts depend on how often the reader catches up).
pub fn pipe_one_thread(chunk: usize, total: u64) -> Outcome {
    // No back-pressure: on one thread a paused flush would wait for itself.
    let (mut writer, mut reader) =
        PipeOptions::new().pause_writer_threshold(0).build().expect("valid options");
    let source = source(chunk);
    let start = Instant::now();
    let (mut sum, mut received) = (0u64, 0u64);
    while received < total {
        let (chunk_sum, len) = write_then_read(&mut writer, &mut reader, source.bytes());
        sum = sum.wrapping_add(chunk_sum);
        received += len;
    }
    let elapsed = start.elapsed();
    check(received, sum, chunk, total);
    #[cfg(feature = "contention-stats")]
    let contention = Some(Contention {
        pipe_lock: writer.lock_contention(),
        segment_pool: writer.segment_pool_contention(),
        buffer_pool: 0,
        pipe_lock_acquisitions: writer.lock_acquisitions(),
    });
    #[cfg(not(feature = "contention-stats"))]
    let contention = None;
    Outcome { elapsed, contention }
}

/// Chunks written before each read in the batched one-thread transfers: half the
/// default pause threshold's worth (at least one), as a reader that keeps up in
/// batches sees them.
pub fn batch(chunk: usize) -> usize {
    (IN_FLIGHT / 2 / chunk).max(1)
}

/// The two-thread fast path's calls on one thread, for instruction counts: the writer
/// writes a [`batch`] of chunks (`get_memory`, copy, `advance`, `flush` each), then the
/// reader reads them all (`read`, touch, `advance_to` the end), batch after batch. As
/// between two threads, the head stays linked while the writer writes, and the reader
/// reclaims the idle head once per batch, not once per chunk ([`pipe_one_thread`]).
pub fn pipe_batch_one_thread(chunk: usize, total: u64) -> Outcome {
    // No back-pressure: on one thread a paused flush would wait for itself.
    let (mut writer, mut reader) =
        PipeOptions::new().pause_writer_threshold(0).build().expect("valid options");
    let source = source(chunk);
    let per_batch = batch(chunk) as u64;
    let start = Instant::now();
    let (mut sum, mut received, mut sent) = (0u64, 0u64, 0u64);
    while received < total {
        for _ in 0..per_batch.min((total - sent) / chunk as u64) {
            let memory = writer.get_memory(chunk).expect("chunk fits a segment");
            memory[..chunk].copy_from_slice(source.bytes());
            writer.advance(chunk).expect("advance within the memory");
            block_on(writer.flush()).expect("the reader is alive");
            sent += chunk as u64;
        }
        let result = block_on(reader.read()).expect("no failure");
        let buffer = result.buffer();
        sum = buffer.chunks().map(touch).fold(sum, u64::wrapping_add);
        received += buffer.len() as u64;
        let end = buffer.end();
        reader.advance_to(end, end).expect("the end of the buffer just read");
    }
    let elapsed = start.elapsed();
    check(received, sum, chunk, total);
    Outcome { elapsed, contention: None }
}

/// [`pipe_batch_one_thread`]'s batches through an [`rtrb`] ring: `push_entire_slice`
/// per chunk, then one `read_chunk` of everything, touched and committed.
pub fn rtrb_batch_one_thread(chunk: usize, total: u64) -> Outcome {
    let (mut tx, mut rx) = rtrb::RingBuffer::<u8>::new(IN_FLIGHT.max(chunk));
    let source = source(chunk);
    let per_batch = batch(chunk) as u64;
    let start = Instant::now();
    let (mut sum, mut received, mut sent) = (0u64, 0u64, 0u64);
    while received < total {
        for _ in 0..per_batch.min((total - sent) / chunk as u64) {
            tx.push_entire_slice(source.bytes()).expect("a batch fits the ring");
            sent += chunk as u64;
        }
        let read = rx.read_chunk(rx.slots()).expect("the slots just counted");
        let (first, second) = read.as_slices();
        sum = sum.wrapping_add(touch(first)).wrapping_add(touch(second));
        received += read.len() as u64;
        read.commit_all();
    }
    let elapsed = start.elapsed();
    check(received, sum, chunk, total);
    Outcome { elapsed, contention: None }
}

/// [`tokio_duplex`]'s calls on one thread (`write_all` then `read` per chunk), for
/// instruction counts as [`pipe_one_thread`].
pub fn duplex_one_thread(chunk: usize, total: u64) -> Outcome {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
    let (mut tx, mut rx) = tokio::io::duplex(IN_FLIGHT);
    let source = source(chunk);
    let mut buf = vec![0; IN_FLIGHT];
    let start = Instant::now();
    let (sum, received) = runtime.block_on(async {
        let (mut sum, mut received) = (0u64, 0u64);
        while received < total {
            tx.write_all(source.bytes()).await.expect("the reader is alive");
            let n = rx.read(&mut buf).await.expect("duplex read");
            sum = sum.wrapping_add(touch(&buf[..n]));
            received += n as u64;
        }
        (sum, received)
    });
    let elapsed = start.elapsed();
    check(received, sum, chunk, total);
    Outcome { elapsed, contention: None }
}

/// [`rtrb_ring`]'s calls on one thread, for instruction counts as [`pipe_one_thread`].
pub fn rtrb_one_thread(chunk: usize, total: u64) -> Outcome {
    let (mut tx, mut rx) = rtrb::RingBuffer::<u8>::new(IN_FLIGHT.max(chunk));
    let source = source(chunk);
    let start = Instant::now();
    let (mut sum, mut received) = (0u64, 0u64);
    while received < total {
        tx.push_entire_slice(source.bytes()).expect("an empty ring holds a chunk");
        let read = rx.read_chunk(rx.slots()).expect("the slots just counted");
        let (first, second) = read.as_slices();
        sum = sum.wrapping_add(touch(first)).wrapping_add(touch(second));
        received += read.len() as u64;
        read.commit_all();
    }
    let elapsed = start.elapsed();
    check(received, sum, chunk, total);
    Outcome { elapsed, contention: None }
}

fn check(received: u64, sum: u64, chunk: usize, total: u64) {
    assert_eq!(received, total, "the reader received every byte");
    assert_eq!(sum, expected_sum(chunk, total), "the reader saw the bytes the writer sent");
}
