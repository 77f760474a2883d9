//! `xla.ShapeProto` → IR types, and the layout rules apu accepts.

use super::proto::{PrimitiveType, ShapeProto};
use crate::ir::{ElementType, TensorType, Type};
use crate::{Error, Result};

/// Upper bound on the elements of one array, so that sizes never overflow `usize` arithmetic
/// later (2^48 elements is far beyond any host's memory anyway).
const MAX_ELEMENTS: u128 = 1 << 48;

/// Maps an XLA primitive type (by its proto number) to an IR element type.
pub fn element_type(raw: i32) -> Result<ElementType> {
    use ElementType as E;
    let ty = PrimitiveType::try_from(raw)
        .map_err(|_| Error::invalid(format!("unknown XLA primitive type number {raw}")))?;
    Ok(match ty {
        PrimitiveType::Pred => E::Pred,
        PrimitiveType::S2 => E::S2,
        PrimitiveType::S4 => E::S4,
        PrimitiveType::S8 => E::S8,
        PrimitiveType::S16 => E::S16,
        PrimitiveType::S32 => E::S32,
        PrimitiveType::S64 => E::S64,
        PrimitiveType::U2 => E::U2,
        PrimitiveType::U4 => E::U4,
        PrimitiveType::U8 => E::U8,
        PrimitiveType::U16 => E::U16,
        PrimitiveType::U32 => E::U32,
        PrimitiveType::U64 => E::U64,
        PrimitiveType::F8e3m4 => E::F8E3M4,
        PrimitiveType::F8e4m3 => E::F8E4M3,
        PrimitiveType::F8e4m3fn => E::F8E4M3FN,
        PrimitiveType::F8e4m3fnuz => E::F8E4M3FNUZ,
        PrimitiveType::F8e4m3b11fnuz => E::F8E4M3B11FNUZ,
        PrimitiveType::F8e5m2 => E::F8E5M2,
        PrimitiveType::F8e5m2fnuz => E::F8E5M2FNUZ,
        PrimitiveType::F8e8m0fnu => E::F8E8M0FNU,
        PrimitiveType::F6e2m3fn => E::F6E2M3FN,
        PrimitiveType::F6e3m2fn => E::F6E3M2FN,
        PrimitiveType::F4e2m1fn => E::F4E2M1FN,
        PrimitiveType::F16 => E::F16,
        PrimitiveType::Bf16 => E::BF16,
        PrimitiveType::F32 => E::F32,
        PrimitiveType::F64 => E::F64,
        PrimitiveType::C64 => E::C64,
        PrimitiveType::C128 => E::C128,
        other => {
            return Err(Error::unimplemented(format!(
                "XLA element type {} is not supported by apu",
                other.as_str_name()
            )))
        }
    })
}

/// Converts a shape (array, tuple or token) to an IR type. Dynamic dimensions are rejected.
pub fn to_type(shape: &ShapeProto) -> Result<Type> {
    match PrimitiveType::try_from(shape.element_type) {
        Ok(PrimitiveType::Tuple) => {
            let parts = shape.tuple_shapes.iter().map(to_type).collect::<Result<Vec<_>>>()?;
            Ok(Type::Tuple(parts))
        }
        Ok(PrimitiveType::Token) => Ok(Type::Token),
        _ => Ok(Type::Tensor(to_tensor_type(shape)?)),
    }
}

/// Converts an array shape to a tensor type, checking that every dimension is static and sane.
pub fn to_tensor_type(shape: &ShapeProto) -> Result<TensorType> {
    let elem = element_type(shape.element_type)?;
    if shape.is_dynamic_dimension.iter().any(|&d| d) {
        return Err(Error::unimplemented(format!(
            "dynamic dimensions (shape {}) are not supported by apu",
            describe(shape)
        )));
    }
    let mut elements: u128 = 1;
    for &d in &shape.dimensions {
        if d < 0 {
            return Err(Error::invalid(format!("negative dimension {d} in shape {}", describe(shape))));
        }
        elements = elements.saturating_mul(d as u128);
    }
    if elements > MAX_ELEMENTS {
        return Err(Error::invalid(format!("shape {} has too many elements", describe(shape))));
    }
    Ok(TensorType::new(shape.dimensions.clone(), elem))
}

/// The IR leaf types of a type, tuples flattened depth-first (how apu passes tuples around).
pub fn leaf_types(ty: &Type) -> Vec<Type> {
    let mut out = Vec::new();
    push_leaves(ty, &mut out);
    out
}

fn push_leaves(ty: &Type, out: &mut Vec<Type>) {
    match ty {
        Type::Tuple(parts) => parts.iter().for_each(|p| push_leaves(p, out)),
        other => out.push(other.clone()),
    }
}

