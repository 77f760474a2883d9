//! The table between StableHLO op names + attributes and the IR's [`OpKind`], in both directions:
//! `kind_from_attrs` for the reader, `attrs_from_kind` for the printer's generic form. Keeping both
//! directions in one file keeps them consistent (print → parse is a fixed point).

use super::attr::Attr;
use crate::ir::*;

/// Integer-list attributes (dimensions, paddings) longer than this are rejected: they describe
/// tensor ranks, and a splat `dense<...>` could otherwise claim billions of entries.
const MAX_LIST_ATTR: usize = 1 << 16;

/// The attributes of one op (properties and discardable attributes together).
pub struct Attrs<'a>(pub &'a [(String, Attr)]);

type R<T> = std::result::Result<T, String>;

impl<'a> Attrs<'a> {
    pub fn get(&self, name: &str) -> Option<&'a Attr> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }
    fn req(&self, name: &str) -> R<&'a Attr> {
        self.get(name).ok_or_else(|| format!("missing attribute '{name}'"))
    }
    fn i64_of(name: &str, a: &Attr) -> R<i64> {
        match a {
            Attr::Int(v, _) => i64::try_from(*v).map_err(|_| format!("attribute '{name}' = {v} does not fit in 64 bits")),
            other => Err(format!("attribute '{name}' must be an integer, found {}", other.kind_name())),
        }
    }
    pub fn i64(&self, name: &str) -> R<i64> {
        Self::i64_of(name, self.req(name)?)
    }
    fn i64_or(&self, name: &str, default: i64) -> R<i64> {
        self.get(name).map(|a| Self::i64_of(name, a)).unwrap_or(Ok(default))
    }
    fn bool_or(&self, name: &str, default: bool) -> R<bool> {
        match self.get(name) {
            None => Ok(default),
            Some(Attr::Bool(b)) => Ok(*b),
            Some(Attr::Unit) => Ok(true),
            Some(other) => Err(format!("attribute '{name}' must be a bool, found {}", other.kind_name())),
        }
    }
    fn f32_of(&self, name: &str) -> R<f32> {
        match self.req(name)? {
            Attr::Float(v, _) => Ok(*v as f32),
            Attr::Int(v, _) => Ok(*v as f32),
            other => Err(format!("attribute '{name}' must be a float, found {}", other.kind_name())),
        }
    }
    fn str_or_empty(&self, name: &str) -> R<String> {
        match self.get(name) {
            None => Ok(String::new()),
            Some(Attr::Str(s)) => Ok(s.clone()),
            Some(other) => Err(format!("attribute '{name}' must be a string, found {}", other.kind_name())),
        }
    }
    fn symbol(&self, name: &str) -> R<String> {
        match self.req(name)? {
            Attr::SymbolRef(s) => Ok(s.clone()),
            Attr::Str(s) => Ok(s.clone()),
            other => Err(format!("attribute '{name}' must be a symbol reference, found {}", other.kind_name())),
        }
    }
    /// Integer lists in any of their spellings: `array<i64: ...>`, `[1, 2]` or `dense<[1, 2]> : tensor<2xi64>`.
    pub fn i64s_of(name: &str, a: &Attr) -> R<Vec<i64>> {
        match a {
            Attr::DenseArray(_, v) => v.iter().map(|&x| i64::try_from(x).map_err(|_| format!("'{name}' entry out of range"))).collect(),
            Attr::Array(items) => items.iter().map(|x| Self::i64_of(name, x)).collect(),
            Attr::Dense(lit) if lit.ty.num_elements() > MAX_LIST_ATTR => Err(format!("attribute '{name}' has {} entries; at most {MAX_LIST_ATTR} are allowed", lit.ty.num_elements())),
            Attr::Dense(lit) if lit.ty.elem.is_int() || lit.ty.elem.is_pred() => Ok(literal_ints(lit)),
            other => Err(format!("attribute '{name}' must be an integer list, found {}", other.kind_name())),
        }
    }
    pub fn i64s(&self, name: &str) -> R<Vec<i64>> {
        Self::i64s_of(name, self.req(name)?)
    }
    fn i64s_or_empty(&self, name: &str) -> R<Vec<i64>> {
        self.get(name).map(|a| Self::i64s_of(name, a)).unwrap_or(Ok(Vec::new()))
    }
    fn bools_or_empty(&self, name: &str) -> R<Vec<bool>> {
        match self.get(name) {
            None => Ok(Vec::new()),
            Some(Attr::Array(items)) => items
                .iter()
                .map(|x| match x {
                    Attr::Bool(b) => Ok(*b),
                    Attr::Int(v, _) => Ok(*v != 0),
                    _ => Err(format!("'{name}' must hold booleans")),
                })
                .collect(),
            Some(a) => Ok(Self::i64s_of(name, a)?.into_iter().map(|v| v != 0).collect()),
        }
    }
    /// `(low, high)` pairs from an `Nx2` dense attribute (or a list of pairs).
    fn padding_or_empty(&self, name: &str) -> R<Vec<(i64, i64)>> {
        let Some(a) = self.get(name) else { return Ok(Vec::new()) };
        let flat = match a {
            Attr::Array(items) if items.iter().all(|i| matches!(i, Attr::Array(_))) => {
                let mut f = Vec::new();
                for i in items {
                    f.extend(Self::i64s_of(name, i)?);
                }
                f
            }
            Attr::Dense(lit) if lit.ty.num_elements() > MAX_LIST_ATTR => return Err(format!("attribute '{name}' is too large")),
            Attr::Dense(lit) if lit.ty.rank() == 2 && lit.ty.shape[1] == 2 || lit.ty.num_elements() == 0 => literal_ints(lit),
            other => Self::i64s_of(name, other)?,
        };
        if flat.len() % 2 != 0 {
            return Err(format!("'{name}' must hold (low, high) pairs"));
        }
        Ok(flat.chunks(2).map(|c| (c[0], c[1])).collect())
    }
    fn enum_value(&self, name: &str) -> R<Option<String>> {
        match self.get(name) {
            None => Ok(None),
            Some(Attr::Enum(_, v)) => Ok(Some(v.clone())),
            Some(Attr::Str(s)) => Ok(Some(s.clone())),
            Some(Attr::Int(v, _)) => Ok(Some(v.to_string())),
            Some(other) => Err(format!("attribute '{name}' must be an enum, found {}", other.kind_name())),
        }
    }
    fn precision(&self) -> R<Vec<Precision>> {
        match self.get("precision_config") {
            None => Ok(Vec::new()),
            Some(Attr::Array(items)) => items
                .iter()
                .map(|i| match i {
                    Attr::Enum(_, v) => parse_precision(v),
                    Attr::Str(v) => parse_precision(v),
                    _ => Err("precision_config entries must be #stablehlo<precision ...>".to_string()),
                })
                .collect(),
            Some(other) => Err(format!("precision_config must be a list, found {}", other.kind_name())),
        }
    }
}

