//! Fuzz target: arbitrary bytes decode (via `arbitrary`) to small pipe settings and an
//! [`Op`] sequence, which runs against a monitored pipe and the reference model
//! (`check_sequence`): a model mismatch or an invariant violation is a crash.
//!
//! `cargo +nightly fuzz run op_sequences` (from the repository root). A crash input
//! replays with `cargo +nightly fuzz run op_sequences <file>`; the sequence it decodes
//! to is printed in the panic message of the op that failed.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use pipecheck_properties::{CheckConfig, Op, check_sequence};

/// Pipe settings small enough that short inputs cross segments and thresholds.
#[derive(Debug, Arbitrary)]
struct Settings {
    minimum_segment_size: u8,
    growth: u8,
    pause: u8,
    resume: u8,
    max_pooled: u8,
}

impl Settings {
    fn config(&self) -> CheckConfig {
        let minimum = usize::from(self.minimum_segment_size % 8) + 1;
        let pause = u64::from(self.pause % 33);
        CheckConfig {
            minimum_segment_size: minimum,
            maximum_segment_size: minimum << (self.growth % 4),
            pause_writer_threshold: pause,
            resume_writer_threshold: if pause == 0 { 0 } else { u64::from(self.resume) % (pause + 1) },
            max_pooled_segments: usize::from(self.max_pooled % 4) + 1,
            ..CheckConfig::default()
        }
    }
}

fuzz_target!(|input: (Settings, Vec<Op>)| {
    let (settings, ops) = input;
    check_sequence(settings.config(), &ops);
});
