//! The plan executor: [`Program::compile`] lowers a validated module to an immutable
//! [`apu_compiler::plan::Plan`] and prepares its kernels; [`Program::run`] executes it with per-run
//! slots, recycling buffers whose last use has passed (and reusing them across runs).
//!
//! `APU_EXECUTOR=interp` makes every program run on the reference interpreter (for debugging);
//! `APU_NUM_THREADS` sets the worker count.
//!
//! Layout, by job: this file is the program and the run-step driver (slots, the buffer pool of
//! `pool`, the dispatch of each step, and the interpreter step, the one door into `interp`);
//! `kernels/` the kernels of one step on whole buffers and their step adapters (`kernels::steps`);
//! `fused/` the vectorised chunk evaluator of fused elementwise kernels; `scalar/` the one-element
//! evaluators; `loops/` while / case and loop bodies on fixed buffers; `manual` collectives and
//! manual computations; `threads/` the rayon pool a kernel is split across; `fallbacks`
//! the listing of interpreter steps for tests and tools.

mod fallbacks;

pub mod fused;
mod kernels;
mod loops;
mod manual;
pub(crate) use manual::fold_other;
mod pool;
mod scalar;
mod threads;
pub use threads::workers;

use crate::{interp, AlignedBytes, Tensor};
use apu_compiler::ir::{BinaryOp, ComparisonDirection, ComparisonType, ElementType, Op, OpKind, TensorType, UnaryOp, ValueId};
use apu_compiler::plan::{lower, Capabilities, FfiCallKernel, HostCallbackKernel, KScalar, Plan, SlotId, Step, StepKind};
use apu_compiler::valid::ValidModule;
use apu_compiler::{Error, Result};
use fused::Compiled;
use kernels::{gemm, reduce, transpose};
use loops::control;
use scalar::one_element;
use crate::rng::RunRng;
use pool::Pool;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use workers::Workers;
pub use fallbacks::{fallbacks_in_dir, fallbacks_of};
pub use kernels::conv::takes_dot_form;

/// A raw buffer pointer handed to worker threads; kernels write disjoint ranges.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Ptr(pub *const u8);
unsafe impl Send for Ptr {}
unsafe impl Sync for Ptr {}
impl Ptr {
    /// The pointer (a method, so closures capture the whole `Ptr`, which is `Sync`).
    pub fn get(self) -> *const u8 {
        self.0
    }

    /// The raw pointers of a list (without copying it into a new vector).
    pub fn raw(list: &[Ptr]) -> &[*const u8] {
        // SAFETY: `Ptr` is a transparent wrapper of `*const u8`, so the two slices have one layout.
        unsafe { std::slice::from_raw_parts(list.as_ptr() as *const *const u8, list.len()) }
    }
}

/// What the kernels of this executor implement (asked by the lowering).
struct Kernels;

impl Capabilities for Kernels {
    fn foreign_call(&self, target: &str) -> bool {
        !crate::interp::support::is_apu_custom_call(target)
    }
    fn fused_elem(&self, elem: ElementType) -> bool {
        fused::elem_supported(elem)
    }
    fn unary(&self, op: UnaryOp, elem: ElementType) -> bool {
        fused::unary_supported(op, elem)
    }
    fn binary(&self, op: BinaryOp, elem: ElementType) -> bool {
        fused::binary_supported(op, elem)
    }
    fn compare(&self, _dir: ComparisonDirection, ty: Option<ComparisonType>, elem: ElementType) -> bool {
        fused::compare_supported(ty, elem)
    }
    fn convert(&self, from: ElementType, to: ElementType) -> bool {
        fused::convert_supported(from, to)
    }
    fn reduce(&self, op: BinaryOp, elem: ElementType) -> bool {
        reduce::supported(op, elem)
    }
    fn dot(&self, lhs: ElementType, rhs: ElementType, out: ElementType) -> bool {
        gemm::supported(lhs, rhs, out)
    }
    fn one_element(&self, kind: &OpKind, operands: &[ElementType], result: ElementType) -> bool {
        one_element::supported(kind, operands, result)
    }
}

