//! Per-op type and shape rules (after the StableHLO spec's constraints). Region signatures
//! (`reduce`, `sort`, `while`, `case`, ...) are in `regions.rs`.

use super::{regions, type_list, Ctx};
use crate::ir::*;
use crate::{Error, Result};

fn err(msg: impl Into<String>) -> Error {
    Error::invalid(msg.into())
}

/// Operand and result types of one op, with the helpers the rules need.
pub(crate) struct Sig {
    pub ins: Vec<Type>,
    pub outs: Vec<Type>,
}

impl Sig {
    pub fn describe(&self) -> String {
        format!("({}) -> ({})", type_list(&self.ins), type_list(&self.outs))
    }
    pub fn counts(&self, ins: usize, outs: usize) -> Result<()> {
        if self.ins.len() != ins || self.outs.len() != outs {
            return Err(err(format!(
                "expects {ins} operands and {outs} results, got {} and {} ({})",
                self.ins.len(),
                self.outs.len(),
                self.describe()
            )));
        }
        Ok(())
    }
    pub fn tin(&self, i: usize) -> Result<&TensorType> {
        tensor(self.ins.get(i), || format!("operand #{i}"))
    }
    pub fn tout(&self, i: usize) -> Result<&TensorType> {
        tensor(self.outs.get(i), || format!("result #{i}"))
    }
}

pub(crate) fn tensor(t: Option<&Type>, what: impl Fn() -> String) -> Result<&TensorType> {
    match t {
        Some(Type::Tensor(tt)) => Ok(tt),
        Some(other) => Err(err(format!("{} is {other}, expected a tensor", what()))),
        None => Err(err(format!("{} is missing", what()))),
    }
}

fn dim_in_range(d: i64, rank: usize, what: &str) -> Result<usize> {
    if d < 0 || d as usize >= rank {
        return Err(err(format!("{what} {d} is out of range for rank {rank}")));
    }
    Ok(d as usize)
}

fn unique_dims(dims: &[i64], rank: usize, what: &str) -> Result<()> {
    let mut seen = vec![false; rank];
    for &d in dims {
        let i = dim_in_range(d, rank, what)?;
        if seen[i] {
            return Err(err(format!("{what} {d} appears twice in {dims:?}")));
        }
        seen[i] = true;
    }
    Ok(())
}

fn same_shape(a: &TensorType, b: &TensorType, what: &str) -> Result<()> {
    if a.shape != b.shape {
        return Err(err(format!("{what}: shapes differ ({a} vs {b})")));
    }
    Ok(())
}

fn is_float_like(e: ElementType) -> bool {
    e.is_float() || e.is_complex()
}

