//! The execution plan: an immutable list of steps over numbered buffer slots, built from a
//! [`crate::valid::ValidModule`] by [`lower::lower`]. The runtime executes it; ops without a fast
//! kernel become [`StepKind::Fallback`] steps that the runtime hands to the reference interpreter.
//!
//! Kernels the plan may use are decided by the runtime through [`Capabilities`], so that the two
//! cannot disagree about what a fused kernel can evaluate.

pub mod arg_reduce;
pub mod depthwise;
pub mod fallbacks;
pub mod host_callback;
pub mod ffi_call;
pub mod indexed_copy;
pub mod lower;
pub mod rows;
pub mod view;
pub mod sort;
pub mod view_copy;
pub mod window;

pub use arg_reduce::{ArgReduceKernel, Pick};
pub use fallbacks::FallbackStep;
pub use ffi_call::{typed_ffi_call, FfiCallKernel, TypedFfiCall, TYPED_FFI_API_VERSION};
pub use host_callback::{HostCallbackKernel, HOST_CALLBACK_TARGET};
pub use indexed_copy::{Combine, IndexedCopyKernel};
use crate::ir::{BinaryOp, ComparisonDirection, ComparisonType, ElementType, Literal, ManualComputation, Module, Op, OpKind, TensorType, UnaryOp, ValueId};
pub use view::View;
pub use window::{PadKernel, SelectScatterKernel, WindowAxis, WindowKernel};

/// Index of a buffer slot in [`Plan::slots`].
pub type SlotId = usize;

/// What the runtime's kernels implement; asked by the lowering for every candidate op.
pub trait Capabilities {
    /// Whether fused kernels handle values of this element type at all.
    fn fused_elem(&self, elem: ElementType) -> bool;
    fn unary(&self, op: UnaryOp, elem: ElementType) -> bool;
    fn binary(&self, op: BinaryOp, elem: ElementType) -> bool;
    fn compare(&self, dir: ComparisonDirection, ty: Option<ComparisonType>, elem: ElementType) -> bool;
    fn convert(&self, from: ElementType, to: ElementType) -> bool;
    /// Whether a reduce with this combiner on this type has a kernel.
    fn reduce(&self, op: BinaryOp, elem: ElementType) -> bool;
    /// Whether dot_general with these operand/result types has a GEMM kernel.
    fn dot(&self, lhs: ElementType, rhs: ElementType, out: ElementType) -> bool;
    /// Whether a kernel of one element evaluates the elementwise op `kind` on operands of these
    /// types giving `result`, for types [`Capabilities::fused_elem`] lacks (complex and the like).
    fn one_element(&self, kind: &OpKind, operands: &[ElementType], result: ElementType) -> bool;
    /// Whether a typed-FFI custom call to `target` goes to a registered foreign handler; false for the
    /// targets the runtime implements itself (JAX marks some of those, e.g. `dce_sink`, the same way).
    fn foreign_call(&self, target: &str) -> bool {
        let _ = target;
        true
    }
}

/// A scalar constant inside a fused kernel, already of the register's element type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KScalar {
    F32(f32),
    F64(f64),
    S32(i32),
    S64(i64),
    U32(u32),
    U64(u64),
    Pred(bool),
}

/// Index of an instruction's result inside one [`Expr`].
pub type Reg = usize;

/// One instruction of a fused elementwise expression, evaluated over the kernel's output index
/// space (every instruction has the kernel's shape).
#[derive(Clone, Debug, PartialEq)]
pub enum Instr {
    /// Reads input `input` (an index into the kernel's `inputs`) through a strided view.
    Load { input: usize, view: View },
    Const(KScalar),
    /// The coordinate along `dim` of the kernel's shape.
    Iota { dim: usize },
    Unary(UnaryOp, Reg),
    Binary(BinaryOp, Reg, Reg),
    Compare(ComparisonDirection, Option<ComparisonType>, Reg, Reg),
    Select(Reg, Reg, Reg),
    /// `clamp(lo, x, hi)`.
    Clamp(Reg, Reg, Reg),
    Convert(Reg),
}

/// A fused expression in SSA form: `instrs[i]` produces register `i` of element type `elems[i]`;
/// the last instruction is the result.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Expr {
    pub instrs: Vec<Instr>,
    pub elems: Vec<ElementType>,
}

impl Expr {
    pub fn push(&mut self, instr: Instr, elem: ElementType) -> Reg {
        self.instrs.push(instr);
        self.elems.push(elem);
        self.instrs.len() - 1
    }
    pub fn result(&self) -> Reg {
        self.instrs.len() - 1
    }
}