/// Executor settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Worker threads; 1 runs everything on the calling thread.
    pub threads: usize,
    /// Work (elements times per-element cost) from which a kernel is split across threads.
    pub min_parallel_work: usize,
    /// Run on the reference interpreter instead of a plan.
    pub interpret: bool,
    /// Row-blocked groups (softmax and the like) run this many bytes of each full-size value per
    /// block of rows (small enough that a block's values stay in L1).
    pub row_block_bytes: usize,
}

impl Options {
    /// Defaults, overridden by `APU_NUM_THREADS` and `APU_EXECUTOR=interp`.
    pub fn from_env() -> Options {
        Options {
            threads: workers::default_threads(),
            min_parallel_work: 1 << 16,
            interpret: std::env::var("APU_EXECUTOR").map(|v| v == "interp").unwrap_or(false),
            row_block_bytes: std::env::var("APU_ROW_BLOCK_BYTES").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(DEFAULT_ROW_BLOCK_BYTES),
        }
    }
}

/// Bytes of one full-size value per block of a row-blocked group: a few such values and the
/// fused kernels' registers fit a 32 KiB L1 data cache.
pub const DEFAULT_ROW_BLOCK_BYTES: usize = 16 << 10;

/// A compiled program, shareable between threads; each [`Program::run`] has its own slots.
pub struct Program {
    kind: Kind,
    /// This program's serial number in the process, and how many runs it has started: together
    /// they give each run its `rng` seed (see [`crate::rng`] and `interp::random`).
    serial: u64,
    runs: AtomicU64,
    /// Replicas whose collectives meet (a `num_replicas > 1` program with collectives outside manual
    /// computations): such a program runs through [`Program::run_replicated`], not alone.
    launch_replicas: usize,
}

/// Serial numbers of compiled programs.
static NEXT_PROGRAM: AtomicU64 = AtomicU64::new(0);

enum Kind {
    Interp(ValidModule),
    Plan(Box<Executable>),
}

/// A step's prepared kernel.
enum Prepared {
    Expr(Compiled),
    /// A `while` step: what its loop can skip per iteration (see [`control`]).
    Loop(control::LoopPlan),
    None,
}

struct Executable {
    plan: Plan,
    prepared: Vec<Prepared>,
    constants: Vec<(usize, Arc<AlignedBytes>)>,
    workers: Workers,
    /// See [`Options::row_block_bytes`].
    row_block_bytes: usize,
    /// Buffers left from earlier runs, reused so large buffers stay mapped.
    spare: Mutex<Pool>,
    /// Outputs handed out by earlier runs: once the caller has dropped one, its buffer is reused
    /// (fresh large allocations cost a page fault per 4 KiB on first touch).
    handed_out: Mutex<Vec<Arc<AlignedBytes>>>,
}

/// At most this many spare buffers are kept between runs.
const MAX_SPARE: usize = 64;
/// Outputs smaller than this are not tracked for reuse (malloc serves them well).
const RECYCLE_MIN_BYTES: usize = 1 << 16;

impl Program {
    /// The compile pipeline's steps after validation ([`crate::client::compile::program`]), with
    /// the environment's options; for callers that start from a validated module.
    pub fn compile(module: &ValidModule) -> Result<Program> {
        Program::compile_with(module, &Options::from_env())
    }

    pub fn compile_with(module: &ValidModule, options: &Options) -> Result<Program> {
        crate::client::compile::program(module, options)
    }

    /// A program that runs `module` on the reference interpreter.
    pub fn interpreted(module: ValidModule) -> Program {
        Program::new(Kind::Interp(module))
    }

    /// Lowers a simplified module to a plan and prepares its kernels. The interpreter has accepted
    /// the module, so a plan that cannot be built is not the user's problem: that program runs on
    /// the interpreter instead.
    pub fn planned(module: &ValidModule, options: &Options) -> Result<Program> {
        let planned = lower::lower(module.module(), &Kernels).and_then(|plan| match plan {
            Some(plan) => {
                let mut prepared: Vec<Prepared> = (0..plan.num_steps).map(|_| Prepared::None).collect();
                prepare(&plan.steps, &plan.slots, &mut prepared)?;
                Ok(Some((plan, prepared)))
            }
            None => Ok(None),
        });
        let (plan, prepared) = match planned {
            Ok(Some(p)) => p,
            Ok(None) => return Ok(Program::new(Kind::Interp(module.clone()))),
            Err(e) => {
                tracing::warn!("no plan for @{}, running it on the interpreter: {e}", module.entry_function().name);
                return Ok(Program::new(Kind::Interp(module.clone())));
            }
        };
        let mut constants = Vec::new();
        for (slot, lit) in &plan.constants {
            constants.push((*slot, Arc::new(AlignedBytes::from_slice(&lit.to_dense_bytes()))));
        }
        let workers = Workers::new(options.threads, options.min_parallel_work)?;
        Ok(Program::new(Kind::Plan(Box::new(Executable {
            plan,
            prepared,
            constants,
            workers,
            row_block_bytes: options.row_block_bytes.max(1),
            spare: Mutex::new(Pool::default()),
            handed_out: Mutex::new(Vec::new()),
        }))))
    }

