//! The linearizability checker's throughput: a 1,000-operation, two-thread pipe history
//! (synthetic, linearizable by construction, spans overlapping at random) decided by
//! Wing & Gong's search with Lowe's memoization. Target: well under 1 s.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pipecheck::linearizability::{Budget, check};
use pipecheck_properties::linearizability::{PipeModel, synthetic_pipe_history};

fn decide_pipe_history(c: &mut Criterion) {
    for ops in [100, 1_000] {
        let history = synthetic_pipe_history(ops, 7);
        assert!(check(&PipeModel, &history, Budget::default()).unwrap().is_linearizable());
        c.bench_function(&format!("linearizability/pipe-2-threads-{ops}-ops"), |b| {
            b.iter(|| check(&PipeModel, black_box(&history), Budget::default()).unwrap())
        });
    }
}

criterion_group!(benches, decide_pipe_history);
criterion_main!(benches);
