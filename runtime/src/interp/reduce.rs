//! Reductions driven by a scalar combiner: `reduce`, `reduce_window` and `select_and_scatter`.
//! The combiner is the op's region, evaluated on widened scalars (see `eval::ScalarRegion`).

use super::array::{Array, Scalar};
use super::index::{for_each_index, linear, strides, try_for_each_index};
use super::value::Dense;
use apu_compiler::ir::TensorType;
use apu_compiler::{Error, Result};

/// A region applied to scalars: arguments in, results out.
pub type ScalarBody<'a> = dyn FnMut(&[Scalar]) -> Result<Vec<Scalar>> + 'a;

fn init_scalars(inits: &[&Dense]) -> Result<Vec<Scalar>> {
    inits
        .iter()
        .map(|d| {
            if d.data.len() != 1 {
                return Err(Error::invalid(format!("init value must be a scalar, got {}", d.ty)));
            }
            Ok(d.data.get(0))
        })
        .collect()
}

fn finish(results: Vec<Vec<Scalar>>, types: &[TensorType]) -> Result<Vec<Dense>> {
    results
        .into_iter()
        .zip(types)
        .map(|(vals, ty)| Dense::new(ty.clone(), Array::from_scalars(ty.elem, vals)?))
        .collect()
}

/// Applies `body` once per step, checking that it returns one value per input.
fn step(body: &mut ScalarBody, acc: &mut Vec<Scalar>, elems: &[Scalar]) -> Result<()> {
    let mut args = Vec::with_capacity(acc.len() * 2);
    args.extend_from_slice(acc);
    args.extend_from_slice(elems);
    let out = body(&args)?;
    if out.len() != acc.len() {
        return Err(Error::invalid(format!("reduction body returned {} values, expected {}", out.len(), acc.len())));
    }
    *acc = out;
    Ok(())
}

pub fn reduce(inputs: &[&Dense], inits: &[&Dense], dims: &[i64], types: &[TensorType], body: &mut ScalarBody) -> Result<Vec<Dense>> {
    let first = inputs.first().ok_or_else(|| Error::invalid("reduce of no inputs"))?;
    let shape = &first.ty.shape;
    let rank = shape.len();
    let mut reduced = vec![false; rank];
    for &d in dims {
        if d < 0 || d as usize >= rank || reduced[d as usize] {
            return Err(Error::invalid(format!("reduce: bad dimension {d} for {}", first.ty)));
        }
        reduced[d as usize] = true;
    }
    if inputs.iter().any(|x| &x.ty.shape != shape) || inits.len() != inputs.len() || types.len() != inputs.len() {
        return Err(Error::invalid("reduce: inputs, init values and results do not match"));
    }
    let kept: Vec<usize> = (0..rank).filter(|&d| !reduced[d]).collect();
    let red: Vec<usize> = (0..rank).filter(|&d| reduced[d]).collect();
    let out_shape: Vec<i64> = kept.iter().map(|&d| shape[d]).collect();
    let red_shape: Vec<i64> = red.iter().map(|&d| shape[d]).collect();
    let st = strides(shape);
    let red_offsets: Vec<usize> = {
        let mut v = Vec::new();
        for_each_index(&red_shape, |r| v.push(r.iter().zip(&red).map(|(&i, &d)| i as usize * st[d]).sum()));
        v
    };
    let init = init_scalars(inits)?;
    let mut results: Vec<Vec<Scalar>> = vec![Vec::new(); inputs.len()];
    let mut elems = vec![Scalar::Bool(false); inputs.len()];
    try_for_each_index(&out_shape, |o| {
        let base: usize = o.iter().zip(&kept).map(|(&i, &d)| i as usize * st[d]).sum();
        let mut acc = init.clone();
        for off in &red_offsets {
            for (e, x) in elems.iter_mut().zip(inputs) {
                *e = x.data.get(base + off);
            }
            step(body, &mut acc, &elems)?;
        }
        for (r, a) in results.iter_mut().zip(acc) {
            r.push(a);
        }
        Ok(())
    })?;
    finish(results, types)
}

/// Geometry of a window over a padded, dilated base, per dimension.
pub struct Window<'a> {
    pub dims: &'a [i64],
    pub strides: &'a [i64],
    pub base_dilations: &'a [i64],
    pub window_dilations: &'a [i64],
    pub padding: &'a [(i64, i64)],
}