    /// The plan, unless the program runs on the interpreter.
    pub fn plan(&self) -> Option<&Plan> {
        match &self.kind {
            Kind::Plan(e) => Some(&e.plan),
            Kind::Interp(_) => None,
        }
    }

    fn new(kind: Kind) -> Program {
        let module = match &kind {
            Kind::Interp(m) => m.module(),
            Kind::Plan(e) => &e.plan.module,
        };
        let launch_replicas = if module.num_replicas > 1 && has_global_collective(&module.entry_function().body) { module.num_replicas as usize } else { 0 };
        Program { kind, serial: NEXT_PROGRAM.fetch_add(1, Ordering::Relaxed), runs: AtomicU64::new(0), launch_replicas }
    }

    /// Replicas that must run together ([`Program::run_replicated`]); 0 when a run stands alone.
    pub fn launch_replicas(&self) -> usize {
        self.launch_replicas
    }

    /// Runs the program once per replica, concurrently (one thread each, decision 65), `args[r]`
    /// being replica r's arguments; the replicas' collectives meet. Returns each replica's results.
    pub fn run_replicated(&self, args: &[Vec<Tensor>]) -> Result<Vec<Vec<Tensor>>> {
        let n = args.len();
        if self.launch_replicas > 0 && n != self.launch_replicas {
            return Err(Error::invalid(format!("the program has {} replicas, got {n} argument lists", self.launch_replicas)));
        }
        crate::collectives::run_instances(n, n as i64, 1, &|r| self.run(&args[r]))
    }

    /// Runs the program; `rng` ops draw from a seed new to this run.
    pub fn run(&self, args: &[Tensor]) -> Result<Vec<Tensor>> {
        self.run_into(args, Vec::new())
    }

    /// Runs the program with `rng` ops drawing from run seed `seed` (the interpreter and the plan
    /// give the same numbers for the same seed).
    pub fn run_seeded(&self, args: &[Tensor], seed: u64) -> Result<Vec<Tensor>> {
        match &self.kind {
            Kind::Interp(m) => interp::run_seeded(m, args, seed),
            Kind::Plan(e) => e.run(args, Vec::new(), &RunRng::new(seed)),
        }
    }

    /// Runs the program like [`Program::run`], writing result `i` straight into `targets[i]` when
    /// it is `Some` buffer of the result's size and the step computing the result can write into it
    /// (a caller's output memory, e.g. a TensorFlow output tensor: no copy out). The caller compares
    /// a result's data pointer with its target to know whether it still has to copy. Targets are
    /// never kept past the run; the interpreter and replicated programs do not use them.
    pub fn run_into(&self, args: &[Tensor], targets: Vec<Option<AlignedBytes>>) -> Result<Vec<Tensor>> {
        if self.launch_replicas > 0 && !crate::collectives::in_instance() {
            return Err(Error::unimplemented(format!(
                "a program of {} replicas whose collectives span replicas runs through run_replicated, not one replica alone",
                self.launch_replicas
            )));
        }
        let run = self.runs.fetch_add(1, Ordering::Relaxed);
        let seed = RunRng::run_seed(self.serial, run);
        match &self.kind {
            Kind::Plan(e) if self.launch_replicas == 0 => {
                let targets = targets.into_iter().zip(&e.plan.results).filter_map(|(t, &slot)| Some((slot, t?))).collect();
                e.run(args, targets, &RunRng::new(seed))
            }
            _ => self.run_seeded(args, seed),
        }
    }
}

