//! Test helpers: a small IR builder and tensor conversions.
#![allow(dead_code)]

pub mod complex_matrix;
pub mod jax_compare;

use apu_compiler::ir::{ElementType, Function, Literal, Module, Op, OpKind, Region, TensorType, Type, ValueId};
use apu_compiler::valid::{validate, ValidModule};
use apu_runtime::Tensor;

/// Builds one function; ops go to the innermost region being built.
pub struct FnBuilder {
    f: Function,
    regions: Vec<Region>,
}

impl FnBuilder {
    pub fn new(name: &str) -> Self {
        let mut f = Function::new(name);
        f.public = name == "main";
        FnBuilder { f, regions: vec![Region::default()] }
    }
    pub fn param(&mut self, ty: Type) -> ValueId {
        let v = self.f.new_value(ty);
        self.regions.last_mut().unwrap().params.push(v);
        v
    }
    pub fn ops(&mut self, kind: OpKind, operands: &[ValueId], results: &[Type], regions: Vec<Region>) -> Vec<ValueId> {
        let rs: Vec<ValueId> = results.iter().map(|t| self.f.new_value(t.clone())).collect();
        let mut op = Op::new(kind, operands.to_vec(), rs.clone());
        op.regions = regions;
        self.regions.last_mut().unwrap().ops.push(op);
        rs
    }
    pub fn op(&mut self, kind: OpKind, operands: &[ValueId], result: Type) -> ValueId {
        self.ops(kind, operands, &[result], Vec::new())[0]
    }
    /// A region with parameters of `params`, whose body `build` emits and whose results it returns.
    pub fn region(&mut self, params: &[Type], build: impl FnOnce(&mut Self, &[ValueId]) -> Vec<ValueId>) -> Region {
        self.regions.push(Region::default());
        let ps: Vec<ValueId> = params.iter().map(|t| self.param(t.clone())).collect();
        let results = build(self, &ps);
        let mut r = self.regions.pop().unwrap();
        r.results = results;
        r
    }
    /// A region computing one binary op on two scalars of `elem`.
    pub fn binary_region(&mut self, op: apu_compiler::ir::BinaryOp, elem: ElementType) -> Region {
        let s = Type::tensor(vec![], elem);
        self.region(&[s.clone(), s.clone()], |b, p| vec![b.op(OpKind::Binary(op), &[p[0], p[1]], s.clone())])
    }
    pub fn constant(&mut self, t: &Tensor) -> ValueId {
        let lit = Literal::dense(t.ty.clone(), t.bytes().to_vec()).unwrap();
        self.op(OpKind::Constant(lit), &[], Type::Tensor(t.ty.clone()))
    }
    pub fn finish(mut self, results: &[ValueId]) -> Function {
        let mut body = self.regions.pop().unwrap();
        body.results = results.to_vec();
        self.f.result_types = results.iter().map(|r| self.f.values[r.index()].clone()).collect();
        self.f.arg_attrs = vec![Default::default(); body.params.len()];
        self.f.body = body;
        self.f
    }
}

pub fn module(functions: Vec<Function>) -> ValidModule {
    try_module(functions).unwrap()
}

/// The module, or the validator's error (ill-typed IR stops there, before any executor sees it).
pub fn try_module(functions: Vec<Function>) -> apu_compiler::Result<ValidModule> {
    let entry = functions.iter().position(|f| f.name == "main").unwrap_or(0);
    validate(Module { name: "test".into(), functions, entry, num_replicas: 1, num_partitions: 1 })
}

pub fn tt(shape: &[i64], elem: ElementType) -> Type {
    Type::tensor(shape.to_vec(), elem)
}

pub fn f32s(shape: &[i64], v: &[f32]) -> Tensor {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::F32), &bytes).unwrap()
}
pub fn f64s(shape: &[i64], v: &[f64]) -> Tensor {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::F64), &bytes).unwrap()
}
pub fn i32s(shape: &[i64], v: &[i32]) -> Tensor {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::S32), &bytes).unwrap()
}
pub fn i8s(shape: &[i64], v: &[i8]) -> Tensor {
    let bytes: Vec<u8> = v.iter().map(|x| *x as u8).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::S8), &bytes).unwrap()
}
pub fn u8s(shape: &[i64], v: &[u8]) -> Tensor {
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::U8), v).unwrap()
}
pub fn u32s(shape: &[i64], v: &[u32]) -> Tensor {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::U32), &bytes).unwrap()
}
pub fn u64s(shape: &[i64], v: &[u64]) -> Tensor {
    let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::U64), &bytes).unwrap()
}
pub fn preds(shape: &[i64], v: &[bool]) -> Tensor {
    let bytes: Vec<u8> = v.iter().map(|x| *x as u8).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::Pred), &bytes).unwrap()
}

pub fn to_f32(t: &Tensor) -> Vec<f32> {
    assert_eq!(t.ty.elem, ElementType::F32, "{}", t.ty);
    t.bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}
/// Complex64 elements as interleaved (re, im) f32 values.
pub fn c64_parts(t: &Tensor) -> Vec<f32> {
    assert_eq!(t.ty.elem, ElementType::C64, "{}", t.ty);
    t.bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}