impl Window<'_> {
    fn check(&self, rank: usize) -> Result<()> {
        let ok = self.dims.len() == rank
            && self.strides.len() == rank
            && self.base_dilations.len() == rank
            && self.window_dilations.len() == rank
            && self.padding.len() == rank
            && self.strides.iter().chain(self.base_dilations).chain(self.window_dilations).all(|&s| s >= 1);
        if ok {
            Ok(())
        } else {
            Err(Error::invalid(format!("window attributes do not fit rank {rank}")))
        }
    }

    /// The operand index under window position `w` of result index `o`, or `None` where the
    /// window reads padding or a dilation hole.
    fn source(&self, shape: &[i64], o: &[i64], w: &[i64], src: &mut [i64]) -> bool {
        for d in 0..shape.len() {
            let p = o[d] * self.strides[d] + w[d] * self.window_dilations[d] - self.padding[d].0;
            let bd = self.base_dilations[d];
            if p < 0 || p % bd != 0 || p / bd >= shape[d] {
                return false;
            }
            src[d] = p / bd;
        }
        true
    }
}

/// `reduce_window`: padding and base-dilation holes read the init value, as the spec's padded
/// operand does.
pub fn reduce_window(inputs: &[&Dense], inits: &[&Dense], win: &Window, types: &[TensorType], body: &mut ScalarBody) -> Result<Vec<Dense>> {
    let first = inputs.first().ok_or_else(|| Error::invalid("reduce_window of no inputs"))?;
    let shape = first.ty.shape.clone();
    win.check(shape.len())?;
    if types.len() != inputs.len() || inits.len() != inputs.len() {
        return Err(Error::invalid("reduce_window: inputs, init values and results do not match"));
    }
    let st = strides(&shape);
    let init = init_scalars(inits)?;
    let mut results: Vec<Vec<Scalar>> = vec![Vec::new(); inputs.len()];
    let mut src = vec![0i64; shape.len()];
    let mut elems = init.clone();
    try_for_each_index(&types[0].shape, |o| {
        let mut acc = init.clone();
        try_for_each_index(win.dims, |w| {
            if win.source(&shape, o, w, &mut src) {
                let at = linear(&src, &st);
                for (e, x) in elems.iter_mut().zip(inputs) {
                    *e = x.data.get(at);
                }
            } else {
                elems.copy_from_slice(&init);
            }
            step(body, &mut acc, &elems)
        })?;
        for (r, a) in results.iter_mut().zip(acc) {
            r.push(a);
        }
        Ok(())
    })?;
    finish(results, types)
}

/// `select_and_scatter`: for each window, picks one operand element with `select` (the first
/// that no later element beats), then combines the source value into the result there with
/// `scatter`, starting from `init`.
pub fn select_and_scatter(
    operand: &Dense,
    source: &Dense,
    init: &Dense,
    win: &Window,
    select: &mut dyn FnMut(Scalar, Scalar) -> Result<bool>,
    scatter: &mut ScalarBody,
) -> Result<Dense> {
    let shape = operand.ty.shape.clone();
    win.check(shape.len())?;
    let st = strides(&shape);
    let init = init_scalars(&[init])?[0];
    let mut out = vec![init; operand.data.len()];
    let mut src = vec![0i64; shape.len()];
    let mut k = 0usize;
    try_for_each_index(&source.ty.shape, |o| {
        let mut best: Option<usize> = None;
        try_for_each_index(win.dims, |w| {
            if win.source(&shape, o, w, &mut src) {
                let at = linear(&src, &st);
                best = Some(match best {
                    None => at,
                    Some(b) if select(operand.data.get(b), operand.data.get(at))? => b,
                    Some(_) => at,
                });
            }
            Ok(())
        })?;
        if let Some(b) = best {
            out[b] = scatter(&[out[b], source.data.get(k)])?
                .first()
                .copied()
                .ok_or_else(|| Error::invalid("select_and_scatter: scatter region returned nothing"))?;
        }
        k += 1;
        Ok(())
    })?;
    Dense::new(operand.ty.clone(), Array::from_scalars(operand.elem(), out)?)
}
