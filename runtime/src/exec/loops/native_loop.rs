//! A whole `while` loop as one native function: condition, body and next-state moves.
//!
//! With the body compiled (`super::native`), what remains of an iteration in `run_fast_loop` is
//! its bookkeeping: the walk over the body's kernels, the condition through the vector evaluator,
//! the buffer swaps, each a few nanoseconds against XLA:CPU's ~12–35 ns for the whole iteration
//! of a `fori_loop` recurrence or a Collatz step. When the body is one register program of all its
//! kernels (the counter's included) and the condition is a scalar expression of the state, the
//! loop itself is generated: the condition's ops, the body's ops, then each state element that a
//! kernel's result becomes is copied from that kernel's one-element buffer (the interpreter swaps
//! the buffers; every kernel buffer of such a body is one element and is stored before it is read
//! in an iteration, so a copy leaves the same state).

use super::body_program::{BodyProgram, POp};
use super::loop_body::{FastBody, Source};
use super::native::{self, base_pointers, Emitter, Native};
use super::native_ops::{self as nops, Fb, MEM};
use crate::exec::scalar::{Op, ScalarExpr};
use apu_compiler::ir::ElementType as E;
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::Variable;

/// The loop's machine code and the buffers it addresses.
#[derive(Debug)]
pub(in crate::exec) struct NativeLoop {
    /// The body as one program (its register file is the function's).
    pub(in crate::exec) program: BodyProgram,
    /// The buffers the function addresses, by index: the program's bases first.
    pub(in crate::exec) bases: Vec<Source>,
    pub(in crate::exec) native: Native,
}

impl NativeLoop {
    /// The loop of `fb` under the condition `cond` over `cond_inputs` (state elements or slots),
    /// when it has the form above; a JIT failure is reported and leaves the loop to the
    /// interpreted path.
    pub(in crate::exec) fn of(fb: &FastBody, cond: &ScalarExpr, cond_inputs: &[Source]) -> Option<NativeLoop> {
        if !native::enabled() || cond_inputs.iter().any(|s| matches!(s, Source::Kernel(_))) {
            return None;
        }
        let program = BodyProgram::whole(fb)?;
        let mut bases = program.bases.clone();
        let mut index = |s: Source| match bases.iter().position(|&b| b == s) {
            Some(i) => i,
            None => {
                bases.push(s);
                bases.len() - 1
            }
        };
        let cond_bases: Vec<usize> = cond_inputs.iter().map(|&s| index(s)).collect();
        // (from, to, type): kernel j's one element becomes state element i.
        let mut copies = Vec::new();
        for (i, n) in fb.next.iter().enumerate() {
            let Some(j) = *n else { continue };
            let k = &fb.kernels[j];
            if k.home.is_some() || k.elements != 1 || k.bytes != k.esize || !matches!(k.esize, 1 | 4 | 8) {
                return None;
            }
            copies.push((index(Source::Kernel(j)), index(Source::State(i)), k.esize));
        }
        let held = held_state(&program, cond, &cond_bases, &copies, fb);
        let copies: Vec<_> = copies.into_iter().filter(|c| !held.iter().any(|h| h.copy == *c)).collect();
        let n_bases = bases.len();
        let made = native::compile(|b, regs, base_array| {
            let ptrs = base_pointers(b, base_array, n_bases);
            let mut em = Emitter::new(b, &program, regs, &ptrs);
            // Held state: a variable from the buffer's value at entry, and a flag for "the body
            // ran" (a loop that never runs leaves the buffer's bytes untouched, even an f32
            // signalling NaN that a load and store would quiet).
            let ran = b.declare_var(types::I8);
            let zero = b.ins().iconst(types::I8, 0);
            b.def_var(ran, zero);
            let mut vars = Vec::with_capacity(held.len());
            for h in &held {
                let v = b.declare_var(types::I64);
                let x = nops::load(b, ptrs[h.copy.1], h.e)?;
                b.def_var(v, x);
                vars.push(v);
                em.held_loads.push((h.program_state, v));
                em.held_stores.push(h.program_kernel);
            }
            let (header, body, exit) = (b.create_block(), b.create_block(), b.create_block());
            b.ins().jump(header, &[]);
            b.switch_to_block(header);
            let cond_held: Vec<(usize, Variable)> = held.iter().zip(&vars).map(|(h, &v)| (h.copy.1, v)).collect();
            let go = condition(b, cond, &cond_bases, &ptrs, &cond_held)?;
            b.ins().brif(go, body, &[], exit, &[]);
            b.switch_to_block(body);
            em.ops(b)?;
            let one = b.ins().iconst(types::I8, 1);
            b.def_var(ran, one);
            for (slot, &v) in vars.iter().enumerate() {
                let next = em.stored.get(slot).copied().flatten().ok_or("held state without its next value")?;
                b.def_var(v, next);
            }
            for &(from, to, bytes) in &copies {
                // The element's bytes as they are (a float through a float register could quiet
                // a signalling NaN).
                let ty = match bytes {
                    1 => types::I8,
                    4 => types::I32,
                    _ => types::I64,
                };
                let v = b.ins().load(ty, MEM, ptrs[from], 0);
                b.ins().store(MEM, v, ptrs[to], 0);
            }
            b.ins().jump(header, &[]);
            b.switch_to_block(exit);
            let (store, done) = (b.create_block(), b.create_block());
            let ran = b.use_var(ran);
            b.ins().brif(ran, store, &[], done, &[]);
            b.switch_to_block(store);
            for (h, &v) in held.iter().zip(&vars) {
                let x = b.use_var(v);
                nops::store(b, ptrs[h.copy.1], x, h.e)?;
            }
            b.ins().jump(done, &[]);
            b.switch_to_block(done);
            b.ins().return_(&[]);
            Ok(())
        });
        match made {
            Ok(native) => Some(NativeLoop { program, bases, native }),
            Err(e) => {
                native::failed("whole loop", &e);
                None
            }
        }
    }
}

