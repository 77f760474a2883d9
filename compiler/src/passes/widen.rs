//! Arithmetic on narrow types computed on wide ones (decision 99): bf16 and f16 ops become f32 ops,
//! 8- and 16-bit integer ops 32-bit ones, with converts around them. Mixed-precision programs
//! (flax's `dtype=jnp.bfloat16`, `jnp.float16` inference, int8 quantization helpers) are mostly
//! such ops; the kernels compute on f32 / i32 / u32 lanes and only load, store and convert the
//! narrow types, so after this pass every one of them is a plan kernel.
//!
//! Elementwise results keep the narrow type: `add(a, b): bf16` becomes
//! `convert(add(convert(a): f32, convert(b): f32)): bf16`, so each op still rounds (or wraps) to
//! its type, as the interpreter does. For `+ − × ÷ sqrt` the f32 result rounded once more is the
//! correctly rounded narrow one (f32 has at least 2p + 2 bits for p = 8 and 11); integer ops that
//! wrap on the wide type wrap the same way on the narrow one. Ops whose result depends on the
//! width (bit counts, logical shifts of signed values, arithmetic ones of unsigned values) stay.
//!
//! Reductions, pooling windows, combining scatters and contractions accumulate in the wide type
//! and round once at the end (more accurate than the interpreter, which rounds after every step,
//! so their results differ from its by a few units of the narrow type's last place; decision 99
//! has the measured agreement with XLA:CPU).

use crate::ir::{BinaryOp, ComparisonType, ElementType as E, Function, Module, Op, OpKind, Region, TensorType, Type, UnaryOp, ValueId};

pub fn widen_narrow_arithmetic(module: &mut Module) {
    for f in &mut module.functions {
        let mut body = std::mem::take(&mut f.body);
        in_region(f, &mut body);
        sink_converts(f, &mut body);
        remove_unused_moves(&mut body);
        f.body = body;
    }
}

/// Whether `kind` only moves elements (so a conversion commutes with it).
fn moves_data(kind: &OpKind) -> bool {
    matches!(kind, OpKind::Transpose { .. } | OpKind::Reshape | OpKind::BroadcastInDim { .. } | OpKind::Slice { .. } | OpKind::Reverse { .. })
}

/// `convert(move(x))` of a narrow `x` becomes `move(convert(x))`, through chains of data movement:
/// the widened ops' results are rounded by `convert(... -> narrow)` and read back by
/// `convert(... -> wide)`, and a transpose or reshape between the two (attention's head split,
/// a dot's operand order) would otherwise keep them apart, making the planner store the narrow
/// value, copy it moved, and widen the copy. Adjacent, the two converts fuse into one kernel, and
/// the movement is a view of the wide value.
fn sink_converts(f: &mut Function, region: &mut Region) {
    let ops = std::mem::take(&mut region.ops);
    let mut defined: std::collections::HashMap<ValueId, usize> = std::collections::HashMap::new();
    for mut op in ops {
        for nested in &mut op.regions {
            if matches!(op.kind, OpKind::While | OpKind::Case | OpKind::ManualComputation(_)) {
                sink_converts(f, nested);
            }
        }
        let op = sunk(f, region, &defined, op);
        for &r in &op.results {
            defined.insert(r, region.ops.len());
        }
        region.ops.push(op);
    }
}

