//! `sort`: a stable merge sort of 1-D slices driven by the comparator region. Our own merge sort
//! never panics when the comparator is not a strict weak order (std's sort may), and being stable
//! it satisfies both `is_stable` settings.

use super::array::Scalar;
use super::index::{for_each_index, strides};
use super::value::Dense;
use apu_compiler::{Error, Result};

/// The comparator on two positions: arguments are (lhs0, rhs0, lhs1, rhs1, ...).
pub type Less<'a> = dyn FnMut(&[Scalar]) -> Result<bool> + 'a;

fn merge_sort(items: &mut Vec<usize>, less: &mut dyn FnMut(usize, usize) -> Result<bool>) -> Result<()> {
    let n = items.len();
    let mut buf = vec![0usize; n];
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                // Take from the right run only if strictly less: keeps equal elements in order.
                if less(items[j], items[i])? {
                    buf[k] = items[j];
                    j += 1;
                } else {
                    buf[k] = items[i];
                    i += 1;
                }
                k += 1;
            }
            buf[k..k + mid - i].copy_from_slice(&items[i..mid]);
            k += mid - i;
            buf[k..k + end - j].copy_from_slice(&items[j..end]);
            start = end;
        }
        std::mem::swap(items, &mut buf);
        width *= 2;
    }
    Ok(())
}

pub fn sort(inputs: &[&Dense], dimension: i64, _is_stable: bool, less: &mut Less) -> Result<Vec<Dense>> {
    let first = inputs.first().ok_or_else(|| Error::invalid("sort of no inputs"))?;
    let rank = first.ty.rank() as i64;
    let d = if dimension < 0 { dimension + rank } else { dimension };
    if d < 0 || d >= rank.max(1) || inputs.iter().any(|x| x.ty.shape != first.ty.shape) {
        return Err(Error::invalid(format!("sort: bad dimension {dimension} or mismatched inputs for {}", first.ty)));
    }
    if rank == 0 {
        return Ok(inputs.iter().map(|x| (*x).clone()).collect());
    }
    let d = d as usize;
    let st = strides(&first.ty.shape);
    let len = first.ty.shape[d] as usize;
    let mut outer_shape = first.ty.shape.clone();
    outer_shape[d] = 1;
    let mut pairs: Vec<(usize, usize)> = Vec::with_capacity(first.data.len());
    let mut err = None;
    for_each_index(&outer_shape, |o| {
        if err.is_some() {
            return;
        }
        let base: usize = o.iter().zip(&st).map(|(&i, &s)| i as usize * s).sum();
        let mut items: Vec<usize> = (0..len).map(|k| base + k * st[d]).collect();
        let mut args = vec![Scalar::Bool(false); inputs.len() * 2];
        let mut cmp = |a: usize, b: usize| -> Result<bool> {
            for (n, x) in inputs.iter().enumerate() {
                args[2 * n] = x.data.get(a);
                args[2 * n + 1] = x.data.get(b);
            }
            less(&args)
        };
        if let Err(e) = merge_sort(&mut items, &mut cmp) {
            err = Some(e);
            return;
        }
        for (k, src) in items.into_iter().enumerate() {
            pairs.push((base + k * st[d], src));
        }
    });
    if let Some(e) = err {
        return Err(e);
    }
    inputs
        .iter()
        .map(|x| {
            let mut data = x.data.clone();
            data.assign(&x.data, &pairs)?;
            Dense::new(x.ty.clone(), data)
        })
        .collect()
}