pub fn parse_precision(v: &str) -> R<Precision> {
    match v {
        "DEFAULT" => Ok(Precision::Default),
        "HIGH" => Ok(Precision::High),
        "HIGHEST" => Ok(Precision::Highest),
        other => Err(format!("unknown precision {other}")),
    }
}

pub fn precision_name(p: Precision) -> &'static str {
    match p {
        Precision::Default => "DEFAULT",
        Precision::High => "HIGH",
        Precision::Highest => "HIGHEST",
    }
}

/// Integer values of an integer literal (expanding a splat).
pub fn literal_ints(lit: &Literal) -> Vec<i64> {
    let bytes = lit.to_dense_bytes();
    let size = lit.ty.elem.byte_size();
    bytes
        .chunks(size)
        .map(|c| {
            let mut a = [0u8; 8];
            a[..c.len()].copy_from_slice(c);
            let raw = u64::from_le_bytes(a);
            if lit.ty.elem.is_signed_int() && size < 8 {
                let shift = 64 - 8 * size as u32;
                ((raw << shift) as i64) >> shift
            } else {
                raw as i64
            }
        })
        .collect()
}

pub fn parse_direction(v: &str) -> R<ComparisonDirection> {
    Ok(match v {
        "EQ" => ComparisonDirection::Eq,
        "NE" => ComparisonDirection::Ne,
        "GE" => ComparisonDirection::Ge,
        "GT" => ComparisonDirection::Gt,
        "LE" => ComparisonDirection::Le,
        "LT" => ComparisonDirection::Lt,
        other => return Err(format!("unknown comparison direction {other}")),
    })
}
pub fn direction_name(d: ComparisonDirection) -> &'static str {
    match d {
        ComparisonDirection::Eq => "EQ",
        ComparisonDirection::Ne => "NE",
        ComparisonDirection::Ge => "GE",
        ComparisonDirection::Gt => "GT",
        ComparisonDirection::Le => "LE",
        ComparisonDirection::Lt => "LT",
    }
}
pub fn parse_compare_type(v: &str) -> R<Option<ComparisonType>> {
    Ok(Some(match v {
        "FLOAT" => ComparisonType::Float,
        "TOTALORDER" => ComparisonType::TotalOrder,
        "SIGNED" => ComparisonType::Signed,
        "UNSIGNED" => ComparisonType::Unsigned,
        "NOTYPE" => return Ok(None),
        other => return Err(format!("unknown comparison type {other}")),
    }))
}
pub fn compare_type_name(t: ComparisonType) -> &'static str {
    match t {
        ComparisonType::Float => "FLOAT",
        ComparisonType::TotalOrder => "TOTALORDER",
        ComparisonType::Signed => "SIGNED",
        ComparisonType::Unsigned => "UNSIGNED",
    }
}

fn rng_algorithm(v: &str) -> R<RngAlgorithm> {
    Ok(match v {
        "DEFAULT" => RngAlgorithm::Default,
        "THREE_FRY" => RngAlgorithm::ThreeFry,
        "PHILOX" => RngAlgorithm::Philox,
        other => return Err(format!("unknown rng algorithm {other}")),
    })
}
pub fn rng_algorithm_name(a: RngAlgorithm) -> &'static str {
    match a {
        RngAlgorithm::Default => "DEFAULT",
        RngAlgorithm::ThreeFry => "THREE_FRY",
        RngAlgorithm::Philox => "PHILOX",
    }
}
fn rng_distribution(v: &str) -> R<RngDistribution> {
    Ok(match v {
        "UNIFORM" => RngDistribution::Uniform,
        "NORMAL" => RngDistribution::Normal,
        other => return Err(format!("unknown rng distribution {other}")),
    })
}
pub fn rng_distribution_name(d: RngDistribution) -> &'static str {
    match d {
        RngDistribution::Uniform => "UNIFORM",
        RngDistribution::Normal => "NORMAL",
    }
}
fn fft_type(v: &str) -> R<FftType> {
    Ok(match v {
        "FFT" => FftType::Fft,
        "IFFT" => FftType::Ifft,
        "RFFT" => FftType::Rfft,
        "IRFFT" => FftType::Irfft,
        other => return Err(format!("unknown fft type {other}")),
    })
}
fn fft_type_name(t: FftType) -> &'static str {
    match t {
        FftType::Fft => "FFT",
        FftType::Ifft => "IFFT",
        FftType::Rfft => "RFFT",
        FftType::Irfft => "IRFFT",
    }
}
fn transpose_kind(v: &str) -> R<Transpose> {
    Ok(match v {
        "NO_TRANSPOSE" => Transpose::NoTranspose,
        "TRANSPOSE" => Transpose::Transpose,
        "ADJOINT" => Transpose::Adjoint,
        other => return Err(format!("unknown transpose kind {other}")),
    })
}
fn transpose_name(t: Transpose) -> &'static str {
    match t {
        Transpose::NoTranspose => "NO_TRANSPOSE",
        Transpose::Transpose => "TRANSPOSE",
        Transpose::Adjoint => "ADJOINT",
    }
}