/// Drops conversions and data movement whose results nothing reads (the narrow chains that
/// [`sink_converts`] bypassed; left in place, the planner would still store the narrow values they
/// view). Walks backwards, so a chain goes at once.
fn remove_unused_moves(region: &mut Region) {
    fn count_uses(region: &Region, uses: &mut std::collections::HashMap<ValueId, usize>) {
        for op in &region.ops {
            for &v in &op.operands {
                *uses.entry(v).or_default() += 1;
            }
            for nested in &op.regions {
                count_uses(nested, uses);
            }
        }
        for &v in &region.results {
            *uses.entry(v).or_default() += 1;
        }
    }
    let mut uses = std::collections::HashMap::new();
    count_uses(region, &mut uses);
    let mut kept = Vec::with_capacity(region.ops.len());
    for op in std::mem::take(&mut region.ops).into_iter().rev() {
        let removable = (op.kind == OpKind::Convert || moves_data(&op.kind)) && op.regions.is_empty();
        if removable && op.results.iter().all(|r| uses.get(r).copied().unwrap_or(0) == 0) {
            for v in &op.operands {
                if let Some(n) = uses.get_mut(v) {
                    *n = n.saturating_sub(1);
                }
            }
            continue;
        }
        kept.push(op);
    }
    kept.reverse();
    region.ops = kept;
}

/// `op` itself, or, for a conversion of moved narrow data, the movement of the converted data (the
/// conversion pushed before it, recursively, into `region`).
fn sunk(f: &mut Function, region: &mut Region, defined: &std::collections::HashMap<ValueId, usize>, op: Op) -> Op {
    let (OpKind::Convert, [v], [r]) = (&op.kind, op.operands.as_slice(), op.results.as_slice()) else { return op };
    let Some(&i) = defined.get(v) else { return op };
    let mover = &region.ops[i];
    let [x] = mover.operands.as_slice() else { return op };
    let (Some(xt), Some(rt)) = (tensor(f, *x), tensor(f, *r)) else { return op };
    if !moves_data(&mover.kind) || wide(xt.elem).is_none() {
        return op;
    }
    let (kind, location) = (mover.kind.clone(), mover.location.clone());
    let converted = f.new_value(Type::tensor(xt.shape, rt.elem));
    let mut inner = Op::new(OpKind::Convert, vec![*x], vec![converted]);
    inner.location = op.location.clone();
    let inner = sunk(f, region, defined, inner);
    region.ops.push(inner);
    let mut moved = Op::new(kind, vec![converted], vec![*r]);
    moved.location = location;
    moved
}

/// The type a narrow type computes on, or None for types computed as they are.
pub fn wide(e: E) -> Option<E> {
    match e {
        E::BF16 | E::F16 => Some(E::F32),
        E::S8 | E::S16 => Some(E::S32),
        E::U8 | E::U16 => Some(E::U32),
        _ => None,
    }
}

fn in_region(f: &mut Function, region: &mut Region) {
    let ops = std::mem::take(&mut region.ops);
    for mut op in ops {
        // Only regions that run as programs; combiner and comparator regions are rewritten with
        // the op that owns them, or not at all.
        if matches!(op.kind, OpKind::While | OpKind::Case | OpKind::ManualComputation(_)) {
            for nested in &mut op.regions {
                in_region(f, nested);
            }
        }
        match widened(f, &op) {
            Some(replacement) => region.ops.extend(replacement),
            None => region.ops.push(op),
        }
    }
}

fn tensor(f: &Function, v: ValueId) -> Option<TensorType> {
    f.value_type(v).as_tensor().cloned()
}

/// Builds the replacement ops of one op, converting operands on the way in and results on the way out.
struct Rewrite<'f> {
    f: &'f mut Function,
    ops: Vec<Op>,
    location: crate::ir::Location,
}

