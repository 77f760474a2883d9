//! One HLO instruction → IR ops (opcode spellings: program-formats.md §8.4).

use super::attrs;
use super::computation::{emit, leaves_of, location_of, Mapped, ModuleReader};
use super::literal;
use super::proto::{HloInstructionProto, LiteralProto};
use super::shape;
use crate::ir::{FftType, Function, Literal, Location, Op, OpKind, Region, Transpose, Type};
use crate::{Error, Result};

/// Custom-call targets that only annotate sharding; on one device they are the identity.
const IDENTITY_CUSTOM_CALLS: [&str; 3] = ["Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"];

impl<'p> ModuleReader<'p> {
    /// Emits the ops for `inst` (whose operands are already mapped) and returns what it produced.
    pub(super) fn instruction(
        &mut self,
        f: &mut Function,
        inst: &HloInstructionProto,
        operands: &[Mapped],
        params: &[Mapped],
        ops: &mut Vec<Op>,
    ) -> Result<Mapped> {
        let ty = shape::to_type(super::computation::instruction_shape(inst)?)?;
        let loc = location_of(inst, self.frames());
        let opcode = inst.opcode.as_str();
        let values = leaves_of(operands);
        let called = |i: usize| -> Result<i64> {
            inst.called_computation_ids
                .get(i)
                .copied()
                .ok_or_else(|| Error::invalid(format!("{opcode} needs called computation #{i}")))
        };

        if let Some(u) = attrs::unary(opcode) {
            return Ok(emit(f, ops, OpKind::Unary(u), values, &ty, vec![], &loc));
        }
        if let Some(b) = attrs::binary(opcode) {
            return Ok(emit(f, ops, OpKind::Binary(b), values, &ty, vec![], &loc));
        }
        let simple = |kind: OpKind, f: &mut Function, ops: &mut Vec<Op>| Ok(emit(f, ops, kind, values.clone(), &ty, vec![], &loc));

        match opcode {
            // Structure: parameters, tuples and pass-through ops emit nothing.
            "parameter" => {
                let n = inst.parameter_number;
                usize::try_from(n).ok().and_then(|n| params.get(n)).cloned().ok_or_else(|| {
                    Error::invalid(format!("parameter number {n} out of range ({} parameters)", params.len()))
                })
            }
            "tuple" => Ok(Mapped::Tuple(operands.to_vec())),
            "get-tuple-element" => match operand(operands, 0)? {
                Mapped::Tuple(parts) => usize::try_from(inst.tuple_index)
                    .ok()
                    .and_then(|i| parts.get(i))
                    .cloned()
                    .ok_or_else(|| Error::invalid(format!("tuple index {} out of range ({})", inst.tuple_index, parts.len()))),
                Mapped::Value(_) => Err(Error::invalid("get-tuple-element of a value that is not a tuple")),
            },
            "copy" | "domain" | "add-dependency" => operand(operands, 0).cloned(),
            "constant" => {
                let lit = inst.literal.as_ref().ok_or_else(|| Error::invalid("constant without literal"))?;
                constant(f, ops, lit, &ty, &loc)
            }

            // Elementwise with attributes.
            "compare" => simple(attrs::compare(inst)?, f, ops),
            "select" => simple(OpKind::Select, f, ops),
            "clamp" => simple(OpKind::Clamp, f, ops),
            "convert" => simple(OpKind::Convert, f, ops),
            "bitcast-convert" => simple(OpKind::BitcastConvert, f, ops),
            "reduce-precision" => simple(
                OpKind::ReducePrecision { exponent_bits: inst.exponent_bits, mantissa_bits: inst.mantissa_bits },
                f,
                ops,
            ),
            op if super::expand::EXPANDED_OPCODES.contains(&op) => super::expand::elementwise(f, ops, op, &values, &ty, &loc),
            "topk" => super::expand::top_k(f, ops, inst, &values, &ty, &loc),

            // Producers.
            "iota" => simple(OpKind::Iota { dimension: attrs::one_dimension(inst)? }, f, ops),
            "rng-bit-generator" => simple(OpKind::RngBitGenerator { algorithm: attrs::rng_algorithm(inst) }, f, ops),
            "rng" => simple(OpKind::Rng { distribution: attrs::rng_distribution(inst)? }, f, ops),
            "replica-id" => simple(OpKind::ReplicaId, f, ops),
            "partition-id" => simple(OpKind::PartitionId, f, ops),
            "after-all" => simple(OpKind::AfterAll, f, ops),

            // Shape and data movement.
            "broadcast" => simple(OpKind::BroadcastInDim { broadcast_dimensions: inst.dimensions.clone() }, f, ops),
            "reshape" => simple(OpKind::Reshape, f, ops),
            "bitcast" => self.bitcast(f, ops, inst, operands, &ty, &loc),
            "transpose" => simple(OpKind::Transpose { permutation: inst.dimensions.clone() }, f, ops),
            "reverse" => simple(OpKind::Reverse { dimensions: inst.dimensions.clone() }, f, ops),
            "slice" => simple(attrs::slice(inst), f, ops),
            "dynamic-slice" => simple(OpKind::DynamicSlice { slice_sizes: inst.dynamic_slice_sizes.clone() }, f, ops),
            "dynamic-update-slice" => simple(OpKind::DynamicUpdateSlice, f, ops),
            "concatenate" => simple(OpKind::Concatenate { dimension: attrs::one_dimension(inst)? }, f, ops),
            "pad" => simple(attrs::pad(inst)?, f, ops),
            "gather" => simple(attrs::gather(inst)?, f, ops),
            "get-dimension-size" => simple(OpKind::GetDimensionSize { dimension: attrs::one_dimension(inst)? }, f, ops),
            "scatter" => {
                let region = self.region_for(f, called(0)?)?;
                Ok(emit(f, ops, attrs::scatter(inst)?, values, &ty, vec![region], &loc))
            }

            // Reductions and contractions.
            "reduce" => {
                let region = self.region_for(f, called(0)?)?;
                let kind = OpKind::Reduce { dimensions: inst.dimensions.clone() };
                Ok(emit(f, ops, kind, values, &ty, vec![region], &loc))
            }
            "reduce-window" => {
                let rank = first_rank(f, &values)?;
                let w = attrs::window(inst, rank)?;
                let region = self.region_for(f, called(0)?)?;
                let kind = OpKind::ReduceWindow {
                    window_dimensions: w.sizes,
                    window_strides: w.strides,
                    base_dilations: w.base_dilations,
                    window_dilations: w.window_dilations,
                    padding: w.padding,
                };
                Ok(emit(f, ops, kind, values, &ty, vec![region], &loc))
            }
            "select-and-scatter" => {
                let rank = first_rank(f, &values)?;
                let w = attrs::window(inst, rank)?;
                let select = self.region_for(f, called(0)?)?;
                let scatter = self.region_for(f, called(1)?)?;
                let kind =
                    OpKind::SelectAndScatter { window_dimensions: w.sizes, window_strides: w.strides, padding: w.padding };
                Ok(emit(f, ops, kind, values, &ty, vec![select, scatter], &loc))
            }
            "dot" => simple(
                OpKind::DotGeneral { dims: attrs::dot_dims(inst)?, precision: attrs::precision(inst), preferred_element_type: None },
                f,
                ops,
            ),
            "convolution" => simple(attrs::convolution(inst)?, f, ops),
            "sort" => {
                let region = self.region_for(f, called(0)?)?;
                let kind = OpKind::Sort { dimension: attrs::one_dimension(inst)?, is_stable: inst.is_stable };
                Ok(emit(f, ops, kind, values, &ty, vec![region], &loc))
            }
            "map" => {
                let rank = first_rank(f, &values)?;
                let region = self.region_for(f, called(0)?)?;
                let kind = OpKind::Map { dimensions: (0..rank as i64).collect() };
                Ok(emit(f, ops, kind, values, &ty, vec![region], &loc))
            }
            "fft" => {
                let fft_type = match super::proto::FftType::try_from(inst.fft_type) {
                    Ok(super::proto::FftType::Fft) => FftType::Fft,
                    Ok(super::proto::FftType::Ifft) => FftType::Ifft,
                    Ok(super::proto::FftType::Rfft) => FftType::Rfft,
                    Ok(super::proto::FftType::Irfft) => FftType::Irfft,
                    Err(_) => return Err(Error::invalid(format!("unknown fft type {}", inst.fft_type))),
                };
                simple(OpKind::Fft { fft_type, fft_length: inst.fft_length.clone() }, f, ops)
            }
            "cholesky" => simple(OpKind::Cholesky { lower: inst.cholesky_options.as_ref().is_some_and(|o| o.lower) }, f, ops),
            "triangular-solve" => {
                use super::proto::triangular_solve_options::Transpose as T;
                let o = inst.triangular_solve_options.unwrap_or_default();
                let transpose_a = match T::try_from(o.transpose_a) {
                    Ok(T::Transpose) => Transpose::Transpose,
                    Ok(T::Adjoint) => Transpose::Adjoint,
                    Ok(T::NoTranspose) => Transpose::NoTranspose,
                    _ => return Err(Error::invalid(format!("triangular-solve with transpose_a {}", o.transpose_a))),
                };
                let kind = OpKind::TriangularSolve {
                    left_side: o.left_side,
                    lower: o.lower,
                    unit_diagonal: o.unit_diagonal,
                    transpose_a,
                };
                simple(kind, f, ops)
            }
            "batch-norm-inference" => {
                simple(OpKind::BatchNormInference { epsilon: inst.epsilon, feature_index: inst.feature_index }, f, ops)
            }
            "batch-norm-training" => {
                simple(OpKind::BatchNormTraining { epsilon: inst.epsilon, feature_index: inst.feature_index }, f, ops)
            }
            "batch-norm-grad" => {
                simple(OpKind::BatchNormGrad { epsilon: inst.epsilon, feature_index: inst.feature_index }, f, ops)
            }

            // Control flow.
            "call" => {
                let index = self.function_for(called(0)?, false)?;
                let callee = self.functions[index].name.clone();
                Ok(emit(f, ops, OpKind::Call { callee }, values, &ty, vec![], &loc))
            }
            "fusion" => self.inline(f, called(0)?, operands, ops),
            "while" => {
                let body = self.region_for(f, called(0)?)?;
                let cond = self.region_for(f, called(1)?)?;
                Ok(emit(f, ops, OpKind::While, values, &ty, vec![cond, body], &loc))
            }
            "conditional" => self.conditional(f, ops, inst, operands, &ty, &loc),
            "opt-barrier" => simple(OpKind::OptimizationBarrier, f, ops),
            "custom-call" => {
                let target = inst.custom_call_target.as_str();
                let identity = IDENTITY_CUSTOM_CALLS.contains(&target) || crate::passes::PLACEMENT_TARGETS.contains(&target);
                if identity && operands.len() == 1 {
                    operand(operands, 0).cloned()
                } else {
                    Err(Error::unimplemented(format!("custom-call target {target:?} is not supported by apu")))
                }
            }

            // Collectives: between the replicas (or partitions) of one launch (decision 65).
            "all-reduce" => {
                let region = self.region_for(f, called(0)?)?;
                Ok(emit(f, ops, OpKind::AllReduce { groups: hlo_groups(inst)? }, values, &ty, vec![region], &loc))
            }
            "all-gather" => simple(OpKind::AllGather { all_gather_dim: attrs::one_dimension(inst)?, groups: hlo_groups(inst)? }, f, ops),
            "reduce-scatter" => {
                let region = self.region_for(f, called(0)?)?;
                let kind = OpKind::ReduceScatter { scatter_dimension: attrs::one_dimension(inst)?, groups: hlo_groups(inst)? };
                Ok(emit(f, ops, kind, values, &ty, vec![region], &loc))
            }
            "all-to-all" => {
                // The array form splits and concatenates along the one dimension it names, into
                // as many pieces as a replica group has members (one when no groups are given).
                let dimension = attrs::one_dimension(inst)?;
                let split_count = inst.replica_groups.first().map_or(1, |g| g.replica_ids.len().max(1)) as i64;
                let kind = OpKind::AllToAll { split_dimension: dimension, concat_dimension: dimension, split_count, groups: hlo_groups(inst)? };
                simple(kind, f, ops)
            }
            "collective-permute" => {
                let pairs: Vec<i64> = inst.source_target_pairs.iter().flat_map(|p| [p.source, p.target]).collect();
                let pairs = crate::vhlo::ops::permute_pairs(&pairs).map_err(|e| e.context("collective-permute"))?;
                simple(OpKind::CollectivePermute { pairs, channel_id: Some(inst.channel_id).filter(|&c| c > 0) }, f, ops)
            }
            "collective-broadcast" => simple(OpKind::CollectiveBroadcast { groups: hlo_groups(inst)? }, f, ops),

            other => Err(Error::unimplemented(format!("HLO opcode {other:?} is not supported by apu"))),
        }
    }

