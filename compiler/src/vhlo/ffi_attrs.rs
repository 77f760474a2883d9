//! A typed-FFI custom call's attributes from VHLO: `jax.ffi.ffi_call` writes them as the dictionary
//! `mhlo.backend_config` among the op's discardable attributes, each with its exact type.

use super::convert::{attr_kind, element_type, literal};
use crate::bytecode::{Attr, Ty};
use crate::ir::{ElementType, FfiAttr, Literal, TensorType};
use crate::{Error, Result};

/// The FFI attributes of a custom call whose `mhlo.backend_config` is a dictionary, else None.
pub fn from_discardable(attrs: Option<&Attr>) -> Result<Option<Vec<(String, FfiAttr)>>> {
    match attrs.and_then(|d| d.dict_get("mhlo.backend_config")).map(|a| &**a) {
        Some(Attr::Dict(entries)) => dict(entries).map(Some),
        _ => Ok(None),
    }
}

fn dict(entries: &[(String, std::rc::Rc<Attr>)]) -> Result<Vec<(String, FfiAttr)>> {
    entries
        .iter()
        .map(|(k, v)| value(v).map(|v| (k.clone(), v)).map_err(|e| e.context(format!("FFI attribute '{k}'"))))
        .collect()
}

fn value(a: &Attr) -> Result<FfiAttr> {
    Ok(match a {
        Attr::Bool(b) => FfiAttr::bool(*b),
        Attr::Integer { ty, value } => FfiAttr::scalar_from_bits(scalar_elem(ty)?, *value)?,
        Attr::Float { ty, bits } => FfiAttr::scalar_from_bits(scalar_elem(ty)?, *bits)?,
        Attr::String(s) => FfiAttr::String(s.clone()),
        Attr::Dict(entries) => FfiAttr::Dict(dict(entries)?),
        Attr::DenseElements { .. } => FfiAttr::array(literal(a)?)?,
        Attr::DenseArray { elem, count, data } => {
            let elem = scalar_elem(elem)?;
            FfiAttr::array(Literal::dense(TensorType::new(vec![*count as i64], elem), data.clone())?)?
        }
        other => return Err(Error::unimplemented(format!("an FFI attribute of kind {}", attr_kind(other)))),
    })
}

fn scalar_elem(ty: &Ty) -> Result<ElementType> {
    // `index` is how MLIR types a Python int in some attribute builders; XLA reads it as s64.
    if matches!(ty, Ty::Index) {
        return Ok(ElementType::S64);
    }
    element_type(ty)
}
