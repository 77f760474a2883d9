//! `PJRT_Buffer_Type` ↔ [`ElementType`]. PJRT numbers its buffer types differently from both XLA's
//! `PrimitiveType` and our IR, so the mapping is spelled out once, here.

use super::api_error::ApiError;
use super::guard::ApiResult;
use apu_compiler::ir::ElementType;
use apu_pjrt_api::*;

/// The (PJRT value, element type) pairs apu supports.
const PAIRS: [(PJRT_Buffer_Type, ElementType); 30] = [
    (PJRT_Buffer_Type_PRED, ElementType::Pred),
    (PJRT_Buffer_Type_S2, ElementType::S2),
    (PJRT_Buffer_Type_S4, ElementType::S4),
    (PJRT_Buffer_Type_S8, ElementType::S8),
    (PJRT_Buffer_Type_S16, ElementType::S16),
    (PJRT_Buffer_Type_S32, ElementType::S32),
    (PJRT_Buffer_Type_S64, ElementType::S64),
    (PJRT_Buffer_Type_U2, ElementType::U2),
    (PJRT_Buffer_Type_U4, ElementType::U4),
    (PJRT_Buffer_Type_U8, ElementType::U8),
    (PJRT_Buffer_Type_U16, ElementType::U16),
    (PJRT_Buffer_Type_U32, ElementType::U32),
    (PJRT_Buffer_Type_U64, ElementType::U64),
    (PJRT_Buffer_Type_F8E3M4, ElementType::F8E3M4),
    (PJRT_Buffer_Type_F8E4M3, ElementType::F8E4M3),
    (PJRT_Buffer_Type_F8E4M3FN, ElementType::F8E4M3FN),
    (PJRT_Buffer_Type_F8E4M3FNUZ, ElementType::F8E4M3FNUZ),
    (PJRT_Buffer_Type_F8E4M3B11FNUZ, ElementType::F8E4M3B11FNUZ),
    (PJRT_Buffer_Type_F8E5M2, ElementType::F8E5M2),
    (PJRT_Buffer_Type_F8E5M2FNUZ, ElementType::F8E5M2FNUZ),
    (PJRT_Buffer_Type_F8E8M0FNU, ElementType::F8E8M0FNU),
    (PJRT_Buffer_Type_F6E2M3FN, ElementType::F6E2M3FN),
    (PJRT_Buffer_Type_F6E3M2FN, ElementType::F6E3M2FN),
    (PJRT_Buffer_Type_F4E2M1FN, ElementType::F4E2M1FN),
    (PJRT_Buffer_Type_F16, ElementType::F16),
    (PJRT_Buffer_Type_BF16, ElementType::BF16),
    (PJRT_Buffer_Type_F32, ElementType::F32),
    (PJRT_Buffer_Type_F64, ElementType::F64),
    (PJRT_Buffer_Type_C64, ElementType::C64),
    (PJRT_Buffer_Type_C128, ElementType::C128),
];

/// The element type of a PJRT buffer type, or UNIMPLEMENTED naming it.
pub(crate) fn element_type(t: PJRT_Buffer_Type) -> ApiResult<ElementType> {
    PAIRS
        .iter()
        .find(|(p, _)| *p == t)
        .map(|(_, e)| *e)
        .ok_or_else(|| {
            ApiError::unimplemented(format!(
                "PJRT buffer type {} ({}) is not supported by apu",
                t,
                pjrt_type_name(t)
            ))
        })
}

/// Narrow types apu can hold in buffers (one byte per element, as hosts store them) but that no
/// program can use yet: they have no IR element type. Their bytes are kept as `U8`.
const STORAGE_ONLY: [PJRT_Buffer_Type; 2] = [PJRT_Buffer_Type_S1, PJRT_Buffer_Type_U1];

/// How a buffer of PJRT type `t` is stored: its IR element type, or `U8` for storage-only types.
pub(crate) fn storage_type(t: PJRT_Buffer_Type) -> ApiResult<ElementType> {
    if STORAGE_ONLY.contains(&t) {
        return Ok(ElementType::U8);
    }
    element_type(t)
}

/// A readable name of a PJRT buffer type, for error messages.
pub(crate) fn pjrt_type_display(t: PJRT_Buffer_Type) -> String {
    match element_type(t) {
        Ok(e) => e.to_string(),
        Err(_) => format!("PJRT type {} ({})", t, pjrt_type_name(t)),
    }
}

/// The PJRT buffer type of an element type (total: every IR type has one).
pub(crate) fn pjrt_type(e: ElementType) -> PJRT_Buffer_Type {
    PAIRS
        .iter()
        .find(|(_, x)| *x == e)
        .map(|(p, _)| *p)
        .unwrap_or(PJRT_Buffer_Type_INVALID)
}

fn pjrt_type_name(t: PJRT_Buffer_Type) -> &'static str {
    match t {
        PJRT_Buffer_Type_INVALID => "INVALID",
        PJRT_Buffer_Type_TOKEN => "TOKEN",
        PJRT_Buffer_Type_F8E8M0FNU => "F8E8M0FNU",
        PJRT_Buffer_Type_F4E2M1FN => "F4E2M1FN",
        PJRT_Buffer_Type_S1 => "S1",
        PJRT_Buffer_Type_U1 => "U1",
        PJRT_Buffer_Type_F6E2M3FN => "F6E2M3FN",
        PJRT_Buffer_Type_F6E3M2FN => "F6E3M2FN",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ir_type_round_trips() {
        for e in ElementType::ALL {
            let p = pjrt_type(e);
            assert_ne!(p, PJRT_Buffer_Type_INVALID, "{e} has no PJRT type");
            assert_eq!(element_type(p).unwrap(), e);
        }
    }

    #[test]
    fn pjrt_numbering_is_respected() {
        assert_eq!(pjrt_type(ElementType::F32), 11);
        assert_eq!(pjrt_type(ElementType::BF16), 13);
        assert_eq!(pjrt_type(ElementType::S4), 21);
        assert!(element_type(PJRT_Buffer_Type_TOKEN).is_err());
        assert_eq!(storage_type(PJRT_Buffer_Type_S1).unwrap(), ElementType::U8);
        assert!(
            element_type(PJRT_Buffer_Type_S1).is_err(),
            "storage-only types are not program types"
        );
        assert_eq!(element_type(PJRT_Buffer_Type_F8E8M0FNU).unwrap(), ElementType::F8E8M0FNU);
        assert_eq!(element_type(PJRT_Buffer_Type_F4E2M1FN).unwrap(), ElementType::F4E2M1FN);
        assert!(storage_type(PJRT_Buffer_Type_TOKEN).is_err());
        assert!(element_type(999).is_err());
    }
}