pub fn unary_from_name(n: &str) -> Option<UnaryOp> {
    UnaryOp::from_name(n)
}

pub fn binary_from_name(n: &str) -> Option<BinaryOp> {
    BinaryOp::from_name(n)
}

fn gather_dims(a: &Attr) -> R<GatherDims> {
    let Attr::Struct(_, fields) = a else {
        return Err(format!("dimension_numbers must be #stablehlo.gather<...>, found {}", a.kind_name()));
    };
    let f = Attrs(fields);
    Ok(GatherDims {
        offset_dims: f.i64s_or_empty("offset_dims")?,
        collapsed_slice_dims: f.i64s_or_empty("collapsed_slice_dims")?,
        operand_batching_dims: f.i64s_or_empty("operand_batching_dims")?,
        start_indices_batching_dims: f.i64s_or_empty("start_indices_batching_dims")?,
        start_index_map: f.i64s_or_empty("start_index_map")?,
        index_vector_dim: f.i64_or("index_vector_dim", 0)?,
    })
}

fn scatter_dims(a: &Attr) -> R<ScatterDims> {
    let Attr::Struct(_, fields) = a else {
        return Err(format!("scatter_dimension_numbers must be #stablehlo.scatter<...>, found {}", a.kind_name()));
    };
    let f = Attrs(fields);
    Ok(ScatterDims {
        update_window_dims: f.i64s_or_empty("update_window_dims")?,
        inserted_window_dims: f.i64s_or_empty("inserted_window_dims")?,
        input_batching_dims: f.i64s_or_empty("input_batching_dims")?,
        scatter_indices_batching_dims: f.i64s_or_empty("scatter_indices_batching_dims")?,
        scatter_dims_to_operand_dims: f.i64s_or_empty("scatter_dims_to_operand_dims")?,
        index_vector_dim: f.i64_or("index_vector_dim", 0)?,
    })
}

fn dot_dims(a: &Attr) -> R<DotDims> {
    let Attr::Struct(_, fields) = a else {
        return Err(format!("dot_dimension_numbers must be #stablehlo.dot<...>, found {}", a.kind_name()));
    };
    let f = Attrs(fields);
    Ok(DotDims {
        lhs_batch: f.i64s_or_empty("lhs_batching_dimensions")?,
        rhs_batch: f.i64s_or_empty("rhs_batching_dimensions")?,
        lhs_contracting: f.i64s_or_empty("lhs_contracting_dimensions")?,
        rhs_contracting: f.i64s_or_empty("rhs_contracting_dimensions")?,
    })
}

/// What the reader knows about an op besides its attributes.
pub struct OpShape<'a> {
    pub operand_types: &'a [Type],
    pub result_types: &'a [Type],
}

