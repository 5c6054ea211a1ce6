//! Pipe throughput against its peers: 256 MiB from a writer thread to a reader
//! thread in 64 B, 4 KiB and 64 KiB chunks, the reader touching every byte, through
//! pipecheck's pipe, `tokio::io::duplex`, an `rtrb` SPSC ring, `std::sync::mpsc::sync_channel<Vec<u8>>`, a
//! crossbeam channel with buffer recycling, and a plain memory copy as the
//! physical-limit reference. After criterion's groups it prints MiB/s and each
//! contender's ratio to the pipe, and writes the table to `target/pipecheck-bench.md`.
//!
//! `cargo bench -p pipecheck-bench --bench throughput`; see core/benches/PERFORMANCE.md.

use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};

mod common;

use common::contenders::{self, Outcome};
use common::{CHUNKS, chunk_label, report, total_bytes};

/// A transfer of `total` bytes in `chunk`-byte chunks.
type Transfer = fn(chunk: usize, total: u64) -> Outcome;

/// The contenders, pipe first (ratios are to it).
const CONTENDERS: [(&str, Transfer); 6] = [
    ("pipecheck pipe", contenders::pipe),
    ("tokio::io::duplex", contenders::tokio_duplex),
    ("rtrb SPSC ring", contenders::rtrb_ring),
    ("std mpsc sync_channel<Vec<u8>>", contenders::std_mpsc),
    ("crossbeam bounded, recycled Vecs", contenders::crossbeam_recycled),
    ("memcpy (reference)", contenders::memcpy),
];

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    let total = total_bytes();
    for chunk in CHUNKS {
        let mut group =
            criterion.benchmark_group(format!("throughput/{}", chunk_label(chunk).replace(' ', "")));
        // One iteration is a whole transfer of `total` bytes, so: ten samples, flat
        // sampling, one warm-up transfer; criterion says it cannot finish 10 samples in
        // the target time for the slow contenders, which is expected.
        group.sample_size(10).sampling_mode(SamplingMode::Flat);
        group.warm_up_time(Duration::from_millis(1)).measurement_time(Duration::from_secs(2));
        group.throughput(Throughput::Bytes(total));
        for (name, run) in CONTENDERS {
            group.bench_function(name, |b| {
                b.iter_custom(|iters| report::timed(name, chunk, total, iters, || run(chunk, total)))
            });
        }
        group.finish();
    }
    criterion.final_summary();
    summarize(total);
}

fn summarize(total: u64) {
    if report::median_mib_per_s(CONTENDERS[0].0, CHUNKS[0]).is_none()
        && CHUNKS.iter().all(|&c| report::median_mib_per_s(CONTENDERS[0].0, c).is_none())
    {
        return; // filtered out, or `--list`
    }
    let mut md = format!(
        "### Throughput: {} MiB per transfer, writer thread to reader thread\n\n\
         Median MiB/s over the recorded transfers (count in brackets); \
         ratio = contender / pipecheck pipe at the same chunk size.\n\n",
        common::mib(total)
    );
    md.push_str("| contender |");
    for chunk in CHUNKS {
        md.push_str(&format!(" {} MiB/s | ratio |", chunk_label(chunk)));
    }
    md.push_str("\n|---|");
    md.push_str(&"---:|---:|".repeat(CHUNKS.len()));
    md.push('\n');
    for (name, _) in CONTENDERS {
        md.push_str(&format!("| {name} |"));
        for chunk in CHUNKS {
            let pipe = report::median_mib_per_s(CONTENDERS[0].0, chunk).map(|(m, _)| m);
            match report::median_mib_per_s(name, chunk) {
                Some((rate, n)) => {
                    let ratio = pipe.map_or("–".into(), |p| format!("{:.2}×", rate / p));
                    md.push_str(&format!(" {rate:.0} ({n}) | {ratio} |"));
                }
                None => md.push_str(" – | – |"),
            }
        }
        md.push('\n');
    }
    md.push_str(&format!("\n{}\n", report::conditions()));
    report::publish("throughput", &md);
}
