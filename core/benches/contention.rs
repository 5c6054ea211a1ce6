//! Seed 000's A/B: the same pipe in two designs, measured in one run.
//!
//! * **before**: a LIFO segment stack behind a mutex, buffers rented and returned
//!   inside the pipe lock, the lock taken by every operation
//!   (`PoolDesign::LockedStack` + `LockScope::EveryOperation`);
//! * **after**: the default pipe (SPSC FIFO pool, rent and return outside the lock,
//!   lock-free `get_memory`/`advance`).
//!
//! Each transfer moves 256 MiB in 64 B, 4 KiB and 64 KiB chunks, as the throughput
//! bench does. With feature `contention-stats` every lock the pipe uses (pipe lock,
//! segment-pool lock, buffer-pool size-class locks) counts the `lock()` calls that found
//! it held; the summary reports throughput and contended acquisitions per MiB moved,
//! and writes the table to `target/pipecheck-bench.md`:
//!
//! `cargo bench -p pipecheck-bench --features contention-stats --bench contention`

use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};

mod common;

use common::contenders::{self, Design};
use common::{CHUNKS, chunk_label, report, total_bytes};

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    let total = total_bytes();
    for chunk in CHUNKS {
        let mut group =
            criterion.benchmark_group(format!("contention/{}", chunk_label(chunk).replace(' ', "")));
        // As in the throughput bench: one iteration is one whole transfer.
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
        group.warm_up_time(Duration::from_millis(1)).measurement_time(Duration::from_secs(2));
        group.throughput(Throughput::Bytes(total));
        for design in Design::BOTH {
            group.bench_function(design.name(), |b| {
                b.iter_custom(|iters| {
                    report::timed(design.name(), chunk, total, iters, || {
                        contenders::pipe_design(design, chunk, total)
                    })
                })
            });
        }
        group.finish();
    }
    criterion.final_summary();
    summarize(total);
}

fn summarize(total: u64) {
    if CHUNKS.iter().all(|&c| Design::BOTH.iter().all(|d| report::median_mib_per_s(d.name(), c).is_none())) {
        return; // filtered out, or `--list`
    }
    let counted = cfg!(feature = "contention-stats");
    let mut md = format!(
        "### Contention A/B (seed 000): {} MiB per transfer\n\n\
         **before** = LIFO segment stack behind a mutex, rent/return inside the pipe lock, the \
         lock taken by every operation; **after** = the default pipe. MiB/s: median over the \
         recorded transfers (count in brackets). Contended = `lock()` calls that found the \
         mutex held, summed over the pipe lock, the segment-pool lock and the buffer pool's \
         size-class locks, per MiB moved (all transfers); pipe lock taken = every acquisition \
         of the pipe lock, contended or not.\n\n",
        common::mib(total)
    );
    md.push_str(
        "| chunk | design | MiB/s | after/before MiB/s | pipe lock taken/MiB | contended/MiB | pipe lock | segment pool | buffer pool | after/before contended |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for chunk in CHUNKS {
        let rate = |d: Design| report::median_mib_per_s(d.name(), chunk);
        let per_mib = |d: Design| report::contention(d.name(), chunk);
        let before_rate = rate(Design::Before).map(|(r, _)| r);
        let before_contended = per_mib(Design::Before).map(|(c, mib)| c.total() as f64 / mib);
        for design in Design::BOTH {
            let Some((mib_s, n)) = rate(design) else { continue };
            let speedup = match (design, before_rate) {
                (Design::After, Some(b)) => format!("{:.2}×", mib_s / b),
                _ => String::new(),
            };
            let (taken, contended, pipe, stack, buffers, ratio) = match per_mib(design) {
                Some((c, mib)) => {
                    let f = |x: u64| format!("{:.3}", x as f64 / mib);
                    let ratio = match (design, before_contended) {
                        (Design::After, Some(b)) if b > 0.0 => format!("{:.3}", c.total() as f64 / mib / b),
                        (Design::After, Some(_)) => "– (before: 0)".into(),
                        _ => String::new(),
                    };
                    let taken = format!("{:.0}", c.pipe_lock_acquisitions as f64 / mib);
                    (taken, f(c.total()), f(c.pipe_lock), f(c.segment_pool), f(c.buffer_pool), ratio)
                }
                None => Default::default(),
            };
            md.push_str(&format!(
                "| {} | {} | {mib_s:.0} ({n}) | {speedup} | {taken} | {contended} | {pipe} | {stack} | {buffers} | {ratio} |\n",
                chunk_label(chunk),
                design.name()
            ));
        }
    }
    if !counted {
        md.push_str(
            "\nContention columns are empty: rerun with `--features contention-stats` \
             (`cargo bench -p pipecheck-bench --features contention-stats`).\n",
        );
    }
    md.push_str(&format!("\n{}\n", report::conditions()));
    report::publish("contention", &md);
}
