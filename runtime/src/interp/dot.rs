//! `dot_general`: result dimensions are batch, then lhs free, then rhs free (in operand order).

use super::array::Array;
use super::index::{for_each_index, strides};
use super::numeric::{contraction_supported, widen, Acc, Wide};
use super::value::Dense;
use apu_compiler::ir::{DotDims, TensorType};
use apu_compiler::{Error, Result};

/// Offsets (in elements) of every index over `dims` of a tensor with `st` strides.
fn offsets(shape: &[i64], dims: &[usize], st: &[usize]) -> Vec<usize> {
    let sub: Vec<i64> = dims.iter().map(|&d| shape[d]).collect();
    let mut v = Vec::new();
    for_each_index(&sub, |i| v.push(i.iter().zip(dims).map(|(&x, &d)| x as usize * st[d]).sum()));
    if sub.is_empty() {
        v = vec![0];
    }
    v
}

fn to_dims(v: &[i64], rank: usize) -> Result<Vec<usize>> {
    v.iter()
        .map(|&d| if d >= 0 && (d as usize) < rank { Ok(d as usize) } else { Err(Error::invalid(format!("dot_general: dimension {d} out of range"))) })
        .collect()
}

fn free(rank: usize, used: &[&[usize]]) -> Vec<usize> {
    (0..rank).filter(|d| !used.iter().any(|u| u.contains(d))).collect()
}

/// Element offsets of every batch, free and contracting index of each operand.
struct Offsets {
    lb: Vec<usize>,
    rb: Vec<usize>,
    lf: Vec<usize>,
    rf: Vec<usize>,
    lc: Vec<usize>,
    rc: Vec<usize>,
}

fn contract<T: Acc>(l: &[T], r: &[T], o: &Offsets) -> Vec<T> {
    let Offsets { lb, rb, lf, rf, lc, rc } = o;
    let mut out = Vec::with_capacity(lb.len() * lf.len() * rf.len());
    for (b, &lbo) in lb.iter().enumerate() {
        let rbo = rb[b];
        for &lfo in lf {
            for &rfo in rf {
                let mut acc = T::zero();
                for (&lco, &rco) in lc.iter().zip(rc) {
                    acc = acc.mac(l[lbo + lfo + lco], r[rbo + rfo + rco]);
                }
                out.push(acc);
            }
        }
    }
    out
}

pub fn dot_general(lhs: &Dense, rhs: &Dense, dims: &DotDims, result: &TensorType) -> Result<Dense> {
    if !contraction_supported(result.elem) {
        return Err(Error::unimplemented(format!("dot_general for {}", result.elem)));
    }
    let (lr, rr) = (lhs.ty.rank(), rhs.ty.rank());
    let lb = to_dims(&dims.lhs_batch, lr)?;
    let rb = to_dims(&dims.rhs_batch, rr)?;
    let lc = to_dims(&dims.lhs_contracting, lr)?;
    let rc = to_dims(&dims.rhs_contracting, rr)?;
    if lb.len() != rb.len() || lc.len() != rc.len() {
        return Err(Error::invalid("dot_general: batch or contracting dimension lists differ in length"));
    }
    for (l, r) in lb.iter().zip(&rb).chain(lc.iter().zip(&rc)) {
        if lhs.ty.shape[*l] != rhs.ty.shape[*r] {
            return Err(Error::invalid(format!("dot_general: {} and {} disagree on paired dimensions", lhs.ty, rhs.ty)));
        }
    }
    let lf = free(lr, &[&lb, &lc]);
    let rf = free(rr, &[&rb, &rc]);
    let expect: Vec<i64> = lb.iter().map(|&d| lhs.ty.shape[d])
        .chain(lf.iter().map(|&d| lhs.ty.shape[d]))
        .chain(rf.iter().map(|&d| rhs.ty.shape[d]))
        .collect();
    if expect != result.shape {
        return Err(Error::invalid(format!("dot_general: result {result} does not match {} x {}", lhs.ty, rhs.ty)));
    }
    let (ls, rs) = (strides(&lhs.ty.shape), strides(&rhs.ty.shape));
    let o = Offsets {
        lb: offsets(&lhs.ty.shape, &lb, &ls),
        rb: offsets(&rhs.ty.shape, &rb, &rs),
        lf: offsets(&lhs.ty.shape, &lf, &ls),
        rf: offsets(&rhs.ty.shape, &rf, &rs),
        lc: offsets(&lhs.ty.shape, &lc, &ls),
        rc: offsets(&rhs.ty.shape, &rc, &rs),
    };
    let values: Vec<super::array::Scalar> = match (widen(&lhs.data, result.elem)?, widen(&rhs.data, result.elem)?) {
        (Wide::F(l), Wide::F(r)) => contract(&l, &r, &o).into_iter().map(Acc::scalar).collect(),
        (Wide::I(l), Wide::I(r)) => contract(&l, &r, &o).into_iter().map(Acc::scalar).collect(),
        (Wide::C(l), Wide::C(r)) => contract(&l, &r, &o).into_iter().map(Acc::scalar).collect(),
        _ => return Err(Error::internal("dot_general: operands widened to different domains")),
    };
    Dense::new(result.clone(), Array::from_scalars(result.elem, values)?)
}
