//! A stand-in evaluator for the IR subset the TensorFlow kernels emit, used until apu's reference
//! interpreter (`apu_runtime::interp`) is merged; then `run_single_op` calls the interpreter instead and
//! this file goes away.
//!
//! Values are held as f64 (exact for f32, i32 and pred) and rounded to the element type after every op,
//! so each op has the element type's semantics. Ops outside the subset return UNIMPLEMENTED.

use apu_compiler::ir::{BinaryOp, ComparisonDirection, ElementType, Function, Literal, Module, OpKind, Region, TensorType, Type, UnaryOp, ValueId};
use apu_compiler::{Error, Result};
use apu_runtime::Tensor;

#[derive(Clone, Debug)]
struct Val {
    ty: TensorType,
    data: Vec<f64>,
}

fn round_to(elem: ElementType, v: f64) -> Result<f64> {
    Ok(match elem {
        ElementType::F32 => v as f32 as f64,
        ElementType::F64 => v,
        // Float → integer converts truncate toward zero and saturate (NaN → 0), like Rust's `as`.
        ElementType::S32 => v as i32 as f64,
        ElementType::S64 => v as i64 as f64,
        ElementType::Pred => (v != 0.0) as u8 as f64,
        other => return Err(Error::unimplemented(format!("element type {other} in the stand-in evaluator"))),
    })
}

fn decode(ty: &TensorType, bytes: &[u8]) -> Result<Vec<f64>> {
    let w = ty.elem.byte_size();
    if bytes.len() != ty.byte_size() {
        return Err(Error::invalid(format!("{ty} needs {} bytes, got {}", ty.byte_size(), bytes.len())));
    }
    bytes
        .chunks_exact(w)
        .map(|c| {
            Ok(match ty.elem {
                ElementType::F32 => f32::from_le_bytes(c.try_into().unwrap()) as f64,
                ElementType::F64 => f64::from_le_bytes(c.try_into().unwrap()),
                ElementType::S32 => i32::from_le_bytes(c.try_into().unwrap()) as f64,
                ElementType::S64 => i64::from_le_bytes(c.try_into().unwrap()) as f64,
                ElementType::Pred => (c[0] != 0) as u8 as f64,
                other => return Err(Error::unimplemented(format!("element type {other} in the stand-in evaluator"))),
            })
        })
        .collect()
}

fn encode(v: &Val) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(v.ty.byte_size());
    for &x in &v.data {
        out.extend(super::builder::encode_scalar(v.ty.elem, x)?);
    }
    Ok(out)
}

fn literal(l: &Literal) -> Result<Val> {
    Ok(Val { ty: l.ty.clone(), data: decode(&l.ty, &l.to_dense_bytes())? })
}

fn unravel(mut i: usize, shape: &[i64], out: &mut [usize]) {
    for d in (0..shape.len()).rev() {
        let n = shape[d] as usize;
        out[d] = i % n.max(1);
        i /= n.max(1);
    }
}

fn unary(op: UnaryOp, x: f64) -> Result<f64> {
    Ok(match op {
        UnaryOp::Abs => x.abs(),
        UnaryOp::Exponential => x.exp(),
        UnaryOp::ExponentialMinusOne => x.exp_m1(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Logistic => 1.0 / (1.0 + (-x).exp()),
        UnaryOp::Negate => -x,
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Tanh => x.tanh(),
        other => return Err(Error::unimplemented(format!("unary op {other:?} in the stand-in evaluator"))),
    })
}

fn binary(op: BinaryOp, elem: ElementType, a: f64, b: f64) -> Result<f64> {
    Ok(match op {
        BinaryOp::Add => a + b,
        BinaryOp::Subtract => a - b,
        BinaryOp::Multiply => a * b,
        BinaryOp::Divide if elem.is_int() => {
            if b == 0.0 {
                return Err(Error::invalid("integer division by zero"));
            }
            (a / b).trunc()
        }
        BinaryOp::Divide => a / b,
        // NaN-propagating, as XLA's maximum/minimum.
        BinaryOp::Maximum => if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) },
        BinaryOp::Minimum => if a.is_nan() || b.is_nan() { f64::NAN } else { a.min(b) },
        other => return Err(Error::unimplemented(format!("binary op {other:?} in the stand-in evaluator"))),
    })
}

fn compare(d: ComparisonDirection, a: f64, b: f64) -> bool {
    match d {
        ComparisonDirection::Eq => a == b,
        ComparisonDirection::Ne => a != b,
        ComparisonDirection::Ge => a >= b,
        ComparisonDirection::Gt => a > b,
        ComparisonDirection::Le => a <= b,
        ComparisonDirection::Lt => a < b,
    }
}