/// Builds the IR op kind for `name` (with dialect prefix) from its attributes.
pub fn kind_from_attrs(name: &str, attrs: &Attrs, shape: &OpShape) -> R<OpKind> {
    let short = name.strip_prefix("stablehlo.").or_else(|| name.strip_prefix("mhlo."));
    let Some(short) = short else {
        return match name {
            "func.call" => Ok(OpKind::Call { callee: attrs.symbol("callee")? }),
            _ => Err(format!("unknown op '{name}'")),
        };
    };
    if let Some(u) = unary_from_name(short) {
        return Ok(OpKind::Unary(u));
    }
    if let Some(b) = binary_from_name(short) {
        return Ok(OpKind::Binary(b));
    }
    Ok(match short {
        "compare" => OpKind::Compare {
            direction: parse_direction(&attrs.enum_value("comparison_direction")?.ok_or("missing attribute 'comparison_direction'")?)?,
            compare_type: match attrs.enum_value("compare_type")? {
                Some(v) => parse_compare_type(&v)?,
                None => None,
            },
        },
        "select" => OpKind::Select,
        "clamp" => OpKind::Clamp,
        "convert" => OpKind::Convert,
        "bitcast_convert" => OpKind::BitcastConvert,
        "reduce_precision" => OpKind::ReducePrecision {
            exponent_bits: attrs.i64("exponent_bits")? as i32,
            mantissa_bits: attrs.i64("mantissa_bits")? as i32,
        },
        "constant" => match attrs.req("value")? {
            Attr::Dense(lit) => OpKind::Constant(lit.clone()),
            other => return Err(format!("constant value must be dense<...>, found {}", other.kind_name())),
        },
        "iota" => OpKind::Iota { dimension: attrs.i64("iota_dimension")? },
        "rng_bit_generator" => OpKind::RngBitGenerator {
            algorithm: rng_algorithm(&attrs.enum_value("rng_algorithm")?.unwrap_or_else(|| "DEFAULT".into()))?,
        },
        "rng" => OpKind::Rng { distribution: rng_distribution(&attrs.enum_value("rng_distribution")?.ok_or("missing attribute 'rng_distribution'")?)? },
        "replica_id" => OpKind::ReplicaId,
        "partition_id" => OpKind::PartitionId,
        "create_token" => OpKind::CreateToken,
        "after_all" => OpKind::AfterAll,
        "broadcast_in_dim" => OpKind::BroadcastInDim { broadcast_dimensions: attrs.i64s("broadcast_dimensions")? },
        "reshape" => OpKind::Reshape,
        // MHLO's `copy` is an identity: a reshape to the same type.
        "copy" => OpKind::Reshape,
        // `broadcast` prepends `broadcast_sizes` to the operand's shape.
        "broadcast" => {
            let sizes = attrs.i64s("broadcast_sizes")?;
            let rank = shape.operand_types.first().and_then(|t| t.as_tensor()).map(|t| t.rank()).ok_or("broadcast needs a tensor operand")?;
            OpKind::BroadcastInDim { broadcast_dimensions: (sizes.len() as i64..(sizes.len() + rank) as i64).collect() }
        }
        "transpose" => OpKind::Transpose { permutation: attrs.i64s("permutation")? },
        "reverse" => OpKind::Reverse { dimensions: attrs.i64s("dimensions")? },
        "slice" => {
            let start_indices = attrs.i64s("start_indices")?;
            let strides = match attrs.get("strides") {
                Some(a) => Attrs::i64s_of("strides", a)?,
                None => vec![1; start_indices.len()],
            };
            OpKind::Slice { start_indices, limit_indices: attrs.i64s("limit_indices")?, strides }
        }
        "dynamic_slice" => OpKind::DynamicSlice { slice_sizes: attrs.i64s("slice_sizes")? },
        "dynamic_update_slice" => OpKind::DynamicUpdateSlice,
        "concatenate" => OpKind::Concatenate { dimension: attrs.i64("dimension")? },
        "pad" => OpKind::Pad {
            edge_padding_low: attrs.i64s("edge_padding_low")?,
            edge_padding_high: attrs.i64s("edge_padding_high")?,
            interior_padding: attrs.i64s("interior_padding")?,
        },
        "gather" => OpKind::Gather {
            dims: gather_dims(attrs.req("dimension_numbers")?)?,
            slice_sizes: attrs.i64s("slice_sizes")?,
            indices_are_sorted: attrs.bool_or("indices_are_sorted", false)?,
        },
        "scatter" => OpKind::Scatter {
            dims: scatter_dims(attrs.req("scatter_dimension_numbers")?)?,
            indices_are_sorted: attrs.bool_or("indices_are_sorted", false)?,
            unique_indices: attrs.bool_or("unique_indices", false)?,
        },
        "get_dimension_size" => OpKind::GetDimensionSize { dimension: attrs.i64("dimension")? },
        "reduce" => OpKind::Reduce { dimensions: attrs.i64s("dimensions")? },
        "reduce_window" => OpKind::ReduceWindow {
            window_dimensions: attrs.i64s("window_dimensions")?,
            window_strides: attrs.i64s_or_empty("window_strides")?,
            base_dilations: attrs.i64s_or_empty("base_dilations")?,
            window_dilations: attrs.i64s_or_empty("window_dilations")?,
            padding: attrs.padding_or_empty("padding")?,
        },
        "select_and_scatter" => OpKind::SelectAndScatter {
            window_dimensions: attrs.i64s_or_empty("window_dimensions")?,
            window_strides: attrs.i64s_or_empty("window_strides")?,
            padding: attrs.padding_or_empty("padding")?,
        },
        "dot_general" => OpKind::DotGeneral {
            dims: dot_dims(attrs.req("dot_dimension_numbers")?)?,
            precision: attrs.precision()?,
            preferred_element_type: None,
        },
        "dot" => {
            // The legacy `dot`: contract the last lhs dimension with the first rhs dimension.
            let lhs_rank = shape.operand_types.first().and_then(|t| t.as_tensor()).map(|t| t.rank()).unwrap_or(0);
            let rhs_rank = shape.operand_types.get(1).and_then(|t| t.as_tensor()).map(|t| t.rank()).unwrap_or(0);
            if lhs_rank == 0 || rhs_rank == 0 {
                return Err("dot needs operands of rank 1 or 2".into());
            }
            OpKind::DotGeneral {
                dims: DotDims { lhs_contracting: vec![lhs_rank as i64 - 1], rhs_contracting: vec![0], ..Default::default() },
                precision: attrs.precision()?,
                preferred_element_type: None,
            }
        }
        "convolution" => {
            let dims = match attrs.req("dimension_numbers")? {
                Attr::Conv(d) => d.clone(),
                other => return Err(format!("dimension_numbers must be #stablehlo.conv<...>, found {}", other.kind_name())),
            };
            OpKind::Convolution {
                window_strides: attrs.i64s_or_empty("window_strides")?,
                padding: attrs.padding_or_empty("padding")?,
                lhs_dilation: attrs.i64s_or_empty("lhs_dilation")?,
                rhs_dilation: attrs.i64s_or_empty("rhs_dilation")?,
                window_reversal: attrs.bools_or_empty("window_reversal")?,
                dims,
                feature_group_count: attrs.i64_or("feature_group_count", 1)?,
                batch_group_count: attrs.i64_or("batch_group_count", 1)?,
                precision: attrs.precision()?,
            }
        }
        "sort" => OpKind::Sort { dimension: attrs.i64_or("dimension", -1)?, is_stable: attrs.bool_or("is_stable", false)? },
        "map" => OpKind::Map { dimensions: attrs.i64s("dimensions")? },
        "fft" => OpKind::Fft {
            fft_type: fft_type(&attrs.enum_value("fft_type")?.ok_or("missing attribute 'fft_type'")?)?,
            fft_length: attrs.i64s("fft_length")?,
        },
        "cholesky" => OpKind::Cholesky { lower: attrs.bool_or("lower", false)? },
        "triangular_solve" => OpKind::TriangularSolve {
            left_side: attrs.bool_or("left_side", false)?,
            lower: attrs.bool_or("lower", false)?,
            unit_diagonal: attrs.bool_or("unit_diagonal", false)?,
            transpose_a: transpose_kind(&attrs.enum_value("transpose_a")?.unwrap_or_else(|| "NO_TRANSPOSE".into()))?,
        },
        "batch_norm_inference" => OpKind::BatchNormInference { epsilon: attrs.f32_of("epsilon")?, feature_index: attrs.i64("feature_index")? },
        "batch_norm_training" => OpKind::BatchNormTraining { epsilon: attrs.f32_of("epsilon")?, feature_index: attrs.i64("feature_index")? },
        "batch_norm_grad" => OpKind::BatchNormGrad { epsilon: attrs.f32_of("epsilon")?, feature_index: attrs.i64("feature_index")? },
        "while" => OpKind::While,
        "case" => OpKind::Case,
        "tuple" => OpKind::Tuple,
        "get_tuple_element" => OpKind::GetTupleElement { index: attrs.i64("index")? as u32 },
        "optimization_barrier" => OpKind::OptimizationBarrier,
        "composite" => OpKind::Composite {
            name: attrs.str_or_empty("name")?,
            decomposition: attrs.symbol("decomposition")?,
            version: attrs.i64_or("version", 0)? as i32,
            attributes: match attrs.get("composite_attributes") {
                None => Vec::new(),
                Some(a) => dict_to_values(a)?,
            },
        },
        "custom_call" => OpKind::CustomCall {
            call_target_name: attrs.str_or_empty("call_target_name")?,
            has_side_effect: attrs.bool_or("has_side_effect", false)?,
            backend_config: attrs.get("backend_config").map(attr_to_value),
            api_version: match attrs.get("api_version") {
                None => 1,
                Some(Attr::Int(v, _)) => *v as i32,
                Some(Attr::Enum(_, v)) => custom_call_api_version(v),
                Some(other) => return Err(format!("api_version must be an integer, found {}", other.kind_name())),
            },
            called_computations: match attrs.get("called_computations") {
                None => Vec::new(),
                Some(Attr::Array(items)) => items
                    .iter()
                    .map(|i| match i {
                        Attr::SymbolRef(s) => Ok(s.clone()),
                        _ => Err("called_computations must hold symbol references".to_string()),
                    })
                    .collect::<R<_>>()?,
                Some(other) => return Err(format!("called_computations must be a list, found {}", other.kind_name())),
            },
            ffi_attributes: super::ffi_attrs::read(attrs.get("mhlo.backend_config"))?,
            output_operand_aliases: match attrs.get("output_operand_aliases") {
                None => Vec::new(),
                Some(a) => super::ffi_attrs::read_aliases(a)?,
            },
            operand_layouts: super::ffi_attrs::read_layouts(attrs.get("operand_layouts"))?,
            result_layouts: super::ffi_attrs::read_layouts(attrs.get("result_layouts"))?,
        },
        "all_reduce" => OpKind::AllReduce { groups: replica_groups(attrs)? },
        "all_gather" => OpKind::AllGather { all_gather_dim: attrs.i64("all_gather_dim")?, groups: replica_groups(attrs)? },
        "all_to_all" => OpKind::AllToAll {
            split_dimension: attrs.i64("split_dimension")?,
            concat_dimension: attrs.i64("concat_dimension")?,
            split_count: attrs.i64("split_count")?,
            groups: replica_groups(attrs)?,
        },
        "reduce_scatter" => OpKind::ReduceScatter { scatter_dimension: attrs.i64("scatter_dimension")?, groups: replica_groups(attrs)? },
        "collective_permute" => OpKind::CollectivePermute {
            pairs: crate::vhlo::ops::permute_pairs(&attrs.i64s("source_target_pairs")?).map_err(|e| e.message)?,
            channel_id: channel_id(attrs)?,
        },
        "collective_broadcast" | "collective_reduce" if matches!(attrs.get("has_dynamic_root"), Some(Attr::Bool(true))) => {
            return Err(format!("op 'stablehlo.{name}' with has_dynamic_root = true (a root chosen at run time) is not supported by apu"))
        }
        "collective_broadcast" => OpKind::CollectiveBroadcast { groups: replica_groups(attrs)? },
        // The reduction lands on the root; the other members' results are unspecified, and
        // all-reduce's (the same value everywhere) is one legal answer (as the VHLO reader maps it).
        "collective_reduce" => OpKind::AllReduce { groups: replica_groups(attrs)? },
        _ => return Err(format!("op '{name}' is not supported by apu")),
    })
}

