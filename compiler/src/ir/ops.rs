//! Operations of the IR: StableHLO semantics with typed attributes. One variant per op family; the
//! readers map VHLO, StableHLO text and HLO opcodes onto these.

use super::literal::Literal;
use super::ffi_attr::FfiAttr;
use super::collective::{ManualComputation, ReplicaGroups};
use super::types::ElementType;

/// Elementwise ops with one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Abs,
    Cbrt,
    Ceil,
    Cosine,
    CountLeadingZeros,
    Exponential,
    ExponentialMinusOne,
    Floor,
    Imag,
    IsFinite,
    Log,
    LogPlusOne,
    Logistic,
    Negate,
    Not,
    PopulationCount,
    Real,
    RoundNearestAfz,
    RoundNearestEven,
    Rsqrt,
    Sign,
    Sine,
    Sqrt,
    Tan,
    Tanh,
}

/// Elementwise ops with two operands of the same type (`Complex` builds complex from two reals).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Subtract,
    Multiply,
    Divide,
    Remainder,
    Power,
    Maximum,
    Minimum,
    And,
    Or,
    Xor,
    ShiftLeft,
    ShiftRightArithmetic,
    ShiftRightLogical,
    Atan2,
    Complex,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 25] = [
        UnaryOp::Abs,
        UnaryOp::Cbrt,
        UnaryOp::Ceil,
        UnaryOp::Cosine,
        UnaryOp::CountLeadingZeros,
        UnaryOp::Exponential,
        UnaryOp::ExponentialMinusOne,
        UnaryOp::Floor,
        UnaryOp::Imag,
        UnaryOp::IsFinite,
        UnaryOp::Log,
        UnaryOp::LogPlusOne,
        UnaryOp::Logistic,
        UnaryOp::Negate,
        UnaryOp::Not,
        UnaryOp::PopulationCount,
        UnaryOp::Real,
        UnaryOp::RoundNearestAfz,
        UnaryOp::RoundNearestEven,
        UnaryOp::Rsqrt,
        UnaryOp::Sign,
        UnaryOp::Sine,
        UnaryOp::Sqrt,
        UnaryOp::Tan,
        UnaryOp::Tanh,
    ];

    /// The op with this StableHLO name (`exponential`, `popcnt`, …), the inverse of [`OpKind::name`]. Every
    /// reader maps its own spelling onto this one (VHLO drops the `_vN`, HLO uses `-` for `_`).
    pub fn from_name(name: &str) -> Option<UnaryOp> {
        UnaryOp::ALL.into_iter().find(|&u| OpKind::Unary(u).name() == name)
    }
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 16] = [
        BinaryOp::Add,
        BinaryOp::Subtract,
        BinaryOp::Multiply,
        BinaryOp::Divide,
        BinaryOp::Remainder,
        BinaryOp::Power,
        BinaryOp::Maximum,
        BinaryOp::Minimum,
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::ShiftLeft,
        BinaryOp::ShiftRightArithmetic,
        BinaryOp::ShiftRightLogical,
        BinaryOp::Atan2,
        BinaryOp::Complex,
    ];

    /// The op with this StableHLO name (`add`, `shift_left`, …), the inverse of [`OpKind::name`].
    pub fn from_name(name: &str) -> Option<BinaryOp> {
        BinaryOp::ALL.into_iter().find(|&b| OpKind::Binary(b).name() == name)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComparisonDirection {
    Eq,
    Ne,
    Ge,
    Gt,
    Le,
    Lt,
}

/// How `compare` interprets its operands; `None` in [`OpKind::Compare`] means "from the element type".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComparisonType {
    Float,
    TotalOrder,
    Signed,
    Unsigned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    Default,
    High,
    Highest,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct DotDims {
    pub lhs_batch: Vec<i64>,
    pub rhs_batch: Vec<i64>,
    pub lhs_contracting: Vec<i64>,
    pub rhs_contracting: Vec<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ConvDims {
    pub input_batch: i64,
    pub input_feature: i64,
    pub input_spatial: Vec<i64>,
    pub kernel_input_feature: i64,
    pub kernel_output_feature: i64,
    pub kernel_spatial: Vec<i64>,
    pub output_batch: i64,
    pub output_feature: i64,
    pub output_spatial: Vec<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct GatherDims {
    pub offset_dims: Vec<i64>,
    pub collapsed_slice_dims: Vec<i64>,
    pub operand_batching_dims: Vec<i64>,
    pub start_indices_batching_dims: Vec<i64>,
    pub start_index_map: Vec<i64>,
    pub index_vector_dim: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct ScatterDims {
    pub update_window_dims: Vec<i64>,
    pub inserted_window_dims: Vec<i64>,
    pub input_batching_dims: Vec<i64>,
    pub scatter_indices_batching_dims: Vec<i64>,
    pub scatter_dims_to_operand_dims: Vec<i64>,
    pub index_vector_dim: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RngAlgorithm {
    Default,
    ThreeFry,
    Philox,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RngDistribution {
    Uniform,
    Normal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FftType {
    Fft,
    Ifft,
    Rfft,
    Irfft,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transpose {
    NoTranspose,
    Transpose,
    Adjoint,
}

/// A named attribute value kept for ops whose attributes apu does not interpret (composite
/// attributes, custom-call backend config), so that printing and decomposition keep them.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    Ints(Vec<i64>),
    Array(Vec<AttrValue>),
    Dict(Vec<(String, AttrValue)>),
    Literal(Literal),
    /// Anything else, in a printable form.
    Other(String),
}

/// What an op computes, with its typed attributes. Operands, results and regions live on [`super::Op`].
///
/// Region conventions (`Op::regions`):
/// - `Reduce`, `ReduceWindow`, `Scatter`, `Sort`, `Map`: one region, the combiner/comparator.
/// - `While`: regions `[cond, body]`. `Case`: one region per branch. `SelectAndScatter`: `[select, scatter]`.
/// - `AllReduce`, `ReduceScatter`: one region, the combiner.
///
/// Operand conventions: `Reduce`/`ReduceWindow` take N inputs then N init values; `Scatter` takes N
/// inputs, the indices, then N updates; `DynamicSlice` takes the operand then one scalar index per
/// dimension; `DynamicUpdateSlice` the operand, the update, then the scalar indices.
#[derive(Clone, Debug, PartialEq)]
pub enum OpKind {
    // Elementwise.
    Unary(UnaryOp),
    Binary(BinaryOp),
    Compare { direction: ComparisonDirection, compare_type: Option<ComparisonType> },
    Select,
    Clamp,
    Convert,
    BitcastConvert,
    ReducePrecision { exponent_bits: i32, mantissa_bits: i32 },

    // Producers.
    Constant(Literal),
    Iota { dimension: i64 },
    RngBitGenerator { algorithm: RngAlgorithm },
    Rng { distribution: RngDistribution },
    ReplicaId,
    PartitionId,
    CreateToken,
    AfterAll,

    // Shape and data movement.
    BroadcastInDim { broadcast_dimensions: Vec<i64> },
    Reshape,
    Transpose { permutation: Vec<i64> },
    Reverse { dimensions: Vec<i64> },
    Slice { start_indices: Vec<i64>, limit_indices: Vec<i64>, strides: Vec<i64> },
    DynamicSlice { slice_sizes: Vec<i64> },
    DynamicUpdateSlice,
    Concatenate { dimension: i64 },
    Pad { edge_padding_low: Vec<i64>, edge_padding_high: Vec<i64>, interior_padding: Vec<i64> },
    Gather { dims: GatherDims, slice_sizes: Vec<i64>, indices_are_sorted: bool },
    Scatter { dims: ScatterDims, indices_are_sorted: bool, unique_indices: bool },
    GetDimensionSize { dimension: i64 },

    // Reductions and contractions.
    Reduce { dimensions: Vec<i64> },
    ReduceWindow {
        window_dimensions: Vec<i64>,
        window_strides: Vec<i64>,
        base_dilations: Vec<i64>,
        window_dilations: Vec<i64>,
        /// (low, high) per dimension.
        padding: Vec<(i64, i64)>,
    },
    SelectAndScatter { window_dimensions: Vec<i64>, window_strides: Vec<i64>, padding: Vec<(i64, i64)> },
    DotGeneral { dims: DotDims, precision: Vec<Precision>, preferred_element_type: Option<ElementType> },
    Convolution {
        window_strides: Vec<i64>,
        /// (low, high) per spatial dimension.
        padding: Vec<(i64, i64)>,
        lhs_dilation: Vec<i64>,
        rhs_dilation: Vec<i64>,
        window_reversal: Vec<bool>,
        dims: ConvDims,
        feature_group_count: i64,
        batch_group_count: i64,
        precision: Vec<Precision>,
    },
    Sort { dimension: i64, is_stable: bool },
    Map { dimensions: Vec<i64> },
    Fft { fft_type: FftType, fft_length: Vec<i64> },
    Cholesky { lower: bool },
    TriangularSolve { left_side: bool, lower: bool, unit_diagonal: bool, transpose_a: Transpose },
    BatchNormInference { epsilon: f32, feature_index: i64 },
    BatchNormTraining { epsilon: f32, feature_index: i64 },
    BatchNormGrad { epsilon: f32, feature_index: i64 },

    // Control flow and structure.
    While,
    Case,
    /// Calls a function of the module by name.
    Call { callee: String },
    Tuple,
    GetTupleElement { index: u32 },
    OptimizationBarrier,
    /// A named composite; `decomposition` names the function that implements it.
    Composite { name: String, decomposition: String, version: i32, attributes: Vec<(String, AttrValue)> },
    CustomCall {
        call_target_name: String,
        has_side_effect: bool,
        backend_config: Option<AttrValue>,
        api_version: i32,
        called_computations: Vec<String>,
        /// A typed-FFI call's attributes (`mhlo.backend_config` as a dictionary, what `jax.ffi.ffi_call`
        /// writes); None for every other custom call.
        ffi_attributes: Option<Vec<(String, FfiAttr)>>,
        /// (result, operand) pairs whose buffers the call shares (`output_operand_aliases` of results
        /// that are not tuples): the result starts as a copy of the operand.
        output_operand_aliases: Vec<(usize, usize)>,
        /// Per operand and per result, the minor-to-major layout a typed-FFI handler sees its buffer
        /// in (`operand_layouts` / `result_layouts`); empty when not given (row-major).
        operand_layouts: Vec<Vec<i64>>,
        result_layouts: Vec<Vec<i64>>,
    },

    // Collectives: between the instances of a manual computation (or the replicas of a
    // `num_replicas > 1` program); see `super::collective`.
    AllReduce { groups: ReplicaGroups },
    AllGather { all_gather_dim: i64, groups: ReplicaGroups },
    AllToAll { split_dimension: i64, concat_dimension: i64, split_count: i64, groups: ReplicaGroups },
    ReduceScatter { scatter_dimension: i64, groups: ReplicaGroups },
    /// `pairs` are (source, target) ids; a device no pair targets receives zeros.
    CollectivePermute { pairs: Vec<(i64, i64)>, channel_id: Option<i64> },
    /// The first member of each group sends its operand to the whole group.
    CollectiveBroadcast { groups: ReplicaGroups },

    /// `sdy.manual_computation`: region 0 runs once per coordinate of the manual axes on that
    /// instance's local slices of the operands; the results are assembled from the instances'.
    ManualComputation(ManualComputation),
}

impl OpKind {
    /// The StableHLO op name without dialect prefix (`add`, `dot_general`, …), for messages and printing.
    pub fn name(&self) -> &'static str {
        use OpKind::*;
        match self {
            Unary(u) => match u {
                UnaryOp::Abs => "abs",
                UnaryOp::Cbrt => "cbrt",
                UnaryOp::Ceil => "ceil",
                UnaryOp::Cosine => "cosine",
                UnaryOp::CountLeadingZeros => "count_leading_zeros",
                UnaryOp::Exponential => "exponential",
                UnaryOp::ExponentialMinusOne => "exponential_minus_one",
                UnaryOp::Floor => "floor",
                UnaryOp::Imag => "imag",
                UnaryOp::IsFinite => "is_finite",
                UnaryOp::Log => "log",
                UnaryOp::LogPlusOne => "log_plus_one",
                UnaryOp::Logistic => "logistic",
                UnaryOp::Negate => "negate",
                UnaryOp::Not => "not",
                UnaryOp::PopulationCount => "popcnt",
                UnaryOp::Real => "real",
                UnaryOp::RoundNearestAfz => "round_nearest_afz",
                UnaryOp::RoundNearestEven => "round_nearest_even",
                UnaryOp::Rsqrt => "rsqrt",
                UnaryOp::Sign => "sign",
                UnaryOp::Sine => "sine",
                UnaryOp::Sqrt => "sqrt",
                UnaryOp::Tan => "tan",
                UnaryOp::Tanh => "tanh",
            },
            Binary(b) => match b {
                BinaryOp::Add => "add",
                BinaryOp::Subtract => "subtract",
                BinaryOp::Multiply => "multiply",
                BinaryOp::Divide => "divide",
                BinaryOp::Remainder => "remainder",
                BinaryOp::Power => "power",
                BinaryOp::Maximum => "maximum",
                BinaryOp::Minimum => "minimum",
                BinaryOp::And => "and",
                BinaryOp::Or => "or",
                BinaryOp::Xor => "xor",
                BinaryOp::ShiftLeft => "shift_left",
                BinaryOp::ShiftRightArithmetic => "shift_right_arithmetic",
                BinaryOp::ShiftRightLogical => "shift_right_logical",
                BinaryOp::Atan2 => "atan2",
                BinaryOp::Complex => "complex",
            },
            Compare { .. } => "compare",
            Select => "select",
            Clamp => "clamp",
            Convert => "convert",
            BitcastConvert => "bitcast_convert",
            ReducePrecision { .. } => "reduce_precision",
            Constant(_) => "constant",
            Iota { .. } => "iota",
            RngBitGenerator { .. } => "rng_bit_generator",
            Rng { .. } => "rng",
            ReplicaId => "replica_id",
            PartitionId => "partition_id",
            CreateToken => "create_token",
            AfterAll => "after_all",
            BroadcastInDim { .. } => "broadcast_in_dim",
            Reshape => "reshape",
            Transpose { .. } => "transpose",
            Reverse { .. } => "reverse",
            Slice { .. } => "slice",
            DynamicSlice { .. } => "dynamic_slice",
            DynamicUpdateSlice => "dynamic_update_slice",
            Concatenate { .. } => "concatenate",
            Pad { .. } => "pad",
            Gather { .. } => "gather",
            Scatter { .. } => "scatter",
            GetDimensionSize { .. } => "get_dimension_size",
            Reduce { .. } => "reduce",
            ReduceWindow { .. } => "reduce_window",
            SelectAndScatter { .. } => "select_and_scatter",
            DotGeneral { .. } => "dot_general",
            Convolution { .. } => "convolution",
            Sort { .. } => "sort",
            Map { .. } => "map",
            Fft { .. } => "fft",
            Cholesky { .. } => "cholesky",
            TriangularSolve { .. } => "triangular_solve",
            BatchNormInference { .. } => "batch_norm_inference",
            BatchNormTraining { .. } => "batch_norm_training",
            BatchNormGrad { .. } => "batch_norm_grad",
            While => "while",
            Case => "case",
            Call { .. } => "call",
            Tuple => "tuple",
            GetTupleElement { .. } => "get_tuple_element",
            OptimizationBarrier => "optimization_barrier",
            Composite { .. } => "composite",
            CustomCall { .. } => "custom_call",
            AllReduce { .. } => "all_reduce",
            AllGather { .. } => "all_gather",
            AllToAll { .. } => "all_to_all",
            ReduceScatter { .. } => "reduce_scatter",
            CollectivePermute { .. } => "collective_permute",
            CollectiveBroadcast { .. } => "collective_broadcast",
            ManualComputation(_) => "manual_computation",
        }
    }
}
