//! Emits IR ops into a block being built (a function body or a region) on behalf of one source op.

use crate::ir::*;
use crate::{Error, Result};

/// Appends ops to `out`, with their values allocated in `func` (which owns the value table of the
/// block `out` belongs to); every op gets `location`, the location of the source op.
pub struct Builder<'f> {
    pub func: &'f mut Function,
    pub out: &'f mut Vec<Op>,
    pub location: Location,
}

impl<'f> Builder<'f> {
    pub fn new(func: &'f mut Function, out: &'f mut Vec<Op>, location: Location) -> Self {
        Builder {
            func,
            out,
            location,
        }
    }
    /// A fresh value of type `ty` (a block parameter, or a result pushed by hand).
    pub fn value(&mut self, ty: Type) -> ValueId {
        self.func.new_value(ty)
    }
    /// Appends a one-result op and returns its result.
    pub fn op(&mut self, kind: OpKind, operands: Vec<ValueId>, ty: Type) -> ValueId {
        let r = self.func.new_value(ty);
        self.push(kind, operands, vec![r], Vec::new());
        r
    }
    /// Appends an op with the given results and regions.
    pub fn push(
        &mut self,
        kind: OpKind,
        operands: Vec<ValueId>,
        results: Vec<ValueId>,
        regions: Vec<Region>,
    ) {
        self.out.push(Op {
            kind,
            operands,
            results,
            regions,
            location: self.location.clone(),
        });
    }
    pub fn ty(&self, v: ValueId) -> Type {
        self.func.value_type(v).clone()
    }
    /// A constant of float type `ty` whose every element is `v` (rounded to the type).
    pub fn splat(&mut self, v: f64, ty: &TensorType) -> Result<ValueId> {
        let mut bytes = Vec::new();
        crate::text::literal_text::encode_float(v, ty.elem, &mut bytes).map_err(Error::invalid)?;
        let lit = Literal::splat(ty.clone(), bytes)?;
        Ok(self.op(OpKind::Constant(lit), vec![], Type::Tensor(ty.clone())))
    }
    /// A constant of an f32 tensor type `ty` whose every element is `v`.
    pub fn splat_f32(&mut self, v: f32, ty: &TensorType) -> Result<ValueId> {
        let lit = Literal::splat(ty.clone(), v.to_le_bytes().to_vec())?;
        Ok(self.op(OpKind::Constant(lit), vec![], Type::Tensor(ty.clone())))
    }
    pub fn bin(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        let t = self.ty(a);
        self.op(OpKind::Binary(op), vec![a, b], t)
    }
    pub fn un(&mut self, op: UnaryOp, a: ValueId) -> ValueId {
        let t = self.ty(a);
        self.op(OpKind::Unary(op), vec![a], t)
    }
    pub fn select(&mut self, p: ValueId, a: ValueId, b: ValueId) -> ValueId {
        let t = self.ty(a);
        self.op(OpKind::Select, vec![p, a, b], t)
    }
    /// Elementwise comparison; `pred` is the i1 tensor type of the result.
    pub fn compare(
        &mut self,
        dir: ComparisonDirection,
        a: ValueId,
        b: ValueId,
        pred: &TensorType,
    ) -> ValueId {
        self.op(
            OpKind::Compare {
                direction: dir,
                compare_type: None,
            },
            vec![a, b],
            Type::Tensor(pred.clone()),
        )
    }
}