/// Whether `region` (or a region nested in it, manual computations' bodies excepted) holds a
/// collective.
fn has_global_collective(region: &apu_compiler::ir::Region) -> bool {
    region.ops.iter().any(|op| match &op.kind {
        OpKind::AllReduce { .. } | OpKind::AllGather { .. } | OpKind::ReduceScatter { .. } | OpKind::AllToAll { .. } => true,
        OpKind::CollectivePermute { .. } | OpKind::CollectiveBroadcast { .. } => true,
        OpKind::ManualComputation(_) => false,
        _ => op.regions.iter().any(has_global_collective),
    })
}

/// The input expression of a reduce kernel, which runs on the vector evaluator (the lowering fuses
/// only vector-typed ops into reduces; this refuses at compile time what would fail at run time).
fn reduce_input(expr: &apu_compiler::plan::Expr, shape: &[i64], num_inputs: usize) -> Result<Compiled> {
    let ex = Compiled::new(expr, shape, num_inputs)?;
    if !ex.on_vector_kernels() {
        return Err(Error::internal(format!("reduce input expression on {:?}, which the vector kernels lack", expr.elems)));
    }
    Ok(ex)
}

/// Prepares the kernels of `steps` and of their nested blocks, by step id.
fn prepare(steps: &[Step], types: &[TensorType], prepared: &mut [Prepared]) -> Result<()> {
    for step in steps {
        let slot = prepared.get_mut(step.id).ok_or_else(|| Error::internal(format!("step id {} out of range", step.id)))?;
        *slot = match &step.kind {
            StepKind::Elementwise(k) => Prepared::Expr(Compiled::new(&k.expr, &k.shape, k.inputs.len())?),
            StepKind::Reduce(k) => Prepared::Expr(reduce_input(&k.expr, &k.input_shape, k.inputs.len())?),
            StepKind::ArgReduce(k) => Prepared::Expr(reduce_input(&k.expr, &k.input_shape, k.inputs.len())?),
            StepKind::While { cond, body, .. } => Prepared::Loop(control::LoopPlan::new(cond, body, types)),
            _ => Prepared::None,
        };
        for inner in step.kind.nested_steps() {
            prepare(inner, types, prepared)?;
        }
    }
    Ok(())
}

/// A run's buffers by slot id (`None` before a slot is written and after its last use).
type Slots = [Option<Arc<AlignedBytes>>];

impl Executable {
    /// `targets`: (result slot, caller's buffer) pairs, see [`Program::run_into`].
    fn run(&self, args: &[Tensor], targets: Vec<(usize, AlignedBytes)>, rng: &RunRng) -> Result<Vec<Tensor>> {
        let plan = &self.plan;
        let entry = plan.module.entry_function();
        if args.len() != plan.params.len() {
            return Err(Error::invalid(format!("@{} takes {} arguments, got {}", entry.name, plan.params.len(), args.len())));
        }
        let mut slots: Vec<Option<Arc<AlignedBytes>>> = vec![None; plan.slots.len()];
        for (i, (&s, a)) in plan.params.iter().zip(args).enumerate() {
            if a.ty != plan.slots[s] {
                return Err(Error::invalid(format!("argument {i} of @{}: expected {}, got {}", entry.name, plan.slots[s], a.ty)));
            }
            slots[s] = Some(a.data.clone());
        }
        for (s, bytes) in &self.constants {
            slots[*s] = Some(bytes.clone());
        }
        let mut pool = std::mem::take(&mut *self.spare.lock().unwrap_or_else(|p| p.into_inner()));
        if let Ok(mut handed_out) = self.handed_out.try_lock() {
            for arc in std::mem::take(&mut *handed_out) {
                match Arc::try_unwrap(arc) {
                    Ok(buf) => pool.put(buf),
                    Err(arc) => handed_out.push(arc),
                }
            }
        }
        for (slot, b) in targets {
            pool.target(slot, b);
        }
        let ran = self.run_steps(&plan.steps, &mut slots, &mut pool, rng);
        pool.clear_targets();
        ran?;
        let mut out = Vec::with_capacity(plan.results.len());
        for &r in &plan.results {
            let data = slots[r].clone().ok_or_else(|| Error::internal(format!("result slot {r} was never written")))?;
            out.push(Tensor { ty: plan.slots[r].clone(), data });
        }
        drop(slots);
        if let Ok(mut handed_out) = self.handed_out.try_lock() {
            for t in &out {
                // External memory (an argument passed through, a caller's target) is not ours to reuse.
                let ours = !t.data.is_external();
                if ours && handed_out.len() < MAX_SPARE && t.data.len() >= RECYCLE_MIN_BYTES && !handed_out.iter().any(|a| Arc::ptr_eq(a, &t.data)) {
                    handed_out.push(t.data.clone());
                }
            }
        }
        pool.truncate(MAX_SPARE);
        if let Ok(mut spare) = self.spare.try_lock() {
            if spare.len() < pool.len() {
                *spare = pool;
            }
        }
        Ok(out)
    }

