//! What the fused kernels implement, asked by the planner (through `exec::Kernels`, the
//! `Capabilities` the lowering queries) so that what is unsupported is refused at compile time.

use apu_compiler::ir::{BinaryOp as B, ComparisonType, ElementType as E, UnaryOp as U};

/// Element types fused kernels handle: the lane types they compute on, and the narrow types they
/// load, store, convert and select (held in the lanes of [`lanes`]; `passes::widen` leaves them no
/// arithmetic).
pub fn elem_supported(elem: E) -> bool {
    matches!(elem, E::F32 | E::F64 | E::S32 | E::S64 | E::U32 | E::U64 | E::Pred) || is_narrow(elem)
}

/// Types held in wider lanes: bf16 and f16 in f32 lanes, 8- and 16-bit integers in 32-bit ones
/// (sign- or zero-extended).
pub fn is_narrow(elem: E) -> bool {
    matches!(elem, E::BF16 | E::F16 | E::S8 | E::S16 | E::U8 | E::U16)
}

/// The lane type a register of `elem` holds its values in.
pub fn lanes(elem: E) -> E {
    match elem {
        E::BF16 | E::F16 => E::F32,
        E::S8 | E::S16 => E::S32,
        E::U8 | E::U16 => E::U32,
        e => e,
    }
}

pub fn unary_supported(op: U, elem: E) -> bool {
    match elem {
        E::F32 | E::F64 => !matches!(op, U::Not | U::PopulationCount | U::CountLeadingZeros | U::Imag | U::Real),
        E::S32 | E::S64 | E::U32 | E::U64 => matches!(op, U::Negate | U::Abs | U::Sign | U::Not | U::PopulationCount | U::CountLeadingZeros),
        E::Pred => op == U::Not,
        _ => false,
    }
}

pub fn binary_supported(op: B, elem: E) -> bool {
    match elem {
        E::F32 | E::F64 => matches!(op, B::Add | B::Subtract | B::Multiply | B::Divide | B::Maximum | B::Minimum | B::Power | B::Remainder | B::Atan2),
        E::S32 | E::S64 | E::U32 | E::U64 => matches!(
            op,
            B::Add
                | B::Subtract
                | B::Multiply
                | B::Divide
                | B::Remainder
                | B::Maximum
                | B::Minimum
                | B::And
                | B::Or
                | B::Xor
                | B::ShiftLeft
                | B::ShiftRightLogical
                | B::ShiftRightArithmetic
        ),
        E::Pred => matches!(op, B::And | B::Or | B::Xor),
        _ => false,
    }
}

pub fn compare_supported(ty: Option<ComparisonType>, elem: E) -> bool {
    match elem {
        E::F32 | E::F64 => matches!(ty, None | Some(ComparisonType::Float)),
        E::S32 | E::S64 => matches!(ty, None | Some(ComparisonType::Signed)),
        E::U32 | E::U64 => matches!(ty, None | Some(ComparisonType::Unsigned)),
        // 0/1 bytes, false < true (JAX compares i1 as UNSIGNED, e.g. in `floor_divide`).
        E::Pred => matches!(ty, None | Some(ComparisonType::Unsigned)),
        _ => false,
    }
}

pub fn convert_supported(from: E, to: E) -> bool {
    // To a narrow float through f32: from f64 and from integers beyond 2^24 that is two roundings
    // where the interpreter makes one (decision 99).
    elem_supported(from) && elem_supported(to) && to != E::Pred
}
