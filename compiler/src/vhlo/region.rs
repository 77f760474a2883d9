//! Regions and ops inside functions: each VHLO op becomes one IR op (two for `if`, which the IR
//! expresses as a `case` on the converted predicate).

use super::convert::value_type;
use super::dot_algorithm;
use super::module::{inherent_attrs, location, split_version};
use super::op_ctx::OpCtx;
use super::ops::map_op;
use super::sharding::check_value_sharding;
use crate::bytecode::{RawOp, RawRegion, Table};
use crate::error::{ErrorKind, ResultExt};
use crate::ir::{ElementType, Op, OpKind, Region, Type, ValueId};
use crate::{Error, Result};

/// Types of the values of an isolated op's own scope; `first` is the id the first one will get.
pub fn scope_value_types(op: &RawOp<'_>, first: usize) -> Result<Vec<Type>> {
    op.scope_types
        .iter()
        .enumerate()
        .map(|(i, t)| value_type(t).context_with(|| format!("value %{}", first + i)))
        .collect()
}

/// Converts a single-block region. `base` maps the ids of the region's value scope into the
/// function's arena: the writer may number any op whose regions capture nothing (not only
/// functions) as a separate isolated scope, and apu's IR has one arena per function.
pub fn build_region(region: &RawRegion<'_>, values: &mut Vec<Type>, base: u32, table: &mut Table<'_>) -> Result<Region> {
    let block = match region.blocks.as_slice() {
        [b] => b,
        [] => return Ok(Region::default()),
        _ => return Err(Error::unimplemented(format!("regions with {} blocks", region.blocks.len()))),
    };
    let id = |v: u32| ValueId(base + v);
    let mut out = Region { params: block.args.iter().map(|a| id(a.id)).collect(), ..Default::default() };
    let Some((last, body)) = block.ops.split_last() else {
        return Err(Error::invalid("block without a terminator"));
    };
    for op in body {
        build_op(op, values, base, table, &mut out.ops)?;
    }
    if last.name != "vhlo.return_v1" && last.name != "sdy.return" {
        return Err(Error::invalid(format!("block ends with '{}' instead of vhlo.return_v1", last.name)));
    }
    out.results = last.operands.iter().map(|&v| id(v)).collect();
    Ok(out)
}

fn build_op(op: &RawOp<'_>, values: &mut Vec<Type>, base: u32, table: &mut Table<'_>, out: &mut Vec<Op>) -> Result<()> {
    let name = op.name.as_str();
    // The location text is only needed for an error: not computed on the success path.
    let context = || format!("{name} at {} (byte {})", location(op), op.offset);
    build_op_inner(op, values, base, table, out).map_err(|e| e.context(context()))
}

fn build_op_inner(op: &RawOp<'_>, values: &mut Vec<Type>, base: u32, table: &mut Table<'_>, out: &mut Vec<Op>) -> Result<()> {
    let id = |v: u32| ValueId(base + v);
    let name = op.name.as_str();
    if let Some(identity) = single_device_identity(op, values, base)? {
        out.push(identity);
        return Ok(());
    }
    if name == "sdy.manual_computation" {
        let kind = OpKind::ManualComputation(super::manual::manual_computation(op, table)?);
        return push_with_regions(op, kind, values, base, table, out);
    }
    let short = name.strip_prefix("vhlo.").ok_or_else(|| Error::unimplemented(format!("{name}: not a VHLO op")))?;
    let (op_base, version) = split_version(short).ok_or_else(|| Error::unimplemented(format!("{name}: unknown VHLO op")))?;
    if short == "return_v1" || short == "func_v1" {
        return Err(Error::invalid(format!("{name} in an op position")));
    }
    let attrs = inherent_attrs(op, short, table)?;
    let operand_types = op
        .operands
        .iter()
        .map(|&v| values.get(id(v).index()).cloned().ok_or_else(|| Error::internal(format!("operand %{v} has no type"))))
        .collect::<Result<Vec<Type>>>()?;
    let kind = if op_base == "if" {
        None
    } else {
        let ctx = OpCtx { base: op_base, version, attrs: &attrs, operand_types: &operand_types };
        let as_named = |e: Error| match e.kind {
            ErrorKind::Unimplemented => Error::unimplemented(format!("{name}: {}", e.message)),
            _ => Error::invalid(format!("{name}: {}", e.message)),
        };
        let mut kind = map_op(&ctx).map_err(as_named)?;
        if let OpKind::CustomCall { ffi_attributes, .. } = &mut kind {
            *ffi_attributes = super::ffi_attrs::from_discardable(op.attrs.as_deref()).map_err(as_named)?;
        }
        check_arity(&kind, op)?;
        if op_base == "dot_general" {
            dot_algorithm::check(&ctx).map_err(as_named)?;
        }
        Some(kind)
    };

    let Some(kind) = kind else {
        let (operands, results, regions, location) = op_parts(op, values, base, table)?;
        return lower_if(operands, results, regions, &operand_types, values, location, out);
    };
    push_with_regions(op, kind, values, base, table, out)
}