pub fn to_f64(t: &Tensor) -> Vec<f64> {
    assert_eq!(t.ty.elem, ElementType::F64, "{}", t.ty);
    t.bytes().chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
}
pub fn to_i32(t: &Tensor) -> Vec<i32> {
    assert_eq!(t.ty.elem, ElementType::S32, "{}", t.ty);
    t.bytes().chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}
pub fn to_i8(t: &Tensor) -> Vec<i8> {
    t.bytes().iter().map(|&b| b as i8).collect()
}
pub fn to_u32(t: &Tensor) -> Vec<u32> {
    t.bytes().chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}
pub fn to_u64(t: &Tensor) -> Vec<u64> {
    t.bytes().chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect()
}
pub fn to_bool(t: &Tensor) -> Vec<bool> {
    t.bytes().iter().map(|&b| b != 0).collect()
}

/// Asserts |got - want| <= atol + rtol * |want| elementwise, with matching NaNs.
/// A tensor of a float or complex `elem` from (re, im) pairs (the imaginary part is dropped for
/// real types).
pub fn pairs_tensor(shape: &[i64], elem: ElementType, v: &[(f64, f64)]) -> Tensor {
    use ElementType::*;
    let bytes: Vec<u8> = match elem {
        F32 => v.iter().flat_map(|z| (z.0 as f32).to_le_bytes()).collect(),
        F64 => v.iter().flat_map(|z| z.0.to_le_bytes()).collect(),
        C64 => v.iter().flat_map(|z| [(z.0 as f32).to_le_bytes(), (z.1 as f32).to_le_bytes()].concat()).collect(),
        C128 => v.iter().flat_map(|z| [z.0.to_le_bytes(), z.1.to_le_bytes()].concat()).collect(),
        e => panic!("no test tensors of {e}"),
    };
    Tensor::from_bytes(TensorType::new(shape.to_vec(), elem), &bytes).unwrap()
}

/// The elements of a float or complex tensor as (re, im) pairs in f64.
pub fn to_pairs(t: &Tensor) -> Vec<(f64, f64)> {
    use ElementType::*;
    let b = t.bytes();
    match t.ty.elem {
        F32 => b.chunks_exact(4).map(|c| (f32::from_le_bytes(c.try_into().unwrap()) as f64, 0.0)).collect(),
        F64 => b.chunks_exact(8).map(|c| (f64::from_le_bytes(c.try_into().unwrap()), 0.0)).collect(),
        C64 => b
            .chunks_exact(8)
            .map(|c| (f32::from_le_bytes(c[..4].try_into().unwrap()) as f64, f32::from_le_bytes(c[4..].try_into().unwrap()) as f64))
            .collect(),
        C128 => b
            .chunks_exact(16)
            .map(|c| (f64::from_le_bytes(c[..8].try_into().unwrap()), f64::from_le_bytes(c[8..].try_into().unwrap())))
            .collect(),
        e => panic!("no test tensors of {e}"),
    }
}

pub fn assert_close(got: &[f32], want: &[f32], rtol: f32, atol: f32) {
    assert_eq!(got.len(), want.len(), "length differs");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if w.is_nan() {
            assert!(g.is_nan(), "element {i}: got {g}, want NaN");
            continue;
        }
        assert!((g - w).abs() <= atol + rtol * w.abs(), "element {i}: got {g}, want {w} (rtol {rtol}, atol {atol})");
    }
}

/// `<repo>/../shared/samples`, if present.
pub fn samples_dir() -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/samples"));
    if p.is_dir() {
        return Some(p.to_path_buf());
    }
    let mut dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    while dir.pop() {
        let c = dir.join("shared/samples");
        if c.is_dir() {
            return Some(c);
        }
    }
    None
}

/// Runs a module whose `main` takes `inputs` (as parameters) and applies one op of `kind` with
/// `regions` built by `regions(builder)`, returning its results.
pub fn run_op_with(
    kind: OpKind,
    inputs: &[Tensor],
    results: &[Type],
    regions: impl FnOnce(&mut FnBuilder) -> Vec<Region>,
) -> apu_compiler::Result<Vec<Tensor>> {
    let mut b = FnBuilder::new("main");
    let ps: Vec<ValueId> = inputs.iter().map(|t| b.param(Type::Tensor(t.ty.clone()))).collect();
    let rs = regions(&mut b);
    let out = b.ops(kind, &ps, results, rs);
    let m = try_module(vec![b.finish(&out)])?;
    apu_runtime::interp::check_supported(&m)?;
    apu_runtime::interp::run(&m, inputs)
}

pub fn run_op(kind: OpKind, inputs: &[Tensor], result: Type) -> apu_compiler::Result<Tensor> {
    Ok(run_op_with(kind, inputs, &[result], |_| Vec::new())?.remove(0))
}

pub fn bits_f32(t: &Tensor) -> Vec<u32> {
    to_f32(t).iter().map(|x| x.to_bits()).collect()
}
