//! Lowering of the entry function to a [`Plan`]: elementwise ops fuse into their single
//! elementwise (or reduce) consumer, broadcasts/transposes/slices/reshapes of stored values become
//! strided views read by the kernels, reductions and dot_general get their own kernels, and every
//! other op becomes a fallback step run by the interpreter.

use super::view::View;
use super::view_copy::ViewCopyKernel;
use super::*;
use crate::ir::{Function, OpKind, Region, Type};
use crate::{Error, Result};
use std::collections::{BTreeSet, HashMap};

mod windows;

/// How a value of the entry function is available while lowering.
#[derive(Clone, Debug)]
enum Node {
    /// Stored in a slot.
    Slot(SlotId),
    /// A strided view of a slot, not stored yet.
    View(SlotId, View),
    /// Every element equals this constant.
    Const(KScalar),
    /// `iota` along a dimension, not stored yet.
    Iota(usize),
    /// An elementwise op (index into the body) inlined into its only consumer.
    Fused(usize),
}

/// Lowers the entry function of `module`, or returns `None` when the entry function moves
/// tuples or tokens between its top-level ops (those programs run on the interpreter). The module
/// is taken as given: the compile pipeline has simplified and validated it already.
pub fn lower(module: &Module, caps: &dyn Capabilities) -> Result<Option<Plan>> {
    let f = module.entry_function();
    let top_values = f.body.params.iter().chain(&f.body.results).chain(f.body.ops.iter().flat_map(|op| op.operands.iter().chain(&op.results)));
    for &v in top_values.clone() {
        if !matches!(f.values.get(v.index()), Some(Type::Tensor(_))) {
            return Ok(None);
        }
    }
    let mut l = Lowering::new(f, caps);
    for &p in &f.body.params {
        let s = l.new_slot(p)?;
        l.params.push(s);
        l.nodes.insert(p, Node::Slot(s));
    }
    for (i, op) in f.body.ops.iter().enumerate() {
        l.lower_op(i, op).map_err(|e| e.context(format!("planning {} at {}", op.kind.name(), op.location)))?;
    }
    let mut results = Vec::new();
    for &r in &f.body.results {
        results.push(l.materialize(r)?);
    }
    let mut plan = l.finish(results);
    plan.module = module.clone();
    Ok(Some(plan))
}

struct Lowering<'a> {
    f: &'a Function,
    caps: &'a dyn Capabilities,
    slots: Vec<TensorType>,
    params: Vec<SlotId>,
    constants: Vec<(SlotId, Literal)>,
    steps: Vec<Step>,
    /// The ops of the region being lowered (the entry body, or a nested region).
    ops: &'a [Op],
    nodes: HashMap<ValueId, Node>,
    /// Per value: (number of uses, the op index and operand position of the last use seen).
    uses: HashMap<ValueId, (usize, Option<(usize, usize)>)>,
    /// Per value: the ops of the region reading it, once per operand position.
    consumers: HashMap<ValueId, Vec<usize>>,
    /// The register of each value already emitted into the expression being built (a value
    /// fused into several ops of one kernel is computed once).
    emitted: HashMap<ValueId, Reg>,
}

fn tensor_type(f: &Function, v: ValueId) -> Result<&TensorType> {
    f.values
        .get(v.index())
        .and_then(Type::as_tensor)
        .ok_or_else(|| Error::internal(format!("value {v} has no tensor type")))
}

/// Values that the regions of `op` read but do not define.
fn captured_values(op: &Op) -> Vec<ValueId> {
    fn walk(region: &Region, defined: &mut BTreeSet<ValueId>, used: &mut BTreeSet<ValueId>) {
        defined.extend(region.params.iter().copied());
        for op in &region.ops {
            used.extend(op.operands.iter().copied());
            for r in &op.regions {
                walk(r, defined, used);
            }
            defined.extend(op.results.iter().copied());
        }
        used.extend(region.results.iter().copied());
    }
    let (mut defined, mut used) = (BTreeSet::new(), BTreeSet::new());
    for r in &op.regions {
        walk(r, &mut defined, &mut used);
    }
    used.difference(&defined).copied().collect()
}

/// Per value of a region: the indices of the ops reading it as an operand (an op reading it
/// twice is listed twice).
fn consumers_of(ops: &[Op]) -> HashMap<ValueId, Vec<usize>> {
    let mut consumers: HashMap<ValueId, Vec<usize>> = HashMap::new();
    for (i, op) in ops.iter().enumerate() {
        for &v in &op.operands {
            consumers.entry(v).or_default().push(i);
        }
    }
    consumers
}

/// Per value of a region: (number of uses, the op index and operand position of the last use;
/// `None` for uses by nested regions and by the region's results).
fn uses_of(ops: &[Op], results: &[ValueId]) -> HashMap<ValueId, (usize, Option<(usize, usize)>)> {
    let mut uses: HashMap<ValueId, (usize, Option<(usize, usize)>)> = HashMap::new();
    for (i, op) in ops.iter().enumerate() {
        for (k, &v) in op.operands.iter().enumerate() {
            let e = uses.entry(v).or_default();
            e.0 += 1;
            e.1 = Some((i, k));
        }
        for v in captured_values(op) {
            let e = uses.entry(v).or_default();
            e.0 += 1;
            e.1 = None;
        }
    }
    for &r in results {
        let e = uses.entry(r).or_default();
        e.0 += 1;
        e.1 = None;
    }
    uses
}

/// Whether every value defined or used inside `regions` is a tensor.
fn regions_are_tensor_only(f: &Function, regions: &[Region]) -> bool {
    let tensor = |v: &ValueId| matches!(f.values.get(v.index()), Some(Type::Tensor(_)));
    regions.iter().all(|r| {
        r.params.iter().all(tensor)
            && r.results.iter().all(tensor)
            && r.ops.iter().all(|op| op.operands.iter().chain(&op.results).all(tensor) && regions_are_tensor_only(f, &op.regions))
    })
}

/// A scalar of `elem` read from little-endian bytes.
fn kscalar(elem: ElementType, b: &[u8]) -> Option<KScalar> {
    Some(match elem {
        ElementType::F32 => KScalar::F32(f32::from_le_bytes(b.get(..4)?.try_into().ok()?)),
        ElementType::F64 => KScalar::F64(f64::from_le_bytes(b.get(..8)?.try_into().ok()?)),
        ElementType::S32 => KScalar::S32(i32::from_le_bytes(b.get(..4)?.try_into().ok()?)),
        ElementType::S64 => KScalar::S64(i64::from_le_bytes(b.get(..8)?.try_into().ok()?)),
        ElementType::U32 => KScalar::U32(u32::from_le_bytes(b.get(..4)?.try_into().ok()?)),
        ElementType::U64 => KScalar::U64(u64::from_le_bytes(b.get(..8)?.try_into().ok()?)),
        ElementType::Pred => KScalar::Pred(*b.first()? != 0),
        _ => return None,
    })
}

/// Merges `dims` of a strided operand into one (size, stride) axis, if they are laid out as one.
fn merge_axis(shape: &[i64], strides: &[isize], dims: &[usize]) -> Option<(usize, isize)> {
    let live: Vec<usize> = dims.iter().copied().filter(|&d| shape[d] != 1).collect();
    let size: usize = dims.iter().map(|&d| shape[d].max(0) as usize).product();
    let Some(&last) = live.last() else { return Some((size, 0)) };
    for w in live.windows(2) {
        if strides[w[0]] != strides[w[1]] * shape[w[1]] as isize {
            return None;
        }
    }
    Some((size, strides[last]))
}

/// Rows of the GEMM's left operand from which copying its right operand contiguous pays (the
/// copy is one pass over the right operand; the GEMM's own packing gathers it again per block).
const CONTIGUOUS_RHS_MIN_ROWS: usize = 64;

/// Whether a GEMM right operand with merged free dim `(size, stride)`, multiplied by `rows` rows,
/// is worth a contiguous copy.
fn gathers_rows(free: (usize, isize), rows: usize) -> bool {
    free.0 > 1 && free.1 != 1 && rows >= CONTIGUOUS_RHS_MIN_ROWS
}

impl<'a> Lowering<'a> {
    fn new(f: &'a Function, caps: &'a dyn Capabilities) -> Self {
        Lowering {
            f,
            caps,
            slots: Vec::new(),
            params: Vec::new(),
            constants: Vec::new(),
            steps: Vec::new(),
            ops: &f.body.ops,
            nodes: HashMap::new(),
            uses: uses_of(&f.body.ops, &f.body.results),
            consumers: consumers_of(&f.body.ops),
            emitted: HashMap::new(),
        }
    }

    fn push(&mut self, kind: StepKind) {
        self.steps.push(Step { id: 0, kind, free_after: Vec::new() });
    }

