//! Register programs ([`BodyProgram`]) compiled to machine code with Cranelift (decision 80).
//!
//! Interpreted, each op of a register program costs ~3 ns of dispatch (a match, register-file
//! indexing), which for a loop body of ten one-element ops is most of an iteration; XLA:CPU runs
//! such a body as compiled code in ~12–35 ns. Here a program becomes one native function
//! `fn(regs, bases)` over the same register file and buffers, with the same bits: each op is the
//! Cranelift form of the scalar evaluator's op (`native_ops`), constants are immediates, and the
//! registers the program writes are written back to the file at exit, so a program run natively
//! leaves exactly what [`BodyProgram::run`] leaves.
//!
//! A program the JIT cannot compile keeps the interpreter; [`jit_failures`] counts those and a
//! warning names them, so a slow loop is never silent.

use super::body_program::{Axes, BodyProgram, POp, Reg};
use super::native_ops::{self as nops, Fb, MEM};
use apu_compiler::ir::{BinaryOp, ElementType as E};
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, AbiParam, InstBuilder, UserFuncName, Value};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Linkage, Module};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

/// `fn(registers, bases)`: the register file and the buffer pointers the ops address by `base`.
type Entry = unsafe extern "C" fn(*mut i64, *const *mut u8);

/// A compiled function and the JIT module that owns its code (freed on drop).
pub(in crate::exec) struct Native {
    entry: Entry,
    /// Only kept to free the code; behind a mutex because the module is `Send` but not `Sync`,
    /// and plans are shared across threads.
    code: Mutex<Option<JITModule>>,
}

impl std::fmt::Debug for Native {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Native")
    }
}

impl Drop for Native {
    fn drop(&mut self) {
        let module = match self.code.get_mut() {
            Ok(m) => m.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(m) = module {
            // SAFETY: `entry` points into this module's code, and `self` (its only holder) is
            // going away: nothing can call it after this.
            unsafe { m.free_memory() };
        }
    }
}

impl Native {
    /// Calls the function.
    ///
    /// # Safety
    /// As [`BodyProgram::run`] (or the loop's [`super::native_loop`] contract): `regs` is the
    /// function's register file and `bases` its live buffers.
    #[inline(always)]
    pub(in crate::exec) unsafe fn call(&self, regs: *mut i64, bases: *const *mut u8) {
        (self.entry)(regs, bases)
    }
}

static FAILURES: AtomicUsize = AtomicUsize::new(0);

/// How many programs the JIT could not compile (they run interpreted), since the library loaded.
/// Production reports each failure with a warning; tests read the count.
#[cfg_attr(not(test), allow(dead_code))]
pub(in crate::exec) fn jit_failures() -> usize {
    FAILURES.load(Ordering::Relaxed)
}

/// Whether loop bodies are compiled to native code: yes unless `APU_LOOP_JIT=0` (for measuring
/// against the interpreted programs, and a way out should the JIT misbehave on some machine).
pub(in crate::exec) fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("APU_LOOP_JIT").map_or(true, |v| v != "0"))
}

/// Counts and reports a JIT failure; the caller keeps its interpreted form.
pub(in crate::exec) fn failed(what: &str, err: &str) {
    FAILURES.fetch_add(1, Ordering::Relaxed);
    tracing::warn!("loop JIT: {what} stays interpreted: {err}");
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Compiles one function `fn(regs, bases)` whose body `build` emits (ending in a return), given
/// the builder and the two pointer parameters.
pub(super) fn compile(build: impl FnOnce(&mut Fb, Value, Value) -> Result<(), String>) -> Result<Native, String> {
    let started = std::time::Instant::now();
    let made = compile_untimed(build);
    // Compile time is part of a jitted program's first call (decision 80 keeps it in view).
    tracing::debug!("loop JIT: compiled in {} µs", started.elapsed().as_micros());
    made
}

fn compile_untimed(build: impl FnOnce(&mut Fb, Value, Value) -> Result<(), String>) -> Result<Native, String> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").map_err(err)?;
    let isa = cranelift_native::builder().map_err(err)?.finish(settings::Flags::new(flags)).map_err(err)?;
    let mut module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
    match define(&mut module, build) {
        Ok(entry) => Ok(Native { entry, code: Mutex::new(Some(module)) }),
        Err(e) => {
            // SAFETY: no function of the module was handed out.
            unsafe { module.free_memory() };
            Err(e)
        }
    }
}