/// An elementwise kernel: `out[i] = expr(i)` over the shape of `out`.
#[derive(Clone, Debug, PartialEq)]
pub struct FusedKernel {
    pub out: SlotId,
    pub shape: Vec<i64>,
    pub inputs: Vec<SlotId>,
    pub expr: Expr,
    /// Inputs read contiguously at the output's index with the output's byte size, whose last use
    /// is this kernel: the runtime may write the result into one of their buffers.
    pub in_place: Vec<usize>,
}

/// Which axes a reduction folds, in a shape the kernels handle directly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceLayout {
    /// Input viewed as `[outer, inner]`; the `inner` (trailing) axes are reduced. Covers "all axes".
    Rows { outer: usize, inner: usize },
    /// Input viewed as `[outer, inner]`; the `outer` (leading) axes are reduced.
    Columns { outer: usize, inner: usize },
    /// Input viewed as `[outer, reduced, inner]`; the middle axes are reduced.
    Middle { outer: usize, reduced: usize, inner: usize },
}

/// `out = combine(init, fold(combine, input))` where `input` is a fused expression over the
/// reduce's input shape.
#[derive(Clone, Debug, PartialEq)]
pub struct ReduceKernel {
    pub out: SlotId,
    pub combiner: BinaryOp,
    pub elem: ElementType,
    pub layout: ReduceLayout,
    pub input_shape: Vec<i64>,
    pub inputs: Vec<SlotId>,
    pub expr: Expr,
    /// The init value: a scalar slot or a constant.
    pub init: Operand,
}

/// A scalar operand that is either a constant or read from a slot.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Const(KScalar),
    Slot(SlotId),
}

impl Operand {
    /// The slot read, if any.
    pub fn slot(&self) -> Option<SlotId> {
        match self {
            Operand::Slot(s) => Some(*s),
            Operand::Const(_) => None,
        }
    }
}

/// `dot_general` as (batched) GEMM: `out[b, m, n] = sum_k lhs[b, m, k] * rhs[b, k, n]` with the
/// operands addressed through element strides (so transposes cost nothing).
#[derive(Clone, Debug, PartialEq)]
pub struct DotKernel {
    pub out: SlotId,
    pub elem: ElementType,
    pub lhs: SlotId,
    pub rhs: SlotId,
    pub batch: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// (batch stride, row stride over m, column stride over k) in elements, plus a start offset.
    pub lhs_strides: [isize; 3],
    pub lhs_offset: usize,
    /// (batch stride, row stride over k, column stride over n) in elements, plus a start offset.
    pub rhs_strides: [isize; 3],
    pub rhs_offset: usize,
}

/// A convolution as im2col + GEMM (no window reversal; input dilation reads the holes as zeros;
/// `groups` products, one per feature group (grouped and depthwise convolutions) or batch group
/// (their filter gradients)).
/// Strides are in elements of each operand's buffer; `out_spatial_stride` is the stride of the
/// output's spatial positions taken as one row-major index.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvKernel {
    pub out: SlotId,
    pub lhs: SlotId,
    pub rhs: SlotId,
    pub elem: ElementType,
    /// Batch items per group (the whole batch unless batch groups split it).
    pub batch: usize,
    /// Input features per group.
    pub in_features: usize,
    /// Output features of all groups.
    pub out_features: usize,
    /// Feature groups or batch groups (at most one of the two counts exceeds 1): group g reads the
    /// input from `g * group_lhs_stride` on and writes output features `g * out_features / groups..`.
    pub groups: usize,
    /// Elements between the inputs of consecutive groups: `in_features` features, or `batch` items.
    pub group_lhs_stride: isize,
    pub in_spatial: Vec<usize>,
    pub kernel_spatial: Vec<usize>,
    pub out_spatial: Vec<usize>,
    pub window_strides: Vec<usize>,
    pub pad_low: Vec<isize>,
    pub rhs_dilation: Vec<usize>,
    /// Input (lhs) dilation: the transposed convolution and the input gradient of a strided one.
    pub lhs_dilation: Vec<usize>,
    /// (batch, feature, spatial...) strides of the input.
    pub lhs_batch_stride: isize,
    pub lhs_feature_stride: isize,
    pub lhs_spatial_strides: Vec<isize>,
    /// (input feature, output feature, spatial...) strides of the kernel.
    pub rhs_in_stride: isize,
    pub rhs_out_stride: isize,
    pub rhs_spatial_strides: Vec<isize>,
    pub out_batch_stride: isize,
    pub out_feature_stride: isize,
    pub out_spatial_stride: isize,
}

