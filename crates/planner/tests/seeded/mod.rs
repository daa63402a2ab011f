//! Proptest's configuration for this crate's property tests: the run's seed
//! is fixed before it starts and written to the test's output, which cargo
//! shows when the test fails, so that a failure can be replayed with
//! `PROPTEST_RNG_SEED=<seed> cargo test ...` (proptest reads that variable;
//! set, it is the seed used and printed). Failing cases are also kept, as
//! proptest does by default, in `<test file>.proptest-regressions` beside
//! the test, which is committed and replayed first on every run.

use proptest::test_runner::{Config, RngSeed};

/// `cases` cases from a seed printed now (a fresh one unless
/// `PROPTEST_RNG_SEED` names one).
pub fn config(cases: u32) -> Config {
    let mut config = Config { cases, ..Config::default() };
    let seed = match config.rng_seed {
        RngSeed::Fixed(seed) => seed,
        RngSeed::Random => rand::random(),
    };
    config.rng_seed = RngSeed::Fixed(seed);
    eprintln!("proptest: seed {seed} (PROPTEST_RNG_SEED={seed} replays this run)");
    assert!(
        config.failure_persistence.is_some(),
        "proptest must keep failing cases in the regressions file (PROPTEST_DISABLE_FAILURE_PERSISTENCE is set?)"
    );
    config
}