pub(crate) fn check_op(ctx: &Ctx, op: &Op) -> Result<()> {
    let sig = Sig { ins: ctx.types(&op.operands)?, outs: ctx.types(&op.results)? };
    match &op.kind {
        OpKind::Unary(u) => unary(*u, &sig),
        OpKind::Binary(b) => binary(*b, &sig),
        OpKind::Compare { compare_type, .. } => {
            sig.counts(2, 1)?;
            let (a, b, r) = (sig.tin(0)?, sig.tin(1)?, sig.tout(0)?);
            if a != b {
                return Err(err(format!("operands must have the same type, got {a} and {b}")));
            }
            let e = a.elem;
            let fits = match compare_type {
                None => true,
                Some(ComparisonType::Float) | Some(ComparisonType::TotalOrder) => is_float_like(e),
                Some(ComparisonType::Signed) => e.is_signed_int(),
                Some(ComparisonType::Unsigned) => e.is_unsigned_int() || e.is_pred(),
            };
            if !fits {
                return Err(err(format!("comparison type {compare_type:?} does not fit operands of {e} ({a})")));
            }
            same_shape(a, r, "compare result")?;
            if !r.elem.is_pred() {
                return Err(err(format!("result must be a tensor of i1, got {r}")));
            }
            Ok(())
        }
        OpKind::Select => {
            sig.counts(3, 1)?;
            let (p, t, f, r) = (sig.tin(0)?, sig.tin(1)?, sig.tin(2)?, sig.tout(0)?);
            if !p.elem.is_pred() {
                return Err(err(format!("predicate must be a tensor of i1, got {p}")));
            }
            if t != f || t != r {
                return Err(err(format!("on_true, on_false and result must have one type, got {t}, {f} and {r}")));
            }
            if p.rank() != 0 && p.shape != r.shape {
                return Err(err(format!("predicate {p} must be a scalar or have the result's shape {r}")));
            }
            Ok(())
        }
        OpKind::Clamp => {
            sig.counts(3, 1)?;
            let (lo, x, hi, r) = (sig.tin(0)?, sig.tin(1)?, sig.tin(2)?, sig.tout(0)?);
            if x != r {
                return Err(err(format!("result {r} must have the operand's type {x}")));
            }
            for (b, name) in [(lo, "min"), (hi, "max")] {
                if b.elem != x.elem || (b.rank() != 0 && b.shape != x.shape) {
                    return Err(err(format!("{name} {b} must be a scalar or have the operand's type {x}")));
                }
            }
            Ok(())
        }
        OpKind::Convert => {
            sig.counts(1, 1)?;
            same_shape(sig.tin(0)?, sig.tout(0)?, "convert")
        }
        OpKind::BitcastConvert => {
            sig.counts(1, 1)?;
            let (a, r) = (sig.tin(0)?, sig.tout(0)?);
            // Sub-byte integers count with their logical width: i32 <-> 8 x i4 (predicates are not
            // bitcast by JAX; they count as a byte).
            let width = |e: ElementType| if e == ElementType::Pred { 8 } else { e.bit_width() as usize };
            let (wa, wr) = (width(a.elem), width(r.elem));
            let ok = if wa == wr {
                a.shape == r.shape
            } else if wa > wr {
                r.rank() == a.rank() + 1 && r.shape[..a.rank()] == a.shape[..] && r.shape[a.rank()] as usize * wr == wa
            } else {
                a.rank() == r.rank() + 1 && a.shape[..r.rank()] == r.shape[..] && a.shape[r.rank()] as usize * wa == wr
            };
            if !ok {
                return Err(err(format!("cannot bitcast {a} to {r}: bit widths and shapes do not line up")));
            }
            Ok(())
        }
        OpKind::ReducePrecision { exponent_bits, mantissa_bits } => {
            sig.counts(1, 1)?;
            let (a, r) = (sig.tin(0)?, sig.tout(0)?);
            if a != r || !a.elem.is_float() {
                return Err(err(format!("operand and result must be one float type, got {a} and {r}")));
            }
            if *exponent_bits < 1 || *mantissa_bits < 0 {
                return Err(err(format!("exponent_bits {exponent_bits} must be >= 1 and mantissa_bits {mantissa_bits} >= 0")));
            }
            Ok(())
        }
        OpKind::Constant(lit) => {
            sig.counts(0, 1)?;
            let r = sig.tout(0)?;
            if *r != lit.ty {
                return Err(err(format!("result {r} differs from the constant's type {}", lit.ty)));
            }
            let want = if lit.splat { lit.ty.elem.byte_size() } else { lit.ty.byte_size() };
            if lit.bytes.len() != want {
                return Err(err(format!("constant of {} holds {} bytes, needs {want}", lit.ty, lit.bytes.len())));
            }
            Ok(())
        }
        OpKind::Iota { dimension } => {
            sig.counts(0, 1)?;
            let r = sig.tout(0)?;
            if r.elem.is_pred() {
                return Err(err(format!("iota result must hold numbers, got {r}")));
            }
            dim_in_range(*dimension, r.rank(), "iota_dimension").map(|_| ())
        }
        OpKind::BroadcastInDim { broadcast_dimensions } => broadcast_in_dim(&sig, broadcast_dimensions),
        OpKind::Reshape => {
            sig.counts(1, 1)?;
            let (a, r) = (sig.tin(0)?, sig.tout(0)?);
            if a.num_elements() != r.num_elements() || a.elem != r.elem {
                return Err(err(format!("cannot reshape {a} ({} elements) to {r} ({} elements)", a.num_elements(), r.num_elements())));
            }
            Ok(())
        }
        OpKind::Transpose { permutation } => {
            sig.counts(1, 1)?;
            let (a, r) = (sig.tin(0)?, sig.tout(0)?);
            if permutation.len() != a.rank() {
                return Err(err(format!("permutation {permutation:?} has {} entries for rank {} ({a})", permutation.len(), a.rank())));
            }
            unique_dims(permutation, a.rank(), "permutation entry")?;
            let want: Vec<i64> = permutation.iter().map(|&p| a.shape[p as usize]).collect();
            if r.shape != want || r.elem != a.elem {
                return Err(err(format!("transposing {a} by {permutation:?} gives shape {want:?}, result is {r}")));
            }
            Ok(())
        }
        OpKind::Reverse { dimensions } => {
            sig.counts(1, 1)?;
            let (a, r) = (sig.tin(0)?, sig.tout(0)?);
            unique_dims(dimensions, a.rank(), "reverse dimension")?;
            if a != r {
                return Err(err(format!("result {r} must have the operand's type {a}")));
            }
            Ok(())
        }
        OpKind::Slice { start_indices, limit_indices, strides } => slice(&sig, start_indices, limit_indices, strides),
        OpKind::DynamicSlice { slice_sizes } => dynamic_slice(&sig, slice_sizes),
        OpKind::DynamicUpdateSlice => dynamic_update_slice(&sig),
        OpKind::Concatenate { dimension } => concatenate(&sig, *dimension),
        OpKind::Pad { edge_padding_low, edge_padding_high, interior_padding } => pad(&sig, edge_padding_low, edge_padding_high, interior_padding),
        OpKind::Gather { dims, slice_sizes, .. } => gather(&sig, dims, slice_sizes),
        OpKind::Scatter { dims, .. } => regions::scatter(&sig, op, ctx, dims),
        OpKind::GetDimensionSize { dimension } => {
            sig.counts(1, 1)?;
            dim_in_range(*dimension, sig.tin(0)?.rank(), "dimension")?;
            super::misc::check(ctx, op, &sig)
        }
        OpKind::Reduce { dimensions } => regions::reduce(&sig, op, ctx, dimensions),
        OpKind::ReduceWindow { .. } => regions::reduce_window(&sig, op, ctx),
        OpKind::DotGeneral { dims, .. } => dot_general(&sig, dims),
        OpKind::Convolution { .. } => convolution(&sig, &op.kind),
        OpKind::Sort { dimension, .. } => regions::sort(&sig, op, ctx, *dimension),
        OpKind::While => regions::while_loop(&sig, op, ctx),
        OpKind::Case => regions::case(&sig, op, ctx),
        OpKind::Call { callee } => call(&sig, ctx, callee, "call"),
        OpKind::Composite { decomposition, .. } => call(&sig, ctx, decomposition, "composite decomposition"),
        OpKind::Tuple => {
            sig.counts(sig.ins.len(), 1)?;
            if sig.outs[0] != Type::Tuple(sig.ins.clone()) {
                return Err(err(format!("result {} must be tuple<{}>", sig.outs[0], type_list(&sig.ins))));
            }
            Ok(())
        }
        OpKind::GetTupleElement { index } => {
            sig.counts(1, 1)?;
            match &sig.ins[0] {
                Type::Tuple(items) => match items.get(*index as usize) {
                    Some(t) if *t == sig.outs[0] => Ok(()),
                    Some(t) => Err(err(format!("element {index} of {} is {t}, result is {}", sig.ins[0], sig.outs[0]))),
                    None => Err(err(format!("index {index} is out of range for {}", sig.ins[0]))),
                },
                other => Err(err(format!("operand is {other}, expected a tuple"))),
            }
        }
        OpKind::OptimizationBarrier => {
            if sig.ins != sig.outs {
                return Err(err(format!("results must have the operands' types: {}", sig.describe())));
            }
            Ok(())
        }
        _ => {
            super::collective::check(ctx, op, &sig)?;
            super::misc::check(ctx, op, &sig)
        }
    }
}

