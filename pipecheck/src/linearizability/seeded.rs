//! A proptest runner from a `u64` seed, so that every generated run can print the one
//! number that reproduces it.

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A runner with `config` whose random numbers come from `seed` (ChaCha, the seed's
/// little-endian bytes repeated).
pub(super) fn seeded_runner(config: Config, seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&seed.to_le_bytes());
    }
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}
