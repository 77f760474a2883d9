//! The inherent attributes of one op, with typed accessors that name the attribute in errors.

use super::convert::{attr_kind, bool_value, int_value, ints, string_value};
use crate::bytecode::{Attr, Ty};
use crate::ir::{Precision, Type};
use crate::{Error, Result};
use std::rc::Rc;

/// What the op mapping knows about one op.
pub struct OpCtx<'x> {
    /// The op name without dialect and version (`dot_general`).
    pub base: &'x str,
    /// The version number (`2` for `dot_general_v2`).
    pub version: u32,
    pub attrs: &'x [(&'static str, Rc<Attr>)],
    pub operand_types: &'x [Type],
}

impl OpCtx<'_> {
    pub fn attr(&self, name: &str) -> Result<&Attr> {
        self.attrs
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, a)| &**a)
            .ok_or_else(|| Error::invalid(format!("missing attribute '{name}'")))
    }
    pub fn with<T>(&self, name: &str, f: impl FnOnce(&Attr) -> Result<T>) -> Result<T> {
        f(self.attr(name)?).map_err(|e| e.context(format!("attribute '{name}'")))
    }
    /// An absent optional attribute is a `none` type (or, in older artifacts, an empty value).
    pub fn is_none(&self, name: &str) -> bool {
        match self.attr(name) {
            Ok(Attr::Type(t)) => matches!(**t, Ty::None),
            Ok(_) => false,
            Err(_) => true,
        }
    }
    pub fn ints(&self, name: &str) -> Result<Vec<i64>> {
        self.with(name, ints)
    }
    pub fn opt_ints(&self, name: &str) -> Result<Option<Vec<i64>>> {
        if self.is_none(name) {
            return Ok(None);
        }
        self.ints(name).map(Some)
    }
    pub fn int(&self, name: &str) -> Result<i64> {
        self.with(name, int_value)
    }
    pub fn boolean(&self, name: &str) -> Result<bool> {
        self.with(name, bool_value)
    }
    pub fn string(&self, name: &str) -> Result<String> {
        self.with(name, string_value)
    }
    pub fn enum_value(&self, name: &str, expected: &str) -> Result<u64> {
        self.with(name, |a| match a {
            Attr::Enum { name, value } if *name == expected => Ok(*value),
            other => Err(Error::invalid(format!("expected a {expected}, got {}", attr_kind(other)))),
        })
    }
    pub fn operand_rank(&self, i: usize) -> Result<usize> {
        match self.operand_types.get(i) {
            Some(Type::Tensor(t)) => Ok(t.rank()),
            _ => Err(Error::invalid(format!("operand {i} is not a tensor"))),
        }
    }
    pub fn precision(&self) -> Result<Vec<Precision>> {
        if self.is_none("precision_config") {
            return Ok(Vec::new());
        }
        self.with("precision_config", |a| match a {
            Attr::Array(items) => items.iter().map(|p| precision(p)).collect(),
            other => Err(Error::invalid(format!("expected an array of precisions, got {}", attr_kind(other)))),
        })
    }
    /// `(low, high)` pairs from an `Nx2` i64 tensor.
    pub fn padding_pairs(&self, name: &str) -> Result<Option<Vec<(i64, i64)>>> {
        let Some(flat) = self.opt_ints(name)? else { return Ok(None) };
        if flat.len() % 2 != 0 {
            return Err(Error::invalid(format!("attribute '{name}' has {} values, expected pairs", flat.len())));
        }
        Ok(Some(flat.chunks_exact(2).map(|c| (c[0], c[1])).collect()))
    }
}

fn precision(a: &Attr) -> Result<Precision> {
    match a {
        Attr::Enum { name: "precision", value: 0 } => Ok(Precision::Default),
        Attr::Enum { name: "precision", value: 1 } => Ok(Precision::High),
        Attr::Enum { name: "precision", value: 2 } => Ok(Precision::Highest),
        other => Err(Error::invalid(format!("invalid precision {other:?}"))),
    }
}

