//! Conversions from decoded VHLO attributes and types to the IR's typed values. Each failure says
//! what was expected, so the op mapping can add which op and attribute it was.

use crate::bytecode::{Attr, FloatKind, Signedness, Ty};
use crate::ir::{AttrValue, ElementType, Literal, TensorType, Type};
use crate::{Error, Result};

pub fn element_type(ty: &Ty) -> Result<ElementType> {
    use ElementType as E;
    Ok(match ty {
        Ty::Integer { width: 1, .. } => E::Pred,
        Ty::Integer { width, signedness } => {
            let unsigned = *signedness == Signedness::Unsigned;
            match (width, unsigned) {
                (2, false) => E::S2,
                (4, false) => E::S4,
                (8, false) => E::S8,
                (16, false) => E::S16,
                (32, false) => E::S32,
                (64, false) => E::S64,
                (2, true) => E::U2,
                (4, true) => E::U4,
                (8, true) => E::U8,
                (16, true) => E::U16,
                (32, true) => E::U32,
                (64, true) => E::U64,
                _ => return Err(Error::unimplemented(format!("element type {}", ty_name(ty)))),
            }
        }
        Ty::Float(k) => match k {
            FloatKind::BF16 => E::BF16,
            FloatKind::F16 => E::F16,
            FloatKind::F32 => E::F32,
            FloatKind::F64 => E::F64,
            FloatKind::F8E5M2 => E::F8E5M2,
            FloatKind::F8E4M3 => E::F8E4M3,
            FloatKind::F8E4M3FN => E::F8E4M3FN,
            FloatKind::F8E5M2FNUZ => E::F8E5M2FNUZ,
            FloatKind::F8E4M3FNUZ => E::F8E4M3FNUZ,
            FloatKind::F8E4M3B11FNUZ => E::F8E4M3B11FNUZ,
            FloatKind::F8E3M4 => E::F8E3M4,
            FloatKind::F8E8M0FNU => E::F8E8M0FNU,
            FloatKind::F6E2M3FN => E::F6E2M3FN,
            FloatKind::F6E3M2FN => E::F6E3M2FN,
            FloatKind::F4E2M1FN => E::F4E2M1FN,
            _ => return Err(Error::unimplemented(format!("element type {}", ty_name(ty)))),
        },
        Ty::Complex(inner) => match &**inner {
            Ty::Float(FloatKind::F32) => E::C64,
            Ty::Float(FloatKind::F64) => E::C128,
            _ => return Err(Error::unimplemented(format!("element type {}", ty_name(ty)))),
        },
        _ => return Err(Error::unimplemented(format!("element type {}", ty_name(ty)))),
    })
}

pub fn tensor_type(ty: &Ty) -> Result<TensorType> {
    match ty {
        Ty::Tensor { shape, elem, encoding } => {
            if shape.iter().any(|&d| d < 0) {
                return Err(Error::unimplemented(format!("dynamic shape {}: apu needs static shapes", ty_name(ty))));
            }
            // Sizes must stay addressable: later stages multiply dimensions freely.
            let bytes = shape.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d as u64)).and_then(|n| n.checked_mul(16));
            if !matches!(bytes, Some(b) if b <= isize::MAX as u64) {
                return Err(Error::invalid(format!("tensor type {} is too large", ty_name(ty))));
            }
            if encoding.is_some() {
                return Err(Error::unimplemented(format!("bounded-dynamic tensor {}", ty_name(ty))));
            }
            Ok(TensorType::new(shape.clone(), element_type(elem)?))
        }
        _ => Err(Error::unimplemented(format!("value type {}: expected a ranked tensor", ty_name(ty)))),
    }
}

pub fn value_type(ty: &Ty) -> Result<Type> {
    match ty {
        Ty::Token => Ok(Type::Token),
        Ty::Tuple(items) => Ok(Type::Tuple(items.iter().map(|t| value_type(t)).collect::<Result<_>>()?)),
        _ => tensor_type(ty).map(Type::Tensor),
    }
}

