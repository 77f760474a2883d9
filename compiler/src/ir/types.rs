//! Element types, tensor types and value types of the IR.

use std::fmt;

/// Every element type a program can carry. Storage is dense little-endian; `Pred` is one byte (0 or 1);
/// sub-byte integers (`S2`, `S4`, `U2`, `U4`) are stored one per byte, sign- or zero-extended, and
/// sub-byte floats (`F6E2M3FN`, `F6E3M2FN`, `F4E2M1FN`) one per byte in the low bits; complex numbers
/// are (real, imaginary) pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    Pred,
    S2,
    S4,
    S8,
    S16,
    S32,
    S64,
    U2,
    U4,
    U8,
    U16,
    U32,
    U64,
    F8E3M4,
    F8E4M3,
    F8E4M3FN,
    F8E4M3FNUZ,
    F8E4M3B11FNUZ,
    F8E5M2,
    F8E5M2FNUZ,
    F8E8M0FNU,
    F6E2M3FN,
    F6E3M2FN,
    F4E2M1FN,
    F16,
    BF16,
    F32,
    F64,
    C64,
    C128,
}

impl ElementType {
    pub const ALL: [ElementType; 30] = [
        ElementType::Pred,
        ElementType::S2,
        ElementType::S4,
        ElementType::S8,
        ElementType::S16,
        ElementType::S32,
        ElementType::S64,
        ElementType::U2,
        ElementType::U4,
        ElementType::U8,
        ElementType::U16,
        ElementType::U32,
        ElementType::U64,
        ElementType::F8E3M4,
        ElementType::F8E4M3,
        ElementType::F8E4M3FN,
        ElementType::F8E4M3FNUZ,
        ElementType::F8E4M3B11FNUZ,
        ElementType::F8E5M2,
        ElementType::F8E5M2FNUZ,
        ElementType::F8E8M0FNU,
        ElementType::F6E2M3FN,
        ElementType::F6E3M2FN,
        ElementType::F4E2M1FN,
        ElementType::F16,
        ElementType::BF16,
        ElementType::F32,
        ElementType::F64,
        ElementType::C64,
        ElementType::C128,
    ];

    /// Bytes one element occupies in apu's dense storage.
    pub fn byte_size(self) -> usize {
        use ElementType::*;
        match self {
            Pred | S2 | S4 | S8 | U2 | U4 | U8 => 1,
            F8E3M4 | F8E4M3 | F8E4M3FN | F8E4M3FNUZ | F8E4M3B11FNUZ | F8E5M2 | F8E5M2FNUZ | F8E8M0FNU => 1,
            // The 6- and 4-bit floats are stored like the sub-byte integers: one per byte, in the low bits.
            F6E2M3FN | F6E3M2FN | F4E2M1FN => 1,
            S16 | U16 | F16 | BF16 => 2,
            S32 | U32 | F32 => 4,
            S64 | U64 | F64 | C64 => 8,
            C128 => 16,
        }
    }

    /// Bits of the logical value (4 for `S4`, 1 for `Pred`).
    pub fn bit_width(self) -> u32 {
        use ElementType::*;
        match self {
            Pred => 1,
            S2 | U2 => 2,
            S4 | U4 | F4E2M1FN => 4,
            F6E2M3FN | F6E3M2FN => 6,
            _ => self.byte_size() as u32 * 8,
        }
    }

    pub fn is_float(self) -> bool {
        use ElementType::*;
        matches!(
            self,
            F8E3M4
                | F8E4M3
                | F8E4M3FN
                | F8E4M3FNUZ
                | F8E4M3B11FNUZ
                | F8E5M2
                | F8E5M2FNUZ
                | F8E8M0FNU
                | F6E2M3FN
                | F6E3M2FN
                | F4E2M1FN
                | F16
                | BF16
                | F32
                | F64
        )
    }
    pub fn is_complex(self) -> bool {
        matches!(self, ElementType::C64 | ElementType::C128)
    }
    pub fn is_signed_int(self) -> bool {
        use ElementType::*;
        matches!(self, S2 | S4 | S8 | S16 | S32 | S64)
    }
    pub fn is_unsigned_int(self) -> bool {
        use ElementType::*;
        matches!(self, U2 | U4 | U8 | U16 | U32 | U64)
    }
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }
    pub fn is_pred(self) -> bool {
        self == ElementType::Pred
    }

    /// The StableHLO spelling (`f32`, `i32`, `ui8`, `i1`, `complex<f32>`, …).
    pub fn stablehlo_name(self) -> &'static str {
        use ElementType::*;
        match self {
            Pred => "i1",
            S2 => "i2",
            S4 => "i4",
            S8 => "i8",
            S16 => "i16",
            S32 => "i32",
            S64 => "i64",
            U2 => "ui2",
            U4 => "ui4",
            U8 => "ui8",
            U16 => "ui16",
            U32 => "ui32",
            U64 => "ui64",
            F8E3M4 => "f8E3M4",
            F8E4M3 => "f8E4M3",
            F8E4M3FN => "f8E4M3FN",
            F8E4M3FNUZ => "f8E4M3FNUZ",
            F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
            F8E5M2 => "f8E5M2",
            F8E5M2FNUZ => "f8E5M2FNUZ",
            F8E8M0FNU => "f8E8M0FNU",
            F6E2M3FN => "f6E2M3FN",
            F6E3M2FN => "f6E3M2FN",
            F4E2M1FN => "f4E2M1FN",
            F16 => "f16",
            BF16 => "bf16",
            F32 => "f32",
            F64 => "f64",
            C64 => "complex<f32>",
            C128 => "complex<f64>",
        }
    }

    /// The component type of a complex type (`C64` → `F32`); other types map to themselves.
    pub fn real_part(self) -> ElementType {
        match self {
            ElementType::C64 => ElementType::F32,
            ElementType::C128 => ElementType::F64,
            t => t,
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.stablehlo_name())
    }
}