fn define(module: &mut JITModule, build: impl FnOnce(&mut Fb, Value, Value) -> Result<(), String>) -> Result<Entry, String> {
    let mut ctx = module.make_context();
    let ptr = module.target_config().pointer_type();
    ctx.func.signature.params.extend([AbiParam::new(ptr), AbiParam::new(ptr)]);
    let id = module.declare_function("loop_body", Linkage::Local, &ctx.func.signature).map_err(err)?;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let mut fctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let (regs, bases) = (b.block_params(entry)[0], b.block_params(entry)[1]);
    build(&mut b, regs, bases)?;
    b.seal_all_blocks();
    b.finalize(module.target_config());
    module.define_function(id, &mut ctx).map_err(err)?;
    module.clear_context(&mut ctx);
    module.finalize_definitions().map_err(err)?;
    let code = module.get_finalized_function(id);
    // SAFETY: the function was declared with the signature of `Entry` (two pointers, no result)
    // in the host's default calling convention, which is `extern "C"`.
    Ok(unsafe { std::mem::transmute::<*const u8, Entry>(code) })
}

/// A program's ops emitted into a function under construction: registers as SSA values.
pub(super) struct Emitter<'p> {
    p: &'p BodyProgram,
    /// Per register: its current value.
    vals: Vec<Option<Value>>,
    /// Per base: the buffer pointer, loaded once.
    bases: Vec<Value>,
    /// Bases whose element 0 is a variable of the function instead (a whole loop's state held in
    /// a register across iterations): loads of the base read it.
    pub(super) held_loads: Vec<(u16, Variable)>,
    /// Bases whose stores set a value instead (`stored`, by the same index): a kernel's result
    /// that becomes such a state element.
    pub(super) held_stores: Vec<u16>,
    pub(super) stored: Vec<Option<Value>>,
}

impl<'p> Emitter<'p> {
    /// Sets up the values every op may read, in the current block (which must dominate all the
    /// ops): the buffer pointers, the constants, and (from the file at `regs`) any register read
    /// before the program writes it.
    pub(super) fn new(b: &mut Fb, p: &'p BodyProgram, regs: Value, bases: &[Value]) -> Emitter<'p> {
        let n = p.init.len();
        let mut written = vec![false; n];
        for op in &p.ops {
            if let Some(d) = op.dst() {
                written[d as usize] = true;
            }
        }
        let mut vals: Vec<Option<Value>> = vec![None; n];
        let mut defined = vec![false; n];
        for op in &p.ops {
            for r in op.reads(&p.axes) {
                let r = r as usize;
                if !defined[r] && vals[r].is_none() {
                    // Constants are never written: an immediate. A register read before any write
                    // (no builder makes one, but the file says what it holds) comes from the file.
                    vals[r] = Some(if written[r] { b.ins().load(types::I64, MEM, regs, (8 * r) as i32) } else { b.ins().iconst(types::I64, p.init[r]) });
                }
            }
            if let Some(d) = op.dst() {
                defined[d as usize] = true;
            }
        }
        Emitter { p, vals, bases: bases.to_vec(), held_loads: Vec::new(), held_stores: Vec::new(), stored: Vec::new() }
    }

    fn get(&self, r: Reg) -> Result<Value, String> {
        self.vals[r as usize].ok_or_else(|| format!("register {r} read before it is set"))
    }

    fn set(&mut self, r: Reg, v: Value) {
        self.vals[r as usize] = Some(v);
    }

    /// The address of element `elements` (a value) of base `base`, `e` elements.
    fn address(&self, b: &mut Fb, base: u16, elements: Value, e: E) -> Value {
        let bytes = b.ins().imul_imm_s(elements, e.byte_size() as i64);
        b.ins().iadd(self.bases[base as usize], bytes)
    }

    /// `BodyProgram::offset`: the clamped element offset of `axes` and whether the start was
    /// inside.
    fn offset(&self, b: &mut Fb, x: Axes) -> Result<(Value, Value), String> {
        let mut off = b.ins().iconst(types::I64, 0);
        let mut inside = b.ins().iconst(types::I8, 1);
        for a in &self.p.axes[x.first as usize..(x.first + x.len) as usize] {
            let mut s = self.get(a.reg)?;
            if a.unsigned64 {
                // A huge unsigned start is past the end.
                let max = b.ins().iconst(types::I64, i64::MAX);
                s = b.ins().umin(s, max);
            }
            let low = b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, s, 0);
            let high = b.ins().icmp_imm_s(IntCC::SignedLessThanOrEqual, s, a.last);
            let both = b.ins().band(low, high);
            inside = b.ins().band(inside, both);
            let (zero, last) = (b.ins().iconst(types::I64, 0), b.ins().iconst(types::I64, a.last));
            let c = b.ins().smax(s, zero);
            let c = b.ins().smin(c, last);
            let step = b.ins().imul_imm_s(c, a.stride as i64);
            off = b.ins().iadd(off, step);
        }
        Ok((off, inside))
    }