    fn run_steps(&self, steps: &[Step], slots: &mut Slots, pool: &mut Pool, rng: &RunRng) -> Result<()> {
        for step in steps {
            let timer = crate::profile::begin();
            self.run_step(&step.kind, &self.prepared[step.id], slots, pool, rng).map_err(|e| e.context(format!("plan step {}", step.id)))?;
            if let Some(t) = timer {
                t.end(crate::profile::SpanKind::Step, || (step.kind.name(), self.step_shapes(&step.kind)));
            }
            for &s in &step.free_after {
                if let Some(buf) = slots[s].take() {
                    pool.release(s, buf);
                }
            }
        }
        Ok(())
    }

    /// "inputs -> outputs" of a step, for its profile span.
    fn step_shapes(&self, kind: &StepKind) -> String {
        let list = |slots: Vec<usize>| slots.iter().filter_map(|&s| self.plan.slots.get(s)).map(|t| t.to_string()).collect::<Vec<_>>().join(", ");
        format!("{} -> {}", list(kind.reads()), list(kind.writes()))
    }

    /// Slot `s`'s bytes, borrowed (no reference count traffic).
    fn slot_bytes(slots: &Slots, s: usize) -> Result<&[u8]> {
        slots.get(s).and_then(|b| b.as_deref()).map(|b| b.as_slice()).ok_or_else(|| Error::internal(format!("slot {s} is read before it is written")))
    }

    fn slot_arc(slots: &Slots, s: usize) -> Result<Arc<AlignedBytes>> {
        slots.get(s).and_then(|b| b.clone()).ok_or_else(|| Error::internal(format!("slot {s} is read before it is written")))
    }

    /// A buffer holding slot `s`'s bytes that a step may overwrite: the slot's own buffer when
    /// `in_place` (the plan says this step is its last use) and nobody else holds it, else a copy.
    fn writable_copy(slots: &mut Slots, pool: &mut Pool, s: usize, in_place: bool) -> Result<AlignedBytes> {
        if in_place {
            if let Some(b) = slots[s].take() {
                match Arc::try_unwrap(b) {
                    Ok(owned) => return Ok(owned),
                    Err(shared) => slots[s] = Some(shared),
                }
            }
        }
        let src = Self::slot_arc(slots, s)?;
        let mut b = pool.take(src.len());
        b.as_mut_slice().copy_from_slice(src.as_slice());
        Ok(b)
    }

    fn slot_ptr(slots: &Slots, s: usize) -> Result<Ptr> {
        slots
            .get(s)
            .and_then(|b| b.as_ref())
            .map(|b| Ptr(b.as_ptr()))
            .ok_or_else(|| Error::internal(format!("slot {s} is read before it is written")))
    }

