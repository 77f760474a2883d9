//! The arg-reduce kernel (argmax / argmin, see `apu_compiler::plan::arg_reduce`): the body runs on
//! one (accumulator, element) pair at a time in the interpreter's order, along rows (the reduced
//! axis is the last one) or down columns, where each lane of a register chunk is one output.

use crate::exec::fused::{self, Compiled, CHUNK};
use super::reduce::Elem;
use crate::exec::workers::Workers;
use crate::exec::Ptr;
use apu_compiler::ir::ElementType as E;
use apu_compiler::{Error, Result};
use apu_compiler::plan::{ArgReduceKernel, KScalar, Pick};
use std::ops::Range;
use std::sync::Mutex;

/// The body on one pair: the accumulator keeps its value when it wins the comparison or is NaN,
/// and its index when it kept its value or ties with the smaller index.
#[inline(always)]
fn step<T: Copy + PartialOrd, const MAX: bool>(av: &mut T, ai: &mut i64, bv: T, bi: i64) {
    let wins = if MAX { *av > bv } else { *av < bv };
    #[allow(clippy::eq_op)]
    let keep_value = wins || *av != *av;
    let keep_index = keep_value || (*av == bv && *ai < bi);
    if !keep_value {
        *av = bv;
    }
    if !keep_index {
        *ai = bi;
    }
}

/// Folds elements `ks` (positions along the axis) of the row starting at flat index `base` into
/// `acc`; `None` starts from the first element, as a part of a split row does.
unsafe fn fold_row<T: Elem + PartialOrd, const MAX: bool>(ex: &Compiled, inputs: &[*const u8], base: usize, ks: Range<usize>, acc: &mut Option<(T, i64)>) {
    let mut visit = |v: &[T], k0: usize| {
        let (mut av, mut ai, skip) = match *acc {
            Some((v, i)) => (v, i, 0),
            None => match v.first() {
                Some(&first) => (first, k0 as i64, 1),
                None => return,
            },
        };
        for (j, &x) in v.iter().enumerate().skip(skip) {
            step::<T, MAX>(&mut av, &mut ai, x, (k0 + j) as i64);
        }
        *acc = Some((av, ai));
    };
    if let Some((input, offset)) = ex.as_contiguous_load() {
        let v = std::slice::from_raw_parts((inputs[input] as *const T).wrapping_add(offset + base + ks.start), ks.len());
        visit(v, ks.start);
    } else {
        fused::eval_chunks(ex, inputs, base + ks.start..base + ks.end, |r, start, len| visit(&T::slice(r)[..len], start - base));
    }
}

/// Where the results go: the value and index outputs, and the index type.
#[derive(Clone, Copy)]
struct Out {
    values: Ptr,
    indices: Ptr,
    index_elem: E,
}

impl Out {
    unsafe fn write<T: Copy>(self, at: usize, v: T, i: i64) {
        *(self.values.get() as *mut T).add(at) = v;
        let p = self.indices.get() as *mut u8;
        match self.index_elem {
            E::S32 => *(p as *mut i32).add(at) = i as i32,
            E::U32 => *(p as *mut u32).add(at) = i as u32,
            _ => *(p as *mut i64).add(at) = i,
        }
    }
}