impl ConvKernel {
    /// The same convolution with a spatial dimension of size 1 in front (a 1-D convolution as a
    /// 2-D one of height 1).
    pub fn add_unit_first_dimension(&mut self) {
        for v in [&mut self.in_spatial, &mut self.kernel_spatial, &mut self.out_spatial, &mut self.window_strides, &mut self.rhs_dilation, &mut self.lhs_dilation] {
            v.insert(0, 1);
        }
        self.pad_low.insert(0, 0);
        self.lhs_spatial_strides.insert(0, 0);
        self.rhs_spatial_strides.insert(0, 0);
    }
}

/// A 2-D convolution in which every channel is its own group with one input and one output feature
/// (a depthwise convolution and its input gradient, from feature groups; its filter gradient, from
/// batch groups): `out[o, y, x, c] = sum over t, (ky, kx) of lhs[o, t, iy, ix, c] * rhs[t, ky, kx, c]`,
/// where `(iy, ix)` is the window position in the padded, input-dilated lhs (holes and padding read
/// zero). A forward convolution has `outer` = its batch and `contract` = 1; a filter gradient has
/// `outer` = 1 and `contract` = the batch. One-dimensional convolutions come with a unit first
/// dimension. Strides are in elements, indexed `[y, x]`.
#[derive(Clone, Debug, PartialEq)]
pub struct DepthwiseConvKernel {
    pub out: SlotId,
    pub lhs: SlotId,
    pub rhs: SlotId,
    pub elem: ElementType,
    pub channels: usize,
    pub outer: usize,
    pub contract: usize,
    pub in_spatial: [usize; 2],
    pub kernel_spatial: [usize; 2],
    pub out_spatial: [usize; 2],
    pub window_strides: [usize; 2],
    pub pad_low: [isize; 2],
    pub rhs_dilation: [usize; 2],
    pub lhs_dilation: [usize; 2],
    /// (outer, contract, channel) strides of the lhs, then its spatial strides.
    pub lhs_strides: [isize; 3],
    pub lhs_spatial_strides: [isize; 2],
    /// (contract, channel) strides of the rhs, then its spatial strides.
    pub rhs_strides: [isize; 2],
    pub rhs_spatial_strides: [isize; 2],
    /// (outer, channel) strides of the output, then its spatial strides.
    pub out_strides: [isize; 2],
    pub out_spatial_strides: [isize; 2],
}

/// `dynamic_slice` and `dynamic_update_slice` as byte copies of a box whose start is read from
/// scalar index slots at run time (clamped into range, as the spec says).
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicSliceKernel {
    pub out: SlotId,
    pub operand: SlotId,
    /// The update (dynamic_update_slice) or `None` (dynamic_slice).
    pub update: Option<SlotId>,
    pub indices: Vec<SlotId>,
    /// Box size per dimension (the slice sizes, or the update's shape).
    pub sizes: Vec<usize>,
    /// dynamic_update_slice only: the operand's last use is this step, so its buffer may be
    /// updated in place when nothing else holds it.
    pub in_place: bool,
}

/// `concatenate` as byte copies: for each of `outer` rows, input `i` contributes
/// `row_bytes[i]` contiguous bytes to the output row.
#[derive(Clone, Debug, PartialEq)]
pub struct ConcatKernel {
    pub out: SlotId,
    pub inputs: Vec<SlotId>,
    pub outer: usize,
    pub row_bytes: Vec<usize>,
}

/// Consecutive elementwise and row-reduce steps over one row space (`rows` rows of `row_len`
/// elements, the leading and trailing axes of their shapes) that read each other's results only
/// within the same row: the executor runs all of them on one block of rows before the next block,
/// so the values they pass stay in cache (softmax, log-softmax, layer norm). See [`rows`].
#[derive(Clone, Debug, PartialEq)]
pub struct RowGroup {
    pub rows: usize,
    pub row_len: usize,
    /// `Elementwise` steps over `rows * row_len` or `rows` elements, and `Reduce` steps with
    /// layout `Rows { outer: rows, inner: row_len }`; their `free_after` lists are empty (slots
    /// are freed after the whole group).
    pub steps: Vec<Step>,
    /// Values the group's steps write and only its own steps read, each within its row (set with
    /// liveness). A blocked run keeps them in per-block scratch buffers that stay in cache and
    /// never allocates them whole.
    pub scratch: Vec<SlotId>,
}

