//! `top_k(x, k)` along the last dimension: a stable sort of (x, iota) and a slice of the first k
//! columns. Ties keep the lower index first, like XLA's TopK.

use super::Builder;
use crate::ir::*;
use crate::{Error, Result};

/// Emits top-k of `x` (the `k` largest, or smallest when `largest` is false, in that order) and
/// returns (values, indices) of types `values_ty` and `indices_ty`.
pub fn top_k(
    b: &mut Builder,
    x: ValueId,
    k: i64,
    largest: bool,
    values_ty: &Type,
    indices_ty: &Type,
) -> Result<(ValueId, ValueId)> {
    let xt = b
        .ty(x)
        .as_tensor()
        .cloned()
        .ok_or_else(|| Error::invalid("top_k operand must be a tensor"))?;
    let Some(&last) = xt.shape.last() else {
        return Err(Error::invalid(format!(
            "top_k needs an operand of rank >= 1, got {xt}"
        )));
    };
    if k < 0 || k > last {
        return Err(Error::invalid(format!(
            "top_k: k = {k} is out of range for the last dimension of {xt}"
        )));
    }
    let idx_elem = match indices_ty.as_tensor() {
        Some(t) if t.elem.is_int() => t.elem,
        _ => {
            return Err(Error::invalid(format!(
                "top_k indices must be an integer tensor, got {indices_ty}"
            )))
        }
    };
    let rank = xt.rank();
    let mut limit = xt.shape.clone();
    limit[rank - 1] = k;
    let want_values = Type::Tensor(TensorType::new(limit.clone(), xt.elem));
    let want_indices = Type::Tensor(TensorType::new(limit.clone(), idx_elem));
    if values_ty != &want_values || indices_ty != &want_indices {
        return Err(Error::invalid(format!(
            "top_k of {xt} with k = {k} gives ({want_values}, {want_indices}), not ({values_ty}, {indices_ty})"
        )));
    }

    let dim = rank as i64 - 1;
    let idx_ty = TensorType::new(xt.shape.clone(), idx_elem);
    let iota = b.op(
        OpKind::Iota { dimension: dim },
        vec![],
        Type::Tensor(idx_ty.clone()),
    );
    let comparator = comparator(b, xt.elem, idx_elem, largest);
    let sorted_vals = b.value(Type::Tensor(xt.clone()));
    let sorted_idx = b.value(Type::Tensor(idx_ty));
    b.push(
        OpKind::Sort {
            dimension: dim,
            is_stable: true,
        },
        vec![x, iota],
        vec![sorted_vals, sorted_idx],
        vec![comparator],
    );
    let slice = OpKind::Slice {
        start_indices: vec![0; rank],
        limit_indices: limit,
        strides: vec![1; rank],
    };
    let v = b.op(slice.clone(), vec![sorted_vals], want_values);
    let i = b.op(slice, vec![sorted_idx], want_indices);
    Ok((v, i))
}

/// The sort comparator: a > b (or a < b) on the values, in a total order for floats; the indices
/// ride along and the stable sort breaks ties by position.
pub(crate) fn comparator(b: &mut Builder, elem: ElementType, idx_elem: ElementType, largest: bool) -> Region {
    let scalar = Type::Tensor(TensorType::scalar(elem));
    let iscalar = Type::Tensor(TensorType::scalar(idx_elem));
    let params: Vec<ValueId> = [scalar.clone(), scalar, iscalar.clone(), iscalar]
        .into_iter()
        .map(|t| b.value(t))
        .collect();
    let compare_type = if elem.is_float() {
        ComparisonType::TotalOrder
    } else if elem.is_unsigned_int() || elem.is_pred() {
        ComparisonType::Unsigned
    } else {
        ComparisonType::Signed
    };
    let direction = if largest {
        ComparisonDirection::Gt
    } else {
        ComparisonDirection::Lt
    };
    let before = b.value(Type::Tensor(TensorType::scalar(ElementType::Pred)));
    let cmp = Op {
        kind: OpKind::Compare {
            direction,
            compare_type: Some(compare_type),
        },
        operands: vec![params[0], params[1]],
        results: vec![before],
        regions: Vec::new(),
        location: b.location.clone(),
    };
    Region {
        params,
        ops: vec![cmp],
        results: vec![before],
    }
}
