//! One benchmark transfer outside criterion, for profilers (`perf`, valgrind's
//! callgrind): the same code as `cargo bench`'s, chosen by name.
//!
//! ```text
//! cargo build --release -p pipecheck-core --example bench_transfer
//! valgrind --tool=callgrind target/release/examples/bench_transfer pipe 64 16
//! ```
//!
//! Arguments: contender (`pipe`, `before`, `duplex`, `mpsc`, `crossbeam`, `memcpy`),
//! chunk size in bytes, MiB to move (default 256), transfers (default 1).

#[path = "../benches/common/mod.rs"]
mod common;

use common::contenders::{self, Design, Outcome};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: bench_transfer pipe|before|duplex|mpsc|crossbeam|memcpy CHUNK [MIB] [TRANSFERS]";
    let contender = args.first().expect(usage).as_str();
    let chunk: usize = args.get(1).expect(usage).parse().expect(usage);
    let mib: u64 = args.get(2).map_or(256, |m| m.parse().expect(usage));
    let transfers: usize = args.get(3).map_or(1, |t| t.parse().expect(usage));
    let run: fn(usize, u64) -> Outcome = match contender {
        "pipe" => contenders::pipe,
        "before" => |chunk, total| contenders::pipe_design(Design::Before, chunk, total),
        "duplex" => contenders::tokio_duplex,
        "mpsc" => contenders::std_mpsc,
        "crossbeam" => contenders::crossbeam_recycled,
        "memcpy" => contenders::memcpy,
        _ => panic!("{usage}"),
    };
    for _ in 0..transfers {
        let outcome = run(chunk, mib << 20);
        let rate = mib as f64 / outcome.elapsed.as_secs_f64();
        match outcome.contention {
            Some(c) => println!(
                "{contender} {chunk} B: {rate:.0} MiB/s, pipe lock taken {}, contended: pipe lock {}, \
                 segment pool {}, buffer pool {} ({:.2}/MiB)",
                c.pipe_lock_acquisitions,
                c.pipe_lock,
                c.segment_pool,
                c.buffer_pool,
                c.total() as f64 / mib as f64
            ),
            None => println!("{contender} {chunk} B: {rate:.0} MiB/s"),
        }
    }
}