    fn ty(&self, v: ValueId) -> Result<&'a TensorType> {
        tensor_type(self.f, v)
    }

    fn new_slot(&mut self, v: ValueId) -> Result<SlotId> {
        let ty = self.ty(v)?.clone();
        self.slots.push(ty);
        Ok(self.slots.len() - 1)
    }

    fn node(&self, v: ValueId) -> Result<Node> {
        self.nodes.get(&v).cloned().ok_or_else(|| Error::internal(format!("value {v} is used before the plan defines it")))
    }

    /// Whether op `op` is an elementwise op the fused kernels evaluate: on the vector kernels'
    /// types at any size, or on other types (complex, ...) at one element.
    fn elementwise_ok(&self, op: &Op) -> bool {
        let elems: Option<Vec<ElementType>> =
            op.operands.iter().chain(&op.results).map(|&v| self.ty(v).ok().map(|t| t.elem)).collect();
        let Some(elems) = elems else { return false };
        if op.results.len() != 1 {
            return false;
        }
        if !elems.iter().all(|&e| self.caps.fused_elem(e)) {
            let one = |v: &ValueId| self.ty(*v).is_ok_and(|t| t.num_elements() == 1);
            let (operands, result) = elems.split_at(op.operands.len());
            return op.operands.iter().chain(&op.results).all(one) && self.caps.one_element(&op.kind, operands, result[0]);
        }
        let (arg, res) = (elems[0], *elems.last().unwrap());
        match &op.kind {
            OpKind::Unary(u) => op.operands.len() == 1 && self.caps.unary(*u, arg) && (res == arg || *u == UnaryOp::IsFinite),
            OpKind::Binary(b) => op.operands.len() == 2 && self.caps.binary(*b, arg) && res == arg && elems[1] == arg,
            OpKind::Compare { direction, compare_type } => {
                op.operands.len() == 2 && self.caps.compare(*direction, *compare_type, arg)
            }
            OpKind::Select => op.operands.len() == 3 && elems[0] == ElementType::Pred,
            OpKind::Clamp => op.operands.len() == 3,
            OpKind::Convert => op.operands.len() == 1 && self.caps.convert(arg, res),
            _ => false,
        }
    }

    /// The combiner and layout of a reduce the reduce kernel handles.
    fn reduce_ok(&self, op: &Op) -> Option<(BinaryOp, ReduceLayout)> {
        let OpKind::Reduce { dimensions } = &op.kind else { return None };
        if op.operands.len() != 2 || op.results.len() != 1 {
            return None;
        }
        let [region] = op.regions.as_slice() else { return None };
        let [body] = region.ops.as_slice() else { return None };
        let OpKind::Binary(b) = body.kind else { return None };
        if region.params.len() != 2 || body.operands != region.params || region.results != body.results {
            return None;
        }
        let input = self.ty(op.operands[0]).ok()?;
        if !self.caps.reduce(b, input.elem) || self.ty(op.results[0]).ok()?.elem != input.elem {
            return None;
        }
        let rank = input.rank();
        let dims: Vec<usize> = dimensions.iter().map(|&d| usize::try_from(d).ok()).collect::<Option<_>>()?;
        // Dimensions of size 1 can count as kept or reduced alike (they move no data), so only the
        // others decide the layout: a reduce over {0, 4} of [1, 4, 4, 128, 1] is a plain copy.
        let sizes: Vec<usize> = input.shape.iter().map(|&d| d.max(0) as usize).collect();
        let runs: Vec<(bool, usize)> = (0..rank).filter(|&d| sizes[d] != 1).map(|d| (dims.contains(&d), sizes[d])).collect();
        let product = |reduced: bool, part: &[(bool, usize)]| part.iter().filter(|r| r.0 == reduced).map(|r| r.1).product::<usize>();
        // The significant dimensions as kept / reduced / kept blocks.
        let first_reduced = runs.iter().position(|r| r.0).unwrap_or(runs.len());
        let end_reduced = runs[first_reduced..].iter().position(|r| !r.0).map_or(runs.len(), |p| first_reduced + p);
        if runs[end_reduced..].iter().any(|r| r.0) {
            return None;
        }
        let (before, reduced, after) = (&runs[..first_reduced], &runs[first_reduced..end_reduced], &runs[end_reduced..]);
        let (outer, k, inner) = (product(false, before), product(true, reduced), product(false, after));
        if after.is_empty() {
            Some((b, ReduceLayout::Rows { outer, inner: k }))
        } else if before.is_empty() {
            Some((b, ReduceLayout::Columns { outer: k, inner }))
        } else {
            Some((b, ReduceLayout::Middle { outer, reduced: k, inner }))
        }
    }

    /// The pick and `[outer, reduced, inner]` view of a reduce the arg-reduce kernel handles:
    /// values and an iota along the one reduced axis, folded by an argmax / argmin body.
    fn arg_reduce_ok(&self, op: &Op) -> Option<(Pick, [usize; 3])> {
        let OpKind::Reduce { dimensions } = &op.kind else { return None };
        let ([values, index, ..], [_, index_result], [region], &[axis]) =
            (op.operands.as_slice(), op.results.as_slice(), op.regions.as_slice(), dimensions.as_slice())
        else {
            return None;
        };
        let (vty, ity) = (self.ty(*values).ok()?, self.ty(*index).ok()?);
        let axis = usize::try_from(axis).ok()?;
        let reduced = *vty.shape.get(axis)?;
        if op.operands.len() != 4
            || !arg_reduce::value_ok(vty.elem)
            || !arg_reduce::index_ok(ity.elem)
            || self.ty(*index_result).ok()?.elem != ity.elem
            || reduced as u64 > arg_reduce::max_axis(ity.elem)
            || !matches!(self.nodes.get(index), Some(Node::Iota(d)) if *d == axis)
        {
            return None;
        }
        let pick = arg_reduce::pick_of_body(region, &|v| self.ty(v).ok().map(|t| t.elem))?;
        let size = |r: std::ops::Range<usize>| vty.shape[r].iter().map(|&d| d.max(0) as usize).product::<usize>();
        Some((pick, [size(0..axis), reduced.max(0) as usize, size(axis + 1..vty.rank())]))
    }

    /// Whether value `v`, produced by elementwise op `op`, is inlined into its only consumer.
    /// Whether the one result of elementwise op `producer` is computed inside its one consumer's
    /// kernel instead of being stored.
    fn fuses_into_consumer(&self, producer: &Op) -> bool {
        let v = producer.results[0];
        if self.fuses_into_scalar_consumers(producer) {
            return true;
        }
        let Some(&(1, Some((c, k)))) = self.uses.get(&v) else { return false };
        let consumer = &self.ops[c];
        if self.elementwise_ok(consumer) {
            let same_shape = self.ty(consumer.results[0]).map(|t| &t.shape) == self.ty(v).map(|t| &t.shape);
            return same_shape;
        }
        // Reduce kernels run their input expression on the vector kernels, which need all its
        // types, including those of the ops already fused into this one.
        self.on_vector_kernels(producer) && k == 0 && (self.reduce_ok(consumer).is_some() || self.arg_reduce_ok(consumer).is_some())
    }

    /// Whether the one-element result of elementwise op `producer`, read by several ops, is
    /// computed inside each of their kernels instead of being stored: when every reader is a
    /// one-element elementwise op of its shape and the expression is small. JAX's integer helpers
    /// read one value several times (`floor_divide`'s remainder, an index normalized as
    /// `select(i < 0, i + n, i)`); in a loop, a step costs more than recomputing a few scalar ops,
    /// and within one kernel the value is computed once (see `emitted`).
    fn fuses_into_scalar_consumers(&self, producer: &Op) -> bool {
        /// Instructions the producer's expression may have: each reading kernel repeats them.
        const MAX_REPEATED: usize = 24;
        let v = producer.results[0];
        let (Some(&(n, _)), Some(readers)) = (self.uses.get(&v), self.consumers.get(&v)) else { return false };
        let Ok(ty) = self.ty(v) else { return false };
        n > 1
            && readers.len() == n
            && ty.num_elements() == 1
            && readers.iter().all(|&c| {
                let op = &self.ops[c];
                self.elementwise_ok(op) && self.ty(op.results[0]).is_ok_and(|t| t.shape == ty.shape)
            })
            && self.fused_size(producer, MAX_REPEATED + 1) <= MAX_REPEATED
    }

    /// The number of instructions `op`'s expression has, counting the ops fused into it; counting
    /// stops at `limit` (a long fused chain is not walked once per candidate).
    fn fused_size(&self, op: &Op, limit: usize) -> usize {
        let mut n = 1;
        for x in &op.operands {
            if n >= limit {
                break;
            }
            n += match self.nodes.get(x) {
                Some(Node::Fused(i)) => self.fused_size(&self.ops[*i], limit - n),
                _ => 1,
            };
        }
        n.min(limit)
    }

    /// Whether `op`, and every op fused into it so far, reads and writes only types the vector
    /// kernels have (one-element kernels of other types fuse into elementwise consumers only).
    fn on_vector_kernels(&self, op: &Op) -> bool {
        let types_ok = op.operands.iter().chain(&op.results).all(|&x| self.ty(x).is_ok_and(|t| self.caps.fused_elem(t.elem)));
        types_ok
            && op.operands.iter().all(|&x| match self.nodes.get(&x) {
                Some(Node::Fused(i)) => self.on_vector_kernels(&self.ops[*i]),
                _ => true,
            })
    }

    fn lower_op(&mut self, index: usize, op: &'a Op) -> Result<()> {
        if self.elementwise_ok(op) {
            let r = op.results[0];
            if self.fuses_into_consumer(op) {
                self.nodes.insert(r, Node::Fused(index));
            } else if self.uses.get(&r).map_or(0, |u| u.0) > 0 {
                let shape = self.ty(r)?.shape.clone();
                let out = self.new_slot(r)?;
                let (expr, inputs) = self.expression(&shape, |l, e, ins| l.emit_op(op, &shape, e, ins))?;
                self.push(StepKind::Elementwise(FusedKernel { out, shape, inputs, expr, in_place: Vec::new() }));
                self.nodes.insert(r, Node::Slot(out));
            }
            return Ok(());
        }
        if let Some(node) = self.view_or_leaf(op)? {
            self.nodes.insert(op.results[0], node);
            return Ok(());
        }
        if let Some((combiner, layout)) = self.reduce_ok(op) {
            return self.lower_reduce(op, combiner, layout);
        }
        if let Some((pick, dims)) = self.arg_reduce_ok(op) {
            return self.lower_arg_reduce(op, pick, dims);
        }
        if self.lower_dot(op)? {
            return Ok(());
        }
        if self.lower_copy_op(op)? {
            return Ok(());
        }
        if self.lower_dynamic_slice(op)? {
            return Ok(());
        }
        if self.lower_indexed_copy(op)? {
            return Ok(());
        }
        if self.lower_conv(op)? {
            return Ok(());
        }
        if self.lower_reduce_window(op)? || self.lower_select_scatter(op)? || self.lower_pad(op)? {
            return Ok(());
        }
        if self.lower_control(op)? {
            return Ok(());
        }
        if self.lower_host_callback(op)? {
            return Ok(());
        }
        if self.lower_ffi_call(op)? {
            return Ok(());
        }
        if self.lower_sort(op)? {
            return Ok(());
        }
        if self.lower_collective(op)? {
            return Ok(());
        }
        self.lower_fallback(op)
    }

    /// Constants, iotas and view ops: returns their node, or `None` if the op is none of those.
    fn view_or_leaf(&mut self, op: &Op) -> Result<Option<Node>> {
        let [r] = op.results.as_slice() else { return Ok(None) };
        let rty = self.ty(*r)?;
        if !self.caps.fused_elem(rty.elem) {
            if let OpKind::Constant(lit) = &op.kind {
                let s = self.new_slot(*r)?;
                self.constants.push((s, lit.clone()));
                return Ok(Some(Node::Slot(s)));
            }
            return self.view_copy(op, &rty);
        }
        match &op.kind {
            OpKind::Constant(lit) => {
                if lit.splat || lit.ty.num_elements() == 1 {
                    if let Some(k) = kscalar(lit.ty.elem, &lit.bytes) {
                        return Ok(Some(Node::Const(k)));
                    }
                }
                let s = self.new_slot(*r)?;
                self.constants.push((s, lit.clone()));
                Ok(Some(Node::Slot(s)))
            }
            OpKind::Iota { dimension } => match usize::try_from(*dimension) {
                Ok(d) if d < rty.rank() => Ok(Some(Node::Iota(d))),
                _ => Ok(None),
            },
            OpKind::BroadcastInDim { .. } | OpKind::Reshape | OpKind::Transpose { .. } | OpKind::Slice { .. } | OpKind::Reverse { .. } => {
                let [x] = op.operands.as_slice() else { return Ok(None) };
                let xty = self.ty(*x)?;
                let apply = |v: &View| -> Option<View> {
                    match &op.kind {
                        OpKind::BroadcastInDim { broadcast_dimensions } => v.broadcast(&xty.shape, broadcast_dimensions, &rty.shape),
                        OpKind::Reshape => v.reshape(&xty.shape, &rty.shape),
                        OpKind::Transpose { permutation } => v.transpose(permutation),
                        OpKind::Slice { start_indices, strides, .. } => v.slice(start_indices, strides),
                        OpKind::Reverse { dimensions } => v.reverse(&xty.shape, dimensions),
                        _ => None,
                    }
                };
                let (slot, view) = match self.node(*x)? {
                    Node::Const(k) => return Ok(Some(Node::Const(k))),
                    Node::View(s, v) => match apply(&v) {
                        Some(w) => return Ok(Some(Node::View(s, w))),
                        None => (self.materialize(*x)?, View::identity(&xty.shape)),
                    },
                    _ => (self.materialize(*x)?, View::identity(&xty.shape)),
                };
                match apply(&view) {
                    Some(w) => Ok(Some(Node::View(slot, w))),
                    None => Ok(None),
                }
            }
            _ => Ok(None),
        }
    }

    /// A broadcast, transpose, slice or reverse of a type the fused kernels do not compute on: its
    /// elements copied as bytes into a buffer of its own (`view_copy`). Reshapes and one-element
    /// broadcasts share the operand's buffer instead (`lower_copy_op`).
    fn view_copy(&mut self, op: &Op, rty: &TensorType) -> Result<Option<Node>> {
        let ([x], [r]) = (op.operands.as_slice(), op.results.as_slice()) else { return Ok(None) };
        let xty = self.ty(*x)?;
        let whole = View::identity(&xty.shape);
        let view = match &op.kind {
            OpKind::BroadcastInDim { broadcast_dimensions } if rty.num_elements() != 1 => {
                whole.broadcast(&xty.shape, broadcast_dimensions, &rty.shape)
            }
            OpKind::Transpose { permutation } if rty.num_elements() != 1 => whole.transpose(permutation),
            OpKind::Slice { start_indices, strides, .. } => whole.slice(start_indices, strides),
            OpKind::Reverse { dimensions } => whole.reverse(&xty.shape, dimensions),
            _ => None,
        };
        let Some(view) = view else { return Ok(None) };
        let src = self.materialize(*x)?;
        let out = self.new_slot(*r)?;
        let elem_bytes = rty.elem.byte_size();
        self.push(StepKind::ViewCopy(ViewCopyKernel { src, out, shape: rty.shape.clone(), view, elem_bytes }));
        Ok(Some(Node::Slot(out)))
    }

    /// Builds an expression with `build`, returning it and its input slots.
    fn expression(
        &mut self,
        _shape: &[i64],
        build: impl FnOnce(&mut Self, &mut Expr, &mut Vec<SlotId>) -> Result<Reg>,
    ) -> Result<(Expr, Vec<SlotId>)> {
        let (mut expr, mut inputs) = (Expr::default(), Vec::new());
        // An expression may start another one (materializing an operand): each has its own registers.
        let outer = std::mem::take(&mut self.emitted);
        let built = build(self, &mut expr, &mut inputs);
        self.emitted = outer;
        built?;
        Ok((expr, inputs))
    }

    fn input_index(inputs: &mut Vec<SlotId>, s: SlotId) -> usize {
        inputs.iter().position(|&x| x == s).unwrap_or_else(|| {
            inputs.push(s);
            inputs.len() - 1
        })
    }

    /// Emits the instructions computing value `v` over a kernel of `shape`.
    fn emit_value(&mut self, v: ValueId, shape: &[i64], e: &mut Expr, inputs: &mut Vec<SlotId>) -> Result<Reg> {
        let ty = self.ty(v)?;
        let broadcast_scalar = ty.rank() == 0 && !shape.is_empty();
        if !broadcast_scalar && ty.shape != shape {
            return Err(Error::internal(format!("value {v} of {ty} read by a kernel of shape {shape:?}")));
        }
        let elem = ty.elem;
        match self.node(v)? {
            Node::Const(k) => Ok(e.push(Instr::Const(k), elem)),
            Node::Iota(d) if !broadcast_scalar => Ok(e.push(Instr::Iota { dim: d }, elem)),
            Node::Fused(i) if !broadcast_scalar => {
                if let Some(&r) = self.emitted.get(&v) {
                    return Ok(r);
                }
                let op = &self.ops[i];
                let r = self.emit_op(op, shape, e, inputs)?;
                self.emitted.insert(v, r);
                Ok(r)
            }
            Node::View(s, view) => {
                let view = if broadcast_scalar { View { offset: view.offset, strides: vec![0; shape.len()] } } else { view };
                let input = Self::input_index(inputs, s);
                Ok(e.push(Instr::Load { input, view }, elem))
            }
            _ => {
                let s = self.materialize(v)?;
                let view = if broadcast_scalar { View { offset: 0, strides: vec![0; shape.len()] } } else { View::identity(shape) };
                let input = Self::input_index(inputs, s);
                Ok(e.push(Instr::Load { input, view }, elem))
            }
        }
    }

    /// Emits the instruction of elementwise op `op` over its operands.
    fn emit_op(&mut self, op: &Op, shape: &[i64], e: &mut Expr, inputs: &mut Vec<SlotId>) -> Result<Reg> {
        let mut regs = Vec::with_capacity(op.operands.len());
        for &x in &op.operands {
            regs.push(self.emit_value(x, shape, e, inputs)?);
        }
        let elem = self.ty(op.results[0])?.elem;
        let instr = match &op.kind {
            OpKind::Unary(u) => Instr::Unary(*u, regs[0]),
            OpKind::Binary(b) => Instr::Binary(*b, regs[0], regs[1]),
            OpKind::Compare { direction, compare_type } => Instr::Compare(*direction, *compare_type, regs[0], regs[1]),
            OpKind::Select => Instr::Select(regs[0], regs[1], regs[2]),
            OpKind::Clamp => Instr::Clamp(regs[0], regs[1], regs[2]),
            OpKind::Convert => Instr::Convert(regs[0]),
            other => return Err(Error::internal(format!("{} is not elementwise", other.name()))),
        };
        Ok(e.push(instr, elem))
    }

    /// Makes sure value `v` is stored in a slot and returns it.
    fn materialize(&mut self, v: ValueId) -> Result<SlotId> {
        let node = self.node(v)?;
        let ty = self.ty(v)?;
        let shape = ty.shape.clone();
        let out = match node {
            Node::Slot(s) => return Ok(s),
            Node::View(src, ref view)
                if view.is_contiguous(&shape) && self.slots[src].num_elements() == ty.num_elements() =>
            {
                let dst = self.new_slot(v)?;
                self.push(StepKind::Alias { src, dst });
                dst
            }
            Node::View(..) | Node::Const(_) | Node::Iota(_) => {
                let out = self.new_slot(v)?;
                // The node is a leaf, so the expression is one instruction reading it.
                let (expr, inputs) = self.expression(&shape, |_, e, ins| {
                    let elem = ty.elem;
                    Ok(match node {
                        Node::View(s, view) => {
                            let input = Self::input_index(ins, s);
                            e.push(Instr::Load { input, view }, elem)
                        }
                        Node::Const(k) => e.push(Instr::Const(k), elem),
                        Node::Iota(d) => e.push(Instr::Iota { dim: d }, elem),
                        _ => return Err(Error::internal("not a leaf")),
                    })
                })?;
                self.push(StepKind::Elementwise(FusedKernel { out, shape, inputs, expr, in_place: Vec::new() }));
                out
            }
            Node::Fused(i) => {
                let op = &self.ops[i];
                let out = self.new_slot(v)?;
                let (expr, inputs) = self.expression(&shape, |l, e, ins| l.emit_op(op, &shape, e, ins))?;
                self.push(StepKind::Elementwise(FusedKernel { out, shape: shape.clone(), inputs, expr, in_place: Vec::new() }));
                out
            }
        };
        self.nodes.insert(v, Node::Slot(out));
        Ok(out)
    }

    fn lower_reduce(&mut self, op: &Op, combiner: BinaryOp, layout: ReduceLayout) -> Result<()> {
        let (x, init, r) = (op.operands[0], op.operands[1], op.results[0]);
        let xty = self.ty(x)?;
        let input_shape = xty.shape.clone();
        let (expr, inputs) = self.expression(&input_shape, |l, e, ins| l.emit_value(x, &input_shape, e, ins))?;
        let init = match self.node(init)? {
            Node::Const(k) => Operand::Const(k),
            _ => Operand::Slot(self.materialize(init)?),
        };
        let out = self.new_slot(r)?;
        self.push(StepKind::Reduce(ReduceKernel {
            out,
            combiner,
            elem: xty.elem,
            layout,
            input_shape: input_shape.clone(),
            inputs,
            expr,
            init,
        }));
        self.nodes.insert(r, Node::Slot(out));
        Ok(())
    }

    fn lower_arg_reduce(&mut self, op: &Op, pick: Pick, [outer, reduced, inner]: [usize; 3]) -> Result<()> {
        let (x, index) = (op.operands[0], op.operands[1]);
        let xty = self.ty(x)?;
        let input_shape = xty.shape.clone();
        let (expr, inputs) = self.expression(&input_shape, |l, e, ins| l.emit_value(x, &input_shape, e, ins))?;
        let mut init = |v: ValueId| -> Result<Operand> {
            Ok(match self.node(v)? {
                Node::Const(k) => Operand::Const(k),
                _ => Operand::Slot(self.materialize(v)?),
            })
        };
        let (init_value, init_index) = (init(op.operands[2])?, init(op.operands[3])?);
        let (value_out, index_out) = (self.new_slot(op.results[0])?, self.new_slot(op.results[1])?);
        self.push(StepKind::ArgReduce(ArgReduceKernel {
            value_out,
            index_out,
            pick,
            elem: xty.elem,
            index_elem: self.ty(index)?.elem,
            outer,
            reduced,
            inner,
            input_shape,
            inputs,
            expr,
            init_value,
            init_index,
        }));
        self.nodes.insert(op.results[0], Node::Slot(value_out));
        self.nodes.insert(op.results[1], Node::Slot(index_out));
        Ok(())
    }

    /// A stored operand as (slot, view over its own shape).
    fn strided(&mut self, v: ValueId) -> Result<(SlotId, View)> {
        match self.node(v)? {
            Node::Slot(s) => Ok((s, View::identity(&self.ty(v)?.shape))),
            Node::View(s, view) => Ok((s, view)),
            _ => Ok((self.materialize(v)?, View::identity(&self.ty(v)?.shape))),
        }
    }

    /// dot_general as a batched GEMM when the kernel handles the types; returns whether it did.
    fn lower_dot(&mut self, op: &Op) -> Result<bool> {
        let OpKind::DotGeneral { dims, .. } = &op.kind else { return Ok(false) };
        let ([a, b], [r]) = (op.operands.as_slice(), op.results.as_slice()) else { return Ok(false) };
        let (aty, bty, rty) = (self.ty(*a)?, self.ty(*b)?, self.ty(*r)?);
        if !self.caps.dot(aty.elem, bty.elem, rty.elem) {
            return Ok(false);
        }
        let to_usize = |v: &[i64]| v.iter().map(|&d| usize::try_from(d).ok()).collect::<Option<Vec<usize>>>();
        let (Some(lb), Some(lc), Some(rb), Some(rc)) =
            (to_usize(&dims.lhs_batch), to_usize(&dims.lhs_contracting), to_usize(&dims.rhs_batch), to_usize(&dims.rhs_contracting))
        else {
            return Ok(false);
        };
        let lf: Vec<usize> = (0..aty.rank()).filter(|d| !lb.contains(d) && !lc.contains(d)).collect();
        let rf: Vec<usize> = (0..bty.rank()).filter(|d| !rb.contains(d) && !rc.contains(d)).collect();
        let (mut ls, mut lv) = self.strided(*a)?;
        let (mut rs, mut rv) = self.strided(*b)?;
        let groups = |shape: &[i64], v: &View, b: &[usize], f: &[usize], c: &[usize]| {
            Some((merge_axis(shape, &v.strides, b)?, merge_axis(shape, &v.strides, f)?, merge_axis(shape, &v.strides, c)?))
        };
        // When the only reader transposes the product, the GEMM computes it swapped and `a`
        // becomes its right operand.
        let swapped = self.transposed_only(*r, lb.len(), lf.len(), rf.len())?;
        let a_is_rhs = swapped.is_some();
        let size = |shape: &[i64], dims: &[usize]| dims.iter().map(|&d| shape[d].max(0) as usize).product::<usize>();
        let (a_rows, b_rows) = (size(&aty.shape, &lf), size(&bty.shape, &rf));
        // An operand is stored in a new order when its dims do not merge into (batch, free,
        // contracting) groups, and also when it is the GEMM's right operand and strided along
        // its free dim: the `gemm` crate packs such an operand with a strided gather, which ran
        // at half speed (256x512 by 512x512ᵀ: ~110 against ~200 GFLOP/s on 2 threads), while a
        // tiled transposed copy is one pass over it, paid back by enough rows of the other
        // operand. Left operands are stored as (batch, free, contracting), right ones as
        // (batch, contracting, free).
        let mut lg = groups(&aty.shape, &lv, &lb, &lf, &lc);
        if lg.is_none_or(|g| a_is_rhs && gathers_rows(g.1, b_rows)) {
            let order: [&[usize]; 3] = if a_is_rhs { [&lb, &lc, &lf] } else { [&lb, &lf, &lc] };
            (ls, lv) = self.stored_in_order(*a, &order)?;
            lg = groups(&aty.shape, &lv, &lb, &lf, &lc);
        }
        let mut rg = groups(&bty.shape, &rv, &rb, &rf, &rc);
        if rg.is_none_or(|g| !a_is_rhs && gathers_rows(g.1, a_rows)) {
            let order: [&[usize]; 3] = if a_is_rhs { [&rb, &rf, &rc] } else { [&rb, &rc, &rf] };
            (rs, rv) = self.stored_in_order(*b, &order)?;
            rg = groups(&bty.shape, &rv, &rb, &rf, &rc);
        }
        let (Some(lg), Some(rg)) = (lg, rg) else { return Err(Error::internal("dot operand does not merge")) };
        let ((batch, lbs), (m, lms), (k, lks)) = lg;
        let ((_, rbs), (n, rns), (_, rks)) = rg;
        if let Some((tshape, perm)) = swapped {
            // The only reader transposes the product to (batch, rhs free, lhs free): compute
            // that layout directly as the product of the swapped operands, (A B)^T = B^T A^T,
            // and read the dot's own result as a view of it (the transpose then costs nothing).
            self.slots.push(TensorType::new(tshape.clone(), rty.elem));
            let out = self.slots.len() - 1;
            self.push(StepKind::Dot(DotKernel {
                out,
                elem: rty.elem,
                lhs: rs,
                rhs: ls,
                batch,
                m: n,
                n: m,
                k,
                lhs_strides: [rbs, rns, rks],
                lhs_offset: rv.offset,
                rhs_strides: [lbs, lks, lms],
                rhs_offset: lv.offset,
            }));
            let view = View::identity(&tshape).transpose(&inverse(&perm)).ok_or_else(|| Error::internal("transpose"))?;
            self.nodes.insert(*r, Node::View(out, view));
            return Ok(true);
        }
        let out = self.new_slot(*r)?;
        self.push(StepKind::Dot(DotKernel {
            out,
            elem: rty.elem,
            lhs: ls,
            rhs: rs,
            batch,
            m,
            n,
            k,
            lhs_strides: [lbs, lms, lks],
            lhs_offset: lv.offset,
            rhs_strides: [rbs, rks, rns],
            rhs_offset: rv.offset,
        }));
        self.nodes.insert(*r, Node::Slot(out));
        Ok(true)
    }

    /// When the only use of dot result `r` (dims: `nb` batch, `nl` lhs free, `nr` rhs free) is a
    /// transpose that moves the rhs free dims before the lhs free ones, returns the transposed
    /// shape and the permutation.
    fn transposed_only(&self, r: ValueId, nb: usize, nl: usize, nr: usize) -> Result<Option<(Vec<i64>, Vec<usize>)>> {
        let Some(&(1, Some((c, 0)))) = self.uses.get(&r) else { return Ok(None) };
        let consumer = &self.ops[c];
        let OpKind::Transpose { permutation } = &consumer.kind else { return Ok(None) };
        let swapped: Vec<usize> = (0..nb).chain(nb + nl..nb + nl + nr).chain(nb..nb + nl).collect();
        if nl == 0 || nr == 0 || permutation.len() != swapped.len() || permutation.iter().zip(&swapped).any(|(&p, &q)| usize::try_from(p).ok() != Some(q)) {
            return Ok(None);
        }
        let shape = &self.ty(r)?.shape;
        Ok(Some((swapped.iter().map(|&d| shape[d]).collect(), swapped)))
    }

    /// Stores value `v` with its dims in the order of `groups` (a permutation when chained);
    /// returns the copy's slot and a view of it in `v`'s own dim order.
    fn stored_in_order(&mut self, v: ValueId, groups: &[&[usize]]) -> Result<(SlotId, View)> {
        let ty = self.ty(v)?.clone();
        let s = self.materialize(v)?;
        let perm: Vec<usize> = groups.iter().flat_map(|g| g.iter().copied()).collect();
        let (s, view) = self.transposed_copy(s, &ty.shape, &perm, ty.elem)?;
        Ok((s, view.transpose(&inverse(&perm)).ok_or_else(|| Error::internal("transpose"))?))
    }

    /// Copies slot `s` (of `shape`) transposed by `perm` into a new slot; returns it with its
    /// identity view over the transposed shape.
    fn transposed_copy(&mut self, s: SlotId, shape: &[i64], perm: &[usize], elem: ElementType) -> Result<(SlotId, View)> {
        let tshape: Vec<i64> = perm.iter().map(|&p| shape[p]).collect();
        let view = View::identity(shape).transpose(&perm.iter().map(|&p| p as i64).collect::<Vec<_>>()).ok_or_else(|| Error::internal("transpose"))?;
        self.slots.push(TensorType::new(tshape.clone(), elem));
        let out = self.slots.len() - 1;
        let mut expr = Expr::default();
        expr.push(Instr::Load { input: 0, view }, elem);
        self.push(StepKind::Elementwise(FusedKernel { out, shape: tshape.clone(), inputs: vec![s], expr, in_place: Vec::new() }));
        Ok((out, View::identity(&tshape)))
    }

    /// concatenate (byte copies) and bitcast_convert between types of one size (a shared buffer).
    fn lower_copy_op(&mut self, op: &Op) -> Result<bool> {
        let [r] = op.results.as_slice() else { return Ok(false) };
        let rty = self.ty(*r)?;
        match &op.kind {
            // Ops whose result has the operand's bytes share its buffer. Types with vector kernels
            // take reshapes, broadcasts and transposes as views (`view_or_leaf`); the other types have
            // no views, and a reshape of them, or a broadcast or transpose of one element, keeps the bytes.
            OpKind::Reshape | OpKind::BroadcastInDim { .. } | OpKind::Transpose { .. } | OpKind::BitcastConvert => {
                let [x] = op.operands.as_slice() else { return Ok(false) };
                let xty = self.ty(*x)?;
                let full_width = |e: ElementType| e.bit_width() == e.byte_size() as u32 * 8;
                let same_bytes = match op.kind {
                    OpKind::BitcastConvert => {
                        xty.elem.byte_size() == rty.elem.byte_size() && xty.byte_size() == rty.byte_size() && full_width(xty.elem) && full_width(rty.elem)
                    }
                    OpKind::Reshape => xty.elem == rty.elem && xty.num_elements() == rty.num_elements(),
                    _ => xty.elem == rty.elem && xty.num_elements() == 1 && rty.num_elements() == 1,
                };
                if !same_bytes {
                    return Ok(false);
                }
                let src = self.materialize(*x)?;
                let dst = self.new_slot(*r)?;
                self.push(StepKind::Alias { src, dst });
                self.nodes.insert(*r, Node::Slot(dst));
                Ok(true)
            }
            OpKind::Concatenate { dimension } => {
                let Ok(d) = usize::try_from(*dimension) else { return Ok(false) };
                if d >= rty.rank() || op.operands.is_empty() {
                    return Ok(false);
                }
                let esize = rty.elem.byte_size();
                let outer: usize = rty.shape[..d].iter().map(|&x| x.max(0) as usize).product();
                let mut row_bytes = Vec::with_capacity(op.operands.len());
                for &x in &op.operands {
                    let xty = self.ty(x)?;
                    if xty.elem != rty.elem || xty.rank() != rty.rank() {
                        return Ok(false);
                    }
                    row_bytes.push(xty.shape[d..].iter().map(|&v| v.max(0) as usize).product::<usize>() * esize);
                }
                let out_row: usize = rty.shape[d..].iter().map(|&v| v.max(0) as usize).product::<usize>() * esize;
                if row_bytes.iter().sum::<usize>() != out_row {
                    return Ok(false);
                }
                let mut inputs = Vec::with_capacity(op.operands.len());
                for &x in &op.operands {
                    inputs.push(self.materialize(x)?);
                }
                let out = self.new_slot(*r)?;
                self.push(StepKind::Concat(ConcatKernel { out, inputs, outer, row_bytes }));
                self.nodes.insert(*r, Node::Slot(out));
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// dynamic_slice / dynamic_update_slice with integer scalar indices.
    fn lower_dynamic_slice(&mut self, op: &Op) -> Result<bool> {
        let (operand, update, first_index, sizes) = match &op.kind {
            OpKind::DynamicSlice { slice_sizes } if !op.operands.is_empty() => {
                (op.operands[0], None, 1, slice_sizes.iter().map(|&s| s.max(0) as usize).collect::<Vec<_>>())
            }
            OpKind::DynamicUpdateSlice if op.operands.len() >= 2 => {
                let u = self.ty(op.operands[1])?;
                (op.operands[0], Some(op.operands[1]), 2, u.shape.iter().map(|&s| s.max(0) as usize).collect())
            }
            _ => return Ok(false),
        };
        let [r] = op.results.as_slice() else { return Ok(false) };
        let oty = self.ty(operand)?;
        let indices = &op.operands[first_index..];
        let index_ok = |v: &ValueId| self.ty(*v).is_ok_and(|t| t.rank() == 0 && t.elem.is_int() && t.elem.byte_size() >= 1);
        let fits = sizes.len() == oty.rank() && indices.len() == oty.rank() && sizes.iter().zip(&oty.shape).all(|(&s, &d)| s as i64 <= d);
        if !fits || !indices.iter().all(index_ok) || self.ty(*r)?.elem != oty.elem || update.is_some_and(|u| self.ty(u).map(|t| t.elem) != Ok(oty.elem)) {
            return Ok(false);
        }
        let operand = self.materialize(operand)?;
        let update = match update {
            Some(u) => Some(self.materialize(u)?),
            None => None,
        };
        let mut index_slots = Vec::with_capacity(indices.len());
        for &i in indices {
            index_slots.push(self.materialize(i)?);
        }
        let out = self.new_slot(*r)?;
        self.push(StepKind::DynamicSlice(DynamicSliceKernel { out, operand, update, indices: index_slots, sizes, in_place: false }));
        self.nodes.insert(*r, Node::Slot(out));
        Ok(true)
    }

    /// gather, and one-input scatter whose update computation replaces or adds, as box copies.
    fn lower_indexed_copy(&mut self, op: &Op) -> Result<bool> {
        let [r] = op.results.as_slice() else { return Ok(false) };
        let planned = match (&op.kind, op.operands.as_slice(), op.regions.as_slice()) {
            (OpKind::Gather { dims, slice_sizes, .. }, &[operand, indices], []) => {
                indexed_copy::gather(self.ty(operand)?, self.ty(indices)?, dims, slice_sizes, self.ty(*r)?).map(|g| (g, Combine::Replace))
            }
            (OpKind::Scatter { dims, unique_indices, .. }, &[input, indices, updates], [region]) => {
                let input_ty = self.ty(input)?;
                let combine = Combine::of_region(region, input_ty.elem).filter(|_| self.ty(*r).ok() == Some(input_ty));
                let geometry = indexed_copy::scatter(input_ty, self.ty(indices)?, self.ty(updates)?, dims, *unique_indices);
                geometry.zip(combine)
            }
            _ => None,
        };
        let Some((geometry, combine)) = planned.filter(|(g, _)| g.elem_bytes > 0) else { return Ok(false) };
        let big = self.materialize(op.operands[0])?;
        let indices = self.materialize(op.operands[1])?;
        let updates = match op.operands.get(2) {
            Some(&u) => Some(self.materialize(u)?),
            None => None,
        };
        let out = self.new_slot(*r)?;
        self.push(StepKind::IndexedCopy(IndexedCopyKernel { out, big, indices, updates, geometry, combine, in_place: false }));
        self.nodes.insert(*r, Node::Slot(out));
        Ok(true)
    }

    /// convolution as im2col + GEMM when the geometry is one the kernel handles.
    fn lower_conv(&mut self, op: &Op) -> Result<bool> {
        let OpKind::Convolution {
            window_strides, padding, lhs_dilation, rhs_dilation, window_reversal, dims, feature_group_count, batch_group_count, ..
        } = &op.kind
        else {
            return Ok(false);
        };
        let ([a, b], [r]) = (op.operands.as_slice(), op.results.as_slice()) else { return Ok(false) };
        let (aty, bty, rty) = (self.ty(*a)?, self.ty(*b)?, self.ty(*r)?);
        let ns = dims.input_spatial.len();
        let rank = aty.rank();
        let all_dims = [dims.input_batch, dims.input_feature, dims.kernel_input_feature, dims.kernel_output_feature, dims.output_batch, dims.output_feature]
            .into_iter()
            .chain(dims.input_spatial.iter().copied())
            .chain(dims.kernel_spatial.iter().copied())
            .chain(dims.output_spatial.iter().copied());
        let simple = self.caps.dot(aty.elem, bty.elem, rty.elem)
            && *feature_group_count >= 1
            && *batch_group_count >= 1
            && (*feature_group_count == 1 || *batch_group_count == 1)
            && (lhs_dilation.is_empty() || lhs_dilation.len() == ns)
            && window_reversal.iter().all(|&w| !w)
            && bty.rank() == rank
            && rty.rank() == rank
            && dims.kernel_spatial.len() == ns
            && dims.output_spatial.len() == ns
            && (window_strides.is_empty() || window_strides.len() == ns)
            && (padding.is_empty() || padding.len() == ns)
            && (rhs_dilation.is_empty() || rhs_dilation.len() == ns)
            && window_strides.iter().chain(rhs_dilation).chain(lhs_dilation).all(|&s| s >= 1);
        if !simple {
            return Ok(false);
        }
        let mut ok_dims = true;
        for d in all_dims {
            ok_dims &= d >= 0 && (d as usize) < rank;
        }
        if !ok_dims {
            return Ok(false);
        }
        let window = super::depthwise::Window { strides: window_strides, padding, lhs_dilation, rhs_dilation };
        let (fg, bg) = (*feature_group_count, *batch_group_count);
        if let Some(mut kernel) = super::depthwise::depthwise_kernel((0, 0, 0), (aty, bty, rty), dims, &window, fg, bg, rty.elem) {
            kernel.lhs = self.materialize(*a)?;
            kernel.rhs = self.materialize(*b)?;
            kernel.out = self.new_slot(*r)?;
            self.nodes.insert(*r, Node::Slot(kernel.out));
            self.push(StepKind::DepthwiseConv(kernel));
            return Ok(true);
        }
        let u = |d: i64| d as usize;
        let (ast, bst, rst) = (super::view::row_major(&aty.shape), super::view::row_major(&bty.shape), super::view::row_major(&rty.shape));
        // The output's spatial positions must form one row-major index (true for NHWC and NCHW).
        let out_spatial: Vec<usize> = dims.output_spatial.iter().map(|&d| rty.shape[u(d)].max(0) as usize).collect();
        let out_spatial_strides: Vec<isize> = dims.output_spatial.iter().map(|&d| rst[u(d)]).collect();
        for i in 0..ns.saturating_sub(1) {
            if out_spatial[i + 1] != 1 && out_spatial_strides[i] != out_spatial_strides[i + 1] * out_spatial[i + 1] as isize {
                return Ok(false);
            }
        }
        let out_spatial_stride = out_spatial_strides.last().copied().unwrap_or(0);
        // Feature groups: group g reads input features [g * kif, (g + 1) * kif) and writes its
        // share of the output features. Batch groups (a grouped convolution's filter gradient):
        // group g reads batch items [g * b, (g + 1) * b) and writes its share of the output features.
        let groups = fg.max(bg);
        let kif = bty.shape[u(dims.kernel_input_feature)];
        let batch = aty.shape[u(dims.input_batch)];
        if aty.shape[u(dims.input_feature)] != kif * fg || rty.shape[u(dims.output_feature)] % groups != 0 || batch % bg != 0 {
            return Ok(false);
        }
        let group_batch = batch / bg;
        let group_lhs_stride = if bg > 1 { group_batch as isize * ast[u(dims.input_batch)] } else { kif as isize * ast[u(dims.input_feature)] };
        let lhs = self.materialize(*a)?;
        let rhs = self.materialize(*b)?;
        let out = self.new_slot(*r)?;
        let mut kernel = ConvKernel {
            out,
            lhs,
            rhs,
            elem: rty.elem,
            batch: group_batch.max(0) as usize,
            in_features: kif.max(0) as usize,
            groups: groups as usize,
            group_lhs_stride,
            out_features: rty.shape[u(dims.output_feature)].max(0) as usize,
            in_spatial: dims.input_spatial.iter().map(|&d| aty.shape[u(d)].max(0) as usize).collect(),
            kernel_spatial: dims.kernel_spatial.iter().map(|&d| bty.shape[u(d)].max(0) as usize).collect(),
            out_spatial,
            window_strides: if window_strides.is_empty() { vec![1; ns] } else { window_strides.iter().map(|&s| s as usize).collect() },
            pad_low: if padding.is_empty() { vec![0; ns] } else { padding.iter().map(|p| p.0 as isize).collect() },
            rhs_dilation: if rhs_dilation.is_empty() { vec![1; ns] } else { rhs_dilation.iter().map(|&s| s as usize).collect() },
            lhs_dilation: if lhs_dilation.is_empty() { vec![1; ns] } else { lhs_dilation.iter().map(|&s| s as usize).collect() },
            lhs_batch_stride: ast[u(dims.input_batch)],
            lhs_feature_stride: ast[u(dims.input_feature)],
            lhs_spatial_strides: dims.input_spatial.iter().map(|&d| ast[u(d)]).collect(),
            rhs_in_stride: bst[u(dims.kernel_input_feature)],
            rhs_out_stride: bst[u(dims.kernel_output_feature)],
            rhs_spatial_strides: dims.kernel_spatial.iter().map(|&d| bst[u(d)]).collect(),
            out_batch_stride: rst[u(dims.output_batch)],
            out_feature_stride: rst[u(dims.output_feature)],
            out_spatial_stride,
        };
        if ns == 1 {
            // 1-D convolutions take the 2-D im2col's window-row copies (audio models' dilated
            // convolutions spent their time in the general path's per-element index arithmetic).
            kernel.add_unit_first_dimension();
        }
        self.push(StepKind::Conv(kernel));
        self.nodes.insert(*r, Node::Slot(out));
        Ok(true)
    }

    /// `while` and `case` as nested blocks, when their regions carry only tensors.
    fn lower_control(&mut self, op: &'a Op) -> Result<bool> {
        let is_while = matches!(op.kind, OpKind::While) && op.regions.len() == 2 && op.operands.len() == op.results.len();
        let is_case = matches!(op.kind, OpKind::Case) && !op.regions.is_empty() && op.operands.len() == 1;
        if !(is_while || is_case) || !regions_are_tensor_only(self.f, &op.regions) {
            return Ok(false);
        }
        let mut inputs = Vec::with_capacity(op.operands.len());
        for &x in &op.operands {
            inputs.push(self.materialize(x)?);
        }
        let mut captured = Vec::new();
        for v in captured_values(op) {
            captured.push(self.materialize(v)?);
        }
        let mut blocks = Vec::with_capacity(op.regions.len());
        for r in &op.regions {
            blocks.push(self.lower_block(r)?);
        }
        let mut outputs = Vec::with_capacity(op.results.len());
        for &r in &op.results {
            let s = self.new_slot(r)?;
            self.nodes.insert(r, Node::Slot(s));
            outputs.push(s);
        }
        let kind = if is_while {
            let body = blocks.pop().ok_or_else(|| Error::internal("while without body"))?;
            let cond = blocks.pop().ok_or_else(|| Error::internal("while without cond"))?;
            if cond.results.len() != 1 || body.results.len() != outputs.len() || body.params.len() != inputs.len() || cond.params.len() != inputs.len() {
                return Err(Error::invalid("while: regions do not match the loop state"));
            }
            StepKind::While { inputs, captured, cond, body, outputs }
        } else {
            if blocks.iter().any(|b| b.results.len() != outputs.len()) {
                return Err(Error::invalid("case: a branch returns the wrong number of values"));
            }
            StepKind::Case { index: inputs[0], captured, branches: blocks, outputs }
        };
        self.push(kind);
        Ok(true)
    }

    /// Lowers a region into a block with fresh slots for its params.
    fn lower_block(&mut self, region: &'a Region) -> Result<Block> {
        let saved_steps = std::mem::take(&mut self.steps);
        let saved_uses = std::mem::replace(&mut self.uses, uses_of(&region.ops, &region.results));
        let saved_consumers = std::mem::replace(&mut self.consumers, consumers_of(&region.ops));
        let saved_ops = std::mem::replace(&mut self.ops, &region.ops);
        let result = (|| -> Result<Block> {
            let mut params = Vec::with_capacity(region.params.len());
            for &p in &region.params {
                let s = self.new_slot(p)?;
                self.nodes.insert(p, Node::Slot(s));
                params.push(s);
            }
            for (i, op) in region.ops.iter().enumerate() {
                self.lower_op(i, op).map_err(|e| e.context(format!("planning {} at {}", op.kind.name(), op.location)))?;
            }
            let mut results = Vec::with_capacity(region.results.len());
            for &r in &region.results {
                results.push(self.materialize(r)?);
            }
            let steps = super::rows::group_rows(std::mem::take(&mut self.steps), &self.slots, &|e| self.caps.fused_elem(e));
            let written: BTreeSet<SlotId> = steps.iter().flat_map(|s| s.kind.writes()).collect();
            let mut clear_after: Vec<SlotId> = params.clone();
            clear_after.extend(results.iter().copied().filter(|r| written.contains(r) && !params.contains(r)));
            clear_after.sort_unstable();
            clear_after.dedup();
            Ok(Block { params, steps, results, clear_after })
        })();
        self.steps = saved_steps;
        self.uses = saved_uses;
        self.consumers = saved_consumers;
        self.ops = saved_ops;
        result
    }

    /// Collectives, instance ids and manual computations (decision 65): steps of their own, so a
    /// manual body runs without the interpreter.
    fn lower_collective(&mut self, op: &'a Op) -> Result<bool> {
        let kind = match &op.kind {
            OpKind::ReplicaId | OpKind::PartitionId => {
                let r = op.results[0];
                let out = self.new_slot(r)?;
                self.nodes.insert(r, Node::Slot(out));
                self.push(StepKind::InstanceId { replica: matches!(op.kind, OpKind::ReplicaId), out });
                return Ok(true);
            }
            OpKind::ManualComputation(mc) => {
                if !regions_are_tensor_only(self.f, &op.regions) {
                    return Ok(false);
                }
                let mut inputs = Vec::with_capacity(op.operands.len());
                for &x in &op.operands {
                    inputs.push(self.materialize(x)?);
                }
                let mut captured = Vec::new();
                for v in captured_values(op) {
                    captured.push(self.materialize(v)?);
                }
                let region = op.regions.first().ok_or_else(|| Error::internal("manual computation without a body"))?;
                let body = self.lower_block(region)?;
                let mut outputs = Vec::with_capacity(op.results.len());
                for &r in &op.results {
                    let s = self.new_slot(r)?;
                    self.nodes.insert(r, Node::Slot(s));
                    outputs.push(s);
                }
                self.push(StepKind::Manual { computation: mc.clone(), inputs, captured, body, outputs });
                return Ok(true);
            }
            OpKind::AllReduce { .. } | OpKind::ReduceScatter { .. } => {
                let combiner = crate::valid::combiner(op)?;
                (op.kind.clone(), Some(combiner))
            }
            OpKind::AllGather { .. } | OpKind::AllToAll { .. } | OpKind::CollectivePermute { .. } | OpKind::CollectiveBroadcast { .. } => {
                (op.kind.clone(), None)
            }
            _ => return Ok(false),
        };
        let (inputs, outputs) = self.operand_and_result_slots(op)?;
        self.push(StepKind::Collective(CollectiveKernel { kind: kind.0, combiner: kind.1, inputs, outputs }));
        Ok(true)
    }

    /// The slots of a step that reads all of `op`'s operands as they are (materialized) and writes
    /// each of its results into a slot of its own.
    fn operand_and_result_slots(&mut self, op: &Op) -> Result<(Vec<SlotId>, Vec<SlotId>)> {
        let mut inputs = Vec::with_capacity(op.operands.len());
        for &x in &op.operands {
            inputs.push(self.materialize(x)?);
        }
        let mut outputs = Vec::with_capacity(op.results.len());
        for &r in &op.results {
            let s = self.new_slot(r)?;
            self.nodes.insert(r, Node::Slot(s));
            outputs.push(s);
        }
        Ok((inputs, outputs))
    }

    /// A sort by one operand with one comparison (see [`super::sort`]): a sort step.
    fn lower_sort(&mut self, op: &Op) -> Result<bool> {
        let (OpKind::Sort { dimension, .. }, [comparator]) = (&op.kind, op.regions.as_slice()) else { return Ok(false) };
        let mut types = Vec::with_capacity(op.operands.len());
        for &x in &op.operands {
            types.push(self.ty(x)?.clone());
        }
        let Some(shape) = types.first().map(|t| t.shape.clone()) else { return Ok(false) };
        let dim = match usize::try_from(*dimension) {
            Ok(d) if d < shape.len() && types.iter().all(|t| t.shape == shape) => d,
            _ => return Ok(false),
        };
        let elems: Vec<ElementType> = types.iter().map(|t| t.elem).collect();
        let f = self.f;
        let Some(order) = super::sort::simple_comparator(comparator, &elems, &|v| f.values.get(v.index()).cloned()) else {
            return Ok(false);
        };
        let (inputs, outputs) = self.operand_and_result_slots(op)?;
        self.push(StepKind::Sort(super::sort::SortKernel {
            inputs,
            outputs,
            shape,
            dimension: dim,
            key: order.key,
            key_elem: elems[order.key],
            descending: order.descending,
            canonical: order.canonical,
            elem_bytes: elems.iter().map(|e| e.byte_size()).collect(),
        }));
        Ok(true)
    }

    /// `custom_call @apu_host_callback`: its operands are materialized and its results get slots.
    fn lower_host_callback(&mut self, op: &Op) -> Result<bool> {
        let Some(callback) = super::host_callback::host_callback_number(op) else {
            return Ok(false);
        };
        let callback = callback?;
        let (inputs, outputs) = self.operand_and_result_slots(op)?;
        self.push(StepKind::HostCallback(super::HostCallbackKernel { callback, inputs, outputs }));
        Ok(true)
    }

    /// A typed-FFI custom call: its operands are materialized and its results get slots.
    fn lower_ffi_call(&mut self, op: &Op) -> Result<bool> {
        let Some(call) = super::typed_ffi_call(op).filter(|c| self.caps.foreign_call(c.target)) else {
            return Ok(false);
        };
        let (inputs, outputs) = self.operand_and_result_slots(op)?;
        self.push(StepKind::FfiCall(super::FfiCallKernel {
            target: call.target.to_string(),
            attributes: call.attributes.to_vec(),
            inputs,
            outputs,
            aliases: call.aliases.to_vec(),
            operand_layouts: call.operand_layouts.to_vec(),
            result_layouts: call.result_layouts.to_vec(),
        }));
        Ok(true)
    }

    fn lower_fallback(&mut self, op: &Op) -> Result<()> {
        let mut inputs = Vec::with_capacity(op.operands.len());
        for &x in &op.operands {
            inputs.push(self.materialize(x)?);
        }
        let mut captured = Vec::new();
        for v in captured_values(op) {
            captured.push((v, self.materialize(v)?));
        }
        let mut outputs = Vec::with_capacity(op.results.len());
        for &r in &op.results {
            let s = self.new_slot(r)?;
            self.nodes.insert(r, Node::Slot(s));
            outputs.push(s);
        }
        self.push(StepKind::Fallback { op: op.clone(), inputs, captured, outputs });
        Ok(())
    }

    /// Computes last uses, the slots freed after each step, in-place candidates and step ids.
    fn finish(mut self, results: Vec<SlotId>) -> Plan {
        let mut next_id = 0;
        let mut steps = super::rows::group_rows(std::mem::take(&mut self.steps), &self.slots, &|e| self.caps.fused_elem(e));
        let owned: Vec<SlotId> = self.params.clone();
        assign_liveness(&mut steps, &self.slots, &results, &owned, &mut next_id);
        Plan {
            slots: self.slots,
            params: self.params,
            constants: self.constants,
            steps,
            results,
            module: Module::default(), // `lower` moves the module in
            num_steps: next_id,
        }
    }
}

/// Liveness of one list of steps (the plan's, or a block's): slots written here (and `extra_owned`)
/// are freed after their last use unless kept; nested blocks are handled recursively, keeping
/// their results.
fn assign_liveness(steps: &mut [Step], slots: &[TensorType], keep: &[SlotId], extra_owned: &[SlotId], next_id: &mut usize) {
    const KEEP: usize = usize::MAX;
    let mut owned = vec![false; slots.len()];
    for &s in extra_owned {
        owned[s] = true;
    }
    for step in steps.iter() {
        for w in step.kind.writes() {
            owned[w] = true;
        }
    }
    let mut last_use = vec![None::<usize>; slots.len()];
    for (i, s) in steps.iter().enumerate() {
        for r in s.kind.reads().into_iter().chain(s.kind.writes()) {
            last_use[r] = Some(i);
        }
    }
    for &r in keep {
        last_use[r] = Some(KEEP);
    }
    for (slot, lu) in last_use.iter().enumerate() {
        if let Some(i) = *lu {
            if i != KEEP && owned[slot] {
                steps[i].free_after.push(slot);
            }
        }
    }
    for (i, step) in steps.iter_mut().enumerate() {
        step.id = *next_id;
        *next_id += 1;
        match &mut step.kind {
            StepKind::Elementwise(k) => k.in_place = in_place_inputs(k, slots, |s| owned[s] && last_use[s] == Some(i)),
            StepKind::Rows(g) => {
                // Inside the group, an input may be overwritten by the last inner step reading it,
                // if the group's last use of it is the group's and every inner step reads it
                // within its own row (blocks of rows are then independent).
                let inner_last: Vec<(SlotId, usize)> = {
                    let mut v: Vec<(SlotId, usize)> = Vec::new();
                    for (q, s) in g.steps.iter().enumerate() {
                        for r in s.kind.reads() {
                            match v.iter_mut().find(|e| e.0 == r) {
                                Some(e) => e.1 = q,
                                None => v.push((r, q)),
                            }
                        }
                    }
                    v
                };
                let row_local: Vec<(SlotId, bool)> =
                    inner_last.iter().map(|&(s, _)| (s, super::rows::group_reads_in_row(g, s, slots))).collect();
                // Written here, read only here and within rows, and dead after the group.
                let written: Vec<SlotId> = g.steps.iter().flat_map(|s| s.kind.writes()).collect();
                g.scratch = row_local
                    .iter()
                    .filter(|&&(s, ok)| ok && written.contains(&s) && owned[s] && last_use[s] == Some(i))
                    .map(|&(s, _)| s)
                    .collect();
                for (q, inner) in g.steps.iter_mut().enumerate() {
                    inner.id = *next_id;
                    *next_id += 1;
                    if let StepKind::Elementwise(k) = &mut inner.kind {
                        k.in_place = in_place_inputs(k, slots, |s| {
                            owned[s]
                                && last_use[s] == Some(i)
                                && inner_last.iter().any(|&(r, lq)| r == s && lq == q)
                                && row_local.iter().any(|&(r, ok)| r == s && ok)
                        });
                    }
                }
            }
            // An update step (dynamic_update_slice, scatter) may write into its target's buffer when
            // the step owns it, it is the target's last use, and the step reads it nowhere else.
            StepKind::IndexedCopy(k) => {
                k.in_place = k.updates.is_some_and(|u| owned[k.big] && last_use[k.big] == Some(i) && u != k.big && k.indices != k.big);
            }
            StepKind::DynamicSlice(d) => {
                d.in_place = d.update.is_some_and(|u| {
                    owned[d.operand] && last_use[d.operand] == Some(i) && u != d.operand && !d.indices.contains(&d.operand)
                });
            }
            StepKind::While { cond, body, .. } => {
                for b in [cond, body] {
                    // Block params are bound to buffers moved in for each run: the block owns them.
                    let (keep, params) = (b.results.clone(), b.params.clone());
                    assign_liveness(&mut b.steps, slots, &keep, &params, next_id);
                }
            }
            StepKind::Case { branches, .. } => {
                for b in branches {
                    let keep = b.results.clone();
                    assign_liveness(&mut b.steps, slots, &keep, &[], next_id);
                }
            }
            // Each instance binds the params to its own slices: the body owns them.
            StepKind::Manual { body, .. } => {
                let (keep, params) = (body.results.clone(), body.params.clone());
                assign_liveness(&mut body.steps, slots, &keep, &params, next_id);
            }
            _ => {}
        }
    }
}

/// Inputs of `k` whose buffer it may write its result into: `last_use_here(slot)` (the kernel is
/// the slot's last use and the plan owns it), the same byte size, read at the output's index.
fn in_place_inputs(k: &FusedKernel, slots: &[TensorType], last_use_here: impl Fn(SlotId) -> bool) -> Vec<usize> {
    let out_bytes = slots[k.out].byte_size();
    (0..k.inputs.len())
        .filter(|&j| {
            let s = k.inputs[j];
            last_use_here(s)
                && slots[s].byte_size() == out_bytes
                && k.expr.instrs.iter().all(|ins| match ins {
                    Instr::Load { input, view } if *input == j => view.offset == 0 && view.strides == super::view::row_major(&k.shape),
                    _ => true,
                })
        })
        .collect()
}

fn inverse(perm: &[usize]) -> Vec<i64> {
    let mut inv = vec![0i64; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i as i64;
    }
    inv
}
