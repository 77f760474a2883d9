//! Compile-time check: walks every op of a module and reports the first op/element-type pair the
//! interpreter does not implement, with the same UNIMPLEMENTED message running it would give.
//! The checks call the same lookup functions the evaluator uses, so the two cannot disagree.

use super::array::{is_stored, unstored};
use super::elementwise::{binary_fn, compare_fn, unary_fn};
use super::numeric::contraction_supported;
use apu_compiler::ir::{Function, Op, OpKind, Region, Type};
use apu_compiler::valid::ValidModule;
use apu_compiler::{Error, Result};

pub fn check_supported(module: &ValidModule) -> Result<()> {
    for f in &module.functions {
        check_params(f).and_then(|()| check_region(f, &f.body)).map_err(|e| e.context(format!("function @{}", f.name)))?;
    }
    Ok(())
}

/// Parameters (and region parameters) of element types without storage, even when unused.
fn check_params(f: &Function) -> Result<()> {
    fn leaves(t: &Type, out: &mut Vec<apu_compiler::ir::ElementType>) {
        match t {
            Type::Tensor(t) => out.push(t.elem),
            Type::Tuple(ts) => ts.iter().for_each(|t| leaves(t, out)),
            Type::Token => {}
        }
    }
    let mut elems = Vec::new();
    f.param_types().iter().for_each(|t| leaves(t, &mut elems));
    match elems.into_iter().find(|&e| !is_stored(e)) {
        Some(e) => Err(unstored("a parameter", e)),
        None => Ok(()),
    }
}

fn check_region(f: &Function, region: &Region) -> Result<()> {
    for op in &region.ops {
        check_op(f, op).map_err(|e| e.context(format!("{} at {}", op.kind.name(), op.location)))?;
        for r in &op.regions {
            check_region(f, r)?;
        }
    }
    Ok(())
}

fn check_types(f: &Function, op: &Op) -> Result<()> {
    for v in op.operands.iter().chain(&op.results) {
        if let Some(Type::Tensor(t)) = f.values.get(v.index()) {
            if !is_stored(t.elem) {
                return Err(unstored(op.kind.name(), t.elem));
            }
        }
    }
    Ok(())
}

fn operand_elem(f: &Function, op: &Op, i: usize) -> Option<apu_compiler::ir::ElementType> {
    f.values.get(op.operands.get(i)?.index())?.as_tensor().map(|t| t.elem)
}

fn result_elem(f: &Function, op: &Op, i: usize) -> Option<apu_compiler::ir::ElementType> {
    f.values.get(op.results.get(i)?.index())?.as_tensor().map(|t| t.elem)
}

/// The tensor types of `values`, or an error naming the first one that is not a tensor.
fn tensor_types<'f>(f: &'f Function, values: &[apu_compiler::ir::ValueId], what: &str) -> Result<Vec<&'f apu_compiler::ir::TensorType>> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            f.values
                .get(v.index())
                .and_then(|t| t.as_tensor())
                .ok_or_else(|| Error::invalid(format!("{what} {i} is not a tensor")))
        })
        .collect()
}