impl Rewrite<'_> {
    fn push(&mut self, kind: OpKind, operands: Vec<ValueId>, result: Type) -> ValueId {
        let r = self.f.new_value(result);
        let mut op = Op::new(kind, operands, vec![r]);
        op.location = self.location.clone();
        self.ops.push(op);
        r
    }

    /// `v` converted to `elem` (itself when it has that type).
    fn convert(&mut self, v: ValueId, elem: E) -> Option<ValueId> {
        let t = tensor(self.f, v)?;
        if t.elem == elem {
            return Some(v);
        }
        Some(self.push(OpKind::Convert, vec![v], Type::tensor(t.shape, elem)))
    }

    /// The op computing `op`'s single result from `operands` with result type `elem`, then
    /// converted into `op`'s result value.
    fn finish(mut self, op: &Op, kind: OpKind, operands: Vec<ValueId>, regions: Vec<Region>, elem: E) -> Option<Vec<Op>> {
        let [r] = op.results.as_slice() else { return None };
        let rt = tensor(self.f, *r)?;
        let computed = if rt.elem == elem { *r } else { self.f.new_value(Type::tensor(rt.shape.clone(), elem)) };
        let mut main = Op::new(kind, operands, vec![computed]);
        main.regions = regions;
        main.location = self.location.clone();
        self.ops.push(main);
        if computed != *r {
            let mut back = Op::new(OpKind::Convert, vec![computed], vec![*r]);
            back.location = self.location.clone();
            self.ops.push(back);
        }
        Some(self.ops)
    }
}

/// Whether an elementwise op on integer type `e` gives, on its wide type, a value that wraps back
/// to the narrow result.
fn int_unary_widens(u: UnaryOp) -> bool {
    matches!(u, UnaryOp::Negate | UnaryOp::Abs | UnaryOp::Sign | UnaryOp::Not)
}

fn int_binary_widens(b: BinaryOp, e: E) -> bool {
    match b {
        BinaryOp::Add
        | BinaryOp::Subtract
        | BinaryOp::Multiply
        | BinaryOp::Divide
        | BinaryOp::Remainder
        | BinaryOp::Maximum
        | BinaryOp::Minimum
        | BinaryOp::And
        | BinaryOp::Or
        | BinaryOp::Xor
        | BinaryOp::ShiftLeft => true,
        // Sign-extended values shift arithmetically as the narrow type does, zero-extended ones
        // logically; the other pairings would see the wide type's upper bits.
        BinaryOp::ShiftRightArithmetic => e.is_signed_int(),
        BinaryOp::ShiftRightLogical => e.is_unsigned_int(),
        _ => false,
    }
}

/// A one-op combiner region `body(p, q) = p <b> q` on element type `e`, rebuilt on `to`.
fn widened_combiner(f: &mut Function, region: &Region, e: E, to: E) -> Option<Region> {
    let [combine] = region.ops.as_slice() else { return None };
    let OpKind::Binary(b) = combine.kind else { return None };
    let &[p, q] = region.params.as_slice() else { return None };
    if region.results != combine.results || combine.operands.iter().any(|o| *o != p && *o != q) {
        return None;
    }
    if !matches!(b, BinaryOp::Add | BinaryOp::Multiply | BinaryOp::Maximum | BinaryOp::Minimum) || tensor(f, p)?.elem != e {
        return None;
    }
    let scalar = Type::tensor(Vec::new(), to);
    let (np, nq, nr) = (f.new_value(scalar.clone()), f.new_value(scalar.clone()), f.new_value(scalar));
    let map = |v: ValueId| if v == p { np } else { nq };
    let mut op = Op::new(OpKind::Binary(b), combine.operands.iter().map(|&v| map(v)).collect(), vec![nr]);
    op.location = combine.location.clone();
    Some(Region { params: vec![np, nq], ops: vec![op], results: vec![nr] })
}

/// `select(a >= b)` (or `<=`, `>`, `<`) on type `e`, rebuilt on `to`: a pooling gradient's select.
fn widened_select(f: &mut Function, region: &Region, e: E, to: E) -> Option<Region> {
    let [cmp] = region.ops.as_slice() else { return None };
    let OpKind::Compare { direction, compare_type } = cmp.kind else { return None };
    let &[p, q] = region.params.as_slice() else { return None };
    if region.results != cmp.results || cmp.operands != [p, q] || tensor(f, p)?.elem != e {
        return None;
    }
    let scalar = Type::tensor(Vec::new(), to);
    let (np, nq) = (f.new_value(scalar.clone()), f.new_value(scalar));
    let nr = f.new_value(Type::tensor(Vec::new(), E::Pred));
    let mut op = Op::new(OpKind::Compare { direction, compare_type }, vec![np, nq], vec![nr]);
    op.location = cmp.location.clone();
    Some(Region { params: vec![np, nq], ops: vec![op], results: vec![nr] })
}

