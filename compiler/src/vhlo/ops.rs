//! Maps one VHLO op (name, version, inherent attributes) onto an [`OpKind`]. Ops and attribute
//! values apu cannot honour fail here with an UNIMPLEMENTED error, so a program is rejected when it is
//! read rather than when it runs.

use super::convert::{attr_kind, attr_value, float_value, int_value, ints, literal, string_value};
use super::op_ctx::OpCtx;
use crate::bytecode::Attr;
use crate::ir::*;
use crate::{Error, Result};

fn unary(base: &str) -> Option<UnaryOp> {
    UnaryOp::from_name(base)
}

fn binary(base: &str) -> Option<BinaryOp> {
    BinaryOp::from_name(base)
}

/// `result_accuracy` (v2 of the transcendental ops). apu evaluates these functions with the host
/// libm at the operation's own precision (f16/bf16 through f32), within a few ulp: that is what
/// DEFAULT and HIGHEST ask for, and it meets any TOLERANCE request a program can usefully make, so
/// every mode is accepted; only a malformed attribute is refused.
fn check_result_accuracy(c: &OpCtx<'_>) -> Result<()> {
    if c.version < 2 || c.is_none("result_accuracy") {
        return Ok(());
    }
    c.with("result_accuracy", |a| match a {
        Attr::Dialect { name: "result_accuracy", fields, .. } => match fields.get(3).map(|m| &**m) {
            Some(Attr::Enum { name: "result_accuracy_mode", value: 0..=2 }) => Ok(()),
            _ => Err(Error::invalid("result_accuracy without a known mode (DEFAULT, HIGHEST or TOLERANCE)")),
        },
        other => Err(Error::invalid(format!("expected a result_accuracy, got {}", attr_kind(other)))),
    })
}

/// `replica_groups` (an `N x M` integer tensor: N groups of M ids; -1 pads uneven groups),
/// `channel_id` and `use_global_device_ids` of a collective. Mesh-axes groups (StableHLO 1.16+)
/// name a mesh the op context does not carry: refused here, expanded by the text reader.
fn replica_groups(c: &OpCtx<'_>) -> Result<ReplicaGroups> {
    let attr = c.attr("replica_groups")?;
    let groups = match attr {
        Attr::DenseElements { .. } => {
            let lit = literal(attr)?;
            let flat = ints(attr)?;
            let width = match lit.ty.shape.as_slice() {
                [_, m] => *m as usize,
                [n] if *n == 0 => 0,
                shape => return Err(Error::invalid(format!("replica_groups of shape {shape:?}, expected N x M"))),
            };
            if width == 0 {
                Vec::new()
            } else {
                flat.chunks_exact(width).map(|g| g.iter().copied().filter(|&d| d >= 0).collect()).collect()
            }
        }
        Attr::Dialect { name: "replica_group_mesh_axes", fields, .. } => {
            let mesh = match fields.first().map(|f| &**f) {
                Some(Attr::SymbolRef { root, .. }) => root.clone(),
                Some(Attr::String(s)) => s.clone(),
                other => return Err(Error::unimplemented(format!("mesh-axes replica groups naming the mesh by {}", other.map_or("nothing", attr_kind)))),
            };
            let axes = match fields.get(1).map(|f| &**f) {
                Some(Attr::Array(items)) => items
                    .iter()
                    .map(|a| match &**a {
                        Attr::Dialect { name: "axis_ref", fields, .. } if fields.len() == 1 => {
                            fields[0].as_str().map(str::to_string).ok_or_else(|| Error::invalid("axis reference without a name"))
                        }
                        Attr::Dialect { name: "axis_ref", .. } => Err(Error::unimplemented("replica groups over sub-axes")),
                        other => Err(Error::invalid(format!("expected an axis reference, got {}", attr_kind(other)))),
                    })
                    .collect::<Result<Vec<_>>>()?,
                _ => return Err(Error::invalid("mesh-axes replica groups without axes")),
            };
            let mut g = ReplicaGroups { mesh_axes: Some((mesh, axes)), ..Default::default() };
            g.channel_id = channel(c)?;
            g.use_global_device_ids = matches!(c.attr("use_global_device_ids"), Ok(Attr::Bool(true)) | Ok(Attr::Unit));
            return Ok(g);
        }
        other => return Err(Error::unimplemented(format!("replica groups given as {}", attr_kind(other)))),
    };
    let use_global_device_ids = matches!(c.attr("use_global_device_ids"), Ok(Attr::Bool(true)) | Ok(Attr::Unit));
    crate::ir::collective::check_groups(&groups, i64::MAX).map_err(Error::invalid)?;
    Ok(ReplicaGroups { groups, channel_id: channel(c)?, use_global_device_ids, mesh_axes: None })
}