fn custom_call_api_version(v: &str) -> i32 {
    match v {
        "API_VERSION_UNSPECIFIED" => 0,
        "API_VERSION_ORIGINAL" => 1,
        "API_VERSION_STATUS_RETURNING" => 2,
        "API_VERSION_STATUS_RETURNING_UNIFIED" => 3,
        "API_VERSION_TYPED_FFI" => 4,
        _ => 1,
    }
}

fn dict_to_values(a: &Attr) -> R<Vec<(String, AttrValue)>> {
    match a {
        Attr::Dict(entries) => Ok(entries.iter().map(|(k, v)| (k.clone(), attr_to_value(v))).collect()),
        other => Err(format!("composite_attributes must be a dictionary, found {}", other.kind_name())),
    }
}

/// Keeps an uninterpreted attribute in the IR's [`AttrValue`] form.
pub fn attr_to_value(a: &Attr) -> AttrValue {
    match a {
        Attr::Bool(b) => AttrValue::Bool(*b),
        Attr::Int(v, None | Some(ElementType::S64)) => AttrValue::Int(*v as i64),
        Attr::Float(v, None | Some(ElementType::F64)) => AttrValue::Float(*v),
        Attr::Str(s) => AttrValue::String(s.clone()),
        Attr::DenseArray(ElementType::S64, v) => AttrValue::Ints(v.iter().map(|&x| x as i64).collect()),
        Attr::Array(items) => AttrValue::Array(items.iter().map(attr_to_value).collect()),
        Attr::Dict(entries) => AttrValue::Dict(entries.iter().map(|(k, v)| (k.clone(), attr_to_value(v))).collect()),
        Attr::Dense(lit) => AttrValue::Literal(lit.clone()),
        other => AttrValue::Other(other.to_string()),
    }
}