impl RowGroup {
    /// Slots the group reads that its own steps do not write, each once.
    pub fn reads(&self) -> Vec<SlotId> {
        let written: Vec<SlotId> = self.steps.iter().flat_map(|s| s.kind.writes()).collect();
        let mut v: Vec<SlotId> = Vec::new();
        for r in self.steps.iter().flat_map(|s| s.kind.reads()) {
            if !written.contains(&r) && !v.contains(&r) {
                v.push(r);
            }
        }
        v
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum StepKind {
    Elementwise(FusedKernel),
    Rows(RowGroup),
    Concat(ConcatKernel),
    DynamicSlice(DynamicSliceKernel),
    IndexedCopy(IndexedCopyKernel),
    Conv(ConvKernel),
    DepthwiseConv(DepthwiseConvKernel),
    Reduce(ReduceKernel),
    ArgReduce(ArgReduceKernel),
    Dot(DotKernel),
    /// `reduce_window` with a known combiner (see [`window`]).
    Window(WindowKernel),
    /// `select_and_scatter` of a max/min select and an add scatter.
    SelectScatter(SelectScatterKernel),
    Pad(PadKernel),
    /// A broadcast, transpose, slice or reverse of a type without fused kernels, copied as bytes.
    ViewCopy(view_copy::ViewCopyKernel),
    /// A sort by one operand's order (see [`sort`]).
    Sort(sort::SortKernel),
    /// `dst` shares `src`'s buffer (a reshape of a contiguous value).
    Alias { src: SlotId, dst: SlotId },
    /// One op run by the interpreter. `captured` are values defined outside the op's regions
    /// that the regions read.
    Fallback { op: Op, inputs: Vec<SlotId>, captured: Vec<(ValueId, SlotId)>, outputs: Vec<SlotId> },
    /// A call into the host process (`jax.debug.print`, `pure_callback`, ...).
    HostCallback(HostCallbackKernel),
    /// A typed-FFI handler call (`jax.ffi.ffi_call`).
    FfiCall(FfiCallKernel),
    /// `while`: the state starts as `inputs`; `cond` and `body` read it through their params.
    /// `captured` are outer slots the blocks read (kept alive across the loop).
    While { inputs: Vec<SlotId>, captured: Vec<SlotId>, cond: Block, body: Block, outputs: Vec<SlotId> },
    /// `case`: runs branch `index` (out-of-range: the last one) and copies its results out.
    Case { index: SlotId, captured: Vec<SlotId>, branches: Vec<Block>, outputs: Vec<SlotId> },
    /// A collective between the instances of a manual computation (decision 65); `combiner` for
    /// all_reduce and reduce_scatter.
    Collective(CollectiveKernel),
    /// `replica_id` (`replica`) or `partition_id` of the running instance, as a u32 scalar.
    InstanceId { replica: bool, out: SlotId },
    /// `sdy.manual_computation`: `body` runs once per instance, concurrently, on each instance's
    /// own slots (params bound to its slices of `inputs`); `outputs` are assembled from the
    /// instances' results. `captured` are outer slots the body reads.
    Manual { computation: ManualComputation, inputs: Vec<SlotId>, captured: Vec<SlotId>, body: Block, outputs: Vec<SlotId> },
}

/// A collective step: the op (with its groups) and the slots it reads and writes.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectiveKernel {
    pub kind: OpKind,
    pub combiner: Option<BinaryOp>,
    pub inputs: Vec<SlotId>,
    pub outputs: Vec<SlotId>,
}

/// A nested plan for a region: its params are bound before each run, its steps run in order and
/// its results are read afterwards. It shares the plan's slot numbering.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    pub params: Vec<SlotId>,
    pub steps: Vec<Step>,
    pub results: Vec<SlotId>,
    /// Slots the block owns that still hold buffers after a run (its params, and results its own
    /// steps wrote): the executor clears them so the next run owns its buffers alone.
    pub clear_after: Vec<SlotId>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Unique over the whole plan (nested blocks included), below [`Plan::num_steps`].
    pub id: usize,
    pub kind: StepKind,
    /// Slots whose last use is this step: their buffers may be recycled afterwards.
    pub free_after: Vec<SlotId>,
}