/// A state element kept in a variable through the loop instead of its buffer: a one-element
/// value that the body reads only by plain loads and that one kernel's stored result becomes.
/// In memory, each iteration would store it, copy it and load it back, a chain of
/// store-to-load forwards (~4–5 cycles each) on the loop's critical path.
struct Held {
    /// `(kernel buffer, state buffer, bytes)` of the function's base list, as in `copies`.
    copy: (usize, usize, usize),
    /// The same two buffers as bases of the program.
    program_kernel: u16,
    /// `u16::MAX` when the program does not read the state (only the condition does).
    program_state: u16,
    e: E,
}

/// The state elements of `copies` that can be held in variables: the program touches the state
/// buffer only by loads of element 0 of the kernel's type and the kernel's buffer only by its one
/// store, and the condition reads the state only as element 0 of that type.
fn held_state(program: &BodyProgram, cond: &ScalarExpr, cond_bases: &[usize], copies: &[(usize, usize, usize)], fb: &FastBody) -> Vec<Held> {
    let (cond_ops, cond_elems) = cond.parts();
    let mut held = Vec::new();
    for &(from, to, bytes) in copies {
        let Some(Source::Kernel(j)) = program.bases.get(from).copied() else { continue };
        let e = fb.kernels[j].elem;
        // The state's base in the program, if the program reads it at all (the function's base
        // list starts with the program's).
        let n = program.bases.len();
        let (kernel_base, state_base) = (from as u16, if to < n { to as u16 } else { u16::MAX });
        let mut stores = 0;
        let mut fits = true;
        for op in &program.ops {
            match *op {
                POp::Load { base, offset, e: le, .. } if base == state_base => fits &= offset == 0 && le == e,
                POp::Store { base, .. } if base == kernel_base => stores += 1,
                POp::Load { base, .. } | POp::Store { base, .. } | POp::Read { base, .. } | POp::Write { base, .. } => fits &= base != state_base && base != kernel_base,
                _ => {}
            }
        }
        let cond_reads_fit = cond_ops.iter().enumerate().all(|(i, op)| match *op {
            Op::Load { input, offset } if cond_bases.get(input) == Some(&to) => offset == 0 && cond_elems[i] == e,
            _ => true,
        });
        if fits && stores == 1 && cond_reads_fit && bytes == e.byte_size() {
            held.push(Held { copy: (from, to, bytes), program_kernel: kernel_base, program_state: state_base, e });
        }
    }
    held
}

/// The condition's value (held pred, 0/1) from its inputs at `ptrs[bases[input]]`, or from the
/// variable holding a base's element 0 (`held`, by base index).
fn condition(b: &mut Fb, cond: &ScalarExpr, bases: &[usize], ptrs: &[Value], held: &[(usize, Variable)]) -> Result<Value, String> {
    let (ops, elems) = cond.parts();
    let mut v: Vec<Value> = Vec::with_capacity(ops.len());
    for (i, op) in ops.iter().enumerate() {
        let e = elems[i];
        let x = match *op {
            Op::Load { input, offset } => {
                let index = *bases.get(input).ok_or("condition input missing")?;
                if let Some(&(_, var)) = held.iter().find(|&&(h, _)| h == index).filter(|_| offset == 0) {
                    v.push(b.use_var(var));
                    continue;
                }
                let base = ptrs[index];
                let at = b.ins().iadd_imm_s(base, (offset * e.byte_size()) as i64);
                nops::load(b, at, e)?
            }
            Op::Const(k) => b.ins().iconst(types::I64, k),
            Op::Binary(op, x, y) => nops::binary(b, op, v[x], v[y], e),
            Op::Unary(op, x) => nops::unary(b, op, v[x], e),
            Op::Compare(d, x, y) => nops::compare(b, d, v[x], v[y], elems[x]),
            Op::Convert(x) => nops::convert(b, v[x], elems[x], e),
            Op::Select(p, x, y) => nops::select(b, v[p], v[x], v[y]),
        };
        v.push(x);
    }
    match (v.last(), elems.last()) {
        (Some(&go), Some(E::Pred)) => Ok(go),
        _ => Err("condition is not a pred".into()),
    }
}