fn unary(u: UnaryOp, sig: &Sig) -> Result<()> {
    use UnaryOp::*;
    sig.counts(1, 1)?;
    let (a, r) = (sig.tin(0)?, sig.tout(0)?);
    same_shape(a, r, "elementwise op")?;
    let want = match u {
        Abs | Real | Imag => a.elem.real_part(),
        IsFinite => ElementType::Pred,
        _ => a.elem,
    };
    if r.elem != want {
        return Err(err(format!("result element type must be {want} for operand {a}, got {r}")));
    }
    let ok = match u {
        Cbrt | Ceil | Floor | Cosine | Exponential | ExponentialMinusOne | Log | LogPlusOne | Logistic | RoundNearestAfz
        | RoundNearestEven | Rsqrt | Sine | Sqrt | Tan | Tanh => is_float_like(a.elem),
        IsFinite => a.elem.is_float(),
        Not => a.elem.is_int() || a.elem.is_pred(),
        CountLeadingZeros | PopulationCount => a.elem.is_int(),
        Abs | Negate | Sign => !a.elem.is_pred(),
        Real | Imag => is_float_like(a.elem),
    };
    if !ok {
        return Err(err(format!("element type {} is not allowed for this op (operand {a})", a.elem)));
    }
    Ok(())
}

