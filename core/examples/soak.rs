//! The soak of `tests/pipe/soak.rs` at full size, with a progress bar: per seed, a writer and
//! a reader thread move up to `--mib` MiB while each injects cancels into the other and
//! the stream ends cleanly, with a writer failure mid-stream, or with the reader
//! completing early (see `tests/common/soak.rs` for what is checked).
//!
//! ```text
//! cargo run --release -p pipecheck-pipe --example soak -- --seeds 100 --mib 64
//! cargo run --release -p pipecheck-pipe --example soak -- --seed 0x50ac202600000007 --mib 64
//! ```
//!
//! Every seed is printed; a failing one replays alone with `--seed`.

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
#[path = "../tests/common/mod.rs"]
mod common;

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
mod cli {
    use clap::Parser;
    use indicatif::{ProgressBar, ProgressStyle};

    use super::common::soak;

    /// Soak the pipe with injected cancels and endings, one seed after another.
    #[derive(Debug, Parser)]
    #[command(name = "soak")]
    pub(crate) struct Args {
        /// How many seeds to run.
        #[arg(long, default_value_t = 100)]
        seeds: u64,
        /// MiB per seed (the most a seed writes; early endings write less).
        #[arg(long, default_value_t = 64)]
        mib: u64,
        /// The first seed; the others follow it (decimal or 0x hex).
        #[arg(long, default_value = "0x50ac202600000000", value_parser = parse_seed)]
        first: u64,
        /// Run only this seed (decimal or 0x hex), to replay a failure.
        #[arg(long, value_parser = parse_seed)]
        seed: Option<u64>,
    }

    fn parse_seed(text: &str) -> Result<u64, String> {
        match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse(),
        }
        .map_err(|e| format!("{text:?} is not a u64: {e}"))
    }

    /// Prints above the bar; without a terminal the bar is hidden and so would be its
    /// lines, but the seeds must be in the log.
    fn say(bar: &ProgressBar, line: String) {
        if bar.is_hidden() {
            println!("{line}");
        } else {
            bar.println(line);
        }
    }

    pub(crate) fn main() {
        let args = Args::parse();
        let seeds: Vec<u64> = match args.seed {
            Some(seed) => vec![seed],
            None => (0..args.seeds).map(|i| args.first.wrapping_add(i)).collect(),
        };
        let bar = ProgressBar::new(seeds.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} seeds, {msg}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        let started = std::time::Instant::now();
        let mut moved = 0u64;
        for &seed in &seeds {
            bar.set_message(format!("seed {seed:#x}, {} MiB moved", moved >> 20));
            // Printed before the run, so a failing (or hanging) seed is on screen.
            say(
                &bar,
                format!("seed {seed:#x}: {} MiB (replay: --seed {seed:#x} --mib {})", args.mib, args.mib),
            );
            let report = soak::run(seed, args.mib << 20);
            moved += report.read;
            say(&bar, format!("  {report}"));
            bar.inc(1);
        }
        bar.finish_and_clear();
        let elapsed = started.elapsed();
        println!(
            "soak passed: {} seeds, {} MiB read in {elapsed:.2?} ({:.0} MiB/s)",
            seeds.len(),
            moved >> 20,
            (moved as f64 / f64::from(1 << 20)) / elapsed.as_secs_f64()
        );
    }
}

#[cfg(not(any(feature = "loom", feature = "shuttle")))]
fn main() {
    cli::main();
}

#[cfg(any(feature = "loom", feature = "shuttle"))]
fn main() {
    eprintln!("the soak runs on std primitives; build it without `loom`/`shuttle`");
}
