//! The registers of the chunked evaluator: one chunk of values of one element type each, the
//! operand and destination views an instruction reads and writes (a register, or an input or
//! output read or written in place), and the per-thread spare registers that keep a kernel's
//! call free of allocation.

use super::*;
use apu_compiler::ir::ElementType as E;
use apu_compiler::{Error, Result};

/// One register: CHUNK values of one element type (Pred as 0/1 bytes).
pub enum Buf {
    F32(Vec<f32>),
    F64(Vec<f64>),
    S32(Vec<i32>),
    S64(Vec<i64>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    Pred(Vec<u8>),
}

/// An operand of an instruction: a register, or the input itself when a load would only have
/// copied a contiguous run of it (reading in place saves that copy).
#[derive(Clone, Copy)]
pub(super) enum Src<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
    S32(&'a [i32]),
    S64(&'a [i64]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    Pred(&'a [u8]),
}

impl<'a> Src<'a> {
    pub(super) fn of(b: &'a Buf) -> Src<'a> {
        match b {
            Buf::F32(v) => Src::F32(v),
            Buf::F64(v) => Src::F64(v),
            Buf::S32(v) => Src::S32(v),
            Buf::S64(v) => Src::S64(v),
            Buf::U32(v) => Src::U32(v),
            Buf::U64(v) => Src::U64(v),
            Buf::Pred(v) => Src::Pred(v),
        }
    }

    /// `len` elements of type `elem` from element `index` of `p`.
    ///
    /// # Safety
    /// `p` must hold that many elements of `elem`, alive and unchanged for `'a`.
    pub(super) unsafe fn raw(elem: E, p: *const u8, index: usize, len: usize) -> Src<'a> {
        use std::slice::from_raw_parts as s;
        debug_assert!(!is_narrow(elem), "narrow values are widened into registers, never read in place");
        match elem {
            E::F32 => Src::F32(s((p as *const f32).wrapping_add(index), len)),
            E::F64 => Src::F64(s((p as *const f64).wrapping_add(index), len)),
            E::S32 => Src::S32(s((p as *const i32).wrapping_add(index), len)),
            E::S64 => Src::S64(s((p as *const i64).wrapping_add(index), len)),
            E::U32 => Src::U32(s((p as *const u32).wrapping_add(index), len)),
            E::U64 => Src::U64(s((p as *const u64).wrapping_add(index), len)),
            _ => Src::Pred(s(p.wrapping_add(index), len)),
        }
    }
}

/// Where an instruction writes its `len` values: a register, or, for the last instruction of a
/// stored kernel, the output buffer itself (saving a copy of every chunk).
pub(super) enum Out<'a> {
    F32(&'a mut [f32]),
    F64(&'a mut [f64]),
    S32(&'a mut [i32]),
    S64(&'a mut [i64]),
    U32(&'a mut [u32]),
    U64(&'a mut [u64]),
    Pred(&'a mut [u8]),
}

impl<'a> Out<'a> {
    pub(super) fn of(b: &'a mut Buf) -> Out<'a> {
        match b {
            Buf::F32(v) => Out::F32(v),
            Buf::F64(v) => Out::F64(v),
            Buf::S32(v) => Out::S32(v),
            Buf::S64(v) => Out::S64(v),
            Buf::U32(v) => Out::U32(v),
            Buf::U64(v) => Out::U64(v),
            Buf::Pred(v) => Out::Pred(v),
        }
    }

    /// `len` elements of type `elem` at `p`.
    ///
    /// # Safety
    /// `p` must hold that many elements of `elem`, written by nobody else and read through no
    /// other reference while the view lives.
    pub(super) unsafe fn raw(elem: E, p: *mut u8, len: usize) -> Out<'a> {
        use std::slice::from_raw_parts_mut as s;
        debug_assert!(!is_narrow(elem), "narrow results are narrowed from registers, never written in place");
        match elem {
            E::F32 => Out::F32(s(p as *mut f32, len)),
            E::F64 => Out::F64(s(p as *mut f64, len)),
            E::S32 => Out::S32(s(p as *mut i32, len)),
            E::S64 => Out::S64(s(p as *mut i64, len)),
            E::U32 => Out::U32(s(p as *mut u32, len)),
            E::U64 => Out::U64(s(p as *mut u64, len)),
            _ => Out::Pred(s(p, len)),
        }
    }
}

thread_local! {
    /// Registers of finished kernels, one free list per element type (see [`Compiled::with_registers`]).
    pub(super) static SPARE_REGISTERS: std::cell::RefCell<SpareRegisters> = const { std::cell::RefCell::new(SpareRegisters::new()) };
}

/// Registers kept per thread and element type (each is one chunk: 1 to 8 KiB).
pub(super) const MAX_SPARE_PER_TYPE: usize = 128;

/// Free registers by element type, and emptied register lists (so a kernel's call allocates
/// nothing once its thread has run a kernel with as many registers of each type).
pub(super) struct SpareRegisters {
    pub(super) by_type: [Vec<Buf>; 7],
    pub(super) lists: Vec<Vec<Buf>>,
}

impl SpareRegisters {
    pub(super) const fn new() -> Self {
        SpareRegisters { by_type: [Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new()], lists: Vec::new() }
    }

    pub(super) fn slot(elem: E) -> usize {
        match lanes(elem) {
            E::F32 => 0,
            E::F64 => 1,
            E::S32 => 2,
            E::S64 => 3,
            E::U32 => 4,
            E::U64 => 5,
            _ => 6,
        }
    }

    pub(super) fn take(&mut self, elems: &[E]) -> Vec<Buf> {
        let mut regs = self.lists.pop().unwrap_or_default();
        regs.extend(elems.iter().map(|&e| match self.by_type[Self::slot(e)].pop() {
            Some(b) => b,
            None => Buf::new(e).expect("fused element types are checked at compile time"),
        }));
        regs
    }

    pub(super) fn give_back(&mut self, mut regs: Vec<Buf>) {
        for b in regs.drain(..) {
            let free = &mut self.by_type[Self::slot(b.elem())];
            if free.len() < MAX_SPARE_PER_TYPE {
                free.push(b);
            }
        }
        if self.lists.len() < 8 {
            self.lists.push(regs);
        }
    }
}

impl Buf {
    pub(super) fn elem(&self) -> E {
        match self {
            Buf::F32(_) => E::F32,
            Buf::F64(_) => E::F64,
            Buf::S32(_) => E::S32,
            Buf::S64(_) => E::S64,
            Buf::U32(_) => E::U32,
            Buf::U64(_) => E::U64,
            Buf::Pred(_) => E::Pred,
        }
    }

    /// A register of `elem`: narrow types get the lanes they are held in.
    pub(super) fn new(elem: E) -> Result<Buf> {
        Ok(match lanes(elem) {
            E::F32 => Buf::F32(vec![0.0; CHUNK]),
            E::F64 => Buf::F64(vec![0.0; CHUNK]),
            E::S32 => Buf::S32(vec![0; CHUNK]),
            E::S64 => Buf::S64(vec![0; CHUNK]),
            E::U32 => Buf::U32(vec![0; CHUNK]),
            E::U64 => Buf::U64(vec![0; CHUNK]),
            E::Pred => Buf::Pred(vec![0; CHUNK]),
            other => return Err(Error::unimplemented(format!("fused kernels on {other}"))),
        })
    }
}
