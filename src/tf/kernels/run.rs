//! The one place where a TensorFlow op meets apu's execution: lower it to IR, then execute the module.

use super::lower::lower;
use super::ops::TfOp;
use apu_compiler::Result;
use apu_runtime::Tensor;

/// Computes `op` on `inputs` with apu's reference interpreter (all inputs, host-memory ones included) and returns its outputs.
pub fn run_single_op(op: &TfOp, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let lowered = lower(op, inputs).map_err(|e| e.context(format!("TensorFlow op {}", op.name())))?;
    let args: Vec<Tensor> = lowered.params.iter().map(|&i| inputs[i].clone()).collect();
    let module = apu_compiler::valid::validate(lowered.module)?;
    apu_runtime::interp::run(&module, &args).map_err(|e| e.context(format!("TensorFlow op {}", op.name())))
}