/// Operands, results, converted regions and location of `op`.
fn op_parts(op: &RawOp<'_>, values: &mut Vec<Type>, base: u32, table: &mut Table<'_>) -> Result<(Vec<ValueId>, Vec<ValueId>, Vec<Region>, crate::ir::Location)> {
    let id = |v: u32| ValueId(base + v);
    // The writer numbers the regions of any op that captures nothing as a separate scope; its values
    // join the function's arena after the existing ones.
    let region_base = if op.isolated {
        let first = values.len();
        values.extend(scope_value_types(op, first)?);
        u32::try_from(first).map_err(|_| Error::invalid("too many values"))?
    } else {
        base
    };
    let mut regions = Vec::with_capacity(op.regions.len());
    for r in &op.regions {
        regions.push(build_region(r, values, region_base, table)?);
    }
    let results: Vec<ValueId> = op.results.iter().map(|&v| id(v)).collect();
    let operands: Vec<ValueId> = op.operands.iter().map(|&v| id(v)).collect();
    Ok((operands, results, regions, location(op)))
}

/// Builds the op of `kind` with its operands, results and regions.
fn push_with_regions(op: &RawOp<'_>, kind: OpKind, values: &mut Vec<Type>, base: u32, table: &mut Table<'_>, out: &mut Vec<Op>) -> Result<()> {
    let (operands, results, regions, location) = op_parts(op, values, base, table)?;
    check_regions(&kind, &regions)?;
    // Legacy-path sharding constraints are `custom_call @Sharding` ops with an `mhlo.sharding`.
    if let Some(dict) = op.attrs.as_deref() {
        check_value_sharding(dict, "the op's result")?;
    }
    out.push(Op { kind, operands, results, regions, location });
    Ok(())
}

/// Ops that leave values unchanged on a single device become a same-shape reshape (a view, which the
/// plan removes). JAX keeps Shardy's `sdy.sharding_constraint` / `sdy.reshard` in portable artifacts
/// even for one device (e.g. custom element types lower through them), wrapped in
/// `builtin.unrealized_conversion_cast` ops that move values between VHLO and builtin tensor types;
/// apu decodes both type families to the same IR type, so those casts are identities too.
fn single_device_identity(op: &RawOp<'_>, values: &[Type], base: u32) -> Result<Option<Op>> {
    let name = op.name.as_str();
    if !matches!(name, "builtin.unrealized_conversion_cast" | "sdy.sharding_constraint" | "sdy.reshard") {
        return Ok(None);
    }
    let ([operand], [result]) = (op.operands.as_slice(), op.results.as_slice()) else {
        return Err(Error::unimplemented(format!(
            "{name} with {} operands and {} results (apu reads the one-operand, one-result form)",
            op.operands.len(),
            op.results.len()
        )));
    };
    let (operand, result) = (ValueId(base + operand), ValueId(base + result));
    let type_of = |v: ValueId| values.get(v.index()).ok_or_else(|| Error::internal(format!("value %{} has no type", v.0)));
    let (from, to) = (type_of(operand)?, type_of(result)?);
    if from != to {
        return Err(Error::unimplemented(format!("{name} from {from} to {to}: only same-type casts are read")));
    }
    if !op.regions.is_empty() {
        return Err(Error::unimplemented(format!("{name} with regions")));
    }
    // A token (threaded through a Shardy region) is passed on by an after_all of itself.
    let kind = if matches!(from, Type::Token) { OpKind::AfterAll } else { OpKind::Reshape };
    Ok(Some(Op { kind, operands: vec![operand], results: vec![result], regions: Vec::new(), location: location(op) }))
}

