//! Where the pipe lock goes: the benchmark's transfer (`get_memory`, copy, `advance`,
//! `flush` per chunk; the reader reads everything and consumes it all) with an
//! observer that counts the pipe's events, printed per MiB by the operation that
//! locked (or did not).
//!
//! ```text
//! cargo run --release -p pipecheck-pipe --example lock_profile -- 64 64   # CHUNK MIB
//! ```
//!
//! The observer serializes the two threads' events on its own mutex, which slows the
//! transfer and changes how many chunks a read finds: read the counts as the shape of
//! the lock traffic (which operation locks, and how often relative to the others), and
//! `bench_report`'s pipe-lock acquisitions per MiB as its size.
#![cfg_attr(any(feature = "loom", feature = "shuttle"), allow(dead_code, unused_imports))]

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::thread;

use pipecheck_pipe::{PipeEnd, PipeEvent, PipeObserver, PipeOperation, PipeOptions};
use pipecheck_sync::future::block_on;

/// Events counted by kind.
#[derive(Default)]
struct Counts(Mutex<BTreeMap<&'static str, u64>>);

impl Counts {
    fn get(&self, kind: &str) -> u64 {
        self.0.lock().expect("counts").get(kind).copied().unwrap_or(0)
    }
}

impl PipeObserver for Counts {
    fn on_event(&self, event: PipeEvent) {
        let kind = match event {
            PipeEvent::ReadReturned { .. } => "read returned",
            PipeEvent::ReadParked { .. } => "read parked",
            PipeEvent::FastReadTried => "read tried without the lock",
            PipeEvent::FastReadMissed => "read missed the lock-free path",
            PipeEvent::LockReleased { op: PipeOperation::AdvanceTo } => "advance_to",
            PipeEvent::LockReleased { op: PipeOperation::Flush } => "flush under the lock",
            PipeEvent::FlushReturned { .. } => "flush returned",
            PipeEvent::Woke { end: PipeEnd::Reader } => "reader woken",
            PipeEvent::Woke { end: PipeEnd::Writer } => "writer woken",
            PipeEvent::HeadReclaimed { .. } => "head reclaimed by the reader",
            PipeEvent::HeadResumed { .. } => "head resumed by the writer",
            PipeEvent::SegmentLinked { .. } => "segment linked",
            _ => return,
        };
        *self.0.lock().expect("counts").entry(kind).or_default() += 1;
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn main() -> ExitCode {
    let args: Vec<u64> = match std::env::args().skip(1).map(|a| a.parse()).collect() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("usage: lock_profile [CHUNK [MIB]] ({e})");
            return ExitCode::from(2);
        }
    };
    let chunk = args.first().copied().unwrap_or(64) as usize;
    let mib = args.get(1).copied().unwrap_or(64);
    if chunk == 0 || mib == 0 {
        eprintln!("usage: lock_profile [CHUNK [MIB]] (both above 0)");
        return ExitCode::from(2);
    }
    let counts = Arc::new(Counts::default());
    let (mut writer, mut reader) =
        PipeOptions::new().observer(counts.clone()).build().expect("default options");
    let total = mib << 20;
    let writing = thread::spawn(move || {
        let source = vec![7u8; chunk];
        let mut sent = 0;
        while sent < total {
            let memory = writer.get_memory(chunk).expect("chunk fits a segment");
            memory[..chunk].copy_from_slice(&source);
            writer.advance(chunk).expect("advance within the memory");
            block_on(writer.flush()).expect("the reader is alive");
            sent += chunk as u64;
        }
        writer.complete(None);
    });
    let mut received = 0;
    loop {
        let result = block_on(reader.read()).expect("the writer completes without failure");
        let (end, done) = (result.buffer().end(), result.is_completed());
        received += result.buffer().len() as u64;
        reader.advance_to(end, end).expect("the end of the buffer just read");
        if done {
            break;
        }
    }
    writing.join().expect("writer thread");
    assert_eq!(received, total, "every byte arrives");

    let per_mib = |n: u64| n as f64 / mib as f64;
    let chunks = per_mib(total / chunk as u64);
    // A read that went to the lock logged `FastReadMissed` (or never tried: the pre-seed
    // design); one that did not returned without it.
    let lock_free_reads =
        counts.get("read tried without the lock") - counts.get("read missed the lock-free path");
    let reads = counts.get("read returned") + counts.get("read parked") - lock_free_reads;
    let advances = counts.get("advance_to");
    let flush_locks = counts.get("flush under the lock");
    println!("{chunk} B chunks, {mib} MiB: {chunks:.0} chunks (flushes) per MiB");
    println!();
    println!("| per MiB | count | takes the pipe lock |");
    println!("|---|---:|---|");
    let row = |what: &str, n: u64, locks: &str| println!("| {what} | {:.0} | {locks} |", per_mib(n));
    row("reads under the lock (returned + parked)", reads, "yes, once per poll");
    row("reads without the lock", lock_free_reads, "no (the lock-free read)");
    row("advance_to", advances, "yes");
    row("flushes under the lock", flush_locks, "yes (links a segment, pauses, or wakes the reader)");
    row(
        "flushes without the lock",
        counts.get("flush returned").saturating_sub(flush_locks),
        "no (the fast publish)",
    );
    for kind in [
        "reader woken",
        "writer woken",
        "segment linked",
        "head reclaimed by the reader",
        "head resumed by the writer",
    ] {
        row(kind, counts.get(kind), "(inside the above)");
    }
    let locks = reads + advances + flush_locks;
    println!();
    println!(
        "lock acquisitions counted: {:.0} per MiB, of which reads {:.0}%, advance_to {:.0}%, flushes {:.0}%",
        per_mib(locks),
        100.0 * reads as f64 / locks as f64,
        100.0 * advances as f64 / locks as f64,
        100.0 * flush_locks as f64 / locks as f64,
    );
    ExitCode::SUCCESS
}

/// Under loom or shuttle there is nothing to measure (the primitives run only inside a
/// model): the rest is type-checked, not compiled, so the checkers' test builds stay fast.
#[cfg(any(feature = "loom", feature = "shuttle"))]
fn main() {
    eprintln!("this example runs on std primitives; build it without `loom`/`shuttle`");
}