/// A short printable name of a decoded type, for messages.
pub fn ty_name(ty: &Ty) -> String {
    match ty {
        Ty::Integer { width: 1, .. } => "i1".into(),
        Ty::Integer { width, signedness: Signedness::Unsigned } => format!("ui{width}"),
        Ty::Integer { width, signedness: Signedness::Signed } => format!("si{width}"),
        Ty::Integer { width, .. } => format!("i{width}"),
        Ty::Index => "index".into(),
        Ty::Float(k) => format!("{k:?}").to_lowercase(),
        Ty::Complex(t) => format!("complex<{}>", ty_name(t)),
        Ty::Tensor { shape, elem, .. } => {
            let dims: String = shape.iter().map(|d| if *d < 0 { "?x".to_string() } else { format!("{d}x") }).collect();
            format!("tensor<{dims}{}>", ty_name(elem))
        }
        Ty::UnrankedTensor(e) => format!("tensor<*x{}>", ty_name(e)),
        Ty::Function { .. } => "function".into(),
        Ty::Tuple(ts) => format!("tuple<{}>", ts.iter().map(|t| ty_name(t)).collect::<Vec<_>>().join(", ")),
        Ty::Token => "token".into(),
        Ty::None => "none".into(),
        Ty::Other(s) => s.clone(),
    }
}

/// A dense tensor attribute as a literal in apu's storage format (bools unpacked, splats kept).
pub fn literal(attr: &Attr) -> Result<Literal> {
    let Attr::DenseElements { ty, data } = attr else {
        return Err(Error::invalid(format!("expected a tensor attribute, got {}", attr_kind(attr))));
    };
    let tt = tensor_type(ty)?;
    let n = tt.num_elements();
    if tt.elem == ElementType::Pred {
        return bool_literal(tt, data);
    }
    let elem_size = tt.elem.byte_size();
    if tt.elem.bit_width() < 8 {
        return sub_byte_literal(tt, data);
    }
    if data.len() == elem_size && n != 1 {
        return Literal::splat(tt, data.clone());
    }
    Literal::dense(tt, data.clone())
}

/// Sub-byte integers (i2, i4, ui2, ui4) are stored one per byte, in the low bits; apu keeps them
/// one per byte too, sign-extended for signed types.
fn sub_byte_literal(tt: TensorType, data: &[u8]) -> Result<Literal> {
    let width = tt.elem.bit_width();
    let signed = tt.elem.is_signed_int();
    let widen = |b: u8| {
        let v = b & ((1u8 << width) - 1);
        if signed && v >> (width - 1) == 1 {
            v | !((1u8 << width) - 1)
        } else {
            v
        }
    };
    let n = tt.num_elements();
    if data.len() == 1 && n != 1 {
        return Literal::splat(tt, vec![widen(data[0])]);
    }
    Literal::dense(tt, data.iter().map(|&b| widen(b)).collect())
}

fn bool_literal(tt: TensorType, data: &[u8]) -> Result<Literal> {
    let n = tt.num_elements();
    if n != 1 && data.len() == 1 && (data[0] == 0 || data[0] == 0xFF) {
        return Literal::splat(tt, vec![u8::from(data[0] != 0)]);
    }
    if data.len() == n && n != 1 {
        // The legacy unpacked form: one byte per element.
        return Literal::dense(tt, data.iter().map(|&b| u8::from(b != 0)).collect());
    }
    if data.len() != n.div_ceil(8) {
        return Err(Error::invalid(format!("bool constant of type {tt} has {} bytes", data.len())));
    }
    let bytes = (0..n).map(|i| (data[i / 8] >> (i % 8)) & 1).collect();
    Literal::dense(tt, bytes)
}

pub fn attr_kind(a: &Attr) -> &'static str {
    match a {
        Attr::Array(_) => "array",
        Attr::Dict(_) => "dictionary",
        Attr::String(_) => "string",
        Attr::SymbolRef { .. } => "symbol reference",
        Attr::Type(_) => "type",
        Attr::Unit => "unit",
        Attr::Bool(_) => "bool",
        Attr::Integer { .. } => "integer",
        Attr::Float { .. } => "float",
        Attr::DenseElements { .. } => "tensor",
        Attr::DenseArray { .. } => "dense array",
        Attr::Enum { name, .. } => name,
        Attr::Loc(_) => "location",
        Attr::Dialect { name, .. } => name,
        Attr::Int(_) => "int",
        Attr::Ints(_) => "ints",
    }
}

/// Sign-extends the bits of an integer attribute according to its type.
pub fn int_value(attr: &Attr) -> Result<i64> {
    match attr {
        Attr::Integer { ty, value } => {
            let (width, signed) = match &**ty {
                Ty::Integer { width, signedness } => (*width, *signedness != Signedness::Unsigned),
                Ty::Index => (64, true),
                other => return Err(Error::invalid(format!("integer typed with {}", ty_name(other)))),
            };
            if signed && width < 64 && width > 0 && value >> (width - 1) & 1 == 1 {
                Ok((*value | !((1u64 << width) - 1)) as i64)
            } else {
                Ok(*value as i64)
            }
        }
        Attr::Int(v) => Ok(*v),
        other => Err(Error::invalid(format!("expected an integer, got {}", attr_kind(other)))),
    }
}