/// `if(pred) {true} else {false}` becomes `case(convert<i32>(pred)) {false} {true}`: a true
/// predicate converts to 1 and selects the second branch.
fn lower_if(
    operands: Vec<ValueId>,
    results: Vec<ValueId>,
    regions: Vec<Region>,
    operand_types: &[Type],
    values: &mut Vec<Type>,
    location: crate::ir::Location,
    out: &mut Vec<Op>,
) -> Result<()> {
    let pred_ty = Type::tensor(Vec::new(), ElementType::Pred);
    if operands.len() != 1 || operand_types.first() != Some(&pred_ty) {
        return Err(Error::invalid("vhlo.if_v1 takes one tensor<i1> predicate"));
    }
    let [true_branch, false_branch]: [Region; 2] =
        regions.try_into().map_err(|_| Error::invalid("vhlo.if_v1 needs a true and a false region"))?;
    let index = ValueId(u32::try_from(values.len()).map_err(|_| Error::invalid("too many values"))?);
    values.push(Type::tensor(Vec::new(), ElementType::S32));
    out.push(Op { kind: OpKind::Convert, operands, results: vec![index], regions: Vec::new(), location: location.clone() });
    out.push(Op { kind: OpKind::Case, operands: vec![index], results, regions: vec![false_branch, true_branch], location });
    Ok(())
}

/// Fixed operand/result counts of the simple op families, checked here so later stages can index
/// operands without re-checking.
fn check_arity(kind: &OpKind, op: &RawOp<'_>) -> Result<()> {
    let expected: Option<(usize, usize)> = match kind {
        OpKind::Unary(_) | OpKind::Convert | OpKind::BitcastConvert | OpKind::Reshape => Some((1, 1)),
        OpKind::BroadcastInDim { .. } | OpKind::Transpose { .. } | OpKind::Reverse { .. } | OpKind::Slice { .. } => Some((1, 1)),
        OpKind::ReducePrecision { .. } | OpKind::GetDimensionSize { .. } => Some((1, 1)),
        OpKind::Binary(_) | OpKind::Compare { .. } | OpKind::DotGeneral { .. } | OpKind::Convolution { .. } => Some((2, 1)),
        OpKind::Pad { .. } | OpKind::Gather { .. } => Some((2, 1)),
        OpKind::Select | OpKind::Clamp => Some((3, 1)),
        OpKind::Constant(_) | OpKind::Iota { .. } => Some((0, 1)),
        _ => None,
    };
    if let Some((n_in, n_out)) = expected {
        if op.operands.len() != n_in || op.results.len() != n_out {
            return Err(Error::invalid(format!(
                "expected {n_in} operands and {n_out} results, got {} and {}",
                op.operands.len(),
                op.results.len()
            )));
        }
    }
    let even_split = matches!(kind, OpKind::Reduce { .. } | OpKind::ReduceWindow { .. });
    if even_split && (op.operands.is_empty() || op.operands.len() % 2 != 0) {
        return Err(Error::invalid(format!("expected inputs and init values in equal numbers, got {} operands", op.operands.len())));
    }
    if matches!(kind, OpKind::Scatter { .. }) && (op.operands.len() < 3 || op.operands.len() % 2 != 1) {
        return Err(Error::invalid(format!("expected N inputs, indices and N updates, got {} operands", op.operands.len())));
    }
    Ok(())
}

/// The region conventions of [`OpKind`], so later stages can index regions without re-checking.
fn check_regions(kind: &OpKind, regions: &[Region]) -> Result<()> {
    let expected = match kind {
        OpKind::While | OpKind::SelectAndScatter { .. } => 2,
        OpKind::Reduce { .. } | OpKind::ReduceWindow { .. } | OpKind::Scatter { .. } | OpKind::Sort { .. } => 1,
        OpKind::Map { .. } | OpKind::AllReduce { .. } | OpKind::ReduceScatter { .. } | OpKind::ManualComputation(_) => 1,
        OpKind::Case if !regions.is_empty() => regions.len(),
        OpKind::Case => return Err(Error::invalid("case without branches")),
        // composite_v2 carries (so far always empty) inline regions; the decomposition function is
        // what runs.
        OpKind::Composite { .. } => {
            if regions.iter().any(|r| !r.ops.is_empty()) {
                return Err(Error::unimplemented("composite with inline regions"));
            }
            regions.len()
        }
        _ => 0,
    };
    if regions.len() != expected {
        return Err(Error::invalid(format!("expected {expected} regions, got {}", regions.len())));
    }
    Ok(())
}
