//! HLO opcode spellings and instruction attributes → IR op kinds and attributes.

use super::proto::{self, HloInstructionProto};
use crate::ir::{
    BinaryOp, ComparisonDirection, ComparisonType, ConvDims, DotDims, GatherDims, OpKind, Precision, RngAlgorithm,
    RngDistribution, ScatterDims, UnaryOp,
};
use crate::{Error, Result};

/// Elementwise one-operand opcodes.
pub fn unary(opcode: &str) -> Option<UnaryOp> {
    UnaryOp::from_name(&opcode.replace('-', "_"))
}

/// Elementwise two-operand opcodes.
pub fn binary(opcode: &str) -> Option<BinaryOp> {
    BinaryOp::from_name(&opcode.replace('-', "_"))
}

/// `compare`: direction string (required) and comparison type string (optional).
pub fn compare(inst: &HloInstructionProto) -> Result<OpKind> {
    let direction = match inst.comparison_direction.as_str() {
        "EQ" => ComparisonDirection::Eq,
        "NE" => ComparisonDirection::Ne,
        "GE" => ComparisonDirection::Ge,
        "GT" => ComparisonDirection::Gt,
        "LE" => ComparisonDirection::Le,
        "LT" => ComparisonDirection::Lt,
        other => return Err(Error::invalid(format!("unknown comparison direction {other:?}"))),
    };
    let compare_type = match inst.comparison_type.as_str() {
        "" => None,
        "FLOAT" => Some(ComparisonType::Float),
        "TOTALORDER" => Some(ComparisonType::TotalOrder),
        "SIGNED" => Some(ComparisonType::Signed),
        "UNSIGNED" => Some(ComparisonType::Unsigned),
        other => return Err(Error::unimplemented(format!("comparison type {other:?}"))),
    };
    Ok(OpKind::Compare { direction, compare_type })
}

pub fn precision(inst: &HloInstructionProto) -> Vec<Precision> {
    let Some(cfg) = &inst.precision_config else { return Vec::new() };
    cfg.operand_precision
        .iter()
        .map(|&p| match proto::precision_config::Precision::try_from(p) {
            Ok(proto::precision_config::Precision::High) => Precision::High,
            Ok(proto::precision_config::Precision::Highest) => Precision::Highest,
            _ => Precision::Default,
        })
        .collect()
}

pub fn dot_dims(inst: &HloInstructionProto) -> Result<DotDims> {
    let d = inst.dot_dimension_numbers.as_ref().ok_or_else(|| Error::invalid("dot without dot_dimension_numbers"))?;
    Ok(DotDims {
        lhs_batch: d.lhs_batch_dimensions.clone(),
        rhs_batch: d.rhs_batch_dimensions.clone(),
        lhs_contracting: d.lhs_contracting_dimensions.clone(),
        rhs_contracting: d.rhs_contracting_dimensions.clone(),
    })
}

pub fn gather(inst: &HloInstructionProto) -> Result<OpKind> {
    let d = inst.gather_dimension_numbers.as_ref().ok_or_else(|| Error::invalid("gather without dimension numbers"))?;
    Ok(OpKind::Gather {
        dims: GatherDims {
            offset_dims: d.offset_dims.clone(),
            collapsed_slice_dims: d.collapsed_slice_dims.clone(),
            operand_batching_dims: d.operand_batching_dims.clone(),
            start_indices_batching_dims: d.start_indices_batching_dims.clone(),
            start_index_map: d.start_index_map.clone(),
            index_vector_dim: d.index_vector_dim,
        },
        slice_sizes: inst.gather_slice_sizes.clone(),
        indices_are_sorted: inst.indices_are_sorted,
    })
}

pub fn scatter(inst: &HloInstructionProto) -> Result<OpKind> {
    let d = inst.scatter_dimension_numbers.as_ref().ok_or_else(|| Error::invalid("scatter without dimension numbers"))?;
    Ok(OpKind::Scatter {
        dims: ScatterDims {
            update_window_dims: d.update_window_dims.clone(),
            inserted_window_dims: d.inserted_window_dims.clone(),
            input_batching_dims: d.input_batching_dims.clone(),
            scatter_indices_batching_dims: d.scatter_indices_batching_dims.clone(),
            scatter_dims_to_operand_dims: d.scatter_dims_to_operand_dims.clone(),
            index_vector_dim: d.index_vector_dim,
        },
        indices_are_sorted: inst.indices_are_sorted,
        unique_indices: inst.unique_indices,
    })
}

