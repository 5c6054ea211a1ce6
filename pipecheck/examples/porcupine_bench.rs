//! Checks porcupine's test histories (and the simulator's) and prints a table: verdict,
//! expected verdict, states, cache hits, time.
//!
//! ```text
//! cargo run --release -p pipecheck --example porcupine_bench -- [DIR] [options]
//! ```
//!
//! `DIR` is a porcupine checkout's `test_data` (with `jepsen/etcd_*.log` and
//! `kv/*.txt`); without it, only the generated histories run. Options:
//!
//! * `--generated`: also check simulated register and key-value logs, half with an
//!   injected fault (the only histories when no `DIR` is given);
//! * `--time SECONDS`, `--max-bytes BYTES`, `--max-states STATES`: the budget per
//!   history (default: 60 s, 1 GiB, unlimited states);
//! * `--threads N`: partitions searched at once;
//! * `--unpartitioned`: also check the kv histories c01 and c10 as one object
//!   ([`kv::KvMap`], porcupine's `TestKvNoPartition*`; its c10 runs take a minute or more);
//! * `--html DIR`: write an HTML picture of every non-linearizable history there;
//! * `--write-generated DIR`: also save the simulated logs there (`jepsen/sim_*.log`,
//!   `kv/sim_*.txt`), to check them with porcupine;
//! * `--quiet`: only the totals.
//!
//! Exits with status 1 if any verdict differs from the expected one or is unknown.
#![cfg_attr(any(feature = "loom", feature = "shuttle"), allow(dead_code, unused_imports))]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pipecheck::linearizability::foreign::{etcd, kv, simulate};
use pipecheck::linearizability::{
    Budget, CheckReport, History, Linearization, SequentialModel, check_report, html,
};

/// The etcd histories porcupine's tests expect linearizable (the others are not; 95
/// is absent from the data set).
const ETCD_LINEARIZABLE: [usize; 23] =
    [2, 5, 7, 18, 25, 31, 38, 45, 48, 49, 51, 53, 56, 67, 75, 76, 80, 87, 92, 98, 100, 101, 102];

/// The command line.
#[derive(Debug)]
struct Options {
    data: Option<PathBuf>,
    generated: bool,
    budget: Budget,
    html: Option<PathBuf>,
    write_generated: Option<PathBuf>,
    unpartitioned: bool,
    quiet: bool,
}

fn options() -> Options {
    let mut options = Options {
        data: None,
        generated: false,
        budget: Budget::unlimited().with_time(Duration::from_secs(60)).with_max_bytes(1 << 30),
        html: None,
        write_generated: None,
        unpartitioned: false,
        quiet: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--generated" => options.generated = true,
            "--quiet" => options.quiet = true,
            "--unpartitioned" => options.unpartitioned = true,
            "--time" => {
                options.budget.time = Some(Duration::from_secs_f64(value().parse().expect("seconds")))
            }
            "--max-bytes" => options.budget.max_bytes = value().parse().expect("bytes"),
            "--max-states" => options.budget.max_states = value().parse().expect("states"),
            "--threads" => options.budget = options.budget.with_threads(value().parse().expect("threads")),
            "--html" => options.html = Some(PathBuf::from(value())),
            "--write-generated" => options.write_generated = Some(PathBuf::from(value())),
            _ if !arg.starts_with("--") => options.data = Some(PathBuf::from(arg)),
            _ => panic!("unknown option {arg}"),
        }
    }
    options.generated |= options.data.is_none();
    options
}

/// The totals of a run.
#[derive(Debug, Default)]
struct Totals {
    histories: usize,
    wrong: usize,
    unknown: usize,
    check_time: Duration,
    states: u64,
    peak_bytes: u64,
}