impl StepKind {
    /// What the step runs, for profiles and logs (a fallback names its op).
    pub fn name(&self) -> String {
        match self {
            StepKind::Elementwise(_) => "fused elementwise".into(),
            StepKind::Rows(_) => "row-blocked group".into(),
            StepKind::Concat(_) => "concatenate".into(),
            StepKind::DynamicSlice(_) => "dynamic slice".into(),
            StepKind::IndexedCopy(_) => "gather/scatter".into(),
            StepKind::Conv(_) => "convolution".into(),
            StepKind::DepthwiseConv(_) => "depthwise convolution".into(),
            StepKind::Reduce(_) => "reduce".into(),
            StepKind::ArgReduce(_) => "arg reduce".into(),
            StepKind::Dot(_) => "dot".into(),
            StepKind::Window(_) => "reduce_window".into(),
            StepKind::SelectScatter(_) => "select_and_scatter".into(),
            StepKind::Pad(_) => "pad".into(),
            StepKind::ViewCopy(_) => "view copy".into(),
            StepKind::Sort(_) => "sort".into(),
            StepKind::Alias { .. } => "alias".into(),
            StepKind::Fallback { op, .. } => format!("interpreter: {}", op.kind.name()),
            StepKind::HostCallback(_) => "host callback".into(),
            StepKind::FfiCall(k) => format!("ffi call: {}", k.target),
            StepKind::While { .. } => "while".into(),
            StepKind::Case { .. } => "case".into(),
            StepKind::Collective(_) => "collective".into(),
            StepKind::InstanceId { .. } => "instance id".into(),
            StepKind::Manual { .. } => "manual computation".into(),
        }
    }

    /// Slots the step reads.
    pub fn reads(&self) -> Vec<SlotId> {
        match self {
            StepKind::Elementwise(k) => k.inputs.clone(),
            StepKind::Rows(g) => g.reads(),
            StepKind::Reduce(k) => {
                let mut v = k.inputs.clone();
                if let Operand::Slot(s) = k.init {
                    v.push(s);
                }
                v
            }
            StepKind::ArgReduce(k) => {
                let inits = [&k.init_value, &k.init_index].into_iter().filter_map(|o| match o {
                    Operand::Slot(s) => Some(*s),
                    Operand::Const(_) => None,
                });
                k.inputs.iter().copied().chain(inits).collect()
            }
            StepKind::Dot(d) => vec![d.lhs, d.rhs],
            StepKind::Conv(c) => vec![c.lhs, c.rhs],
            StepKind::DepthwiseConv(c) => vec![c.lhs, c.rhs],
            StepKind::Window(k) => std::iter::once(k.input).chain(k.init.slot()).collect(),
            StepKind::SelectScatter(k) => [k.operand, k.source].into_iter().chain(k.init.slot()).collect(),
            StepKind::Pad(k) => std::iter::once(k.input).chain(k.value.slot()).collect(),
            StepKind::ViewCopy(k) => vec![k.src],
            StepKind::Sort(k) => k.inputs.clone(),
            StepKind::Concat(c) => c.inputs.clone(),
            StepKind::DynamicSlice(d) => std::iter::once(d.operand).chain(d.update).chain(d.indices.iter().copied()).collect(),
            StepKind::IndexedCopy(k) => [k.big, k.indices].into_iter().chain(k.updates).collect(),
            StepKind::Alias { src, .. } => vec![*src],
            StepKind::Fallback { inputs, captured, .. } => {
                inputs.iter().copied().chain(captured.iter().map(|c| c.1)).collect()
            }
            StepKind::HostCallback(k) => k.inputs.clone(),
            StepKind::FfiCall(k) => k.inputs.clone(),
            StepKind::While { inputs, captured, .. } => inputs.iter().chain(captured).copied().collect(),
            StepKind::Case { index, captured, .. } => std::iter::once(index).chain(captured).copied().collect(),
            StepKind::Collective(k) => k.inputs.clone(),
            StepKind::InstanceId { .. } => Vec::new(),
            StepKind::Manual { inputs, captured, .. } => inputs.iter().chain(captured).copied().collect(),
        }
    }
    /// Slots the step writes.
    pub fn writes(&self) -> Vec<SlotId> {
        match self {
            StepKind::Elementwise(k) => vec![k.out],
            StepKind::Rows(g) => g.steps.iter().flat_map(|s| s.kind.writes()).collect(),
            StepKind::Reduce(k) => vec![k.out],
            StepKind::ArgReduce(k) => vec![k.value_out, k.index_out],
            StepKind::Dot(d) => vec![d.out],
            StepKind::Conv(c) => vec![c.out],
            StepKind::DepthwiseConv(c) => vec![c.out],
            StepKind::Window(k) => vec![k.out],
            StepKind::SelectScatter(k) => vec![k.out],
            StepKind::Pad(k) => vec![k.out],
            StepKind::ViewCopy(k) => vec![k.out],
            StepKind::Sort(k) => k.outputs.clone(),
            StepKind::Concat(c) => vec![c.out],
            StepKind::DynamicSlice(d) => vec![d.out],
            StepKind::IndexedCopy(k) => vec![k.out],
            StepKind::Alias { dst, .. } => vec![*dst],
            StepKind::HostCallback(k) => k.outputs.clone(),
            StepKind::FfiCall(k) => k.outputs.clone(),
            StepKind::Collective(k) => k.outputs.clone(),
            StepKind::InstanceId { out, .. } => vec![*out],
            StepKind::Manual { outputs, .. } => outputs.clone(),
            StepKind::Fallback { outputs, .. } | StepKind::While { outputs, .. } | StepKind::Case { outputs, .. } => {
                outputs.clone()
            }
        }
    }