/// Per-dimension window parameters with XLA's defaults (0 means 1 for strides and dilations).
pub struct WindowParams {
    pub sizes: Vec<i64>,
    pub strides: Vec<i64>,
    pub padding: Vec<(i64, i64)>,
    pub base_dilations: Vec<i64>,
    pub window_dilations: Vec<i64>,
    pub reversal: Vec<bool>,
}

pub fn window(inst: &HloInstructionProto, rank: usize) -> Result<WindowParams> {
    let dims = inst.window.as_ref().map(|w| w.dimensions.as_slice()).unwrap_or(&[]);
    if dims.len() != rank {
        return Err(Error::invalid(format!("window has {} dimensions, expected {rank}", dims.len())));
    }
    let one_if_zero = |v: i64| if v == 0 { 1 } else { v };
    Ok(WindowParams {
        sizes: dims.iter().map(|d| d.size).collect(),
        strides: dims.iter().map(|d| one_if_zero(d.stride)).collect(),
        padding: dims.iter().map(|d| (d.padding_low, d.padding_high)).collect(),
        base_dilations: dims.iter().map(|d| one_if_zero(d.base_dilation)).collect(),
        window_dilations: dims.iter().map(|d| one_if_zero(d.window_dilation)).collect(),
        reversal: dims.iter().map(|d| d.window_reversal).collect(),
    })
}

pub fn convolution(inst: &HloInstructionProto) -> Result<OpKind> {
    let d = inst
        .convolution_dimension_numbers
        .as_ref()
        .ok_or_else(|| Error::invalid("convolution without dimension numbers"))?;
    let w = window(inst, d.input_spatial_dimensions.len())?;
    let one_if_zero = |v: i64| if v == 0 { 1 } else { v };
    Ok(OpKind::Convolution {
        window_strides: w.strides,
        padding: w.padding,
        lhs_dilation: w.base_dilations,
        rhs_dilation: w.window_dilations,
        window_reversal: w.reversal,
        dims: ConvDims {
            input_batch: d.input_batch_dimension,
            input_feature: d.input_feature_dimension,
            input_spatial: d.input_spatial_dimensions.clone(),
            kernel_input_feature: d.kernel_input_feature_dimension,
            kernel_output_feature: d.kernel_output_feature_dimension,
            kernel_spatial: d.kernel_spatial_dimensions.clone(),
            output_batch: d.output_batch_dimension,
            output_feature: d.output_feature_dimension,
            output_spatial: d.output_spatial_dimensions.clone(),
        },
        feature_group_count: one_if_zero(inst.feature_group_count),
        batch_group_count: one_if_zero(inst.batch_group_count),
        precision: precision(inst),
    })
}

pub fn slice(inst: &HloInstructionProto) -> OpKind {
    let s = &inst.slice_dimensions;
    OpKind::Slice {
        start_indices: s.iter().map(|d| d.start).collect(),
        limit_indices: s.iter().map(|d| d.limit).collect(),
        strides: s.iter().map(|d| if d.stride == 0 { 1 } else { d.stride }).collect(),
    }
}

pub fn pad(inst: &HloInstructionProto) -> Result<OpKind> {
    let cfg = inst.padding_config.as_ref().ok_or_else(|| Error::invalid("pad without padding_config"))?;
    Ok(OpKind::Pad {
        edge_padding_low: cfg.dimensions.iter().map(|d| d.edge_padding_low).collect(),
        edge_padding_high: cfg.dimensions.iter().map(|d| d.edge_padding_high).collect(),
        interior_padding: cfg.dimensions.iter().map(|d| d.interior_padding).collect(),
    })
}

pub fn rng_algorithm(inst: &HloInstructionProto) -> RngAlgorithm {
    match proto::RandomAlgorithm::try_from(inst.rng_algorithm) {
        Ok(proto::RandomAlgorithm::RngThreeFry) => RngAlgorithm::ThreeFry,
        Ok(proto::RandomAlgorithm::RngPhilox) => RngAlgorithm::Philox,
        _ => RngAlgorithm::Default,
    }
}

pub fn rng_distribution(inst: &HloInstructionProto) -> Result<RngDistribution> {
    match proto::RandomDistribution::try_from(inst.distribution) {
        Ok(proto::RandomDistribution::RngUniform) => Ok(RngDistribution::Uniform),
        Ok(proto::RandomDistribution::RngNormal) => Ok(RngDistribution::Normal),
        _ => Err(Error::invalid(format!("rng with invalid distribution {}", inst.distribution))),
    }
}

/// The single entry of `dimensions` some opcodes use (iota, concatenate, sort…).
pub fn one_dimension(inst: &HloInstructionProto) -> Result<i64> {
    match inst.dimensions.as_slice() {
        [d] => Ok(*d),
        other => Err(Error::invalid(format!("expected exactly one dimension, got {other:?}"))),
    }
}
