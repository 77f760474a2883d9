//! A small builder of single-function IR modules, used to express one TensorFlow op as IR.

use apu_compiler::ir::{
    BinaryOp, ComparisonDirection, ConvDims, ElementType, Function, Literal, Module, Op, OpKind, Region, TensorType, Type,
    UnaryOp, ValueId,
};
use apu_compiler::{Error, Result};

pub struct Builder {
    f: Function,
}

/// One element of `elem` holding `v`, in apu's storage format.
pub fn encode_scalar(elem: ElementType, v: f64) -> Result<Vec<u8>> {
    Ok(match elem {
        ElementType::F32 => (v as f32).to_le_bytes().to_vec(),
        ElementType::F64 => v.to_le_bytes().to_vec(),
        ElementType::S32 => (v as i32).to_le_bytes().to_vec(),
        ElementType::S64 => (v as i64).to_le_bytes().to_vec(),
        ElementType::Pred => vec![(v != 0.0) as u8],
        other => return Err(Error::unimplemented(format!("constant of element type {other}"))),
    })
}

/// NumPy-style broadcast of two shapes (trailing dimensions aligned, 1 stretches).
pub fn broadcast_shapes(a: &[i64], b: &[i64]) -> Result<Vec<i64>> {
    let r = a.len().max(b.len());
    let mut out = vec![0; r];
    for i in 0..r {
        let da = if i + a.len() >= r { a[i + a.len() - r] } else { 1 };
        let db = if i + b.len() >= r { b[i + b.len() - r] } else { 1 };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return Err(Error::invalid(format!("shapes {a:?} and {b:?} are not broadcastable"))),
        };
    }
    Ok(out)
}

impl Builder {
    pub fn new() -> Self {
        let mut f = Function::new("main");
        f.public = true;
        Builder { f }
    }

    pub fn param(&mut self, ty: TensorType) -> ValueId {
        let v = self.f.new_value(Type::Tensor(ty));
        self.f.body.params.push(v);
        self.f.arg_attrs.push(Default::default());
        v
    }

    pub fn ty(&self, v: ValueId) -> TensorType {
        self.f.value_type(v).as_tensor().cloned().expect("the builder only makes tensor values")
    }

    pub fn push(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: TensorType) -> ValueId {
        let r = self.f.new_value(Type::Tensor(ty));
        self.f.body.ops.push(Op::new(kind, operands, vec![r]));
        r
    }

    /// A constant of type `ty` whose every element is `value`.
    pub fn splat(&mut self, ty: &TensorType, value: f64) -> Result<ValueId> {
        let lit = Literal::splat(ty.clone(), encode_scalar(ty.elem, value)?)?;
        Ok(self.push(OpKind::Constant(lit), vec![], ty.clone()))
    }

    pub fn unary(&mut self, op: UnaryOp, x: ValueId) -> ValueId {
        let ty = self.ty(x);
        self.push(OpKind::Unary(op), vec![x], ty)
    }

