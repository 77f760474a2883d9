//! Rules for the less common ops: linear algebra, FFT, RNG, `select_and_scatter`, `map` and
//! `all_reduce`.

use super::ops::Sig;
use super::{type_list, Ctx};
use crate::ir::*;
use crate::{Error, Result};

fn err(msg: impl Into<String>) -> Error {
    Error::invalid(msg.into())
}

fn scalar(e: ElementType) -> Type {
    Type::Tensor(TensorType::scalar(e))
}

fn region_sig(ctx: &Ctx, r: &Region, params: &[Type], results: &[Type], what: &str) -> Result<()> {
    let got_p = ctx.types(&r.params)?;
    let got_r = ctx.types(&r.results)?;
    if got_p != params || got_r != results {
        return Err(err(format!(
            "{what} region is ({}) -> ({}) but must be ({}) -> ({})",
            type_list(&got_p),
            type_list(&got_r),
            type_list(params),
            type_list(results)
        )));
    }
    Ok(())
}

fn square_matrices(t: &TensorType, what: &str) -> Result<()> {
    let r = t.rank();
    if r < 2 || t.shape[r - 1] != t.shape[r - 2] {
        return Err(err(format!("{what} must be a batch of square matrices, got {t}")));
    }
    Ok(())
}

pub(crate) fn check(ctx: &Ctx, op: &Op, sig: &Sig) -> Result<()> {
    match &op.kind {
        OpKind::GetDimensionSize { .. } => {
            if sig.outs.first() != Some(&scalar(ElementType::S32)) {
                return Err(err(format!("get_dimension_size returns tensor<i32>, result is ({})", type_list(&sig.outs))));
            }
            Ok(())
        }
        OpKind::Cholesky { .. } => {
            sig.counts(1, 1)?;
            square_matrices(sig.tin(0)?, "cholesky operand")?;
            if sig.ins[0] != sig.outs[0] {
                return Err(err(format!("cholesky result {} must have the operand's type {}", sig.outs[0], sig.ins[0])));
            }
            Ok(())
        }
        OpKind::TriangularSolve { left_side, .. } => {
            sig.counts(2, 1)?;
            let (a, b) = (sig.tin(0)?, sig.tin(1)?);
            square_matrices(a, "triangular_solve a")?;
            let n = a.shape[a.rank() - 1];
            let r = b.rank();
            let ok = r == a.rank() && a.elem == b.elem && b.shape[..r - 2] == a.shape[..r - 2] && (if *left_side { b.shape[r - 2] } else { b.shape[r - 1] }) == n;
            if !ok {
                return Err(err(format!("triangular_solve b {b} does not fit a {a} (left_side = {left_side})")));
            }
            if sig.outs[0] != sig.ins[1] {
                return Err(err(format!("triangular_solve result {} must have b's type {b}", sig.outs[0])));
            }
            Ok(())
        }
        OpKind::Fft { fft_type, fft_length } => {
            sig.counts(1, 1)?;
            let (a, r) = (sig.tin(0)?, sig.tout(0)?);
            let n = fft_length.len();
            if n == 0 || n > 3 || n > a.rank() {
                return Err(err(format!("fft_length {fft_length:?} must have 1 to 3 entries, at most the rank of {a}")));
            }
            if fft_length.iter().any(|&len| len < 0) {
                return Err(err(format!("fft_length {fft_length:?} has a negative entry")));
            }
            let ok = match fft_type {
                FftType::Fft | FftType::Ifft => a.elem.is_complex() && a == r,
                FftType::Rfft => {
                    let last = a.shape[a.rank() - 1];
                    a.elem.is_float()
                        && r.elem.is_complex()
                        && r.elem.real_part() == a.elem
                        && r.shape[..r.rank() - 1] == a.shape[..a.rank() - 1]
                        && r.shape.last() == Some(&(last / 2 + 1))
                }
                FftType::Irfft => a.elem.is_complex() && r.elem == a.elem.real_part() && r.shape.last() == fft_length.last(),
            };
            if !ok {
                return Err(err(format!("{fft_type:?} with fft_length {fft_length:?} cannot map {a} to {r}")));
            }
            Ok(())
        }
        OpKind::RngBitGenerator { .. } => {
            sig.counts(1, 2)?;
            let s = sig.tin(0)?;
            if sig.outs[0] != sig.ins[0] || !(s.elem.is_int()) || s.rank() != 1 {
                return Err(err(format!("rng_bit_generator state must be a 1-D integer tensor returned unchanged in type: {}", sig.describe())));
            }
            let out = sig.tout(1)?;
            if !(out.elem.is_int() || out.elem.is_float()) {
                return Err(err(format!("rng_bit_generator output must be integers or floats, got {out}")));
            }
            Ok(())
        }
        OpKind::Rng { distribution } => {
            // HLO's rng has the bounds only; StableHLO's adds the result shape as a 1-D operand.
            if !matches!(sig.ins.len(), 2 | 3) || sig.outs.len() != 1 {
                return Err(err(format!("rng takes (a, b) or (a, b, shape) and returns one tensor: {}", sig.describe())));
            }
            let out = sig.tout(0)?;
            let (a, b) = (sig.tin(0)?, sig.tin(1)?);
            if a.rank() != 0 || b.rank() != 0 || a.elem != out.elem || b.elem != out.elem {
                return Err(err(format!("rng bounds must be scalars of the result's element type: {}", sig.describe())));
            }
            if sig.ins.len() == 3 {
                let shape = sig.tin(2)?;
                if !shape.elem.is_int() || shape.shape != [out.rank() as i64] {
                    return Err(err(format!("rng shape operand must be a 1-D integer tensor of the result's rank: {}", sig.describe())));
                }
            }
            let ok = match distribution {
                RngDistribution::Uniform => out.elem == ElementType::Pred || out.elem.is_int() || out.elem.is_float(),
                RngDistribution::Normal => out.elem.is_float(),
            };
            if !ok {
                return Err(err(format!("rng {distribution:?} cannot produce {out}")));
            }
            Ok(())
        }
        OpKind::SelectAndScatter { .. } => {
            sig.counts(3, 1)?;
            let (x, src, init) = (sig.tin(0)?, sig.tin(1)?, sig.tin(2)?);
            if sig.outs[0] != sig.ins[0] {
                return Err(err(format!("select_and_scatter result {} must have the operand's type {x}", sig.outs[0])));
            }
            if init.rank() != 0 || init.elem != x.elem || src.elem != x.elem || src.rank() != x.rank() {
                return Err(err(format!("source {src} and init {init} must match operand {x} (init a scalar)")));
            }
            let [select, scatter] = op.regions.as_slice() else {
                return Err(err(format!("select_and_scatter needs select and scatter regions, has {}", op.regions.len())));
            };
            let s = scalar(x.elem);
            region_sig(ctx, select, &[s.clone(), s.clone()], &[scalar(ElementType::Pred)], "select")?;
            region_sig(ctx, scatter, &[s.clone(), s.clone()], &[s], "scatter")
        }
        OpKind::Map { dimensions } => {
            if sig.ins.is_empty() {
                return Err(err("map needs at least one operand"));
            }
            sig.counts(sig.ins.len(), 1)?;
            let first = sig.tin(0)?;
            for i in 0..sig.ins.len() {
                if sig.tin(i)?.shape != first.shape {
                    return Err(err(format!("map operands must share one shape, got {first} and {}", sig.ins[i])));
                }
            }
            if *dimensions != (0..first.rank() as i64).collect::<Vec<_>>() {
                return Err(err(format!("map dimensions {dimensions:?} must be 0..{}", first.rank())));
            }
            let r = sig.tout(0)?;
            if r.shape != first.shape {
                return Err(err(format!("map result {r} must have the operands' shape")));
            }
            let [body] = op.regions.as_slice() else {
                return Err(err("map needs one region"));
            };
            let params: Vec<Type> = (0..sig.ins.len()).map(|i| scalar(sig.tin(i).map(|t| t.elem).unwrap_or(ElementType::Pred))).collect();
            region_sig(ctx, body, &params, &[scalar(r.elem)], "map")
        }
        OpKind::AllReduce { .. } => {
            if sig.ins != sig.outs {
                return Err(err(format!("all_reduce results must have the operands' types: {}", sig.describe())));
            }
            let [body] = op.regions.as_slice() else {
                return Err(err("all_reduce needs one region"));
            };
            for i in 0..sig.ins.len() {
                let s = scalar(sig.tin(i)?.elem);
                region_sig(ctx, body, &[s.clone(), s.clone()], &[s], "all_reduce")?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