fn binary(b: BinaryOp, sig: &Sig) -> Result<()> {
    use BinaryOp::*;
    sig.counts(2, 1)?;
    let (x, y, r) = (sig.tin(0)?, sig.tin(1)?, sig.tout(0)?);
    if x != y {
        return Err(err(format!("operands must have the same type, got {x} and {y}")));
    }
    same_shape(x, r, "elementwise op")?;
    if b == Complex {
        let want = match x.elem {
            ElementType::F32 => ElementType::C64,
            ElementType::F64 => ElementType::C128,
            e => return Err(err(format!("complex needs f32 or f64 operands, got {e}"))),
        };
        if r.elem != want {
            return Err(err(format!("complex of {x} gives {want} elements, result is {r}")));
        }
        return Ok(());
    }
    if r.elem != x.elem {
        return Err(err(format!("result {r} must have the operands' element type {}", x.elem)));
    }
    let ok = match b {
        And | Or | Xor => x.elem.is_int() || x.elem.is_pred(),
        ShiftLeft | ShiftRightArithmetic | ShiftRightLogical => x.elem.is_int(),
        Atan2 => is_float_like(x.elem),
        _ => true,
    };
    if !ok {
        return Err(err(format!("element type {} is not allowed for this op", x.elem)));
    }
    Ok(())
}

fn broadcast_in_dim(sig: &Sig, dims: &[i64]) -> Result<()> {
    sig.counts(1, 1)?;
    let (a, r) = (sig.tin(0)?, sig.tout(0)?);
    if a.elem != r.elem {
        return Err(err(format!("element types differ: operand {a}, result {r}")));
    }
    if dims.len() != a.rank() {
        return Err(err(format!("broadcast_dimensions {dims:?} has {} entries for operand {a} of rank {}", dims.len(), a.rank())));
    }
    unique_dims(dims, r.rank(), "broadcast dimension")?;
    for (i, &d) in dims.iter().enumerate() {
        let (src, dst) = (a.shape[i], r.shape[d as usize]);
        if src != 1 && src != dst {
            return Err(err(format!(
                "operand dimension {i} (size {src}) maps to result dimension {d} (size {dst}); sizes must match or be 1 (operand {a}, result {r})"
            )));
        }
    }
    Ok(())
}

fn slice(sig: &Sig, start: &[i64], limit: &[i64], strides: &[i64]) -> Result<()> {
    sig.counts(1, 1)?;
    let (a, r) = (sig.tin(0)?, sig.tout(0)?);
    if start.len() != a.rank() || limit.len() != a.rank() || strides.len() != a.rank() {
        return Err(err(format!("start/limit/strides must have {} entries for {a}", a.rank())));
    }
    let mut want = Vec::new();
    for i in 0..a.rank() {
        let (s, l, st, d) = (start[i], limit[i], strides[i], a.shape[i]);
        if s < 0 || s > l || l > d || st <= 0 {
            return Err(err(format!("dimension {i}: slice {s}:{l}:{st} is out of bounds for size {d} ({a})")));
        }
        want.push(((l as i128 - s as i128 + st as i128 - 1) / st as i128) as i64);
    }
    if r.shape != want || r.elem != a.elem {
        return Err(err(format!("slicing {a} gives shape {want:?}, result is {r}")));
    }
    Ok(())
}

fn scalar_index(t: &TensorType, i: usize) -> Result<()> {
    if t.rank() != 0 || !t.elem.is_int() {
        return Err(err(format!("start index #{i} must be a scalar integer tensor, got {t}")));
    }
    Ok(())
}

/// The start indices (operands `first..`) must all have one type.
fn same_index_types(sig: &Sig, first: usize) -> Result<()> {
    if let Some(t0) = sig.ins.get(first) {
        if let Some((i, t)) = sig.ins[first..].iter().enumerate().find(|(_, t)| *t != t0) {
            return Err(err(format!("start indices must share one type: #0 is {t0}, #{i} is {t}")));
        }
    }
    Ok(())
}