    /// The nested blocks of a control-flow step.
    pub fn blocks(&self) -> Vec<&Block> {
        match self {
            StepKind::While { cond, body, .. } => vec![cond, body],
            StepKind::Case { branches, .. } => branches.iter().collect(),
            StepKind::Manual { body, .. } => vec![body],
            _ => Vec::new(),
        }
    }

    /// The step lists nested in this step: a row group's steps, or a control-flow step's blocks'.
    pub fn nested_steps(&self) -> Vec<&[Step]> {
        match self {
            StepKind::Rows(g) => vec![g.steps.as_slice()],
            _ => self.blocks().into_iter().map(|b| b.steps.as_slice()).collect(),
        }
    }
}

/// An immutable plan for the entry function of a module.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Type of every slot.
    pub slots: Vec<TensorType>,
    /// Slots bound to the arguments, in order.
    pub params: Vec<SlotId>,
    /// Slots holding constants before the first step.
    pub constants: Vec<(SlotId, Literal)>,
    pub steps: Vec<Step>,
    /// Slots returned, in order (a slot may appear more than once).
    pub results: Vec<SlotId>,
    /// The (simplified) module, for fallback steps; the plan runs `module.entry_function()`.
    pub module: Module,
    /// Number of steps, nested ones included (step ids are below it).
    pub num_steps: usize,
}

impl Plan {
    /// How many steps of each kind (nested blocks included), for logs and tests.
    pub fn summary(&self) -> String {
        fn count(steps: &[Step], counts: &mut [usize; 8]) {
            for s in steps {
                counts[match s.kind {
                    StepKind::Elementwise(_) => 0,
                    StepKind::Reduce(_) | StepKind::ArgReduce(_) | StepKind::Window(_) | StepKind::SelectScatter(_) => 1,
                    StepKind::Dot(_) | StepKind::Conv(_) | StepKind::DepthwiseConv(_) => 2,
                    StepKind::Alias { .. }
                    | StepKind::DynamicSlice(_)
                    | StepKind::IndexedCopy(_)
                    | StepKind::Concat(_)
                    | StepKind::Pad(_)
                    | StepKind::ViewCopy(_)
                    | StepKind::Sort(_) => 3,
                    StepKind::HostCallback(_) | StepKind::FfiCall(_) => 7,
                    StepKind::Collective(_) | StepKind::InstanceId { .. } => 3,
                    StepKind::Manual { .. } => 5,
                    StepKind::Fallback { .. } => 4,
                    StepKind::While { .. } | StepKind::Case { .. } => 5,
                    StepKind::Rows(_) => 6,
                }] += 1;
                for inner in s.kind.nested_steps() {
                    count(inner, counts);
                }
            }
        }
        let mut counts = [0usize; 8];
        count(&self.steps, &mut counts);
        let groups = if counts[6] > 0 { format!(" ({} row-blocked groups)", counts[6]) } else { String::new() };
        let callbacks = if counts[7] > 0 { format!(", {} host callback or FFI call", counts[7]) } else { String::new() };
        format!(
            "{} steps: {} fused, {} reduce, {} dot/conv, {} alias/copy, {} fallback, {} control{callbacks}{groups}",
            counts[..6].iter().sum::<usize>() + counts[7],
            counts[0],
            counts[1],
            counts[2],
            counts[3],
            counts[4],
            counts[5]
        )
    }
}