/// The combiner of a reduce region that applies one binary op to its two parameters.
fn combiner(region: &Region) -> Result<BinaryOp> {
    match region.ops.as_slice() {
        [op] if op.operands == region.params && region.results == op.results => match op.kind {
            OpKind::Binary(b) => Ok(b),
            _ => Err(Error::unimplemented(format!("reduce body {} in the stand-in evaluator", op.kind.name()))),
        },
        _ => Err(Error::unimplemented("reduce bodies of more than one op in the stand-in evaluator")),
    }
}

fn eval_op(f: &Function, op: &apu_compiler::ir::Op, args: &[&Val]) -> Result<Val> {
    let rty = f
        .value_type(op.results[0])
        .as_tensor()
        .cloned()
        .ok_or_else(|| Error::unimplemented("non-tensor results in the stand-in evaluator"))?;
    let n = rty.num_elements();
    let mut idx = vec![0usize; rty.rank()];
    let data: Vec<f64> = match &op.kind {
        OpKind::Constant(l) => literal(l)?.data,
        OpKind::Unary(u) => args[0].data.iter().map(|&x| unary(*u, x)).collect::<Result<_>>()?,
        OpKind::Binary(k) => args[0].data.iter().zip(&args[1].data).map(|(&a, &b)| binary(*k, rty.elem, a, b)).collect::<Result<_>>()?,
        OpKind::Compare { direction, .. } => {
            args[0].data.iter().zip(&args[1].data).map(|(&a, &b)| compare(*direction, a, b) as u8 as f64).collect()
        }
        OpKind::Select => (0..n).map(|i| if args[0].data[i] != 0.0 { args[1].data[i] } else { args[2].data[i] }).collect(),
        OpKind::Convert | OpKind::Reshape => args[0].data.clone(),
        OpKind::BroadcastInDim { broadcast_dimensions } => {
            let src = &args[0].ty;
            let st = src.strides();
            (0..n)
                .map(|i| {
                    unravel(i, &rty.shape, &mut idx);
                    let off: usize = broadcast_dimensions
                        .iter()
                        .enumerate()
                        .map(|(k, &d)| if src.shape[k] == 1 { 0 } else { idx[d as usize] * st[k] })
                        .sum();
                    args[0].data[off]
                })
                .collect()
        }
        OpKind::Reduce { dimensions } => {
            let comb = combiner(&op.regions[0])?;
            let src = &args[0].ty;
            let mut out = vec![args[1].data[0]; n];
            let ost = rty.strides();
            let mut sidx = vec![0usize; src.rank()];
            for (i, &x) in args[0].data.iter().enumerate() {
                unravel(i, &src.shape, &mut sidx);
                let o: usize = (0..src.rank()).filter(|d| !dimensions.contains(&(*d as i64))).zip(&ost).map(|(d, s)| sidx[d] * s).sum();
                out[o] = round_to(rty.elem, binary(comb, rty.elem, out[o], x)?)?;
            }
            out
        }
        OpKind::DotGeneral { dims, .. } => dot_general(args[0], args[1], dims, &rty)?,
        OpKind::Convolution { window_strides, padding, lhs_dilation, rhs_dilation, dims, feature_group_count, batch_group_count, .. } => {
            if lhs_dilation.iter().any(|&d| d != 1) || *feature_group_count != 1 || *batch_group_count != 1 {
                return Err(Error::unimplemented("dilated-input or grouped convolution in the stand-in evaluator"));
            }
            convolution(args[0], args[1], window_strides, padding, rhs_dilation, dims, &rty)
        }
        other => return Err(Error::unimplemented(format!("op {} in the stand-in evaluator", other.name()))),
    };
    let data = data.into_iter().map(|v| round_to(rty.elem, v)).collect::<Result<Vec<_>>>()?;
    Ok(Val { ty: rty, data })
}