/// The channel id, when present and positive.
fn channel(c: &OpCtx<'_>) -> Result<Option<i64>> {
    Ok(match c.attr("channel_id") {
        Ok(a) => Some(int_value(a)?).filter(|&id| id > 0),
        Err(_) => None,
    })
}

/// `source_target_pairs` of collective_permute, from the flat list of an `N x 2` tensor; each
/// source and each target at most once.
pub fn permute_pairs(flat: &[i64]) -> Result<Vec<(i64, i64)>> {
    if flat.len() % 2 != 0 {
        return Err(Error::invalid(format!("source_target_pairs has {} values, expected pairs", flat.len())));
    }
    let pairs: Vec<(i64, i64)> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
    for (i, p) in pairs.iter().enumerate() {
        if p.0 < 0 || p.1 < 0 {
            return Err(Error::invalid(format!("source_target_pairs: negative id in {p:?}")));
        }
        if pairs[..i].iter().any(|q| q.0 == p.0 || q.1 == p.1) {
            return Err(Error::invalid(format!("source_target_pairs: {p:?} repeats a source or a target")));
        }
    }
    Ok(pairs)
}

/// `has_dynamic_root` (collective_broadcast_v2, collective_reduce_v1, StableHLO 1.19+): when true the
/// last operand names the root per device at run time. Absent (older definitions) means false.
fn check_static_root(c: &OpCtx<'_>) -> Result<()> {
    match c.attr("has_dynamic_root") {
        Ok(Attr::Bool(true)) => Err(Error::unimplemented("has_dynamic_root = true: a root chosen at run time")),
        _ => Ok(()),
    }
}

/// Ops apu refuses whatever their attributes, operands and types, with the reason. The function
/// builder checks every op of a function against this before converting the function's value types,
/// so a program using one is refused naming the op, not a type only that op produces (`future`,
/// quantized element types).
pub fn refused_by_name(base: &str) -> Option<&'static str> {
    Some(match base {
        "cross-replica-sum" => "legacy cross-replica-sum (JAX emits all_reduce)",
        "dynamic_broadcast_in_dim" | "dynamic_conv" | "dynamic_gather" | "dynamic_iota" | "dynamic_pad"
        | "dynamic_reshape" | "real_dynamic_slice" | "set_dimension_size" => "dynamic shapes: apu needs static shapes",
        "uniform_quantize" | "uniform_dequantize" => "quantized types",
        "einsum" | "unary_einsum" | "torch_index_select" => "legacy op without a StableHLO equivalent in apu's IR",
        "infeed" | "outfeed" | "send" | "recv" => "host transfers and channels",
        "async_start" | "async_done" => "asynchronous ops (futures): no IR op for them yet",
        _ => return None,
    })
}