/// True when an array shape's layout is what apu stores: row-major (`minor_to_major` empty or
/// `[rank-1, …, 0]`), untiled, default element size and memory space. Tuples check every leaf.
pub fn has_default_layout(shape: &ShapeProto) -> bool {
    if shape.element_type == PrimitiveType::Tuple as i32 {
        return shape.tuple_shapes.iter().all(has_default_layout);
    }
    let Some(layout) = &shape.layout else { return true };
    let rank = shape.dimensions.len();
    let row_major = layout.minor_to_major.is_empty()
        || (layout.minor_to_major.len() == rank
            && layout.minor_to_major.iter().enumerate().all(|(i, &d)| d == (rank - 1 - i) as i64));
    row_major && layout.tiles.is_empty() && layout.memory_space == 0 && layout.element_size_in_bits == 0
}

/// Rejects a non-row-major layout with an error that says what was found.
pub fn require_default_layout(shape: &ShapeProto, what: &str) -> Result<()> {
    if has_default_layout(shape) {
        Ok(())
    } else {
        Err(Error::unimplemented(format!(
            "{what} has layout {}; apu only supports row-major (default) layouts",
            describe(shape)
        )))
    }
}

/// HLO-text-like rendering of a shape for messages, e.g. `f32[2,3]{0,1}` or `(f32[], s32[4])`.
pub fn describe(shape: &ShapeProto) -> String {
    let ty = PrimitiveType::try_from(shape.element_type);
    if ty == Ok(PrimitiveType::Tuple) {
        let parts: Vec<String> = shape.tuple_shapes.iter().map(describe).collect();
        return format!("({})", parts.join(", "));
    }
    let name = match ty {
        Ok(t) => t.as_str_name().to_ascii_lowercase(),
        Err(_) => format!("type#{}", shape.element_type),
    };
    let dims: Vec<String> = shape.dimensions.iter().map(|d| d.to_string()).collect();
    let mut s = format!("{name}[{}]", dims.join(","));
    if let Some(layout) = &shape.layout {
        if !layout.minor_to_major.is_empty() {
            let m: Vec<String> = layout.minor_to_major.iter().map(|d| d.to_string()).collect();
            s.push_str(&format!("{{{}}}", m.join(",")));
        }
        if !layout.tiles.is_empty() {
            s.push_str(" (tiled)");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::proto::LayoutProto;

    fn array(elem: PrimitiveType, dims: &[i64], m2m: &[i64]) -> ShapeProto {
        ShapeProto {
            element_type: elem as i32,
            dimensions: dims.to_vec(),
            layout: Some(LayoutProto { minor_to_major: m2m.to_vec(), ..Default::default() }),
            ..Default::default()
        }
    }

    #[test]
    fn layouts() {
        assert!(has_default_layout(&array(PrimitiveType::F32, &[2, 3], &[1, 0])));
        assert!(has_default_layout(&array(PrimitiveType::F32, &[], &[])));
        assert!(!has_default_layout(&array(PrimitiveType::F32, &[2, 3], &[0, 1])));
        let err = require_default_layout(&array(PrimitiveType::F32, &[2, 3], &[0, 1]), "parameter 0").unwrap_err();
        assert!(err.to_string().contains("f32[2,3]{0,1}"), "{err}");
    }

    #[test]
    fn element_types_and_errors() {
        assert_eq!(element_type(PrimitiveType::Bf16 as i32).unwrap(), ElementType::BF16);
        assert_eq!(element_type(PrimitiveType::S4 as i32).unwrap(), ElementType::S4);
        assert_eq!(element_type(PrimitiveType::F4e2m1fn as i32).unwrap(), ElementType::F4E2M1FN);
        assert_eq!(element_type(PrimitiveType::F8e8m0fnu as i32).unwrap(), ElementType::F8E8M0FNU);
        assert_eq!(element_type(PrimitiveType::S1 as i32).unwrap_err().kind, crate::error::ErrorKind::Unimplemented);
        assert!(element_type(9999).is_err());
        assert!(to_tensor_type(&array(PrimitiveType::F32, &[-1], &[])).is_err());
        assert!(to_tensor_type(&array(PrimitiveType::F32, &[1 << 30, 1 << 30], &[])).is_err());
        let tuple = ShapeProto {
            element_type: PrimitiveType::Tuple as i32,
            tuple_shapes: vec![array(PrimitiveType::F32, &[2], &[0]), array(PrimitiveType::S32, &[], &[])],
            ..Default::default()
        };
        assert_eq!(leaf_types(&to_type(&tuple).unwrap()).len(), 2);
    }
}