fn dynamic_slice(sig: &Sig, sizes: &[i64]) -> Result<()> {
    let a = sig.tin(0)?;
    sig.counts(1 + a.rank(), 1)?;
    for i in 0..a.rank() {
        scalar_index(sig.tin(1 + i)?, i)?;
    }
    same_index_types(sig, 1)?;
    if sizes.len() != a.rank() {
        return Err(err(format!("slice_sizes {sizes:?} must have {} entries for {a}", a.rank())));
    }
    for (i, (&s, &d)) in sizes.iter().zip(&a.shape).enumerate() {
        if s < 0 || s > d {
            return Err(err(format!("slice size {s} of dimension {i} exceeds the operand's size {d} ({a})")));
        }
    }
    let r = sig.tout(0)?;
    if r.shape != sizes || r.elem != a.elem {
        return Err(err(format!("result {r} must have shape {sizes:?} and element type {}", a.elem)));
    }
    Ok(())
}

fn dynamic_update_slice(sig: &Sig) -> Result<()> {
    let a = sig.tin(0)?;
    sig.counts(2 + a.rank(), 1)?;
    let u = sig.tin(1)?;
    if u.rank() != a.rank() || u.elem != a.elem || u.shape.iter().zip(&a.shape).any(|(x, y)| x > y) {
        return Err(err(format!("update {u} must have the operand's rank and element type and fit inside {a}")));
    }
    for i in 0..a.rank() {
        scalar_index(sig.tin(2 + i)?, i)?;
    }
    same_index_types(sig, 2)?;
    if sig.tout(0)? != a {
        return Err(err(format!("result {} must have the operand's type {a}", sig.outs[0])));
    }
    Ok(())
}

fn concatenate(sig: &Sig, dimension: i64) -> Result<()> {
    if sig.ins.is_empty() {
        return Err(err("concatenate needs at least one operand"));
    }
    sig.counts(sig.ins.len(), 1)?;
    let first = sig.tin(0)?;
    let d = dim_in_range(dimension, first.rank(), "dimension")?;
    let mut total = 0;
    for i in 0..sig.ins.len() {
        let t = sig.tin(i)?;
        let same_other = t.rank() == first.rank() && (0..t.rank()).all(|k| k == d || t.shape[k] == first.shape[k]);
        if t.elem != first.elem || !same_other {
            return Err(err(format!("operand #{i} {t} does not match operand #0 {first} outside dimension {d}")));
        }
        total += t.shape[d];
    }
    let mut want = first.shape.clone();
    want[d] = total;
    let r = sig.tout(0)?;
    if r.shape != want || r.elem != first.elem {
        return Err(err(format!("concatenation along {d} gives shape {want:?}, result is {r}")));
    }
    Ok(())
}

fn pad(sig: &Sig, low: &[i64], high: &[i64], interior: &[i64]) -> Result<()> {
    sig.counts(2, 1)?;
    let (a, v, r) = (sig.tin(0)?, sig.tin(1)?, sig.tout(0)?);
    if v.rank() != 0 || v.elem != a.elem {
        return Err(err(format!("padding value must be a scalar of {}, got {v}", a.elem)));
    }
    if low.len() != a.rank() || high.len() != a.rank() || interior.len() != a.rank() {
        return Err(err(format!("low/high/interior must have {} entries for {a}", a.rank())));
    }
    let mut want = Vec::new();
    for i in 0..a.rank() {
        if interior[i] < 0 {
            return Err(err(format!("interior padding {} of dimension {i} is negative", interior[i])));
        }
        let d = a.shape[i];
        let size = low[i] as i128 + high[i] as i128 + d as i128 + (d as i128 - 1).max(0) * interior[i] as i128;
        if size < 0 || size > i64::MAX as i128 {
            return Err(err(format!("padding makes dimension {i} of {a} out of range ({size})")));
        }
        want.push(size as i64);
    }
    if r.shape != want || r.elem != a.elem {
        return Err(err(format!("padding {a} gives shape {want:?}, result is {r}")));
    }
    Ok(())
}