fn dot_general(l: &Val, r: &Val, d: &apu_compiler::ir::DotDims, rty: &TensorType) -> Result<Vec<f64>> {
    let free = |rank: usize, batch: &[i64], contr: &[i64]| -> Vec<usize> {
        (0..rank).filter(|x| !batch.contains(&(*x as i64)) && !contr.contains(&(*x as i64))).collect()
    };
    let lf = free(l.ty.rank(), &d.lhs_batch, &d.lhs_contracting);
    let rf = free(r.ty.rank(), &d.rhs_batch, &d.rhs_contracting);
    let csizes: Vec<i64> = d.lhs_contracting.iter().map(|&c| l.ty.shape[c as usize]).collect();
    let ncontr: usize = csizes.iter().map(|&s| s as usize).product();
    let (ls, rs) = (l.ty.strides(), r.ty.strides());
    let mut oidx = vec![0usize; rty.rank()];
    let mut cidx = vec![0usize; csizes.len()];
    let nb = d.lhs_batch.len();
    let mut out = Vec::with_capacity(rty.num_elements());
    for i in 0..rty.num_elements() {
        unravel(i, &rty.shape, &mut oidx);
        let mut lbase = 0;
        let mut rbase = 0;
        for k in 0..nb {
            lbase += oidx[k] * ls[d.lhs_batch[k] as usize];
            rbase += oidx[k] * rs[d.rhs_batch[k] as usize];
        }
        for (k, &dim) in lf.iter().enumerate() {
            lbase += oidx[nb + k] * ls[dim];
        }
        for (k, &dim) in rf.iter().enumerate() {
            rbase += oidx[nb + lf.len() + k] * rs[dim];
        }
        let mut acc = 0.0;
        for c in 0..ncontr {
            unravel(c, &csizes, &mut cidx);
            let lo: usize = d.lhs_contracting.iter().zip(&cidx).map(|(&dd, &x)| x * ls[dd as usize]).sum();
            let ro: usize = d.rhs_contracting.iter().zip(&cidx).map(|(&dd, &x)| x * rs[dd as usize]).sum();
            acc += l.data[lbase + lo] * r.data[rbase + ro];
        }
        out.push(acc);
    }
    Ok(out)
}

fn convolution(
    x: &Val,
    w: &Val,
    strides: &[i64],
    padding: &[(i64, i64)],
    dilation: &[i64],
    d: &apu_compiler::ir::ConvDims,
    rty: &TensorType,
) -> Vec<f64> {
    let (xs, ws) = (x.ty.strides(), w.ty.strides());
    let ns = d.input_spatial.len();
    let ksizes: Vec<i64> = d.kernel_spatial.iter().map(|&k| w.ty.shape[k as usize]).collect();
    let nk: usize = ksizes.iter().map(|&s| s as usize).product();
    let in_ch = x.ty.shape[d.input_feature as usize] as usize;
    let mut oidx = vec![0usize; rty.rank()];
    let mut kidx = vec![0usize; ns];
    let mut out = Vec::with_capacity(rty.num_elements());
    for i in 0..rty.num_elements() {
        unravel(i, &rty.shape, &mut oidx);
        let b = oidx[d.output_batch as usize];
        let of = oidx[d.output_feature as usize];
        let mut acc = 0.0;
        'window: for k in 0..nk {
            unravel(k, &ksizes, &mut kidx);
            let mut xoff = b * xs[d.input_batch as usize];
            let mut woff = of * ws[d.kernel_output_feature as usize];
            for s in 0..ns {
                let o = oidx[d.output_spatial[s] as usize] as i64;
                let pos = o * strides[s] + kidx[s] as i64 * dilation[s] - padding[s].0;
                let dim = d.input_spatial[s] as usize;
                if pos < 0 || pos >= x.ty.shape[dim] {
                    continue 'window;
                }
                xoff += pos as usize * xs[dim];
                woff += kidx[s] * ws[d.kernel_spatial[s] as usize];
            }
            for c in 0..in_ch {
                acc += x.data[xoff + c * xs[d.input_feature as usize]] * w.data[woff + c * ws[d.kernel_input_feature as usize]];
            }
        }
        out.push(acc);
    }
    out
}

/// Runs the entry function of `module` on `inputs`.
pub fn run(module: &Module, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let f = module.entry_function();
    if f.body.params.len() != inputs.len() {
        return Err(Error::invalid(format!("{} takes {} arguments, got {}", f.name, f.body.params.len(), inputs.len())));
    }
    let mut env: Vec<Option<Val>> = vec![None; f.values.len()];
    for (&p, t) in f.body.params.iter().zip(inputs) {
        if f.value_type(p) != &Type::Tensor(t.ty.clone()) {
            return Err(Error::invalid(format!("argument {p} is {}, expected {}", t.ty, f.value_type(p))));
        }
        env[p.index()] = Some(Val { ty: t.ty.clone(), data: decode(&t.ty, t.bytes())? });
    }
    let get = |env: &Vec<Option<Val>>, v: ValueId| -> Result<Val> {
        env[v.index()].clone().ok_or_else(|| Error::internal(format!("value {v} used before definition")))
    };
    for op in &f.body.ops {
        let args = op.operands.iter().map(|&v| get(&env, v)).collect::<Result<Vec<_>>>()?;
        let refs: Vec<&Val> = args.iter().collect();
        let r = eval_op(f, op, &refs).map_err(|e| e.context(format!("op {}", op.kind.name())))?;
        env[op.results[0].index()] = Some(r);
    }
    f.body
        .results
        .iter()
        .map(|&r| {
            let v = get(&env, r)?;
            Tensor::from_bytes(v.ty.clone(), &encode(&v)?)
        })
        .collect()
}