    /// Runs one step: kernel steps are `kernels::steps`, loops and branches `loops::control`,
    /// row groups `kernels::rows`, collectives and manual computations `manual`.
    fn run_step(&self, kind: &StepKind, prepared: &Prepared, slots: &mut Slots, pool: &mut Pool, rng: &RunRng) -> Result<()> {
        match (kind, prepared) {
            (StepKind::Elementwise(k), Prepared::Expr(ex)) => self.run_elementwise(k, ex, slots, pool)?,
            (StepKind::Reduce(k), Prepared::Expr(ex)) => self.run_reduce(k, ex, slots, pool)?,
            (StepKind::ArgReduce(k), Prepared::Expr(ex)) => self.run_arg_reduce(k, ex, slots, pool)?,
            (StepKind::Dot(d), _) => self.run_dot(d, slots, pool)?,
            (StepKind::Concat(k), _) => self.run_concat(k, slots, pool)?,
            (StepKind::DynamicSlice(k), _) => self.run_dynamic_slice(k, slots, pool)?,
            (StepKind::IndexedCopy(k), _) => self.run_indexed_copy(k, slots, pool)?,
            (StepKind::Conv(c), _) => self.run_conv(c, slots, pool)?,
            (StepKind::DepthwiseConv(c), _) => self.run_depthwise(c, slots, pool)?,
            (StepKind::Window(k), _) => self.run_window(k, slots, pool)?,
            (StepKind::SelectScatter(k), _) => self.run_select_scatter(k, slots, pool)?,
            (StepKind::Pad(k), _) => self.run_pad(k, slots, pool)?,
            (StepKind::ViewCopy(k), _) => self.run_view_copy(k, slots, pool)?,
            (StepKind::Sort(k), _) => self.run_sort(k, slots, pool)?,
            (StepKind::Alias { src, dst }, _) => {
                slots[*dst] = Some(slots[*src].clone().ok_or_else(|| Error::internal("alias of an unwritten slot"))?);
            }
            (StepKind::Fallback { op, inputs, captured, outputs }, _) => self.run_fallback(op, inputs, captured, outputs, slots, rng)?,
            (StepKind::HostCallback(k), _) => self.run_host_callback(k, slots)?,
            (StepKind::FfiCall(k), _) => self.run_ffi_call(k, slots)?,
            (StepKind::While { inputs, cond, body, outputs, .. }, Prepared::Loop(lp)) => self.run_while(lp, inputs, cond, body, outputs, slots, pool, rng)?,
            (StepKind::Case { index, branches, outputs, .. }, _) => self.run_case(*index, branches, outputs, slots, pool, rng)?,
            (StepKind::Rows(g), _) => self.run_rows(g, slots, pool, rng)?,
            (StepKind::Collective(k), _) => self.run_collective(k, slots)?,
            (StepKind::InstanceId { replica, out }, _) => self.run_instance_id(*replica, *out, slots),
            (StepKind::Manual { computation, inputs, captured, body, outputs }, _) => {
                self.run_manual(computation, inputs, captured, body, outputs, slots, rng)?
            }
            _ => return Err(Error::internal("plan step without its prepared kernel")),
        }
        Ok(())
    }

    /// The interpreter step: one op the plan leaves to the reference interpreter (each is named by
    /// `Plan::fallbacks`; the one door from the executor into `interp`).
    fn run_fallback(&self, op: &Op, inputs: &[SlotId], captured: &[(ValueId, SlotId)], outputs: &[SlotId], slots: &mut Slots, rng: &RunRng) -> Result<()> {
        let plan = &self.plan;
        let tensor = |s: usize| -> Result<Tensor> {
            let data = slots[s].clone().ok_or_else(|| Error::internal(format!("slot {s} is read before it is written")))?;
            Ok(Tensor { ty: plan.slots[s].clone(), data })
        };
        let operands = inputs.iter().map(|&s| tensor(s)).collect::<Result<Vec<_>>>()?;
        let captured = captured.iter().map(|&(v, s)| Ok((v, tensor(s)?))).collect::<Result<Vec<_>>>()?;
        let results = interp::eval_one_op(&plan.module, plan.module.entry_function(), op, &operands, &captured, rng)?;
        if results.len() != outputs.len() {
            return Err(Error::internal(format!("{} returned {} results, expected {}", op.kind.name(), results.len(), outputs.len())));
        }
        for (&s, t) in outputs.iter().zip(results) {
            if t.ty != plan.slots[s] {
                return Err(Error::internal(format!("{} returned {}, expected {}", op.kind.name(), t.ty, plan.slots[s])));
            }
            slots[s] = Some(t.data);
        }
        Ok(())
    }

    /// A call into the host process with the step's operands, on this thread.
    fn run_host_callback(&self, k: &HostCallbackKernel, slots: &mut Slots) -> Result<()> {
        let (args, types) = self.call_operands(&k.inputs, &k.outputs, slots)?;
        for (&s, t) in k.outputs.iter().zip(crate::host_callback::call(k.callback, &args, &types)?) {
            slots[s] = Some(t.data);
        }
        Ok(())
    }