/// The inverse of [`attr_to_value`] for printing. `Other` holds MLIR text and is printed as is.
pub fn value_to_attr(v: &AttrValue) -> Attr {
    match v {
        AttrValue::Bool(b) => Attr::Bool(*b),
        AttrValue::Int(i) => Attr::Int(*i as i128, Some(ElementType::S64)),
        AttrValue::Float(x) => Attr::Float(*x, Some(ElementType::F64)),
        AttrValue::String(s) => Attr::Str(s.clone()),
        AttrValue::Ints(v) => Attr::DenseArray(ElementType::S64, v.iter().map(|&x| x as i128).collect()),
        AttrValue::Array(items) => Attr::Array(items.iter().map(value_to_attr).collect()),
        AttrValue::Dict(entries) => Attr::Dict(entries.iter().map(|(k, v)| (k.clone(), value_to_attr(v))).collect()),
        AttrValue::Literal(l) => Attr::Dense(l.clone()),
        AttrValue::Other(s) => Attr::Opaque(s.clone()),
    }
}

fn arr(v: &[i64]) -> Attr {
    Attr::DenseArray(ElementType::S64, v.iter().map(|&x| x as i128).collect())
}
fn list(v: &[i64]) -> Attr {
    Attr::Array(v.iter().map(|&x| Attr::Int(x as i128, None)).collect())
}
fn i64a(v: i64) -> Attr {
    Attr::Int(v as i128, Some(ElementType::S64))
}
fn en(kind: &str, v: &str) -> Attr {
    Attr::Enum(kind.into(), v.into())
}
fn padding_attr(p: &[(i64, i64)]) -> Attr {
    let mut bytes = Vec::with_capacity(p.len() * 16);
    for (lo, hi) in p {
        bytes.extend_from_slice(&lo.to_le_bytes());
        bytes.extend_from_slice(&hi.to_le_bytes());
    }
    let ty = TensorType::new(vec![p.len() as i64, 2], ElementType::S64);
    match Literal::dense(ty, bytes) {
        Ok(l) => Attr::Dense(l),
        Err(_) => Attr::Array(Vec::new()),
    }
}
fn precision_attr(p: &[Precision]) -> Attr {
    Attr::Array(p.iter().map(|&x| en("precision", precision_name(x))).collect())
}
fn struct_fields(fields: &[(&str, &[i64])], tail: Option<(&str, i64)>) -> Vec<(String, Attr)> {
    let mut out: Vec<(String, Attr)> = fields.iter().filter(|(_, v)| !v.is_empty()).map(|(k, v)| (k.to_string(), list(v))).collect();
    if let Some((k, v)) = tail {
        out.push((k.to_string(), Attr::Int(v as i128, None)))
    }
    out
}

