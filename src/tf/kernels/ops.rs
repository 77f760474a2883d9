//! The TensorFlow ops apu runs on its PluggableDevice, with the attributes each needs.

use apu_compiler::ir::{BinaryOp, ComparisonDirection, UnaryOp};

/// Elementwise ops lowered as small expressions (not one IR op each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TfElementwise {
    Pow,
    DivNoNan,
    SquaredDifference,
    /// (y, dy) -> dy * -0.5 * y^3
    RsqrtGrad,
    /// (y, dy) -> dy * y * (1 - y)
    SigmoidGrad,
    /// (y, dy) -> dy * (1 - y^2)
    TanhGrad,
    Sign,
    ZerosLike,
    OnesLike,
    /// x - floor(x / y) * y: the remainder with the divisor's sign.
    FloorMod,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolKind {
    Max,
    Avg,
}

/// Elementwise one-input ops and how the IR spells them (`Square` has no single IR op).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TfUnary {
    Neg,
    Abs,
    Exp,
    Log,
    Tanh,
    Sigmoid,
    Sqrt,
    Rsqrt,
    Square,
}

impl TfUnary {
    /// The IR op, or `None` for `Square` (lowered as `x * x`).
    pub fn ir(self) -> Option<UnaryOp> {
        Some(match self {
            TfUnary::Neg => UnaryOp::Negate,
            TfUnary::Abs => UnaryOp::Abs,
            TfUnary::Exp => UnaryOp::Exponential,
            TfUnary::Log => UnaryOp::Log,
            TfUnary::Tanh => UnaryOp::Tanh,
            TfUnary::Sigmoid => UnaryOp::Logistic,
            TfUnary::Sqrt => UnaryOp::Sqrt,
            TfUnary::Rsqrt => UnaryOp::Rsqrt,
            TfUnary::Square => return None,
        })
    }
}

/// Reductions over axes given by a host-memory `reduction_indices` input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TfReduction {
    Sum,
    Mean,
    Max,
    Min,
    Prod,
}

/// The masks of a StridedSlice (bit i applies to the i-th entry of begin/end/strides).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct SliceMasks {
    pub begin: i64,
    pub end: i64,
    pub ellipsis: i64,
    pub new_axis: i64,
    pub shrink_axis: i64,
}

/// Conv2D padding modes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Padding {
    Same,
    Valid,
    /// (low, high) for every dimension of the input, in the input's layout.
    Explicit(Vec<(i64, i64)>),
}

/// One TensorFlow op with the attributes that change what it computes.
#[derive(Clone, Debug, PartialEq)]
pub enum TfOp {
    Relu,
    Relu6,
    Elu,
    Unary(TfUnary),
    /// Broadcasting binary ops (AddV2, Add, Sub, Mul, RealDiv, Maximum, Minimum).
    Binary(BinaryOp),
    MatMul { transpose_a: bool, transpose_b: bool },
    BatchMatMul { adj_x: bool, adj_y: bool },
    BiasAdd { channels_first: bool },
    Softmax,
    LogSoftmax,
    Reduce { reduction: TfReduction, keep_dims: bool },
    /// Cast to the element type of the registered `DstT`.
    Cast { to: apu_compiler::ir::ElementType },
    Conv2D { strides: Vec<i64>, dilations: Vec<i64>, padding: Padding, channels_first: bool },
    ReluGrad,
    BiasAddGrad { channels_first: bool },
    SoftmaxCrossEntropyWithLogits,
    Elementwise(TfElementwise),
    AddN,
    /// Broadcasting comparisons (Equal, NotEqual, Less, ...), result bool.
    Compare(ComparisonDirection),
    SelectV2,
    /// `multiples` in host memory.
    Tile,
    /// `shape` in host memory.
    BroadcastTo,
    /// `perm` in host memory.
    Transpose,
    /// `dims` in host memory.
    Fill,
    SparseSoftmaxCrossEntropyWithLogits,
    /// MaxPool / AvgPool: 4-element ksize and strides in the input's layout; SAME or VALID.
    Pool { kind: PoolKind, ksize: Vec<i64>, strides: Vec<i64>, same: bool, channels_first: bool },
    /// The gradient of Conv2D with respect to its input (`input_sizes` in host memory).
    Conv2DBackpropInput { strides: Vec<i64>, dilations: Vec<i64>, padding: Padding, channels_first: bool },
    /// The gradient of Conv2D with respect to its filter (`filter_sizes` in host memory).
    Conv2DBackpropFilter { strides: Vec<i64>, dilations: Vec<i64>, padding: Padding, channels_first: bool },
    /// MaxPoolGrad (orig_input, orig_output, grad) / AvgPoolGrad (orig_input_shape in host memory, grad).
    PoolGrad { kind: PoolKind, ksize: Vec<i64>, strides: Vec<i64>, same: bool, channels_first: bool },
    /// begin, end and strides in host memory.
    StridedSlice(SliceMasks),
    /// shape, begin, end and strides in host memory; the gradient dy last.
    StridedSliceGrad(SliceMasks),
    /// begin and size in host memory.
    Slice,
    /// N inputs stacked along a new axis.
    Pack { axis: i64 },
    /// One input split into `num` outputs along an axis it removes.
    Unpack { axis: i64, num: i64 },
    /// N inputs and the axis (host memory) last.
    ConcatV2,
    /// The axis (host memory) first, then the value; `num` equal outputs.
    Split { num: i64 },
    /// The value, size_splits and axis (host memory); `num` outputs.
    SplitV { num: i64 },
    /// params, indices and the axis (host memory).
    GatherV2 { batch_dims: i64 },
}

impl TfOp {
    /// Inputs whose values (not only types) the lowering reads: host-memory axes, shapes and the
    /// like. Their bytes are part of the compiled-op cache key.
    /// (Every such set is a run of consecutive inputs, so a range: no allocation per kernel call.)
    pub fn value_inputs(&self, num_inputs: usize) -> std::ops::Range<usize> {
        match self {
            TfOp::Reduce { .. } | TfOp::Tile | TfOp::BroadcastTo | TfOp::Transpose | TfOp::Conv2DBackpropFilter { .. } => 1..2,
            TfOp::Fill | TfOp::Conv2DBackpropInput { .. } | TfOp::Split { .. } | TfOp::PoolGrad { kind: PoolKind::Avg, .. } => 0..1,
            TfOp::StridedSlice(_) => 1..4,
            TfOp::StridedSliceGrad(_) => 0..4,
            TfOp::Slice | TfOp::SplitV { .. } => 1..3,
            TfOp::GatherV2 { .. } => 2..3,
            TfOp::ConcatV2 => num_inputs.saturating_sub(1)..num_inputs,
            _ => 0..0,
        }
    }

    /// Short name for error messages.
    pub fn name(&self) -> String {
        match self {
            TfOp::Unary(u) => format!("{u:?}"),
            TfOp::Binary(b) => format!("{b:?}"),
            TfOp::Reduce { reduction, .. } => format!("{reduction:?}"),
            TfOp::Elementwise(e) => format!("{e:?}"),
            TfOp::Compare(d) => format!("Compare{d:?}"),
            TfOp::Pool { kind, .. } => format!("{kind:?}Pool"),
            TfOp::PoolGrad { kind, .. } => format!("{kind:?}PoolGrad"),
            other => format!("{other:?}").split([' ', '{', '(']).next().unwrap_or("op").to_string(),
        }
    }
}
