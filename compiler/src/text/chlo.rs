//! `chlo.*` ops in StableHLO text: checks the op's syntax and hands it to the shared expansions in
//! [`crate::chlo`], which emit plain IR ops in its place (apu's IR has no CHLO ops).

use super::ops::OpSyntax;
use crate::chlo::{self, Builder};
use crate::ir::ValueId;
use crate::{Error, Result};

/// Expands a `chlo.*` op; returns its result values.
pub fn expand(b: &mut Builder, syn: &OpSyntax) -> Result<Vec<ValueId>> {
    let op = syn.name.strip_prefix("chlo.").unwrap_or(&syn.name);
    if op == "top_k" {
        let k = super::opdefs::Attrs(&syn.attrs)
            .i64("k")
            .map_err(Error::invalid)?;
        let ([x], [values_ty, indices_ty]) = (&syn.operands[..], &syn.result_types[..]) else {
            return Err(Error::invalid(
                "top_k takes one operand and gives (values, indices)",
            ));
        };
        let (v, i) = chlo::top_k(b, *x, k, true, values_ty, indices_ty)?;
        return Ok(vec![v, i]);
    }
    if op == "next_after" {
        let ([x, y], [result_ty]) = (&syn.operands[..], &syn.result_types[..]) else {
            return Err(Error::invalid("next_after takes two operands and gives one result"));
        };
        return Ok(vec![chlo::next_after(b, *x, *y, result_ty)?]);
    }
    if chlo::is_binary(op) {
        let ([x, y], [result_ty]) = (&syn.operands[..], &syn.result_types[..]) else {
            return Err(Error::invalid(format!("{op} takes two operands and gives one result")));
        };
        return Ok(vec![chlo::expand_binary(b, op, *x, *y, result_ty)?]);
    }
    if !chlo::is_elementwise(op) {
        return Err(Error::unimplemented(format!(
            "CHLO op chlo.{op} is not supported by apu's text reader"
        )));
    }
    let ([x], [result_ty]) = (&syn.operands[..], &syn.result_types[..]) else {
        return Err(Error::invalid(format!(
            "expects one operand and one result, got {} and {}",
            syn.operands.len(),
            syn.result_types.len()
        )));
    };
    Ok(vec![chlo::expand_elementwise(b, op, *x, result_ty)?])
}