/// The full op name and the attributes the printer writes for an op in generic form, sorted by name
/// like MLIR prints properties.
pub fn attrs_from_kind(kind: &OpKind) -> (String, Vec<(String, Attr)>) {
    let mut a: Vec<(String, Attr)> = Vec::new();
    let mut put = |k: &str, v: Attr| a.push((k.to_string(), v));
    let name = match kind {
        OpKind::Call { .. } => "func.call".to_string(),
        k => format!("stablehlo.{}", k.name()),
    };
    match kind {
        OpKind::Compare { direction, compare_type } => {
            if let Some(t) = compare_type {
                put("compare_type", en("comparison_type", compare_type_name(*t)));
            }
            put("comparison_direction", en("comparison_direction", direction_name(*direction)));
        }
        OpKind::ReducePrecision { exponent_bits, mantissa_bits } => {
            put("exponent_bits", Attr::Int(*exponent_bits as i128, Some(ElementType::S32)));
            put("mantissa_bits", Attr::Int(*mantissa_bits as i128, Some(ElementType::S32)));
        }
        OpKind::Constant(lit) => put("value", Attr::Dense(lit.clone())),
        OpKind::Iota { dimension } => put("iota_dimension", i64a(*dimension)),
        OpKind::RngBitGenerator { algorithm } => put("rng_algorithm", en("rng_algorithm", rng_algorithm_name(*algorithm))),
        OpKind::Rng { distribution } => put("rng_distribution", en("rng_distribution", rng_distribution_name(*distribution))),
        OpKind::BroadcastInDim { broadcast_dimensions } => put("broadcast_dimensions", arr(broadcast_dimensions)),
        OpKind::Transpose { permutation } => put("permutation", arr(permutation)),
        OpKind::Reverse { dimensions } => put("dimensions", arr(dimensions)),
        OpKind::Slice { start_indices, limit_indices, strides } => {
            put("limit_indices", arr(limit_indices));
            put("start_indices", arr(start_indices));
            put("strides", arr(strides));
        }
        OpKind::DynamicSlice { slice_sizes } => put("slice_sizes", arr(slice_sizes)),
        OpKind::Concatenate { dimension } => put("dimension", i64a(*dimension)),
        OpKind::Pad { edge_padding_low, edge_padding_high, interior_padding } => {
            put("edge_padding_high", arr(edge_padding_high));
            put("edge_padding_low", arr(edge_padding_low));
            put("interior_padding", arr(interior_padding));
        }
        OpKind::Gather { dims, slice_sizes, indices_are_sorted } => {
            let fields = struct_fields(
                &[
                    ("offset_dims", &dims.offset_dims),
                    ("collapsed_slice_dims", &dims.collapsed_slice_dims),
                    ("operand_batching_dims", &dims.operand_batching_dims),
                    ("start_indices_batching_dims", &dims.start_indices_batching_dims),
                    ("start_index_map", &dims.start_index_map),
                ],
                Some(("index_vector_dim", dims.index_vector_dim)),
            );
            put("dimension_numbers", Attr::Struct("gather".into(), fields));
            put("indices_are_sorted", Attr::Bool(*indices_are_sorted));
            put("slice_sizes", arr(slice_sizes));
        }
        OpKind::Scatter { dims, indices_are_sorted, unique_indices } => {
            put("indices_are_sorted", Attr::Bool(*indices_are_sorted));
            let fields = struct_fields(
                &[
                    ("update_window_dims", &dims.update_window_dims),
                    ("inserted_window_dims", &dims.inserted_window_dims),
                    ("input_batching_dims", &dims.input_batching_dims),
                    ("scatter_indices_batching_dims", &dims.scatter_indices_batching_dims),
                    ("scatter_dims_to_operand_dims", &dims.scatter_dims_to_operand_dims),
                ],
                Some(("index_vector_dim", dims.index_vector_dim)),
            );
            put("scatter_dimension_numbers", Attr::Struct("scatter".into(), fields));
            put("unique_indices", Attr::Bool(*unique_indices));
        }
        OpKind::GetDimensionSize { dimension } => put("dimension", i64a(*dimension)),
        OpKind::Reduce { dimensions } => put("dimensions", arr(dimensions)),
        OpKind::ReduceWindow { window_dimensions, window_strides, base_dilations, window_dilations, padding } => {
            if !base_dilations.is_empty() {
                put("base_dilations", arr(base_dilations));
            }
            if !padding.is_empty() {
                put("padding", padding_attr(padding));
            }
            if !window_dilations.is_empty() {
                put("window_dilations", arr(window_dilations));
            }
            put("window_dimensions", arr(window_dimensions));
            if !window_strides.is_empty() {
                put("window_strides", arr(window_strides));
            }
        }
        OpKind::SelectAndScatter { window_dimensions, window_strides, padding } => {
            if !padding.is_empty() {
                put("padding", padding_attr(padding));
            }
            if !window_dimensions.is_empty() {
                put("window_dimensions", arr(window_dimensions));
            }
            if !window_strides.is_empty() {
                put("window_strides", arr(window_strides));
            }
        }
        OpKind::DotGeneral { dims, precision, .. } => {
            let fields = struct_fields(
                &[
                    ("lhs_batching_dimensions", &dims.lhs_batch),
                    ("rhs_batching_dimensions", &dims.rhs_batch),
                    ("lhs_contracting_dimensions", &dims.lhs_contracting),
                    ("rhs_contracting_dimensions", &dims.rhs_contracting),
                ],
                None,
            );
            put("dot_dimension_numbers", Attr::Struct("dot".into(), fields));
            if !precision.is_empty() {
                put("precision_config", precision_attr(precision));
            }
        }
        OpKind::Convolution {
            window_strides,
            padding,
            lhs_dilation,
            rhs_dilation,
            window_reversal,
            dims,
            feature_group_count,
            batch_group_count,
            precision,
        } => {
            put("batch_group_count", i64a(*batch_group_count));
            put("dimension_numbers", Attr::Conv(dims.clone()));
            put("feature_group_count", i64a(*feature_group_count));
            if !lhs_dilation.is_empty() {
                put("lhs_dilation", arr(lhs_dilation));
            }
            if !padding.is_empty() {
                put("padding", padding_attr(padding));
            }
            if !precision.is_empty() {
                put("precision_config", precision_attr(precision));
            }
            if !rhs_dilation.is_empty() {
                put("rhs_dilation", arr(rhs_dilation));
            }
            if !window_reversal.is_empty() {
                put("window_reversal", Attr::DenseArray(ElementType::Pred, window_reversal.iter().map(|&b| b as i128).collect()));
            }
            if !window_strides.is_empty() {
                put("window_strides", arr(window_strides));
            }
        }
        OpKind::Sort { dimension, is_stable } => {
            put("dimension", i64a(*dimension));
            put("is_stable", Attr::Bool(*is_stable));
        }
        OpKind::Map { dimensions } => put("dimensions", arr(dimensions)),
        OpKind::Fft { fft_type, fft_length } => {
            put("fft_length", arr(fft_length));
            put("fft_type", en("fft_type", fft_type_name(*fft_type)));
        }
        OpKind::Cholesky { lower } => put("lower", Attr::Bool(*lower)),
        OpKind::TriangularSolve { left_side, lower, unit_diagonal, transpose_a } => {
            put("left_side", Attr::Bool(*left_side));
            put("lower", Attr::Bool(*lower));
            put("transpose_a", en("transpose", transpose_name(*transpose_a)));
            put("unit_diagonal", Attr::Bool(*unit_diagonal));
        }
        OpKind::BatchNormInference { epsilon, feature_index }
        | OpKind::BatchNormTraining { epsilon, feature_index }
        | OpKind::BatchNormGrad { epsilon, feature_index } => {
            put("epsilon", Attr::Float(*epsilon as f64, Some(ElementType::F32)));
            put("feature_index", i64a(*feature_index));
        }
        OpKind::Call { callee } => put("callee", Attr::SymbolRef(callee.clone())),
        OpKind::GetTupleElement { index } => put("index", Attr::Int(*index as i128, Some(ElementType::S32))),
        OpKind::Composite { name, decomposition, version, attributes } => {
            if !attributes.is_empty() {
                put("composite_attributes", Attr::Dict(attributes.iter().map(|(k, v)| (k.clone(), value_to_attr(v))).collect()));
            }
            put("decomposition", Attr::SymbolRef(decomposition.clone()));
            put("name", Attr::Str(name.clone()));
            put("version", Attr::Int(*version as i128, Some(ElementType::S32)));
        }
        OpKind::CustomCall {
            call_target_name,
            has_side_effect,
            backend_config,
            api_version,
            called_computations,
            ffi_attributes,
            output_operand_aliases,
            operand_layouts,
            result_layouts,
        } => {
            if !operand_layouts.is_empty() || !result_layouts.is_empty() {
                put("operand_layouts", super::ffi_attrs::write_layouts(operand_layouts));
                put("result_layouts", super::ffi_attrs::write_layouts(result_layouts));
            }
            put("api_version", Attr::Int(*api_version as i128, Some(ElementType::S32)));
            if let Some(f) = ffi_attributes {
                put("mhlo.backend_config", super::ffi_attrs::write(f));
            }
            if !output_operand_aliases.is_empty() {
                put("output_operand_aliases", super::ffi_attrs::write_aliases(output_operand_aliases));
            }
            if let Some(b) = backend_config {
                put("backend_config", value_to_attr(b));
            }
            if !called_computations.is_empty() {
                put("called_computations", Attr::Array(called_computations.iter().map(|c| Attr::SymbolRef(c.clone())).collect()));
            }
            put("call_target_name", Attr::Str(call_target_name.clone()));
            put("has_side_effect", Attr::Bool(*has_side_effect));
        }
        OpKind::AllReduce { groups } | OpKind::CollectiveBroadcast { groups } => put_groups(&mut put, groups),
        OpKind::AllGather { all_gather_dim, groups } => {
            put("all_gather_dim", i64a(*all_gather_dim));
            put_groups(&mut put, groups);
        }
        OpKind::AllToAll { split_dimension, concat_dimension, split_count, groups } => {
            put("concat_dimension", i64a(*concat_dimension));
            put("split_count", i64a(*split_count));
            put("split_dimension", i64a(*split_dimension));
            put_groups(&mut put, groups);
        }
        OpKind::ReduceScatter { scatter_dimension, groups } => {
            put("scatter_dimension", i64a(*scatter_dimension));
            put_groups(&mut put, groups);
        }
        OpKind::CollectivePermute { pairs, channel_id } => {
            put("source_target_pairs", Attr::Array(pairs.iter().map(|p| list(&[p.0, p.1])).collect()));
            if let Some(c) = channel_id {
                put("channel_handle", channel_attr(*c));
            }
        }
        _ => {}
    }
    (name, a)
}