fn check_op(f: &Function, op: &Op) -> Result<()> {
    check_types(f, op)?;
    use OpKind as K;
    match &op.kind {
        K::Unary(u) => operand_elem(f, op, 0).map_or(Ok(()), |e| unary_fn(*u, e).map(|_| ())),
        K::Binary(b) => operand_elem(f, op, 0).map_or(Ok(()), |e| binary_fn(*b, e).map(|_| ())),
        K::Compare { direction, compare_type } => {
            operand_elem(f, op, 0).map_or(Ok(()), |e| compare_fn(*direction, *compare_type, e).map(|_| ()))
        }
        K::Clamp => operand_elem(f, op, 1).map_or(Ok(()), |e| {
            let _ = binary_fn(apu_compiler::ir::BinaryOp::Maximum, e)?;
            binary_fn(apu_compiler::ir::BinaryOp::Minimum, e).map(|_| ())
        }),
        K::ReducePrecision { .. } => match operand_elem(f, op, 0) {
            Some(e) if !e.is_float() => Err(Error::unimplemented(format!("reduce_precision for {e}"))),
            _ => Ok(()),
        },
        K::DotGeneral { .. } | K::Convolution { .. } => match result_elem(f, op, 0) {
            Some(e) if !contraction_supported(e) => Err(Error::unimplemented(format!("{} for {e}", op.kind.name()))),
            _ => Ok(()),
        },
        K::BatchNormInference { .. } | K::BatchNormTraining { .. } | K::BatchNormGrad { .. } => match operand_elem(f, op, 0) {
            Some(e) if !e.is_float() => Err(Error::unimplemented(format!("batch norm for {e}"))),
            _ => Ok(()),
        },
        K::Fft { fft_type, .. } => match operand_elem(f, op, 0) {
            Some(e) if !matches!(e.real_part(), apu_compiler::ir::ElementType::F32 | apu_compiler::ir::ElementType::F64)
                || e.is_complex() == (*fft_type == apu_compiler::ir::FftType::Rfft) =>
            {
                Err(Error::unimplemented(format!("fft {fft_type:?} for {e}")))
            }
            _ => Ok(()),
        },
        K::Cholesky { .. } | K::TriangularSolve { .. } => match operand_elem(f, op, 0) {
            Some(e) if !matches!(e.real_part(), apu_compiler::ir::ElementType::F32 | apu_compiler::ir::ElementType::F64) => {
                Err(Error::unimplemented(format!("{} for {e}", op.kind.name())))
            }
            _ => Ok(()),
        },
        K::RngBitGenerator { algorithm } => match op.results.get(1).and_then(|r| f.values.get(r.index())) {
            Some(Type::Tensor(t)) => super::rng::check_output(*algorithm, t),
            _ => Ok(()),
        },
        K::CustomCall { call_target_name, output_operand_aliases, .. } if !output_operand_aliases.is_empty() && (apu_compiler::plan::typed_ffi_call(op).is_none() || is_apu_custom_call(call_target_name)) => {
            Err(Error::unimplemented(format!("custom_call @{call_target_name} with output_operand_aliases")))
        }
        K::CustomCall { call_target_name, .. } if call_target_name == crate::host_callback::HOST_CALLBACK_TARGET => {
            apu_compiler::plan::host_callback::host_callback_number(op).transpose().map(|_| ())?;
            tensor_types(f, &op.operands, "operand")?;
            tensor_types(f, &op.results, "result").map(|_| ())
        }
        K::CustomCall { call_target_name, .. } if is_identity_custom_call(call_target_name) => Ok(()),
        K::CustomCall { call_target_name, .. } if is_sink_custom_call(call_target_name) && op.results.is_empty() => Ok(()),
        K::CustomCall { call_target_name, .. } if crate::linalg::qr::is_qr_custom_call(call_target_name) => {
            let operands = tensor_types(f, &op.operands, "operand")?;
            let results = tensor_types(f, &op.results, "result")?;
            crate::linalg::qr::check(call_target_name, &operands, &results)
        }
        K::CustomCall { call_target_name, backend_config, .. } if crate::linalg::condensed::is_condensed_custom_call(call_target_name) => {
            let operands = tensor_types(f, &op.operands, "operand")?;
            let results = tensor_types(f, &op.results, "result")?;
            crate::linalg::condensed::check(call_target_name, backend_config.as_ref(), &operands, &results)
        }
        K::CustomCall { call_target_name, backend_config, .. } if call_target_name == crate::linalg::schur::SCHUR_TARGET => {
            let operands = tensor_types(f, &op.operands, "operand")?;
            let results = tensor_types(f, &op.results, "result")?;
            crate::linalg::schur::check(backend_config.as_ref(), &operands, &results)
        }
        K::CustomCall { call_target_name, backend_config, .. } if call_target_name == crate::linalg::eig::EIG_TARGET => {
            let operands = tensor_types(f, &op.operands, "operand")?;
            let results = tensor_types(f, &op.results, "result")?;
            crate::linalg::eig::check(backend_config.as_ref(), &operands, &results)
        }
        K::CustomCall { call_target_name, .. } if call_target_name == crate::linalg::lu::LU_TARGET => {
            let operands = tensor_types(f, &op.operands, "operand")?;
            let results = tensor_types(f, &op.results, "result")?;
            crate::linalg::lu::check(&operands, &results)
        }
        K::CustomCall { call_target_name, backend_config, .. } if call_target_name == crate::linalg::eigh::EIGH_TARGET => {
            let operands = tensor_types(f, &op.operands, "operand")?;
            let results = tensor_types(f, &op.results, "result")?;
            crate::linalg::eigh::check(backend_config.as_ref(), &operands, &results).map(|_| ())
        }
        K::CustomCall { call_target_name, .. } if apu_compiler::plan::typed_ffi_call(op).is_some() && !is_apu_custom_call(call_target_name) => {
            let call = apu_compiler::plan::typed_ffi_call(op).expect("matched above");
            let operands: Vec<_> = tensor_types(f, &op.operands, "operand")?.into_iter().cloned().collect();
            let results: Vec<_> = tensor_types(f, &op.results, "result")?.into_iter().cloned().collect();
            crate::ffi::call::check(&call, &operands, &results)
        }
        K::CustomCall { call_target_name, .. } => {
            Err(Error::unimplemented(format!("custom_call target \"{call_target_name}\"")))
        }
        K::Rng { distribution } => match result_elem(f, op, 0) {
            Some(e) => super::random::check_output(*distribution, e),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Whether apu implements custom calls to `target` itself (they never go to an FFI handler).
pub fn is_apu_custom_call(target: &str) -> bool {
    target == crate::host_callback::HOST_CALLBACK_TARGET
        || is_sink_custom_call(target)
        || is_identity_custom_call(target)
        || crate::linalg::qr::is_qr_custom_call(target)
        || crate::linalg::condensed::is_condensed_custom_call(target)
        || [crate::linalg::schur::SCHUR_TARGET, crate::linalg::eig::EIG_TARGET, crate::linalg::lu::LU_TARGET, crate::linalg::eigh::EIGH_TARGET]
            .contains(&target)
}

/// `lax.dce_sink`'s target: consumes values so that dead-code elimination keeps their producers
/// (JAX's test asserts they survive compilation); it computes nothing.
pub fn is_sink_custom_call(target: &str) -> bool {
    target == "dce_sink"
}

/// Custom-call targets that only annotate placement or sharding: on a single device they return
/// their operand unchanged.
pub fn is_identity_custom_call(target: &str) -> bool {
    matches!(target, "Sharding" | "SPMDFullToShardShape" | "SPMDShardToFullShape")
        || apu_compiler::passes::PLACEMENT_TARGETS.contains(&target)
}