    /// A binary op on operands of the same shape.
    pub fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.ty(a);
        self.push(OpKind::Binary(op), vec![a, b], ty)
    }

    /// A binary op with NumPy broadcasting of both operands to the common shape.
    pub fn broadcasting_binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> Result<ValueId> {
        let (ta, tb) = (self.ty(a), self.ty(b));
        if ta.elem != tb.elem {
            return Err(Error::invalid(format!("operands of {op:?} have element types {} and {}", ta.elem, tb.elem)));
        }
        let shape = broadcast_shapes(&ta.shape, &tb.shape)?;
        let a = self.broadcast_to(a, &shape);
        let b = self.broadcast_to(b, &shape);
        Ok(self.binary(op, a, b))
    }

    pub fn compare(&mut self, direction: ComparisonDirection, a: ValueId, b: ValueId) -> ValueId {
        let shape = self.ty(a).shape;
        self.push(OpKind::Compare { direction, compare_type: None }, vec![a, b], TensorType::new(shape, ElementType::Pred))
    }

    pub fn select(&mut self, pred: ValueId, on_true: ValueId, on_false: ValueId) -> ValueId {
        let ty = self.ty(on_true);
        self.push(OpKind::Select, vec![pred, on_true, on_false], ty)
    }

    /// Broadcasts `x` to `shape`, aligning trailing dimensions (size-1 dimensions stretch).
    pub fn broadcast_to(&mut self, x: ValueId, shape: &[i64]) -> ValueId {
        let ty = self.ty(x);
        if ty.shape == shape {
            return x;
        }
        let offset = shape.len() - ty.rank();
        let dims = (0..ty.rank()).map(|i| (i + offset) as i64).collect();
        self.broadcast_in_dim(x, dims, shape)
    }

    pub fn broadcast_in_dim(&mut self, x: ValueId, broadcast_dimensions: Vec<i64>, shape: &[i64]) -> ValueId {
        let elem = self.ty(x).elem;
        self.push(OpKind::BroadcastInDim { broadcast_dimensions }, vec![x], TensorType::new(shape.to_vec(), elem))
    }

    pub fn reshape(&mut self, x: ValueId, shape: Vec<i64>) -> ValueId {
        let elem = self.ty(x).elem;
        self.push(OpKind::Reshape, vec![x], TensorType::new(shape, elem))
    }

    /// Reduces `x` over `dims` with `combiner`, starting from `init`; the result drops those dimensions.
    pub fn reduce(&mut self, x: ValueId, dims: &[i64], combiner: BinaryOp, init: f64) -> Result<ValueId> {
        let ty = self.ty(x);
        let scalar = TensorType::scalar(ty.elem);
        let init = self.splat(&scalar, init)?;
        let a = self.f.new_value(Type::Tensor(scalar.clone()));
        let b = self.f.new_value(Type::Tensor(scalar.clone()));
        let c = self.f.new_value(Type::Tensor(scalar));
        let region = Region { params: vec![a, b], ops: vec![Op::new(OpKind::Binary(combiner), vec![a, b], vec![c])], results: vec![c] };
        let shape = (0..ty.rank() as i64).filter(|d| !dims.contains(d)).map(|d| ty.shape[d as usize]).collect();
        let r = self.f.new_value(Type::Tensor(TensorType::new(shape, ty.elem)));
        let mut op = Op::new(OpKind::Reduce { dimensions: dims.to_vec() }, vec![x, init], vec![r]);
        op.regions.push(region);
        self.f.body.ops.push(op);
        Ok(r)
    }

    /// Broadcasts a reduction result back over the dimensions `dims` it removed from `shape`.
    pub fn unreduce(&mut self, x: ValueId, dims: &[i64], shape: &[i64]) -> ValueId {
        let kept = (0..shape.len() as i64).filter(|d| !dims.contains(d)).collect();
        self.broadcast_in_dim(x, kept, shape)
    }

    /// A region of two scalars of `elem` that applies `kind` (a binary op or a comparison), whose
    /// result is of `result_elem`.
    pub fn scalar_region(&mut self, elem: ElementType, kind: OpKind, result_elem: ElementType) -> Region {
        let scalar = TensorType::scalar(elem);
        let a = self.f.new_value(Type::Tensor(scalar.clone()));
        let b = self.f.new_value(Type::Tensor(scalar));
        let c = self.f.new_value(Type::Tensor(TensorType::scalar(result_elem)));
        Region { params: vec![a, b], ops: vec![Op::new(kind, vec![a, b], vec![c])], results: vec![c] }
    }

    /// An op with regions (one result of type `ty`).
    pub fn push_with_regions(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: TensorType, regions: Vec<Region>) -> ValueId {
        let r = self.f.new_value(Type::Tensor(ty));
        let mut op = Op::new(kind, operands, vec![r]);
        op.regions = regions;
        self.f.body.ops.push(op);
        r
    }

    /// A constant holding `bytes` (apu's storage format) of type `ty`.
    pub fn dense(&mut self, ty: &TensorType, bytes: Vec<u8>) -> Result<ValueId> {
        let lit = Literal::dense(ty.clone(), bytes)?;
        Ok(self.push(OpKind::Constant(lit), vec![], ty.clone()))
    }

    /// Elements `start..limit` by `strides` of every dimension of `x`.
    pub fn slice(&mut self, x: ValueId, start: Vec<i64>, limit: Vec<i64>, strides: Vec<i64>) -> ValueId {
        let ty = self.ty(x);
        let shape = (0..ty.rank()).map(|d| ((limit[d] - start[d]).max(0) + strides[d] - 1) / strides[d]).collect();
        self.push(OpKind::Slice { start_indices: start, limit_indices: limit, strides }, vec![x], TensorType::new(shape, ty.elem))
    }

    pub fn concatenate(&mut self, parts: Vec<ValueId>, dimension: usize) -> ValueId {
        let mut ty = self.ty(parts[0]);
        ty.shape[dimension] = parts.iter().map(|&p| self.ty(p).shape[dimension]).sum();
        self.push(OpKind::Concatenate { dimension: dimension as i64 }, parts, ty)
    }

    /// A 2-D convolution (one feature group) of `lhs` by `rhs` laid out as `dims` says, with a window
    /// stride, (low, high) padding and lhs / rhs dilation per spatial dimension.
    #[allow(clippy::too_many_arguments)]
    pub fn convolution(&mut self, lhs: ValueId, rhs: ValueId, dims: ConvDims, window_strides: Vec<i64>, padding: Vec<(i64, i64)>, lhs_dilation: Vec<i64>, rhs_dilation: Vec<i64>, ty: TensorType) -> ValueId {
        let kind = OpKind::Convolution {
            window_strides,
            padding,
            lhs_dilation,
            rhs_dilation,
            window_reversal: vec![false, false],
            dims,
            feature_group_count: 1,
            batch_group_count: 1,
            precision: vec![],
        };
        self.push(kind, vec![lhs, rhs], ty)
    }

    pub fn finish(mut self, results: Vec<ValueId>) -> Module {
        self.f.result_types = results.iter().map(|&r| self.f.value_type(r).clone()).collect();
        self.f.body.results = results;
        Module { name: "apu_tf_op".into(), functions: vec![self.f], entry: 0, num_replicas: 1, num_partitions: 1 }
    }
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}