/// `replica_groups` as a dense `N x M` tensor or a list of lists (the printer's spelling; the
/// parser expands the mesh-axes form before this), with the channel handle and id mode.
fn replica_groups(attrs: &Attrs) -> R<ReplicaGroups> {
    let groups: Vec<Vec<i64>> = match attrs.get("replica_groups") {
        None => Vec::new(),
        Some(Attr::Dense(lit)) => {
            let flat = Attrs::i64s_of("replica_groups", &Attr::Dense(lit.clone()))?;
            match lit.ty.shape.as_slice() {
                [_, m] if *m > 0 => flat.chunks_exact(*m as usize).map(|g| g.iter().copied().filter(|&d| d >= 0).collect()).collect(),
                [_, _] | [0] => Vec::new(),
                shape => return Err(format!("replica_groups of shape {shape:?}, expected N x M")),
            }
        }
        Some(Attr::Array(items)) => items.iter().map(|g| Attrs::i64s_of("replica_groups", g)).collect::<R<_>>()?,
        Some(Attr::Struct(kind, _)) => return Err(format!("replica_groups given as #stablehlo.{kind} outside a module with its mesh")),
        Some(other) => return Err(format!("attribute 'replica_groups' must be a dense tensor, found {}", other.kind_name())),
    };
    crate::ir::collective::check_groups(&groups, i64::MAX)?;
    Ok(ReplicaGroups { groups, channel_id: channel_id(attrs)?, use_global_device_ids: attrs.bool_or("use_global_device_ids", false)?, mesh_axes: None })
}

/// The id of `channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>`; `None` when absent
/// or not positive.
fn channel_id(attrs: &Attrs) -> R<Option<i64>> {
    match attrs.get("channel_handle") {
        None => Ok(None),
        Some(Attr::Struct(k, fields)) if k == "channel_handle" => {
            let handle = Attrs(fields).i64("handle")?;
            Ok(Some(handle).filter(|&h| h > 0))
        }
        Some(other) => Err(format!("attribute 'channel_handle' must be a #stablehlo.channel_handle, found {}", other.kind_name())),
    }
}

fn channel_attr(id: i64) -> Attr {
    Attr::Struct("channel_handle".into(), vec![("handle".into(), i64a(id)), ("type".into(), i64a(1))])
}

fn put_groups(put: &mut impl FnMut(&str, Attr), g: &ReplicaGroups) {
    if !g.groups.is_empty() {
        put("replica_groups", Attr::Array(g.groups.iter().map(|x| list(x)).collect()));
    }
    if let Some(c) = g.channel_id {
        put("channel_handle", channel_attr(c));
    }
    if g.use_global_device_ids {
        put("use_global_device_ids", Attr::Unit);
    }
}
