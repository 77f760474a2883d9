//! `rng_bit_generator`.

use super::value::Dense;
use apu_compiler::ir::{RngAlgorithm, TensorType};
use apu_compiler::{Error, Result};

pub fn supported(algorithm: RngAlgorithm) -> bool {
    let _ = algorithm;
    false
}

pub fn rng_bit_generator(algorithm: RngAlgorithm, state: &Dense, state_ty: &TensorType, out_ty: &TensorType) -> Result<(Dense, Dense)> {
    let _ = (state, state_ty);
    Err(Error::unimplemented(format!("rng_bit_generator {algorithm:?} producing {out_ty}")))
}