/// Whether a dot of these operand and result types sums 8-bit integer products exactly on f64:
/// at most 2^15 terms of magnitude below 2^16 each, so the sum also fits a 32-bit result (no wrap).
fn exact_int8_dot(types: &[TensorType], dims: &crate::ir::DotDims) -> bool {
    let [a, b, r] = types else { return false };
    let eight = |e: E| matches!(e, E::S8 | E::U8);
    let terms: i64 = dims.lhs_contracting.iter().map(|&d| usize::try_from(d).ok().and_then(|d| a.shape.get(d)).copied().unwrap_or(i64::MAX)).product();
    eight(a.elem) && eight(b.elem) && matches!(r.elem, E::S32 | E::S64 | E::U32 | E::U64) && (0..=1 << 15).contains(&terms)
}

/// The replacement of `op`, or None to keep it.
fn widened(f: &mut Function, op: &Op) -> Option<Vec<Op>> {
    let types: Vec<TensorType> = op.operands.iter().chain(&op.results).map(|&v| tensor(f, v)).collect::<Option<_>>()?;
    let narrow = types.iter().find_map(|t| wide(t.elem).map(|w| (t.elem, w)));
    let (n, w) = narrow?;
    let mut rw = Rewrite { f, ops: Vec::new(), location: op.location.clone() };
    let elem_of = |i: usize| types[i].elem;
    match &op.kind {
        OpKind::Unary(u) if op.operands.len() == 1 => {
            let (a, r) = (elem_of(0), elem_of(1));
            let wa = wide(a)?;
            let ok = match (a.is_float(), *u) {
                (true, UnaryOp::IsFinite) => r == E::Pred,
                (true, _) => r == a,
                (false, u) => r == a && int_unary_widens(u),
            };
            if !ok {
                return None;
            }
            let x = rw.convert(op.operands[0], wa)?;
            let re = if r == E::Pred { E::Pred } else { wa };
            rw.finish(op, op.kind.clone(), vec![x], Vec::new(), re)
        }
        OpKind::Binary(b) if op.operands.len() == 2 => {
            let (a, c, r) = (elem_of(0), elem_of(1), elem_of(2));
            let wa = wide(a)?;
            if a != c || r != a || (!a.is_float() && !int_binary_widens(*b, a)) || *b == BinaryOp::Complex {
                return None;
            }
            let x = rw.convert(op.operands[0], wa)?;
            let y = rw.convert(op.operands[1], wa)?;
            rw.finish(op, op.kind.clone(), vec![x, y], Vec::new(), wa)
        }
        OpKind::Compare { compare_type, .. } if op.operands.len() == 2 => {
            let a = elem_of(0);
            let wa = wide(a)?;
            // The same order on the extended values: floats convert exactly, signed integers
            // sign-extend and unsigned ones zero-extend.
            let same_order = match compare_type {
                None => true,
                Some(ComparisonType::Float | ComparisonType::TotalOrder) => a.is_float(),
                Some(ComparisonType::Signed) => a.is_signed_int(),
                Some(ComparisonType::Unsigned) => a.is_unsigned_int(),
            };
            if elem_of(1) != a || !same_order {
                return None;
            }
            let x = rw.convert(op.operands[0], wa)?;
            let y = rw.convert(op.operands[1], wa)?;
            rw.finish(op, op.kind.clone(), vec![x, y], Vec::new(), E::Pred)
        }
        // Contractions of narrow floats on f32; of 8-bit integers on f64, where every product and
        // every sum of up to 2^15 of them is exact (so is the conversion of the sum to the result).
        OpKind::DotGeneral { dims, precision, .. } if op.operands.len() == 2 && exact_int8_dot(&types, dims) => {
            let x = rw.convert(op.operands[0], E::F64)?;
            let y = rw.convert(op.operands[1], E::F64)?;
            let kind = OpKind::DotGeneral { dims: dims.clone(), precision: precision.clone(), preferred_element_type: None };
            rw.finish(op, kind, vec![x, y], Vec::new(), E::F64)
        }
        OpKind::DotGeneral { dims, precision, .. } if op.operands.len() == 2 => {
            let (a, b, r) = (elem_of(0), elem_of(1), elem_of(2));
            if !(a.is_float() && b.is_float() && r.is_float()) || [a, b, r].iter().any(|&e| e == E::F64) {
                return None;
            }
            let x = rw.convert(op.operands[0], E::F32)?;
            let y = rw.convert(op.operands[1], E::F32)?;
            let kind = OpKind::DotGeneral { dims: dims.clone(), precision: precision.clone(), preferred_element_type: None };
            rw.finish(op, kind, vec![x, y], Vec::new(), E::F32)
        }
        OpKind::Convolution { .. } if op.operands.len() == 2 => {
            let (a, b, r) = (elem_of(0), elem_of(1), elem_of(2));
            if !(a.is_float() && b.is_float() && r.is_float()) || [a, b, r].iter().any(|&e| e == E::F64) {
                return None;
            }
            let x = rw.convert(op.operands[0], E::F32)?;
            let y = rw.convert(op.operands[1], E::F32)?;
            rw.finish(op, op.kind.clone(), vec![x, y], Vec::new(), E::F32)
        }
        // One-input reductions and pooling windows with a one-op combiner.
        OpKind::Reduce { .. } | OpKind::ReduceWindow { .. } if op.operands.len() == 2 && op.results.len() == 1 => {
            if elem_of(0) != n || elem_of(1) != n || elem_of(2) != n {
                return None;
            }
            let region = widened_combiner(rw.f, op.regions.first()?, n, w)?;
            let x = rw.convert(op.operands[0], w)?;
            let init = rw.convert(op.operands[1], w)?;
            rw.finish(op, op.kind.clone(), vec![x, init], vec![region], w)
        }
        // Scatters that combine (an embedding's gradient is a scatter-add): the sums in the wide type.
        OpKind::Scatter { .. } if op.operands.len() == 3 && op.results.len() == 1 => {
            if elem_of(0) != n || elem_of(2) != n || elem_of(3) != n || !types[1].elem.is_int() {
                return None;
            }
            let region = widened_combiner(rw.f, op.regions.first()?, n, w)?;
            let x = rw.convert(op.operands[0], w)?;
            let updates = rw.convert(op.operands[2], w)?;
            rw.finish(op, op.kind.clone(), vec![x, op.operands[1], updates], vec![region], w)
        }
        // Max pooling's gradient: the select compares the operand's values, the scatter adds.
        OpKind::SelectAndScatter { .. } if op.operands.len() == 3 && op.regions.len() == 2 => {
            if !n.is_float() || (0..4).any(|i| elem_of(i) != n) {
                return None;
            }
            let select = widened_select(rw.f, &op.regions[0], n, w)?;
            let scatter = widened_combiner(rw.f, &op.regions[1], n, w)?;
            let operands = op.operands.clone().into_iter().map(|v| rw.convert(v, w)).collect::<Option<Vec<_>>>()?;
            rw.finish(op, op.kind.clone(), operands, vec![select, scatter], w)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{read_program, ProgramFormat};
    use crate::valid::validate;

    fn widened_text(src: &str) -> String {
        let mut m = read_program(ProgramFormat::Mlir, src.as_bytes()).unwrap();
        widen_narrow_arithmetic(&mut m);
        let valid = validate(m).unwrap();
        crate::print::print_module(valid.module())
    }

    #[test]
    fn narrow_arithmetic_computes_wide_and_rounds_per_op() {
        let out = widened_text(
            "func.func @main(%a: tensor<4xbf16>, %b: tensor<4xbf16>, %i: tensor<4xi8>) -> (tensor<4xbf16>, tensor<4xi1>, tensor<4xi8>) {\n\
             %0 = stablehlo.multiply %a, %b : tensor<4xbf16>\n\
             %1 = stablehlo.add %0, %a : tensor<4xbf16>\n\
             %2 = stablehlo.compare GT, %1, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>\n\
             %3 = stablehlo.add %i, %i : tensor<4xi8>\n\
             return %1, %2, %3 : tensor<4xbf16>, tensor<4xi1>, tensor<4xi8>\n}\n",
        );
        // Every add, multiply and compare is on f32 or i32; each bf16 result is converted back.
        for line in out.lines().filter(|l| l.contains("stablehlo.add") || l.contains("stablehlo.multiply") || l.contains("stablehlo.compare")) {
            assert!(line.contains("xf32>") || line.contains("xi32>"), "{line}\n{out}");
            assert!(!line.contains("bf16") && !line.contains("xi8>"), "{line}\n{out}");
        }
        assert_eq!(out.matches("-> tensor<4xbf16>").count(), 2, "{out}");
    }

    #[test]
    fn data_movement_between_rounding_and_widening_moves_to_the_wide_side() {
        // A dot's bf16 result transposed and reshaped into the next dot: after the pass the
        // movement is on f32 values and no bf16 value is moved (nothing stores one to copy it).
        let out = widened_text(
            "func.func @main(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>, %c: tensor<2x4xbf16>) -> tensor<4x4xbf16> {\n\
             %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>\n\
             %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x4xbf16>) -> tensor<4x2xbf16>\n\
             %2 = stablehlo.reshape %1 : (tensor<4x2xbf16>) -> tensor<4x2xbf16>\n\
             %3 = stablehlo.dot_general %2, %c, contracting_dims = [1] x [0] : (tensor<4x2xbf16>, tensor<2x4xbf16>) -> tensor<4x4xbf16>\n\
             return %3 : tensor<4x4xbf16>\n}\n",
        );
        for line in out.lines().filter(|l| l.contains("transpose") || l.contains("reshape")) {
            assert!(!line.contains("bf16"), "{line}\n{out}");
        }
        assert_eq!(out.matches("stablehlo.transpose").count(), 1, "{out}");
    }

    #[test]
    fn width_dependent_and_wide_ops_stay() {
        let src = "func.func @main(%i: tensor<4xi8>, %u: tensor<4xui8>, %x: tensor<4xf32>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xui8>, tensor<4xf32>) {\n\
             %0 = stablehlo.popcnt %i : tensor<4xi8>\n\
             %1 = stablehlo.shift_right_logical %i, %i : tensor<4xi8>\n\
             %2 = stablehlo.shift_right_arithmetic %u, %u : tensor<4xui8>\n\
             %3 = stablehlo.add %x, %x : tensor<4xf32>\n\
             return %0, %1, %2, %3 : tensor<4xi8>, tensor<4xi8>, tensor<4xui8>, tensor<4xf32>\n}\n";
        let out = widened_text(src);
        assert!(!out.contains("convert"), "{out}");
    }

    #[test]
    fn reductions_and_contractions_accumulate_in_f32() {
        let out = widened_text(
            "func.func @main(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> (tensor<2x4xbf16>, tensor<2xbf16>) {\n\
             %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xbf16>\n\
             %c = stablehlo.constant dense<0.0> : tensor<bf16>\n\
             %1 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xbf16>, tensor<bf16>) -> tensor<2xbf16>\n\
             return %0, %1 : tensor<2x4xbf16>, tensor<2xbf16>\n}\n",
        );
        assert!(out.contains("-> tensor<2x4xf32>"), "{out}");
        assert!(out.contains("-> tensor<2xf32>"), "{out}");
        assert!(out.contains("tensor<f32>"), "the combiner is on f32: {out}");
    }
}