pub fn bool_value(attr: &Attr) -> Result<bool> {
    match attr {
        Attr::Bool(b) => Ok(*b),
        other => Err(Error::invalid(format!("expected a bool, got {}", attr_kind(other)))),
    }
}

pub fn string_value(attr: &Attr) -> Result<String> {
    match attr {
        Attr::String(s) => Ok(s.clone()),
        Attr::SymbolRef { root, nested } if nested.is_empty() => Ok(root.clone()),
        other => Err(Error::invalid(format!("expected a string, got {}", attr_kind(other)))),
    }
}

/// A float attribute as f64 (f16/bf16/f32/f64 formats).
pub fn float_value(attr: &Attr) -> Result<f64> {
    let Attr::Float { ty, bits } = attr else {
        return Err(Error::invalid(format!("expected a float, got {}", attr_kind(attr))));
    };
    Ok(match &**ty {
        Ty::Float(FloatKind::F64) => f64::from_bits(*bits),
        Ty::Float(FloatKind::F32) => f64::from(f32::from_bits(*bits as u32)),
        Ty::Float(FloatKind::F16) => f64::from(half::f16::from_bits(*bits as u16)),
        Ty::Float(FloatKind::BF16) => f64::from(half::bf16::from_bits(*bits as u16)),
        other => return Err(Error::unimplemented(format!("float attribute of type {}", ty_name(other)))),
    })
}

/// Longest dimension/index list accepted in an attribute.
const MAX_INT_LIST: usize = 1 << 16;

/// An i64 (or i1) tensor attribute, or an array of integers, as a list of i64.
pub fn ints(attr: &Attr) -> Result<Vec<i64>> {
    match attr {
        Attr::DenseElements { .. } => {
            let lit = literal(attr)?;
            // These are dimension lists; a huge splat here is malformed, not a reason to allocate.
            if lit.ty.num_elements() > MAX_INT_LIST {
                return Err(Error::invalid(format!("integer list of {} elements", lit.ty.num_elements())));
            }
            let bytes = lit.to_dense_bytes();
            let size = lit.ty.elem.byte_size();
            if !lit.ty.elem.is_int() && !lit.ty.elem.is_pred() {
                return Err(Error::invalid(format!("expected an integer tensor, got {}", lit.ty)));
            }
            let signed = lit.ty.elem.is_signed_int();
            Ok(bytes
                .chunks_exact(size)
                .map(|c| {
                    let mut buf = [0u8; 8];
                    buf[..size].copy_from_slice(c);
                    let v = u64::from_le_bytes(buf);
                    let shift = 64 - 8 * size as u32;
                    if signed && shift > 0 {
                        ((v << shift) as i64) >> shift
                    } else {
                        v as i64
                    }
                })
                .collect())
        }
        Attr::Array(items) => items.iter().map(|a| int_value(a)).collect(),
        Attr::Ints(v) => Ok(v.clone()),
        other => Err(Error::invalid(format!("expected a list of integers, got {}", attr_kind(other)))),
    }
}

/// A generic attribute value kept for ops apu does not interpret (composite attributes, …).
pub fn attr_value(attr: &Attr) -> AttrValue {
    match attr {
        Attr::Bool(b) => AttrValue::Bool(*b),
        Attr::Integer { .. } | Attr::Int(_) => int_value(attr).map(AttrValue::Int).unwrap_or_else(|e| AttrValue::Other(e.message)),
        Attr::Float { .. } => float_value(attr).map(AttrValue::Float).unwrap_or_else(|e| AttrValue::Other(e.message)),
        Attr::String(s) => AttrValue::String(s.clone()),
        Attr::SymbolRef { root, .. } => AttrValue::String(root.clone()),
        Attr::Ints(v) => AttrValue::Ints(v.clone()),
        Attr::Array(items) => AttrValue::Array(items.iter().map(|a| attr_value(a)).collect()),
        Attr::Dict(entries) => AttrValue::Dict(entries.iter().map(|(k, v)| (k.clone(), attr_value(v))).collect()),
        Attr::DenseElements { .. } => match literal(attr) {
            Ok(l) => AttrValue::Literal(l),
            Err(e) => AttrValue::Other(e.message),
        },
        Attr::Type(t) => AttrValue::Other(ty_name(t)),
        Attr::Enum { name, value } => AttrValue::Other(format!("{name} {value}")),
        other => AttrValue::Other(attr_kind(other).to_string()),
    }
}