pub fn map_op(c: &OpCtx<'_>) -> Result<OpKind> {
    if let Some(why) = refused_by_name(c.base) {
        return Err(Error::unimplemented(why));
    }
    if let Some(u) = unary(c.base) {
        check_result_accuracy(c)?;
        return Ok(OpKind::Unary(u));
    }
    if let Some(b) = binary(c.base) {
        return Ok(OpKind::Binary(b));
    }
    Ok(match c.base {
        "compare" => {
            let direction = match c.enum_value("comparison_direction", "comparison_direction")? {
                0 => ComparisonDirection::Eq,
                1 => ComparisonDirection::Ne,
                2 => ComparisonDirection::Ge,
                3 => ComparisonDirection::Gt,
                4 => ComparisonDirection::Le,
                5 => ComparisonDirection::Lt,
                v => return Err(Error::invalid(format!("invalid comparison_direction {v}"))),
            };
            let compare_type = match c.enum_value("compare_type", "comparison_type")? {
                0 => None,
                1 => Some(ComparisonType::Float),
                2 => Some(ComparisonType::TotalOrder),
                3 => Some(ComparisonType::Signed),
                4 => Some(ComparisonType::Unsigned),
                v => return Err(Error::invalid(format!("invalid compare_type {v}"))),
            };
            OpKind::Compare { direction, compare_type }
        }
        "select" => OpKind::Select,
        "clamp" => OpKind::Clamp,
        "convert" => OpKind::Convert,
        "bitcast_convert" => OpKind::BitcastConvert,
        "reduce_precision" => OpKind::ReducePrecision {
            exponent_bits: i32::try_from(c.int("exponent_bits")?).map_err(|_| Error::invalid("exponent_bits out of range"))?,
            mantissa_bits: i32::try_from(c.int("mantissa_bits")?).map_err(|_| Error::invalid("mantissa_bits out of range"))?,
        },
        "constant" => OpKind::Constant(c.with("value", literal)?),
        "iota" => OpKind::Iota { dimension: c.int("iota_dimension")? },
        "rng_bit_generator" => OpKind::RngBitGenerator {
            algorithm: match c.enum_value("rng_algorithm", "rng_algorithm")? {
                0 => RngAlgorithm::Default,
                1 => RngAlgorithm::ThreeFry,
                2 => RngAlgorithm::Philox,
                v => return Err(Error::invalid(format!("invalid rng_algorithm {v}"))),
            },
        },
        "rng" => OpKind::Rng {
            distribution: match c.enum_value("rng_distribution", "rng_distribution")? {
                1 => RngDistribution::Uniform,
                2 => RngDistribution::Normal,
                v => return Err(Error::invalid(format!("invalid rng_distribution {v}"))),
            },
        },
        "replica_id" => OpKind::ReplicaId,
        "partition_id" => OpKind::PartitionId,
        "create_token" => OpKind::CreateToken,
        "after_all" => OpKind::AfterAll,
        "broadcast_in_dim" => OpKind::BroadcastInDim { broadcast_dimensions: c.ints("broadcast_dimensions")? },
        "broadcast" => {
            // `broadcast` prepends `broadcast_sizes` dimensions: the operand maps to the trailing ones.
            let added = c.ints("broadcast_sizes")?.len() as i64;
            let rank = c.operand_rank(0)? as i64;
            OpKind::BroadcastInDim { broadcast_dimensions: (added..added + rank).collect() }
        }
        "reshape" => OpKind::Reshape,
        "transpose" => OpKind::Transpose { permutation: c.ints("permutation")? },
        "reverse" => OpKind::Reverse { dimensions: c.ints("dimensions")? },
        "slice" => OpKind::Slice {
            start_indices: c.ints("start_indices")?,
            limit_indices: c.ints("limit_indices")?,
            strides: c.ints("strides")?,
        },
        "dynamic_slice" => OpKind::DynamicSlice { slice_sizes: c.ints("slice_sizes")? },
        "dynamic_update_slice" => OpKind::DynamicUpdateSlice,
        "concatenate" => OpKind::Concatenate { dimension: c.int("dimension")? },
        "pad" => OpKind::Pad {
            edge_padding_low: c.ints("edge_padding_low")?,
            edge_padding_high: c.ints("edge_padding_high")?,
            interior_padding: c.ints("interior_padding")?,
        },
        "gather" => {
            let batching = c.version >= 2;
            OpKind::Gather {
                dims: GatherDims {
                    offset_dims: c.ints("offset_dims")?,
                    collapsed_slice_dims: c.ints("collapsed_slice_dims")?,
                    operand_batching_dims: if batching { c.ints("operand_batching_dims")? } else { Vec::new() },
                    start_indices_batching_dims: if batching { c.ints("start_indices_batching_dims")? } else { Vec::new() },
                    start_index_map: c.ints("start_index_map")?,
                    index_vector_dim: c.int("index_vector_dim")?,
                },
                slice_sizes: c.ints("slice_sizes")?,
                indices_are_sorted: c.boolean("indices_are_sorted")?,
            }
        }
        "scatter" => {
            let batching = c.version >= 2;
            OpKind::Scatter {
                dims: ScatterDims {
                    update_window_dims: c.ints("update_window_dims")?,
                    inserted_window_dims: c.ints("inserted_window_dims")?,
                    input_batching_dims: if batching { c.ints("input_batching_dims")? } else { Vec::new() },
                    scatter_indices_batching_dims: if batching { c.ints("scatter_indices_batching_dims")? } else { Vec::new() },
                    scatter_dims_to_operand_dims: c.ints("scatter_dims_to_operand_dims")?,
                    index_vector_dim: c.int("index_vector_dim")?,
                },
                indices_are_sorted: c.boolean("indices_are_sorted")?,
                unique_indices: c.boolean("unique_indices")?,
            }
        }
        "get_dimension_size" => OpKind::GetDimensionSize { dimension: c.int("dimension")? },
        "reduce" => OpKind::Reduce { dimensions: c.ints("dimensions")? },
        "reduce_window" => {
            let window_dimensions = c.ints("window_dimensions")?;
            let n = window_dimensions.len();
            OpKind::ReduceWindow {
                window_strides: c.opt_ints("window_strides")?.unwrap_or_else(|| vec![1; n]),
                base_dilations: c.opt_ints("base_dilations")?.unwrap_or_else(|| vec![1; n]),
                window_dilations: c.opt_ints("window_dilations")?.unwrap_or_else(|| vec![1; n]),
                padding: c.padding_pairs("padding")?.unwrap_or_else(|| vec![(0, 0); n]),
                window_dimensions,
            }
        }
        "select_and_scatter" => {
            let window_dimensions = c.ints("window_dimensions")?;
            let n = window_dimensions.len();
            OpKind::SelectAndScatter {
                window_strides: c.opt_ints("window_strides")?.unwrap_or_else(|| vec![1; n]),
                padding: c.padding_pairs("padding")?.unwrap_or_else(|| vec![(0, 0); n]),
                window_dimensions,
            }
        }
        "dot_general" => {
            // The algorithm attributes are applied by the region builder (see dot_algorithm.rs).
            OpKind::DotGeneral {
                dims: DotDims {
                    lhs_batch: c.ints("lhs_batching_dimensions")?,
                    rhs_batch: c.ints("rhs_batching_dimensions")?,
                    lhs_contracting: c.ints("lhs_contracting_dimensions")?,
                    rhs_contracting: c.ints("rhs_contracting_dimensions")?,
                },
                precision: c.precision()?,
                preferred_element_type: None,
            }
        }
        "dot" => {
            // Legacy `dot`: contracts the last dimension of lhs with the first of rhs.
            let lhs_rank = c.operand_rank(0)? as i64;
            OpKind::DotGeneral {
                dims: DotDims { lhs_contracting: vec![lhs_rank - 1], rhs_contracting: vec![0], ..Default::default() },
                precision: c.precision()?,
                preferred_element_type: None,
            }
        }
        "convolution" => {
            let spatial = c.ints("input_spatial_dimensions")?;
            let n = spatial.len();
            OpKind::Convolution {
                window_strides: c.opt_ints("window_strides")?.unwrap_or_else(|| vec![1; n]),
                padding: c.padding_pairs("padding")?.unwrap_or_else(|| vec![(0, 0); n]),
                lhs_dilation: c.opt_ints("lhs_dilation")?.unwrap_or_else(|| vec![1; n]),
                rhs_dilation: c.opt_ints("rhs_dilation")?.unwrap_or_else(|| vec![1; n]),
                window_reversal: c.opt_ints("window_reversal")?.map(|v| v.iter().map(|&b| b != 0).collect()).unwrap_or_else(|| vec![false; n]),
                dims: ConvDims {
                    input_batch: c.int("input_batch_dimension")?,
                    input_feature: c.int("input_feature_dimension")?,
                    input_spatial: spatial,
                    kernel_input_feature: c.int("kernel_input_feature_dimension")?,
                    kernel_output_feature: c.int("kernel_output_feature_dimension")?,
                    kernel_spatial: c.ints("kernel_spatial_dimensions")?,
                    output_batch: c.int("output_batch_dimension")?,
                    output_feature: c.int("output_feature_dimension")?,
                    output_spatial: c.ints("output_spatial_dimensions")?,
                },
                feature_group_count: c.int("feature_group_count")?,
                batch_group_count: c.int("batch_group_count")?,
                precision: c.precision()?,
            }
        }
        "sort" => OpKind::Sort { dimension: c.int("dimension")?, is_stable: c.boolean("is_stable")? },
        "map" => OpKind::Map { dimensions: c.ints("dimensions")? },
        "fft" => OpKind::Fft {
            fft_type: match c.enum_value("fft_type", "fft_type")? {
                0 => FftType::Fft,
                1 => FftType::Ifft,
                2 => FftType::Rfft,
                3 => FftType::Irfft,
                v => return Err(Error::invalid(format!("invalid fft_type {v}"))),
            },
            fft_length: c.ints("fft_length")?,
        },
        "cholesky" => OpKind::Cholesky { lower: c.boolean("lower")? },
        "triangular_solve" => OpKind::TriangularSolve {
            left_side: c.boolean("left_side")?,
            lower: c.boolean("lower")?,
            unit_diagonal: c.boolean("unit_diagonal")?,
            transpose_a: match c.enum_value("transpose_a", "transpose")? {
                1 => Transpose::NoTranspose,
                2 => Transpose::Transpose,
                3 => Transpose::Adjoint,
                v => return Err(Error::invalid(format!("invalid transpose_a {v}"))),
            },
        },
        "batch_norm_inference" | "batch_norm_training" | "batch_norm_grad" => {
            let epsilon = c.with("epsilon", float_value)? as f32;
            let feature_index = c.int("feature_index")?;
            match c.base {
                "batch_norm_inference" => OpKind::BatchNormInference { epsilon, feature_index },
                "batch_norm_training" => OpKind::BatchNormTraining { epsilon, feature_index },
                _ => OpKind::BatchNormGrad { epsilon, feature_index },
            }
        }
        "while" => OpKind::While,
        "case" => OpKind::Case,
        "call" => OpKind::Call { callee: c.string("callee")? },
        "tuple" => OpKind::Tuple,
        "get_tuple_element" => OpKind::GetTupleElement {
            index: u32::try_from(c.int("index")?).map_err(|_| Error::invalid("tuple index out of range"))?,
        },
        "optimization_barrier" => OpKind::OptimizationBarrier,
        "composite" => OpKind::Composite {
            name: c.string("name")?,
            decomposition: c.string("decomposition")?,
            version: i32::try_from(c.int("version")?).map_err(|_| Error::invalid("composite version out of range"))?,
            attributes: c.with("composite_attributes", |a| match a {
                Attr::Dict(entries) => Ok(entries.iter().map(|(k, v)| (k.clone(), attr_value(v))).collect()),
                other => Err(Error::invalid(format!("expected a dictionary, got {}", attr_kind(other)))),
            })?,
        },
        "custom_call" => {
            let output_operand_aliases = c.with("output_operand_aliases", output_operand_aliases)?;
            // custom_call_v2 (StableHLO 1.18+): per-result tilings, a device memory layout apu has no use for;
            // JAX writes an empty list. A non-empty one is refused rather than ignored.
            if matches!(c.attr("result_tilings"), Ok(Attr::Array(v)) if !v.is_empty()) {
                return Err(Error::unimplemented("custom_call with result_tilings"));
            }
            let backend_config = c.attr("backend_config").ok().map(attr_value).filter(|v| !matches!(v, AttrValue::String(s) if s.is_empty()));
            let api_version = match c.attr("api_version")? {
                Attr::Enum { value, .. } => *value as i32,
                other => int_value(other)? as i32,
            };
            OpKind::CustomCall {
                call_target_name: c.string("call_target_name")?,
                has_side_effect: c.boolean("has_side_effect")?,
                backend_config,
                api_version,
                called_computations: c.with("called_computations", |a| match a {
                    Attr::Array(items) => items.iter().map(|i| string_value(i)).collect(),
                    other => Err(Error::invalid(format!("expected an array, got {}", attr_kind(other)))),
                })?,
                // Read from the op's discardable attributes by the caller (`ffi_attrs`).
                ffi_attributes: None,
                output_operand_aliases,
                operand_layouts: layouts(c, "operand_layouts")?,
                result_layouts: layouts(c, "result_layouts")?,
            }
        }
        "all_reduce" => OpKind::AllReduce { groups: replica_groups(c)? },
        "all_gather" => OpKind::AllGather { all_gather_dim: c.int("all_gather_dim")?, groups: replica_groups(c)? },
        "all_to_all" => OpKind::AllToAll {
            split_dimension: c.int("split_dimension")?,
            concat_dimension: c.int("concat_dimension")?,
            split_count: c.int("split_count")?,
            groups: replica_groups(c)?,
        },
        "reduce_scatter" => OpKind::ReduceScatter { scatter_dimension: c.int("scatter_dimension")?, groups: replica_groups(c)? },
        "collective_permute" => OpKind::CollectivePermute {
            pairs: permute_pairs(&c.ints("source_target_pairs")?)?,
            channel_id: c.attr("channel_id").ok().map(int_value).transpose()?.filter(|&id| id > 0),
        },
        "collective_broadcast" => {
            check_static_root(c)?;
            OpKind::CollectiveBroadcast { groups: replica_groups(c)? }
        }
        // collective_reduce_v1 (1.19+): the reduction of the group's operands lands on the root
        // only; the other members' results are unspecified. All-reduce gives every member the
        // root's value, which is one legal answer.
        "collective_reduce" => {
            check_static_root(c)?;
            OpKind::AllReduce { groups: replica_groups(c)? }
        }
        // The region builder lowers `if` to convert + case before ops reach this mapping.
        "if" => return Err(Error::internal("vhlo.if_v1 must be lowered by the region builder")),
        _ => return Err(Error::unimplemented("unknown VHLO op")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vhlo::op_table::OP_PROPERTIES;
    use crate::vhlo::split_version;

    /// Every op definition of the VHLO table is either mapped or refused by name: none falls through
    /// to "unknown VHLO op".
    #[test]
    fn every_vhlo_op_is_handled() {
        let operand = [Type::tensor(vec![2, 2], ElementType::F32)];
        for (name, _) in OP_PROPERTIES {
            if matches!(*name, "func_v1" | "return_v1") {
                continue; // handled by the module and region builders
            }
            let (base, version) = split_version(name).unwrap();
            let ctx = OpCtx { base, version, attrs: &[], operand_types: &operand };
            if let Err(e) = map_op(&ctx) {
                assert_ne!(e.message, "unknown VHLO op", "vhlo.{name}");
            }
        }
    }
}

/// `output_operand_aliases` as (result, operand) pairs. Results and operands that are tuples are refused:
/// apu's programs have none, and a pair inside a tuple has no buffer of its own to share.
fn output_operand_aliases(a: &Attr) -> Result<Vec<(usize, usize)>> {
    let Attr::Array(items) = a else {
        return Err(Error::invalid(format!("expected an array, got {}", attr_kind(a))));
    };
    items
        .iter()
        .map(|item| match &**item {
            Attr::Dialect { name: "output_operand_alias", fields, .. } if fields.len() == 3 => {
                let output = ints(&fields[0])?;
                let operand = int_value(&fields[1])?;
                let operand_index = ints(&fields[2])?;
                if output.len() > 1 || !operand_index.is_empty() || operand < 0 {
                    return Err(Error::unimplemented(format!(
                        "custom_call output_operand_alias of output {output:?} to operand {operand} {operand_index:?} (tuples)"
                    )));
                }
                Ok((output.first().copied().unwrap_or(0) as usize, operand as usize))
            }
            other => Err(Error::invalid(format!("expected an output_operand_alias, got {}", attr_kind(other)))),
        })
        .collect()
}

/// `operand_layouts` / `result_layouts`: one minor-to-major list per value; absent is empty.
fn layouts(c: &OpCtx<'_>, name: &str) -> Result<Vec<Vec<i64>>> {
    if c.is_none(name) {
        return Ok(Vec::new());
    }
    c.with(name, |a| match a {
        Attr::Array(items) => items.iter().map(|i| layout(i)).collect(),
        other => Err(Error::invalid(format!("expected an array, got {}", attr_kind(other)))),
    })
}

/// One layout: `dense<[1, 0]> : tensor<2xindex>` (index elements are 8-byte little-endian in the blob;
/// a one-element blob is a splat).
fn layout(a: &Attr) -> Result<Vec<i64>> {
    match a {
        Attr::DenseElements { ty, data } => match &**ty {
            crate::bytecode::Ty::Tensor { shape, elem, .. } if matches!(**elem, crate::bytecode::Ty::Index) => {
                let n = shape.iter().product::<i64>().max(0) as usize;
                let values: Vec<i64> = data.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
                match values.len() {
                    len if len == n => Ok(values),
                    1 => Ok(vec![values[0]; n]),
                    len => Err(Error::invalid(format!("a layout of {n} dimensions with {len} values"))),
                }
            }
            _ => ints(a),
        },
        other => ints(other),
    }
}
