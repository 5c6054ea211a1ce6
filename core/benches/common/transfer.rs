//! One transfer as a command line (`bench_transfer`, and `bench_report`'s child
//! processes): contenders by name, and the one-line result that `bench_report` reads
//! back, also from a `bench_transfer` built in another tree.

use super::contenders::{self, Contention, Design, Outcome};

/// The contenders by command-line name.
pub const NAMES: &str = "pipe|before|pipe-4-chunks|duplex|rtrb|mpsc|crossbeam|memcpy|pipe-1t|duplex-1t|rtrb-1t|pipe-batch-1t|rtrb-batch-1t";

/// The transfer called `name`, if there is one.
pub fn contender(name: &str) -> Option<fn(usize, u64) -> Outcome> {
    Some(match name {
        "pipe" => contenders::pipe,
        "before" => |chunk, total| contenders::pipe_design(Design::Before, chunk, total),
        "pipe-4-chunks" => contenders::pipe_four_chunks,
        "duplex" => contenders::tokio_duplex,
        "rtrb" => contenders::rtrb_ring,
        "mpsc" => contenders::std_mpsc,
        "crossbeam" => contenders::crossbeam_recycled,
        "memcpy" => contenders::memcpy,
        "pipe-1t" => contenders::pipe_one_thread,
        "duplex-1t" => contenders::duplex_one_thread,
        "rtrb-1t" => contenders::rtrb_one_thread,
        "pipe-batch-1t" => contenders::pipe_batch_one_thread,
        "rtrb-batch-1t" => contenders::rtrb_batch_one_thread,
        _ => return None,
    })
}

/// What one transfer printed, read back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Throughput.
    pub mib_per_s: f64,
    /// The pipe's lock counters, when built with `contention-stats`.
    pub contention: Option<Contention>,
}

/// The result line: `pipe 64 B: 351 MiB/s, pipe lock taken 8, contended: pipe lock 1,
/// segment pool 0, buffer pool 0 (0.01/MiB)` (the counters only with `contention-stats`).
/// The format is the interface to `bench_transfer` binaries of other trees: keep it.
pub fn line(name: &str, chunk: usize, mib: u64, outcome: &Outcome) -> String {
    let rate = mib as f64 / outcome.elapsed.as_secs_f64();
    match outcome.contention {
        Some(c) => format!(
            "{name} {chunk} B: {rate:.1} MiB/s, pipe lock taken {}, contended: pipe lock {}, segment pool {}, \
             buffer pool {} ({:.2}/MiB)",
            c.pipe_lock_acquisitions,
            c.pipe_lock,
            c.segment_pool,
            c.buffer_pool,
            c.total() as f64 / mib as f64
        ),
        None => format!("{name} {chunk} B: {rate:.1} MiB/s"),
    }
}

/// Reads a [`line()`] back; `None` if `text` is not one.
pub fn parse(text: &str) -> Option<Measured> {
    let (_, rest) = text.split_once(" B: ")?;
    let (rate, rest) = rest.split_once(" MiB/s")?;
    let mib_per_s = rate.trim().parse().ok()?;
    let number = |key: &str| -> Option<u64> {
        let at = rest.find(key)? + key.len();
        let digits: String = rest[at..].trim_start().chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    let contention = rest.contains("pipe lock taken").then(|| {
        Some(Contention {
            pipe_lock_acquisitions: number("pipe lock taken")?,
            pipe_lock: number("contended: pipe lock")?,
            segment_pool: number("segment pool")?,
            buffer_pool: number("buffer pool")?,
        })
    });
    match contention {
        Some(None) => None,
        Some(c) => Some(Measured { mib_per_s, contention: c }),
        None => Some(Measured { mib_per_s, contention: None }),
    }
}

/// `bench_transfer`'s command line: `CONTENDER CHUNK [MIB] [TRANSFERS]`; prints one
/// [`line()`] per transfer.
///
/// # Errors
///
/// The usage, when the arguments do not parse.
pub fn main_with(args: &[String]) -> Result<(), String> {
    let usage = format!("usage: bench_transfer {NAMES} CHUNK [MIB] [TRANSFERS]");
    let name = args.first().ok_or(&usage)?.as_str();
    let run = contender(name).ok_or(&usage)?;
    let chunk: usize = args.get(1).and_then(|c| c.parse().ok()).filter(|&c| c > 0).ok_or(&usage)?;
    let mib: u64 = args.get(2).map_or(Some(256), |m| m.parse().ok()).ok_or(&usage)?;
    let transfers: usize = args.get(3).map_or(Some(1), |t| t.parse().ok()).ok_or(&usage)?;
    for _ in 0..transfers {
        println!("{}", line(name, chunk, mib, &run(chunk, mib << 20)));
    }
    Ok(())
}