fn gather(sig: &Sig, d: &GatherDims, slice_sizes: &[i64]) -> Result<()> {
    sig.counts(2, 1)?;
    let (a, idx, r) = (sig.tin(0)?, sig.tin(1)?, sig.tout(0)?);
    if !idx.elem.is_int() {
        return Err(err(format!("start indices must be integers, got {idx}")));
    }
    if slice_sizes.len() != a.rank() {
        return Err(err(format!("slice_sizes {slice_sizes:?} must have {} entries for {a}", a.rank())));
    }
    for (i, (&s, &dim)) in slice_sizes.iter().zip(&a.shape).enumerate() {
        if s < 0 || s > dim {
            return Err(err(format!("slice size {s} of dimension {i} is out of bounds for {a}")));
        }
    }
    if d.index_vector_dim < 0 || d.index_vector_dim as usize > idx.rank() {
        return Err(err(format!("index_vector_dim {} is out of range for indices {idx}", d.index_vector_dim)));
    }
    let ivd = d.index_vector_dim as usize;
    let index_len = if ivd == idx.rank() { 1 } else { idx.shape[ivd] };
    if d.start_index_map.len() as i64 != index_len {
        return Err(err(format!("start_index_map {:?} must have {index_len} entries (index vector of {idx})", d.start_index_map)));
    }
    unique_dims(&d.start_index_map, a.rank(), "start_index_map entry")?;
    let mut dropped = d.collapsed_slice_dims.clone();
    dropped.extend(&d.operand_batching_dims);
    unique_dims(&dropped, a.rank(), "collapsed or batching dimension")?;
    for &c in &d.collapsed_slice_dims {
        if slice_sizes[c as usize] > 1 {
            return Err(err(format!("collapsed dimension {c} has slice size {}, must be 0 or 1", slice_sizes[c as usize])));
        }
    }
    let batch: Vec<i64> = idx.shape.iter().enumerate().filter(|(i, _)| *i != ivd).map(|(_, &s)| s).collect();
    let offsets: Vec<i64> = slice_sizes.iter().enumerate().filter(|(i, _)| !dropped.contains(&(*i as i64))).map(|(_, &s)| s).collect();
    let rank = batch.len() + offsets.len();
    if d.offset_dims.len() != offsets.len() {
        return Err(err(format!("offset_dims {:?} must have {} entries", d.offset_dims, offsets.len())));
    }
    unique_dims(&d.offset_dims, rank, "offset dimension")?;
    let mut want = Vec::with_capacity(rank);
    let (mut bi, mut oi) = (0, 0);
    for k in 0..rank {
        if d.offset_dims.contains(&(k as i64)) {
            want.push(offsets[oi]);
            oi += 1;
        } else {
            want.push(batch[bi]);
            bi += 1;
        }
    }
    if r.shape != want || r.elem != a.elem {
        return Err(err(format!("gather of {a} with indices {idx} gives shape {want:?}, result is {r}")));
    }
    Ok(())
}

fn dot_general(sig: &Sig, d: &DotDims) -> Result<()> {
    sig.counts(2, 1)?;
    let (l, rt, out) = (sig.tin(0)?, sig.tin(1)?, sig.tout(0)?);
    if d.lhs_batch.len() != d.rhs_batch.len() || d.lhs_contracting.len() != d.rhs_contracting.len() {
        return Err(err(format!("batching {:?} x {:?} and contracting {:?} x {:?} dimension lists must pair up", d.lhs_batch, d.rhs_batch, d.lhs_contracting, d.rhs_contracting)));
    }
    let lhs_used: Vec<i64> = d.lhs_batch.iter().chain(&d.lhs_contracting).copied().collect();
    let rhs_used: Vec<i64> = d.rhs_batch.iter().chain(&d.rhs_contracting).copied().collect();
    unique_dims(&lhs_used, l.rank(), "lhs dimension")?;
    unique_dims(&rhs_used, rt.rank(), "rhs dimension")?;
    for (&a, &b) in d.lhs_batch.iter().zip(&d.rhs_batch).chain(d.lhs_contracting.iter().zip(&d.rhs_contracting)) {
        if l.shape[a as usize] != rt.shape[b as usize] {
            return Err(err(format!("lhs dimension {a} (size {}) and rhs dimension {b} (size {}) must match ({l} vs {rt})", l.shape[a as usize], rt.shape[b as usize])));
        }
    }
    let mut want: Vec<i64> = d.lhs_batch.iter().map(|&b| l.shape[b as usize]).collect();
    want.extend((0..l.rank() as i64).filter(|i| !lhs_used.contains(i)).map(|i| l.shape[i as usize]));
    want.extend((0..rt.rank() as i64).filter(|i| !rhs_used.contains(i)).map(|i| rt.shape[i as usize]));
    if out.shape != want {
        return Err(err(format!("dot_general of {l} and {rt} gives shape {want:?}, result is {out}")));
    }
    Ok(())
}