    /// Emits every op of the program, in order, at the current block (left at the block after
    /// the last op).
    pub(super) fn ops(&mut self, b: &mut Fb) -> Result<(), String> {
        for op in &self.p.ops {
            match *op {
                POp::Load { base, offset: 0, dst, .. } if self.held_loads.iter().any(|&(h, _)| h == base) => {
                    let var = self.held_loads.iter().find(|&&(h, _)| h == base).map(|&(_, v)| v).ok_or("held base")?;
                    let v = b.use_var(var);
                    self.set(dst, v);
                }
                POp::Load { base, offset, e, dst } => {
                    let at = b.ins().iconst(types::I64, i64::from(offset));
                    let p = self.address(b, base, at, e);
                    let v = nops::load(b, p, e)?;
                    self.set(dst, v);
                }
                POp::Store { base, a, .. } if self.held_stores.contains(&base) => {
                    let slot = self.held_stores.iter().position(|&h| h == base).ok_or("held store")?;
                    let v = self.get(a)?;
                    self.stored.resize(self.held_stores.len(), None);
                    self.stored[slot] = Some(v);
                }
                POp::Store { base, a, e } => {
                    let v = self.get(a)?;
                    nops::store(b, self.bases[base as usize], v, e)?;
                }
                POp::Read { base, axes, e, dst } => {
                    let (off, _) = self.offset(b, axes)?;
                    let p = self.address(b, base, off, e);
                    let v = nops::load(b, p, e)?;
                    self.set(dst, v);
                }
                POp::Write { base, axes, e, value, add, skip_outside } => {
                    let (off, inside) = self.offset(b, axes)?;
                    let p = self.address(b, base, off, e);
                    let v = self.get(value)?;
                    let after = skip_outside.then(|| {
                        let (write, after) = (b.create_block(), b.create_block());
                        b.ins().brif(inside, write, &[], after, &[]);
                        b.switch_to_block(write);
                        after
                    });
                    let v = if add {
                        let old = nops::load(b, p, e)?;
                        nops::binary(b, BinaryOp::Add, old, v, e)
                    } else {
                        v
                    };
                    nops::store(b, p, v, e)?;
                    if let Some(after) = after {
                        b.ins().jump(after, &[]);
                        b.switch_to_block(after);
                    }
                }
                POp::Binary { op, e, a, b: c, dst } => {
                    let v = nops::binary(b, op, self.get(a)?, self.get(c)?, e);
                    self.set(dst, v);
                }
                POp::Unary { op, e, a, dst } => {
                    let v = nops::unary(b, op, self.get(a)?, e);
                    self.set(dst, v);
                }
                POp::Compare { d, e, a, b: c, dst } => {
                    let v = nops::compare(b, d, self.get(a)?, self.get(c)?, e);
                    self.set(dst, v);
                }
                POp::Convert { from, to, a, dst } => {
                    let v = nops::convert(b, self.get(a)?, from, to);
                    self.set(dst, v);
                }
                POp::Select { p, a, b: c, dst } => {
                    let v = nops::select(b, self.get(p)?, self.get(a)?, self.get(c)?);
                    self.set(dst, v);
                }
                POp::Pow2 { a, k, signed, rem, dst } => {
                    let v = nops::pow2(b, self.get(a)?, k, signed, rem);
                    self.set(dst, v);
                }
            }
        }
        Ok(())
    }

    /// Stores every register the program wrote back to the file at `regs`.
    pub(super) fn write_back(&self, b: &mut Fb, regs: Value) {
        for op in &self.p.ops {
            if let Some(d) = op.dst() {
                if let Some(v) = self.vals[d as usize] {
                    b.ins().store(MEM, v, regs, (8 * d) as i32);
                }
            }
        }
    }
}

/// Loads the `n` buffer pointers of the array at `bases`.
pub(super) fn base_pointers(b: &mut Fb, bases: Value, n: usize) -> Vec<Value> {
    (0..n).map(|i| b.ins().load(types::I64, MEM, bases, (8 * i) as i32)).collect()
}

/// The native form of `p`: one run of the program.
pub(super) fn program(p: &BodyProgram) -> Result<Native, String> {
    if p.init.len() > (i32::MAX / 8) as usize || p.bases.len() > (i32::MAX / 8) as usize {
        return Err("register file or base list too large".into());
    }
    compile(|b, regs, bases| {
        let bases = base_pointers(b, bases, p.bases.len());
        let mut em = Emitter::new(b, p, regs, &bases);
        em.ops(b)?;
        em.write_back(b, regs);
        b.ins().return_(&[]);
        Ok(())
    })
}
