//! The random state of one program run, shared by the plan executor (which owns it per run) and
//! the interpreter (whose `rng` op draws from it, `interp::random` says how). It is state, not an
//! evaluator, so it sits outside both.

use std::sync::atomic::{AtomicU64, Ordering};

/// The random state of one program run: the run seed and the number of `rng` evaluations so far.
#[derive(Debug)]
pub struct RunRng {
    seed: u64,
    calls: AtomicU64,
}

impl RunRng {
    pub fn new(seed: u64) -> RunRng {
        RunRng { seed, calls: AtomicU64::new(0) }
    }

    /// The run seed for run `run` of the program with serial number `program` (SplitMix64 mixing, so
    /// neighbouring programs and runs get unrelated keys).
    pub fn run_seed(program: u64, run: u64) -> u64 {
        splitmix64(splitmix64(program) ^ run.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The call index of the next `rng` evaluation.
    pub fn next_call(&self) -> u64 {
        self.calls.fetch_add(1, Ordering::Relaxed)
    }
}

fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