    /// The operands of a step that calls out of the plan (host callback, FFI handler) as tensors,
    /// and the types of its results.
    fn call_operands(&self, inputs: &[SlotId], outputs: &[SlotId], slots: &Slots) -> Result<(Vec<Tensor>, Vec<TensorType>)> {
        let plan = &self.plan;
        let args = inputs
            .iter()
            .map(|&s| {
                let data = slots[s].clone().ok_or_else(|| Error::internal(format!("slot {s} is read before it is written")))?;
                Ok(Tensor { ty: plan.slots[s].clone(), data })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((args, outputs.iter().map(|&s| plan.slots[s].clone()).collect()))
    }
}

impl Executable {
    /// A typed-FFI handler call with the step's operands, on this thread.
    fn run_ffi_call(&self, k: &FfiCallKernel, slots: &mut Slots) -> Result<()> {
        let (args, types) = self.call_operands(&k.inputs, &k.outputs, slots)?;
        let context = crate::ffi::context::InvokeContext::new(0, 0);
        let call = apu_compiler::plan::TypedFfiCall {
            target: &k.target,
            attributes: &k.attributes,
            aliases: &k.aliases,
            operand_layouts: &k.operand_layouts,
            result_layouts: &k.result_layouts,
        };
        for (&s, t) in k.outputs.iter().zip(crate::ffi::call(&call, &args, &types, &context)?) {
            slots[s] = Some(t.data);
        }
        Ok(())
    }
}

/// The input pointers of a kernel call: on the stack for the usual few inputs (a heap vector per
/// call shows in loops that run small kernels thousands of times).
enum Args {
    Inline([Ptr; 8], usize),
    Heap(Vec<Ptr>),
}

impl Args {
    fn of(slots: &Slots, ids: &[usize]) -> Result<Args> {
        if ids.len() <= 8 {
            let mut a = [Ptr(std::ptr::null()); 8];
            for (d, &s) in a.iter_mut().zip(ids) {
                *d = Executable::slot_ptr(slots, s)?;
            }
            Ok(Args::Inline(a, ids.len()))
        } else {
            Ok(Args::Heap(ids.iter().map(|&s| Executable::slot_ptr(slots, s)).collect::<Result<Vec<_>>>()?))
        }
    }

    fn as_slice(&self) -> &[Ptr] {
        match self {
            Args::Inline(a, n) => &a[..*n],
            Args::Heap(v) => v,
        }
    }

    fn as_mut_slice(&mut self) -> &mut [Ptr] {
        match self {
            Args::Inline(a, n) => &mut a[..*n],
            Args::Heap(v) => v,
        }
    }
}

/// The little-endian bytes of a kernel constant.
fn kscalar_bytes(k: KScalar) -> Vec<u8> {
    match k {
        KScalar::F32(x) => x.to_le_bytes().to_vec(),
        KScalar::F64(x) => x.to_le_bytes().to_vec(),
        KScalar::S32(x) => x.to_le_bytes().to_vec(),
        KScalar::S64(x) => x.to_le_bytes().to_vec(),
        KScalar::U32(x) => x.to_le_bytes().to_vec(),
        KScalar::U64(x) => x.to_le_bytes().to_vec(),
        KScalar::Pred(b) => vec![b as u8],
    }
}

fn read_scalar(elem: ElementType, p: Ptr) -> KScalar {
    // SAFETY: the slot holds at least one element of `elem` (a scalar init value).
    unsafe {
        match elem {
            ElementType::F32 => KScalar::F32(*(p.0 as *const f32)),
            ElementType::F64 => KScalar::F64(*(p.0 as *const f64)),
            ElementType::S32 => KScalar::S32(*(p.0 as *const i32)),
            ElementType::S64 => KScalar::S64(*(p.0 as *const i64)),
            ElementType::U32 => KScalar::U32(*(p.0 as *const u32)),
            ElementType::U64 => KScalar::U64(*(p.0 as *const u64)),
            _ => KScalar::Pred(*p.0 != 0),
        }
    }
}


// A compiled program is shared between the plugin's threads.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Program>();
};
