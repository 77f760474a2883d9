//! The builtin dialect's binary encodings (kind codes of `program-formats.md` §3). In portable
//! artifacts builtin carries the module, its discardable attributes and every location.

use super::model::{Attr, FloatKind, Loc, Signedness, Ty};
use super::reader::Reader;
use super::table::{DialectDecoder, Table};
use crate::{Error, Result};

pub struct BuiltinDecoder;

/// Bit width of the integer or float type an IntegerAttr / FloatAttr is typed with.
pub fn scalar_width(ty: &Ty) -> Option<u32> {
    match ty {
        Ty::Integer { width, .. } => Some(*width),
        Ty::Index => Some(64),
        Ty::Float(k) => Some(k.bit_width()),
        _ => None,
    }
}

/// Reads an APInt whose width comes from `ty`; values wider than 64 bits are not modelled.
pub fn read_scalar_bits(r: &mut Reader<'_>, ty: &Ty) -> Result<u64> {
    let width = scalar_width(ty).ok_or_else(|| r.error(format!("number typed with non-scalar type {ty:?}")))?;
    if width > 64 {
        return Err(Error::unimplemented(format!("MLIR bytecode: {width}-bit numbers are not supported")));
    }
    let words = r.apint(width)?;
    Ok(words.first().copied().unwrap_or(0))
}

impl DialectDecoder for BuiltinDecoder {
    fn decode_attr(&self, r: &mut Reader<'_>, t: &mut Table<'_>) -> Result<Attr> {
        let code = r.varint()?;
        Ok(match code {
            0 => Attr::Array(t.read_attr_list(r)?),
            1 => Attr::Dict(t.read_list(r, |t, r| {
                let key = t.read_attr(r)?;
                let key = key.as_str().ok_or_else(|| r.error("dictionary key is not a string"))?.to_string();
                Ok((key, t.read_attr(r)?))
            })?),
            2 => Attr::String(t.read_string(r)?.to_string()),
            3 => {
                let s = t.read_string(r)?.to_string();
                t.read_type(r)?;
                Attr::String(s)
            }
            4 => Attr::SymbolRef { root: string_attr(t, r)?, nested: Vec::new() },
            5 => {
                let root = string_attr(t, r)?;
                let nested = t.read_list(r, |t, r| match &*t.read_attr(r)? {
                    Attr::SymbolRef { root, .. } => Ok(root.clone()),
                    _ => Err(r.error("nested symbol reference is not a symbol")),
                })?;
                Attr::SymbolRef { root, nested }
            }
            6 => Attr::Type(t.read_type(r)?),
            7 => Attr::Unit,
            8 => {
                let ty = t.read_type(r)?;
                let value = read_scalar_bits(r, &ty)?;
                Attr::Integer { ty, value }
            }
            9 => {
                let ty = t.read_type(r)?;
                let bits = read_scalar_bits(r, &ty)?;
                Attr::Float { ty, bits }
            }
            10 => Attr::Loc(Loc::CallSite { callee: t.read_attr(r)?, caller: t.read_attr(r)? }),
            11 => {
                let file = string_attr(t, r)?;
                Attr::Loc(Loc::FileLineCol { file, line: r.varint()?, col: r.varint()? })
            }
            12 => Attr::Loc(Loc::Fused(t.read_attr_list(r)?)),
            13 => {
                let parts = t.read_attr_list(r)?;
                t.read_attr(r)?;
                Attr::Loc(Loc::Fused(parts))
            }
            14 => {
                let name = string_attr(t, r)?;
                Attr::Loc(Loc::Name { name, child: t.read_attr(r)? })
            }
            15 => Attr::Loc(Loc::Unknown),
            16 => return Err(Error::unimplemented("MLIR bytecode: dense_resource constants are not supported")),
            17 => {
                let elem = t.read_type(r)?;
                let count = r.varint()?;
                let data = r.blob()?.to_vec();
                let count = usize::try_from(count).map_err(|_| r.error("dense array count too large"))?;
                Attr::DenseArray { elem, count, data }
            }
            18 => {
                let ty = t.read_type(r)?;
                Attr::DenseElements { ty, data: r.blob()?.to_vec() }
            }
            19 => return Err(Error::unimplemented("MLIR bytecode: dense string elements are not supported")),
            20 => return Err(Error::unimplemented("MLIR bytecode: sparse elements are not supported")),
            21 => return Ok((*t.read_attr(r)?).clone()),
            22 => {
                let file = string_attr(t, r)?;
                let nums = t.read_list(r, |_, r| r.varint())?;
                if nums.len() > 4 {
                    return Err(r.error("file range location has more than 4 numbers"));
                }
                Attr::Loc(Loc::FileLineCol {
                    file,
                    line: nums.first().copied().unwrap_or(0),
                    col: nums.get(1).copied().unwrap_or(0),
                })
            }
            other => {
                return Err(Error::unimplemented(format!("MLIR bytecode: builtin attribute kind {other} is not supported")))
            }
        })
    }

