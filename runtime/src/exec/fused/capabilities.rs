//! What the fused kernels implement, asked by the planner (through `exec::Kernels`, the
//! `Capabilities` the lowering queries) so that what is unsupported is refused at compile time.

use apu_compiler::ir::{BinaryOp as B, ComparisonType, ElementType as E, UnaryOp as U};

/// Element types fused kernels handle.
pub fn elem_supported(elem: E) -> bool {
    matches!(elem, E::F32 | E::F64 | E::S32 | E::S64 | E::U32 | E::U64 | E::Pred)
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
    elem_supported(from) && elem_supported(to) && to != E::Pred
}