unsafe fn run_typed<T: Elem + PartialOrd, const MAX: bool>(k: &ArgReduceKernel, ex: &Compiled, inputs: &[Ptr], init: (T, i64), out: Out, workers: &Workers) {
    let (outer, reduced, inner) = (k.outer, k.reduced, k.inner);
    if inner == 1 {
        if outer >= workers.threads() || outer.saturating_mul(reduced) < 1 << 16 {
            workers.for_ranges(outer, 1, reduced, &|rows| {
                for o in rows {
                    let mut acc = Some(init);
                    fold_row::<T, MAX>(ex, Ptr::raw(inputs), o * reduced, 0..reduced, &mut acc);
                    let (v, i) = acc.unwrap_or(init);
                    out.write(o, v, i);
                }
            });
        } else {
            // Few long rows: each is split, and the parts' results are folded in order.
            for o in 0..outer {
                let parts = Mutex::new(Vec::new());
                workers.for_ranges(reduced, CHUNK, 1, &|ks| {
                    let mut acc = None;
                    fold_row::<T, MAX>(ex, Ptr::raw(inputs), o * reduced, ks.clone(), &mut acc);
                    parts.lock().unwrap_or_else(|p| p.into_inner()).push((ks.start, acc));
                });
                let mut parts = parts.into_inner().unwrap_or_else(|p| p.into_inner());
                parts.sort_by_key(|p| p.0);
                let (mut av, mut ai) = init;
                for (bv, bi) in parts.into_iter().filter_map(|p| p.1) {
                    step::<T, MAX>(&mut av, &mut ai, bv, bi);
                }
                out.write(o, av, ai);
            }
        }
        return;
    }
    for o in 0..outer {
        workers.for_ranges(inner, CHUNK, reduced, &|cols| {
            let ptrs = Ptr::raw(inputs);
            let mut values = vec![init.0; cols.len()];
            let mut indices = vec![init.1; cols.len()];
            ex.with_registers(|regs| {
                let last = regs.len() - 1;
                for kk in 0..reduced {
                    let mut j = cols.start;
                    while j < cols.end {
                        let len = CHUNK.min(cols.end - j);
                        ex.eval(ptrs, (o * reduced + kk) * inner + j, len, regs, kk > 0 || j > cols.start);
                        let lanes = j - cols.start..j - cols.start + len;
                        for ((av, ai), &x) in values[lanes.clone()].iter_mut().zip(&mut indices[lanes]).zip(&T::slice(&regs[last])[..len]) {
                            step::<T, MAX>(av, ai, x, kk as i64);
                        }
                        j += len;
                    }
                }
            });
            for (c, (v, i)) in values.into_iter().zip(indices).enumerate() {
                out.write(o * inner + cols.start + c, v, i);
            }
        });
    }
}

fn index_of(k: KScalar) -> Option<i64> {
    match k {
        KScalar::S32(i) => Some(i.into()),
        KScalar::S64(i) => Some(i),
        KScalar::U32(i) => Some(i.into()),
        _ => None,
    }
}

/// Runs one arg-reduce kernel; `init_value` / `init_index` are the init scalars.
///
/// # Safety
/// Input pointers must cover the expression's loads; `values` and `indices` must hold
/// `outer * inner` elements of the value and index types.
#[allow(clippy::too_many_arguments)]
pub unsafe fn run(k: &ArgReduceKernel, ex: &Compiled, inputs: &[Ptr], init_value: KScalar, init_index: KScalar, values: *mut u8, indices: *mut u8, workers: &Workers) -> Result<()> {
    let out = Out { values: Ptr(values), indices: Ptr(indices), index_elem: k.index_elem };
    let mismatch = || Error::internal(format!("arg reduce of {} with {} indices: init values {init_value:?}, {init_index:?}", k.elem, k.index_elem));
    let index = index_of(init_index).ok_or_else(mismatch)?;
    macro_rules! go {
        ($t:ty) => {{
            let v = <$t>::from_k(init_value).ok_or_else(mismatch)?;
            match k.pick {
                Pick::Max => run_typed::<$t, true>(k, ex, inputs, (v, index), out, workers),
                Pick::Min => run_typed::<$t, false>(k, ex, inputs, (v, index), out, workers),
            }
        }};
    }
    match k.elem {
        E::F32 => go!(f32),
        E::F64 => go!(f64),
        E::S32 => go!(i32),
        E::S64 => go!(i64),
        E::U32 => go!(u32),
        E::U64 => go!(u64),
        other => return Err(Error::internal(format!("arg reduce of {other} has no kernel"))),
    }
    Ok(())
}