/// A statically shaped, dense, row-major tensor type. Dynamic dimensions are rejected by the readers
/// with an UNIMPLEMENTED error.
#[derive(Clone, Debug, Eq, Hash)]
pub struct TensorType {
    pub shape: Vec<i64>,
    pub elem: ElementType,
}

/// Equality by [`same_dims`]: every `Execute` compares argument and result types, and most are scalars.
impl PartialEq for TensorType {
    fn eq(&self, other: &Self) -> bool {
        self.elem == other.elem && same_dims(&self.shape, &other.shape)
    }
}

/// `a == b` for dimension or stride lists, without calling `memcmp` on two empty ones.
///
/// Slice equality on integers is one `memcmp` call, made even when both lengths are 0, and an empty
/// `Vec<i64>` points at the dangling address 8. glibc's AVX-512 `memcmp` (2.36, `memcmp-evex-movbe`)
/// reads 0 bytes there with an all-masked load, which does not fault but takes a microcode assist on
/// the unmapped page: ~140 ns per call on our Zen 4 against ~2 ns at a heap address
/// (docs/decisions.md, 36). A scalar's `Execute` made three such calls.
#[inline]
pub fn same_dims(a: &[i64], b: &[i64]) -> bool {
    a.len() == b.len() && (a.is_empty() || a == b)
}

impl TensorType {
    pub fn new(shape: Vec<i64>, elem: ElementType) -> Self {
        TensorType { shape, elem }
    }
    pub fn scalar(elem: ElementType) -> Self {
        TensorType { shape: Vec::new(), elem }
    }
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements (1 for a scalar, 0 if any dimension is 0).
    pub fn num_elements(&self) -> usize {
        self.shape.iter().map(|&d| d.max(0) as usize).product()
    }
    pub fn byte_size(&self) -> usize {
        self.num_elements() * self.elem.byte_size()
    }
    /// Row-major strides in elements.
    pub fn strides(&self) -> Vec<usize> {
        let mut strides = vec![1usize; self.shape.len()];
        for i in (0..self.shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * self.shape[i + 1].max(0) as usize;
        }
        strides
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tensor<")?;
        for d in &self.shape {
            write!(f, "{d}x")?;
        }
        write!(f, "{}>", self.elem)
    }
}

/// The type of an SSA value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Tensor(TensorType),
    Tuple(Vec<Type>),
    Token,
}

impl Type {
    pub fn tensor(shape: Vec<i64>, elem: ElementType) -> Self {
        Type::Tensor(TensorType::new(shape, elem))
    }
    pub fn as_tensor(&self) -> Option<&TensorType> {
        match self {
            Type::Tensor(t) => Some(t),
            _ => None,
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Tensor(t) => write!(f, "{t}"),
            Type::Token => write!(f, "!stablehlo.token"),
            Type::Tuple(ts) => {
                write!(f, "tuple<")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{t}")?;
                }
                write!(f, ">")
            }
        }
    }
}

#[cfg(test)]
mod equality_tests {
    use super::*;

    #[test]
    fn tensor_types_are_equal_exactly_when_element_type_and_dims_are() {
        let f32s = |d: &[i64]| TensorType::new(d.to_vec(), ElementType::F32);
        assert_eq!(TensorType::scalar(ElementType::F32), f32s(&[]));
        assert_ne!(TensorType::scalar(ElementType::F32), TensorType::scalar(ElementType::F64));
        assert_ne!(f32s(&[]), f32s(&[1]));
        assert_ne!(f32s(&[2, 3]), f32s(&[3, 2]));
        assert_ne!(f32s(&[2, 3]), f32s(&[2, 3, 1]));
        assert_eq!(f32s(&[2, 3]), f32s(&[2, 3]));
        assert_ne!(f32s(&[2, 3]), TensorType::new(vec![2, 3], ElementType::S32));
        assert!(same_dims(&[], &[]) && same_dims(&[0, 4], &[0, 4]) && !same_dims(&[0], &[]));
    }
}