fn convolution(sig: &Sig, kind: &OpKind) -> Result<()> {
    let OpKind::Convolution { window_strides, padding, lhs_dilation, rhs_dilation, dims, feature_group_count, batch_group_count, .. } = kind else {
        return Ok(());
    };
    sig.counts(2, 1)?;
    let (x, k, r) = (sig.tin(0)?, sig.tin(1)?, sig.tout(0)?);
    let n = dims.input_spatial.len();
    if x.rank() != n + 2 || k.rank() != n + 2 || r.rank() != n + 2 || dims.kernel_spatial.len() != n || dims.output_spatial.len() != n {
        return Err(err(format!("input {x}, kernel {k} and result {r} must all have rank {} ({n} spatial dimensions)", n + 2)));
    }
    let mut in_dims = vec![dims.input_batch, dims.input_feature];
    in_dims.extend(&dims.input_spatial);
    unique_dims(&in_dims, x.rank(), "input dimension")?;
    let mut k_dims = vec![dims.kernel_input_feature, dims.kernel_output_feature];
    k_dims.extend(&dims.kernel_spatial);
    unique_dims(&k_dims, k.rank(), "kernel dimension")?;
    let mut o_dims = vec![dims.output_batch, dims.output_feature];
    o_dims.extend(&dims.output_spatial);
    unique_dims(&o_dims, r.rank(), "output dimension")?;
    let (fg, bg) = (*feature_group_count, *batch_group_count);
    if fg < 1 || bg < 1 {
        return Err(err(format!("feature_group_count {fg} and batch_group_count {bg} must be positive")));
    }
    let in_f = x.shape[dims.input_feature as usize];
    let k_in = k.shape[dims.kernel_input_feature as usize];
    if in_f as i128 != k_in as i128 * fg as i128 {
        return Err(err(format!("input features {in_f} must equal kernel input features {k_in} x feature_group_count {fg}")));
    }
    let get = |v: &[i64], i: usize, default: i64| v.get(i).copied().unwrap_or(default);
    let mut want = vec![0i64; n + 2];
    want[dims.output_batch as usize] = x.shape[dims.input_batch as usize] / bg;
    want[dims.output_feature as usize] = k.shape[dims.kernel_output_feature as usize];
    for i in 0..n {
        let d = x.shape[dims.input_spatial[i] as usize];
        let w = k.shape[dims.kernel_spatial[i] as usize];
        let (lo, hi) = padding.get(i).copied().unwrap_or((0, 0));
        let (d, w, lo, hi) = (d as i128, w as i128, lo as i128, hi as i128);
        let dilated = if d == 0 { 0 } else { (d - 1) * get(lhs_dilation, i, 1) as i128 + 1 };
        let padded = dilated + lo + hi;
        let win = if w == 0 { 0 } else { (w - 1) * get(rhs_dilation, i, 1) as i128 + 1 };
        let stride = get(window_strides, i, 1);
        if stride < 1 {
            return Err(err(format!("window stride {stride} must be positive")));
        }
        want[dims.output_spatial[i] as usize] = if padded < win { 0 } else { ((padded - win) / stride as i128 + 1).min(i64::MAX as i128) as i64 };
    }
    if r.shape != want {
        return Err(err(format!("convolution of {x} with kernel {k} gives shape {want:?}, result is {r}")));
    }
    Ok(())
}

fn call(sig: &Sig, ctx: &Ctx, callee: &str, what: &str) -> Result<()> {
    let Some(f) = ctx.module.function(callee) else {
        return Err(err(format!("{what} to unknown function @{callee}")));
    };
    let params: Vec<Type> = f.body.params.iter().filter_map(|p| f.values.get(p.index()).cloned()).collect();
    if sig.ins != params || sig.outs != f.result_types {
        return Err(err(format!(
            "{what} signature {} does not match @{callee}: ({}) -> ({})",
            sig.describe(),
            type_list(&params),
            type_list(&f.result_types)
        )));
    }
    Ok(())
}