    /// `bitcast` on row-major arrays with the same element type and count is a reshape.
    fn bitcast(
        &mut self,
        f: &mut Function,
        ops: &mut Vec<Op>,
        inst: &HloInstructionProto,
        operands: &[Mapped],
        ty: &Type,
        loc: &Location,
    ) -> Result<Mapped> {
        let Mapped::Value(v) = operand(operands, 0)? else {
            return Err(Error::unimplemented("bitcast of a tuple"));
        };
        let from = f.value_type(*v).as_tensor().cloned();
        let to = ty.as_tensor();
        let same_layout = shape::has_default_layout(super::computation::instruction_shape(inst)?);
        match (from, to) {
            (Some(a), Some(b)) if a.elem == b.elem && a.num_elements() == b.num_elements() && same_layout => {
                Ok(emit(f, ops, OpKind::Reshape, vec![*v], ty, vec![], loc))
            }
            _ => Err(Error::unimplemented(format!("bitcast to {ty} that is not a row-major reshape"))),
        }
    }

    /// `conditional`: operand 0 selects a branch (a pred: true → computation 0, false → 1; an
    /// s32: index, out of range → last branch); operand i+1 is branch i's argument. The IR `case`
    /// takes an i32 index and argument-free regions, so a pred becomes `convert(pred)` with the
    /// two branches swapped (false = 0, true = 1).
    fn conditional(
        &mut self,
        f: &mut Function,
        ops: &mut Vec<Op>,
        inst: &HloInstructionProto,
        operands: &[Mapped],
        ty: &Type,
        loc: &Location,
    ) -> Result<Mapped> {
        let Mapped::Value(selector) = operand(operands, 0)? else {
            return Err(Error::invalid("conditional selector is a tuple"));
        };
        let branches = &inst.called_computation_ids;
        let args = &operands[1..];
        if branches.is_empty() || args.len() != branches.len() {
            return Err(Error::invalid(format!(
                "conditional has {} branch computations and {} branch operands",
                branches.len(),
                args.len()
            )));
        }
        let selector_ty = f.value_type(*selector).as_tensor().cloned();
        let mut order: Vec<usize> = (0..branches.len()).collect();
        let index = match selector_ty.map(|t| t.elem) {
            Some(crate::ir::ElementType::Pred) => {
                if branches.len() != 2 {
                    return Err(Error::invalid("conditional on a pred needs exactly two branches"));
                }
                order.reverse();
                let i32_ty = Type::tensor(vec![], crate::ir::ElementType::S32);
                match emit(f, ops, OpKind::Convert, vec![*selector], &i32_ty, vec![], loc) {
                    Mapped::Value(v) => v,
                    Mapped::Tuple(_) => return Err(Error::internal("convert produced a tuple")),
                }
            }
            Some(crate::ir::ElementType::S32) => *selector,
            other => return Err(Error::invalid(format!("conditional selector of type {other:?}, expected pred or s32"))),
        };
        let mut regions: Vec<Region> = Vec::with_capacity(order.len());
        for i in order {
            regions.push(self.closed_region_for(f, branches[i], std::slice::from_ref(&args[i]))?);
        }
        Ok(emit(f, ops, OpKind::Case, vec![index], ty, regions, loc))
    }
}

