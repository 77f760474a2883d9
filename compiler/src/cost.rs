//! A static cost estimate of a module, for `Compiled.cost_analysis()` (PJRT's GetCostAnalysis):
//! floating-point operations, transcendental operations and bytes accessed, counted the way XLA's
//! HloCostAnalysis counts them, roughly — one flop per element of an elementwise result, two per
//! multiply-add of a contraction, one per element folded by a reduction, transcendentals counted
//! apart from flops; bytes accessed are each op's operands and results. Loop bodies, branches and
//! called functions count once (the trip count is unknown before running), as in XLA. It is an
//! estimate for users' roofline checks and for JAX's tests, not a model of apu's kernels.

use crate::ir::{BinaryOp, Function, Module, Op, OpKind, Region, Type, UnaryOp};

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    pub flops: f64,
    pub transcendentals: f64,
    pub bytes_accessed: f64,
}

impl Cost {
    /// The named properties as XLA reports them (the keys JAX's users read).
    pub fn properties(&self) -> [(&'static str, f64); 3] {
        [("flops", self.flops), ("transcendentals", self.transcendentals), ("bytes accessed", self.bytes_accessed)]
    }
}

/// The cost of one run of the module's entry function.
pub fn estimate(module: &Module) -> Cost {
    let mut cost = Cost::default();
    let mut stack = Vec::new();
    function(module, module.entry, &mut cost, &mut stack);
    cost
}

fn function(module: &Module, index: usize, cost: &mut Cost, stack: &mut Vec<usize>) {
    if stack.contains(&index) {
        return; // recursion is invalid StableHLO; never loop here
    }
    stack.push(index);
    let f = &module.functions[index];
    region(module, f, &f.body, cost, stack);
    stack.pop();
}

fn region(module: &Module, f: &Function, r: &Region, cost: &mut Cost, stack: &mut Vec<usize>) {
    for op in &r.ops {
        one_op(module, f, op, cost, stack);
        for inner in &op.regions {
            region(module, f, inner, cost, stack);
        }
    }
}

fn elements(t: &Type) -> f64 {
    match t {
        Type::Tensor(t) => t.num_elements() as f64,
        Type::Tuple(ts) => ts.iter().map(elements).sum(),
        Type::Token => 0.0,
    }
}

fn bytes(t: &Type) -> f64 {
    match t {
        Type::Tensor(t) => t.byte_size() as f64,
        Type::Tuple(ts) => ts.iter().map(bytes).sum(),
        Type::Token => 0.0,
    }
}

fn is_transcendental_unary(op: UnaryOp) -> bool {
    use UnaryOp::*;
    matches!(op, Cbrt | Cosine | Exponential | ExponentialMinusOne | Log | LogPlusOne | Logistic | Rsqrt | Sine | Sqrt | Tan | Tanh)
}

fn one_op(module: &Module, f: &Function, op: &Op, cost: &mut Cost, stack: &mut Vec<usize>) {
    let ty = |v: &crate::ir::ValueId| f.value_type(*v);
    let result_elements: f64 = op.results.iter().map(|v| elements(ty(v))).sum();
    let operand_elements = |i: usize| op.operands.get(i).map_or(0.0, |v| elements(ty(v)));
    let moves_data = !matches!(
        op.kind,
        OpKind::Constant(_) | OpKind::Tuple | OpKind::GetTupleElement { .. } | OpKind::Call { .. } | OpKind::While
            | OpKind::Case | OpKind::OptimizationBarrier | OpKind::CreateToken | OpKind::AfterAll | OpKind::Reshape
    );
    if moves_data {
        cost.bytes_accessed += op.operands.iter().map(|v| bytes(ty(v))).sum::<f64>();
        cost.bytes_accessed += op.results.iter().map(|v| bytes(ty(v))).sum::<f64>();
    }
    match &op.kind {
        OpKind::Unary(u) if is_transcendental_unary(*u) => cost.transcendentals += result_elements,
        OpKind::Binary(BinaryOp::Power | BinaryOp::Atan2) => cost.transcendentals += result_elements,
        OpKind::Unary(_) | OpKind::Binary(_) | OpKind::Compare { .. } | OpKind::Select | OpKind::Clamp => {
            cost.flops += result_elements
        }
        OpKind::DotGeneral { dims, .. } => {
            let lhs = op.operands.first().and_then(|v| ty(v).as_tensor());
            let contracted: f64 = lhs.map_or(1.0, |t| {
                dims.lhs_contracting.iter().map(|&d| t.shape.get(d as usize).copied().unwrap_or(1) as f64).product()
            });
            cost.flops += 2.0 * result_elements * contracted;
        }
        OpKind::Convolution { dims, feature_group_count, .. } => {
            // Each output element sums kernel-spatial x input-features-per-group products.
            let kernel = op.operands.get(1).and_then(|v| ty(v).as_tensor());
            let per_output = kernel.map_or(1.0, |k| {
                let spatial: f64 = dims.kernel_spatial.iter().map(|&d| k.shape[d as usize] as f64).product();
                spatial * k.shape[dims.kernel_input_feature as usize] as f64
            });
            let _ = feature_group_count; // the kernel's input-feature dimension is already per group
            cost.flops += 2.0 * result_elements * per_output;
        }
        OpKind::Reduce { .. } => {
            // Half the operands are inputs, half init values; each input element is folded once.
            let inputs = op.operands.len() / 2;
            cost.flops += (0..inputs).map(operand_elements).sum::<f64>();
        }
        OpKind::ReduceWindow { window_dimensions, .. } => {
            let window: f64 = window_dimensions.iter().map(|&w| w as f64).product();
            cost.flops += result_elements * window;
        }
        OpKind::SelectAndScatter { window_dimensions, .. } => {
            let window: f64 = window_dimensions.iter().map(|&w| w as f64).product();
            cost.flops += operand_elements(1) * window + operand_elements(0);
        }
        OpKind::Scatter { .. } => cost.flops += operand_elements(op.operands.len().saturating_sub(1)),
        OpKind::Sort { .. } => {
            let n = operand_elements(0).max(1.0);
            cost.flops += n * n.log2().max(1.0);
        }
        OpKind::Cholesky { .. } | OpKind::TriangularSolve { .. } => {
            let a = op.operands.first().and_then(|v| ty(v).as_tensor());
            if let Some(a) = a {
                let n = a.shape.last().copied().unwrap_or(1) as f64;
                let batch = a.num_elements() as f64 / (n * n).max(1.0);
                cost.flops += batch * n * n * n / 3.0 + result_elements;
            }
        }
        OpKind::Fft { .. } => {
            let n = result_elements.max(1.0);
            cost.flops += 5.0 * n * n.log2().max(1.0);
        }
        OpKind::Call { callee } => {
            if let Some(i) = module.function_index(callee) {
                function(module, i, cost, stack);
            }
        }
        OpKind::Composite { decomposition, .. } => {
            if let Some(i) = module.function_index(decomposition) {
                function(module, i, cost, stack);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(text: &str) -> Module {
        crate::text::parse_module(text).expect("parses")
    }

    #[test]
    fn a_matmul_counts_two_flops_per_multiply_add() {
        let m = module(
            "func.func @main(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {\n\
               %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>\n\
               return %0 : tensor<8x4xf32>\n}",
        );
        let c = estimate(&m);
        assert_eq!(c.flops, 2.0 * 8.0 * 4.0 * 16.0);
        assert_eq!(c.bytes_accessed, 4.0 * (8.0 * 16.0 + 16.0 * 4.0 + 8.0 * 4.0));
        assert_eq!(c.transcendentals, 0.0);
    }

    #[test]
    fn transcendentals_are_counted_apart_and_calls_are_followed() {
        let m = module(
            "func.func @main(%x: tensor<10xf32>) -> tensor<10xf32> {\n\
               %0 = stablehlo.exponential %x : tensor<10xf32>\n\
               %1 = func.call @g(%0) : (tensor<10xf32>) -> tensor<10xf32>\n\
               return %1 : tensor<10xf32>\n}\n\
             func.func private @g(%y: tensor<10xf32>) -> tensor<10xf32> {\n\
               %0 = stablehlo.add %y, %y : tensor<10xf32>\n\
               return %0 : tensor<10xf32>\n}",
        );
        let c = estimate(&m);
        assert_eq!(c.transcendentals, 10.0);
        assert_eq!(c.flops, 10.0);
        assert_eq!(c.bytes_accessed, 4.0 * 10.0 * 2.0 + 4.0 * 10.0 * 3.0);
    }

    #[test]
    fn an_identity_costs_nothing() {
        let m = module("func.func @main(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}");
        assert_eq!(estimate(&m), Cost::default());
    }
}
