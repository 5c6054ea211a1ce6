//! Benchmarks of the seed primitives.
//!
//! * `async_mutex/uncontended_enter_exit`: one `lock().await` plus guard drop on an
//!   uncontended [`AsyncMutex`] (seed 004: one atomic RMW to enter, one to exit), next
//!   to the facade's blocking `Mutex` for scale.
//! * `pool/<design>/2_threads`: two threads, each renting and returning one buffer per
//!   iteration, on a [`PartitionedPool`] with one partition per thread (seed 002) and
//!   on the same pool with a single shared partition.
//!
//! Run: `cargo bench -p pipecheck-bench --bench primitives -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::pin::pin;
use std::sync::{Arc, Barrier};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use pipecheck_pipe::{AsyncMutex, PartitionedPool};
use pipecheck_sync::sync::Mutex;

fn async_mutex(c: &mut Criterion) {
    let mut group = c.benchmark_group("async_mutex");
    let mutex = AsyncMutex::new(0u64);
    let mut cx = Context::from_waker(Waker::noop());
    group.bench_function("uncontended_enter_exit", |b| {
        b.iter(|| {
            // Uncontended, the first poll resolves: no executor needed.
            let Poll::Ready(mut guard) = pin!(mutex.lock()).poll(&mut cx) else {
                unreachable!("uncontended lock is ready at once")
            };
            *guard += 1;
            black_box(&*guard);
        })
    });
    let blocking = Mutex::new(0u64);
    group.bench_function("facade_mutex_lock_unlock", |b| {
        b.iter(|| {
            let mut guard = blocking.lock();
            *guard += 1;
            black_box(&*guard);
        })
    });
    group.finish();
}

/// Two threads each rent and return `iters` buffers; returns the wall time.
fn two_threads(pool: &Arc<PartitionedPool>, iters: u64) -> Duration {
    let start = Arc::new(Barrier::new(3));
    let workers: Vec<_> = (0..2)
        .map(|i| {
            let (pool, start) = (pool.clone(), start.clone());
            std::thread::spawn(move || {
                let home = pool.handle(i);
                start.wait();
                for _ in 0..iters {
                    let buffer = home.rent();
                    black_box(&buffer);
                    home.give_back(buffer);
                }
            })
        })
        .collect();
    start.wait();
    let began = Instant::now();
    for worker in workers {
        worker.join().unwrap();
    }
    began.elapsed()
}

fn pool(c: &mut Criterion) {
    let mut group = c.benchmark_group("pool");
    for (name, partitions) in [("partitioned", 2), ("shared", 1)] {
        let pool = Arc::new(PartitionedPool::new(partitions, 4096));
        group.bench_function(format!("{name}/2_threads"), |b| {
            b.iter_custom(|iters| two_threads(&pool, iters))
        });
    }
    group.finish();
}

criterion_group!(benches, async_mutex, pool);
criterion_main!(benches);
