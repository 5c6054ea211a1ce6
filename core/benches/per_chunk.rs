//! What one chunk costs in code alone, with no second thread: on one thread, the
//! writer's `get_memory`/copy/`advance`/`flush` and the reader's `read`/touch/`advance_to`
//! for every chunk, next to `tokio::io::duplex`'s `write_all` + `read` of the same chunk.
//! Every future resolves at its first poll here, so nothing parks: subtracting this from
//! the two-thread time per chunk (`bench_report`) leaves the cost of the hand-off between
//! threads. Criterion's statistics suit this (nanoseconds per iteration, thousands of
//! samples, comparisons against a saved `--baseline`); whole transfers between threads
//! are `bench_report`'s job.
//!
//! `cargo bench -p pipecheck-bench --bench per_chunk`; see core/benches/PERFORMANCE.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

mod common;

use common::contenders::{Design, write_then_read};
use common::{CHUNKS, chunk_label, source, touch};

fn pipe(c: &mut Criterion) {
    for chunk in CHUNKS {
        let mut group = c.benchmark_group(format!("per_chunk/{}", chunk_label(chunk).replace(' ', "")));
        group.throughput(Throughput::Bytes(chunk as u64));
        let source = source(chunk);
        for design in Design::BOTH {
            // No back-pressure: on one thread a paused flush would wait for itself.
            let options = design.options().pause_writer_threshold(0);
            let (mut writer, mut reader) = options.build().expect("valid options");
            group.bench_function(format!("pipe {}", design.name()), |b| {
                b.iter(|| black_box(write_then_read(&mut writer, &mut reader, source.bytes())))
            });
        }
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        let (mut tx, mut rx) = tokio::io::duplex(common::IN_FLIGHT);
        let mut buf = vec![0; common::IN_FLIGHT];
        group.bench_function("tokio::io::duplex", |b| {
            use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
            b.iter(|| {
                runtime.block_on(async {
                    tx.write_all(source.bytes()).await.expect("the reader is alive");
                    let n = rx.read(&mut buf).await.expect("duplex read");
                    black_box(touch(&buf[..n]))
                })
            })
        });
        group.finish();
    }
}

criterion_group!(benches, pipe);
criterion_main!(benches);