fn run<M: SequentialModel>(
    options: &Options,
    totals: &mut Totals,
    name: &str,
    model: &M,
    history: &History<M::Input, M::Output>,
    expected: bool,
) {
    let report: CheckReport = check_report(model, history, options.budget).expect("well-formed history");
    let verdict = match &report.verdict {
        Linearization::Linearizable(_) => "linearizable",
        Linearization::NonLinearizable(_) => "NOT linearizable",
        Linearization::Unknown { .. } => "UNKNOWN",
    };
    let right = match report.verdict {
        Linearization::Linearizable(_) => expected,
        Linearization::NonLinearizable(_) => !expected,
        Linearization::Unknown { .. } => {
            totals.unknown += 1;
            false
        }
    };
    totals.histories += 1;
    totals.wrong += usize::from(!right);
    totals.check_time += report.elapsed;
    totals.states += report.states();
    totals.peak_bytes = totals.peak_bytes.max(report.peak_bytes);
    if !options.quiet {
        println!(
            "{name:<24} {:>5} ops {:>4} parts  {verdict:<16} {:<9} {:>10} states {:>10} hits {:>9.3} ms {:>8} KiB",
            history.len(),
            report.partitions.len(),
            if right { "ok" } else { "WRONG" },
            report.states(),
            report.cache_hits(),
            report.elapsed.as_secs_f64() * 1e3,
            report.peak_bytes / 1024,
        );
    }
    if let (Some(dir), Linearization::NonLinearizable(_)) = (&options.html, &report.verdict) {
        std::fs::create_dir_all(dir).expect("html directory");
        html::write_html(&dir.join(format!("{name}.html")), model, history, &report).expect("write html");
    }
}

fn porcupine_data(options: &Options, totals: &mut Totals, dir: &Path) {
    for number in 0..=102 {
        let path = dir.join(format!("jepsen/etcd_{number:03}.log"));
        // etcd_095 is empty (the cluster did not start) and porcupine does not test it.
        let Ok(log) = std::fs::read_to_string(&path) else { continue };
        if log.trim().is_empty() {
            continue;
        }
        let history = etcd::parse(&log).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        run(
            options,
            totals,
            &format!("etcd_{number:03}"),
            &etcd::EtcdRegister,
            &history,
            ETCD_LINEARIZABLE.contains(&number),
        );
    }
    for name in ["c01-ok", "c01-bad", "c10-ok", "c10-bad", "c50-ok", "c50-bad"] {
        let path = dir.join(format!("kv/{name}.txt"));
        let Ok(log) = std::fs::read_to_string(&path) else { continue };
        let history = kv::parse(&log).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        run(options, totals, &format!("kv_{name}"), &kv::KvStore, &history, name.ends_with("ok"));
        if options.unpartitioned && !name.starts_with("c50") {
            run(options, totals, &format!("kv_{name}_whole"), &kv::KvMap, &history, name.ends_with("ok"));
        }
    }
}

fn generated(options: &Options, totals: &mut Totals) {
    let save = |path: String, log: &str| {
        if let Some(dir) = &options.write_generated {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().expect("a file in a directory")).expect("directory");
            std::fs::write(path, log).expect("write log");
        }
    };
    for seed in 0..10 {
        for fault in [false, true] {
            let name = format!("{seed}_{}", if fault { "bad" } else { "ok" });
            let log = simulate::register_log(seed, 6, 400, fault);
            save(format!("jepsen/sim_register_{name}.log"), &log);
            let history = etcd::parse(&log).expect("own log");
            run(options, totals, &format!("sim_register_{name}"), &etcd::EtcdRegister, &history, !fault);
            let log = simulate::kv_log(seed, 10, 5, 1000, fault);
            save(format!("kv/sim_kv_{name}.txt"), &log);
            let history = kv::parse(&log).expect("own log");
            run(options, totals, &format!("sim_kv_{name}"), &kv::KvStore, &history, !fault);
        }
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn main() {
    let options = options();
    let started = Instant::now();
    let mut totals = Totals::default();
    if let Some(dir) = &options.data {
        porcupine_data(&options, &mut totals, dir);
    }
    if options.generated {
        generated(&options, &mut totals);
    }
    println!(
        "{} histories, {} wrong, {} unknown; checking {:.3} s, {} states, peak visited-set memory {} KiB; wall {:.3} s (with parsing)",
        totals.histories,
        totals.wrong,
        totals.unknown,
        totals.check_time.as_secs_f64(),
        totals.states,
        totals.peak_bytes / 1024,
        started.elapsed().as_secs_f64(),
    );
    if totals.wrong > 0 {
        std::process::exit(1);
    }
}

/// Under loom or shuttle there is nothing to measure (the primitives run only inside a
/// model): the rest is type-checked, not compiled, so the checkers' test builds stay fast.
#[cfg(any(feature = "loom", feature = "shuttle"))]
fn main() {
    eprintln!("this example runs on std primitives; build it without `loom`/`shuttle`");
}