    fn decode_type(&self, r: &mut Reader<'_>, t: &mut Table<'_>) -> Result<Ty> {
        use FloatKind::*;
        let code = r.varint()?;
        let float = |k| Ok(Ty::Float(k));
        match code {
            0 => {
                let v = r.varint()?;
                let signedness = match v & 3 {
                    0 => Signedness::Signless,
                    1 => Signedness::Signed,
                    2 => Signedness::Unsigned,
                    _ => return Err(r.error("integer type with invalid signedness 3")),
                };
                let width = u32::try_from(v >> 2).map_err(|_| r.error("integer width too large"))?;
                Ok(Ty::Integer { width, signedness })
            }
            1 => Ok(Ty::Index),
            2 => Ok(Ty::Function { inputs: t.read_type_list(r)?, results: t.read_type_list(r)? }),
            3 => float(BF16),
            4 => float(F16),
            5 => float(F32),
            6 => float(F64),
            7 => float(F80),
            8 => float(F128),
            9 => Ok(Ty::Complex(t.read_type(r)?)),
            10 | 11 => Ok(Ty::Other("memref".into())),
            12 => Ok(Ty::None),
            13 => {
                let shape = t.read_list(r, |_, r| r.svarint())?;
                Ok(Ty::Tensor { shape, elem: t.read_type(r)?, encoding: None })
            }
            14 => {
                let encoding = Some(t.read_attr(r)?);
                let shape = t.read_list(r, |_, r| r.svarint())?;
                Ok(Ty::Tensor { shape, elem: t.read_type(r)?, encoding })
            }
            15 => Ok(Ty::Tuple(t.read_type_list(r)?)),
            16 | 17 => Ok(Ty::Other("unranked memref".into())),
            18 => Ok(Ty::UnrankedTensor(t.read_type(r)?)),
            19 | 20 => Ok(Ty::Other("vector".into())),
            21 => float(TF32),
            22 => float(F8E5M2),
            23 => float(F8E4M3),
            24 => float(F8E4M3FN),
            25 => float(F8E5M2FNUZ),
            26 => float(F8E4M3FNUZ),
            27 => float(F8E4M3B11FNUZ),
            28 => float(F8E3M4),
            29 => float(F4E2M1FN),
            30 => float(F6E2M3FN),
            31 => float(F6E3M2FN),
            32 => float(F8E8M0FNU),
            other => Err(Error::unimplemented(format!("MLIR bytecode: builtin type kind {other} is not supported"))),
        }
    }
}

/// Reads an attribute index that must name a StringAttr and returns the string.
fn string_attr(t: &mut Table<'_>, r: &mut Reader<'_>) -> Result<String> {
    let a = t.read_attr(r)?;
    a.as_str().map(str::to_string).ok_or_else(|| r.error("expected a string attribute"))
}

