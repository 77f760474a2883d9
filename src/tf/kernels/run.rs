//! The one place where a TensorFlow op meets apu's execution: lower it to IR, then execute the module.

use super::lower::lower;
use super::ops::TfOp;
use apu_compiler::Result;
use apu_runtime::Tensor;

/// Computes `op` on `inputs` (all inputs, host-memory ones included) and returns its outputs.
pub fn run_single_op(op: &TfOp, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let lowered = lower(op, inputs).map_err(|e| e.context(format!("TensorFlow op {}", op.name())))?;
    let args: Vec<Tensor> = lowered.params.iter().map(|&i| inputs[i].clone()).collect();
    // Execution: swap in apu's reference interpreter here once it is merged.
    super::host_eval::run(&lowered.module, &args).map_err(|e| e.context(format!("TensorFlow op {}", op.name())))
}
