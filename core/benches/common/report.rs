//! Records every timed transfer and turns them into the plain summary tables printed
//! after criterion's output and written to `target/pipecheck-bench.md`.
//!
//! Criterion does not hand its estimates back to the program, so the benches record
//! each transfer they time here (warm-up included) and summarize with medians, which a
//! single warm-up run cannot move.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::contenders::{Contention, Outcome};
use super::mib;

struct Record {
    contender: String,
    chunk: usize,
    bytes: u64,
    outcome: Outcome,
}

static RECORDS: Mutex<Vec<Record>> = Mutex::new(Vec::new());

/// Remembers one timed transfer of `bytes` bytes.
pub fn record(contender: &str, chunk: usize, bytes: u64, outcome: Outcome) {
    RECORDS.lock().unwrap().push(Record { contender: contender.to_owned(), chunk, bytes, outcome });
}

/// Median throughput (MiB/s) of `contender`'s transfers at `chunk`, and how many ran.
pub fn median_mib_per_s(contender: &str, chunk: usize) -> Option<(f64, usize)> {
    let records = RECORDS.lock().unwrap();
    let mut rates: Vec<f64> = records
        .iter()
        .filter(|r| r.contender == contender && r.chunk == chunk)
        .map(|r| mib(r.bytes) / r.outcome.elapsed.as_secs_f64())
        .collect();
    if rates.is_empty() {
        return None;
    }
    rates.sort_by(f64::total_cmp);
    let mid = rates.len() / 2;
    let median = if rates.len() % 2 == 1 { rates[mid] } else { (rates[mid - 1] + rates[mid]) / 2.0 };
    Some((median, rates.len()))
}

/// Contended acquisitions summed over `contender`'s transfers at `chunk`, with the MiB
/// those transfers moved; `None` without `contention-stats` or without transfers.
pub fn contention(contender: &str, chunk: usize) -> Option<(Contention, f64)> {
    let records = RECORDS.lock().unwrap();
    let mut sum = Contention::default();
    let mut bytes = 0;
    for r in records.iter().filter(|r| r.contender == contender && r.chunk == chunk) {
        let c = r.outcome.contention?;
        sum.pipe_lock += c.pipe_lock;
        sum.segment_pool += c.segment_pool;
        sum.buffer_pool += c.buffer_pool;
        sum.pipe_lock_acquisitions += c.pipe_lock_acquisitions;
        bytes += r.bytes;
    }
    (bytes > 0).then(|| (sum, mib(bytes)))
}

/// The time taken by the transfers of one criterion routine call, recorded on the way.
pub fn timed(contender: &str, chunk: usize, bytes: u64, iters: u64, run: impl Fn() -> Outcome) -> Duration {
    (0..iters)
        .map(|_| {
            let outcome = run();
            record(contender, chunk, bytes, outcome);
            outcome.elapsed
        })
        .sum()
}

/// A line saying when, where and under what load the numbers were taken.
pub fn conditions() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    let cpus = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    format!("{} UTC, {cpus} CPUs, load average {load} (1/5/15 min) at the end of the run", utc(secs))
}

/// `YYYY-MM-DD HH:MM` for a Unix time (Howard Hinnant's `civil_from_days`).
fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let (hh, mm) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {hh:02}:{mm:02}")
}

/// Prints `markdown` and stores it as section `name` of `target/pipecheck-bench.md`,
/// replacing that section from an earlier run and keeping the others.
pub fn publish(name: &str, markdown: &str) {
    println!("\n{markdown}");
    let path = report_path();
    let (open, close) =
        (format!("<!-- pipecheck-bench:{name} -->"), format!("<!-- /pipecheck-bench:{name} -->"));
    let section = format!("{open}\n{}\n{close}\n", markdown.trim_end());
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    match (text.find(&open), text.find(&close)) {
        (Some(a), Some(b)) if a < b => {
            let end = (b + close.len() + 1).min(text.len());
            text.replace_range(a..end, &section);
        }
        _ => {
            if !text.is_empty() && !text.ends_with("\n\n") {
                text.push('\n');
            }
            text.push_str(&section);
        }
    }
    match std::fs::create_dir_all(path.parent().expect("a file in a directory"))
        .and_then(|()| std::fs::write(&path, text))
    {
        Ok(()) => println!("(written to {})", path.display()),
        Err(e) => eprintln!("could not write {}: {e}", path.display()),
    }
}

/// `$CARGO_TARGET_DIR/pipecheck-bench.md`, or the workspace's `target/pipecheck-bench.md`.
fn report_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target")));
    target.join("pipecheck-bench.md")
}