fn operand(operands: &[Mapped], i: usize) -> Result<&Mapped> {
    operands.get(i).ok_or_else(|| Error::invalid(format!("missing operand #{i} ({} given)", operands.len())))
}

fn first_rank(f: &Function, values: &[crate::ir::ValueId]) -> Result<usize> {
    values
        .first()
        .and_then(|v| f.value_type(*v).as_tensor())
        .map(|t| t.rank())
        .ok_or_else(|| Error::invalid("expected a tensor first operand"))
}

/// A constant; tuple-shaped literals become a tuple of constants.
fn constant(f: &mut Function, ops: &mut Vec<Op>, lit: &LiteralProto, ty: &Type, loc: &Location) -> Result<Mapped> {
    match ty {
        Type::Tuple(parts) => {
            if parts.len() != lit.tuple_literals.len() {
                return Err(Error::invalid(format!(
                    "tuple constant with {} elements, shape has {}",
                    lit.tuple_literals.len(),
                    parts.len()
                )));
            }
            let elems = parts
                .iter()
                .zip(&lit.tuple_literals)
                .map(|(t, l)| constant(f, ops, l, t, loc))
                .collect::<Result<Vec<_>>>()?;
            Ok(Mapped::Tuple(elems))
        }
        Type::Tensor(t) => {
            let value: Literal = literal::to_literal(lit, t)?;
            Ok(emit(f, ops, OpKind::Constant(value), vec![], ty, vec![], loc))
        }
        Type::Token => Err(Error::invalid("constant of token type")),
    }
}

/// The explicit replica groups, channel and id mode of an HLO collective.
fn hlo_groups(inst: &super::proto::HloInstructionProto) -> Result<crate::ir::ReplicaGroups> {
    let groups: Vec<Vec<i64>> = inst.replica_groups.iter().map(|g| g.replica_ids.clone()).collect();
    crate::ir::collective::check_groups(&groups, i64::MAX).map_err(Error::invalid)?;
    Ok(crate::ir::ReplicaGroups {
        groups,
        channel_id: Some(inst.channel_id).filter(|&c| c > 0),
        use_global_device_ids: inst.use_global_device_ids,
        mesh_axes: None,
    })
}
