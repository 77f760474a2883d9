//! Typed element storage (the interpreter's tensors, the executor's one-element values), and
//! conversion from/to apu's dense byte format.
//!
//! Sub-byte integers (`S2`, `S4`, `U2`, `U4`) live in the `S8`/`U8` variants, always sign- or
//! zero-extended from their bit width (as apu's storage format keeps them); the tensor type says
//! which width applies. 8-bit floats live in the `F32` variant, always holding values the 8-bit
//! format can represent (see [`super::f8`]); they are encoded again when written as bytes.

use super::complex::Complex;
use super::f8;
use apu_compiler::ir::ElementType;
use apu_compiler::{Error, Result};
use half::{bf16, f16};

/// The elements of one tensor, row-major.
#[derive(Clone, Debug, PartialEq)]
pub enum Array {
    Pred(Vec<bool>),
    S8(Vec<i8>),
    S16(Vec<i16>),
    S32(Vec<i32>),
    S64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    C64(Vec<Complex<f32>>),
    C128(Vec<Complex<f64>>),
}

/// Applies a body that is generic over the element type to every variant, rebuilding the same
/// variant from the body's `Vec`.
macro_rules! map_array {
    ($arr:expr, $v:ident => $body:expr) => {
        match $arr {
            Array::Pred($v) => Array::Pred($body),
            Array::S8($v) => Array::S8($body),
            Array::S16($v) => Array::S16($body),
            Array::S32($v) => Array::S32($body),
            Array::S64($v) => Array::S64($body),
            Array::U8($v) => Array::U8($body),
            Array::U16($v) => Array::U16($body),
            Array::U32($v) => Array::U32($body),
            Array::U64($v) => Array::U64($body),
            Array::F16($v) => Array::F16($body),
            Array::BF16($v) => Array::BF16($body),
            Array::F32($v) => Array::F32($body),
            Array::F64($v) => Array::F64($body),
            Array::C64($v) => Array::C64($body),
            Array::C128($v) => Array::C128($body),
        }
    };
}

/// Like [`map_array!`] for two arrays that must hold the same variant; evaluates to
/// `Option<Array>` (`None` when the variants differ).
macro_rules! zip_array {
    ($a:expr, $b:expr, $x:ident, $y:ident => $body:expr) => {
        match ($a, $b) {
            (Array::Pred($x), Array::Pred($y)) => Some(Array::Pred($body)),
            (Array::S8($x), Array::S8($y)) => Some(Array::S8($body)),
            (Array::S16($x), Array::S16($y)) => Some(Array::S16($body)),
            (Array::S32($x), Array::S32($y)) => Some(Array::S32($body)),
            (Array::S64($x), Array::S64($y)) => Some(Array::S64($body)),
            (Array::U8($x), Array::U8($y)) => Some(Array::U8($body)),
            (Array::U16($x), Array::U16($y)) => Some(Array::U16($body)),
            (Array::U32($x), Array::U32($y)) => Some(Array::U32($body)),
            (Array::U64($x), Array::U64($y)) => Some(Array::U64($body)),
            (Array::F16($x), Array::F16($y)) => Some(Array::F16($body)),
            (Array::BF16($x), Array::BF16($y)) => Some(Array::BF16($body)),
            (Array::F32($x), Array::F32($y)) => Some(Array::F32($body)),
            (Array::F64($x), Array::F64($y)) => Some(Array::F64($body)),
            (Array::C64($x), Array::C64($y)) => Some(Array::C64($body)),
            (Array::C128($x), Array::C128($y)) => Some(Array::C128($body)),
            _ => None,
        }
    };
}

#[allow(unused_imports)]
pub(crate) use map_array;
#[allow(unused_imports)]
pub(crate) use zip_array;

/// One element, widened so that every element type fits without loss: integers as `i128`
/// (sign- or zero-extended), floats as `f64`, complex as two `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i128),
    Float(f64),
    Complex(f64, f64),
}

/// Whether the interpreter has a storage variant for this element type.
pub fn is_stored(elem: ElementType) -> bool {
    use ElementType::*;
    matches!(elem, Pred | S2 | S4 | S8 | S16 | S32 | S64 | U2 | U4 | U8 | U16 | U32 | U64 | F16 | BF16 | F32 | F64 | C64 | C128)
        || f8::is_f8(elem)
}

/// The element type whose variant holds `elem` (itself, except for sub-byte integers).
pub fn storage_elem(elem: ElementType) -> ElementType {
    use ElementType::*;
    match elem {
        S2 | S4 => S8,
        U2 | U4 => U8,
        e if f8::is_f8(e) => F32,
        e => e,
    }
}

/// The one message for element types without storage, wherever they are met (`what` says where).
pub fn unstored(what: &str, elem: ElementType) -> Error {
    Error::unimplemented(format!("{elem} tensors: the interpreter does not store this element type")).context(what)
}

macro_rules! read_le {
    ($bytes:expr, $t:ty, $n:expr) => {
        $bytes.chunks_exact($n).map(|c| <$t>::from_le_bytes(c.try_into().unwrap())).collect()
    };
}

impl Array {
    /// Reads dense little-endian bytes (apu's storage format) of `elem` values.
    pub fn from_bytes(elem: ElementType, bytes: &[u8]) -> Result<Array> {
        let size = elem.byte_size();
        if !bytes.chunks_exact(size).remainder().is_empty() {
            return Err(Error::invalid(format!("{} bytes are not a whole number of {elem} elements", bytes.len())));
        }
        use ElementType as E;
        Ok(match elem {
            E::Pred => Array::Pred(bytes.iter().map(|&b| b != 0).collect()),
            E::S8 => Array::S8(bytes.iter().map(|&b| b as i8).collect()),
            // Re-extend from the logical width, so a byte with stray high bits reads as its value.
            E::S2 | E::S4 => Array::S8(bytes.iter().map(|&b| wrap(b as i128, elem.bit_width(), true) as i8).collect()),
            E::U2 | E::U4 => Array::U8(bytes.iter().map(|&b| wrap(b as i128, elem.bit_width(), false) as u8).collect()),
            e if f8::is_f8(e) => Array::F32(bytes.iter().map(|&b| f8::decode(e, b)).collect()),
            E::U8 => Array::U8(bytes.to_vec()),
            E::S16 => Array::S16(read_le!(bytes, i16, 2)),
            E::S32 => Array::S32(read_le!(bytes, i32, 4)),
            E::S64 => Array::S64(read_le!(bytes, i64, 8)),
            E::U16 => Array::U16(read_le!(bytes, u16, 2)),
            E::U32 => Array::U32(read_le!(bytes, u32, 4)),
            E::U64 => Array::U64(read_le!(bytes, u64, 8)),
            E::F16 => Array::F16(bytes.chunks_exact(2).map(|c| f16::from_le_bytes([c[0], c[1]])).collect()),
            E::BF16 => Array::BF16(bytes.chunks_exact(2).map(|c| bf16::from_le_bytes([c[0], c[1]])).collect()),
            E::F32 => Array::F32(read_le!(bytes, f32, 4)),
            E::F64 => Array::F64(read_le!(bytes, f64, 8)),
            E::C64 => Array::C64(
                bytes
                    .chunks_exact(8)
                    .map(|c| {
                        Complex::new(
                            f32::from_le_bytes(c[0..4].try_into().unwrap()),
                            f32::from_le_bytes(c[4..8].try_into().unwrap()),
                        )
                    })
                    .collect(),
            ),
            E::C128 => Array::C128(
                bytes
                    .chunks_exact(16)
                    .map(|c| {
                        Complex::new(
                            f64::from_le_bytes(c[0..8].try_into().unwrap()),
                            f64::from_le_bytes(c[8..16].try_into().unwrap()),
                        )
                    })
                    .collect(),
            ),
            other => return Err(unstored("reading a tensor", other)),
        })
    }

    /// Writes the elements in apu's dense storage format as `elem`, the tensor's element type
    /// (which differs from the variant for 8-bit floats).
    pub fn to_bytes_as(&self, elem: ElementType) -> Vec<u8> {
        match self {
            Array::F32(v) if f8::is_f8(elem) => v.iter().map(|&x| f8::encode(elem, x as f64)).collect(),
            _ => self.to_bytes(),
        }
    }

    /// Writes the elements in apu's dense storage format (of the variant's own element type).
    pub fn to_bytes(&self) -> Vec<u8> {
        fn flat<T, const N: usize>(v: &[T], f: impl Fn(&T) -> [u8; N]) -> Vec<u8> {
            let mut out = Vec::with_capacity(v.len() * N);
            for x in v {
                out.extend_from_slice(&f(x));
            }
            out
        }
        match self {
            Array::Pred(v) => v.iter().map(|&b| b as u8).collect(),
            Array::S8(v) => v.iter().map(|&b| b as u8).collect(),
            Array::U8(v) => v.clone(),
            Array::S16(v) => flat(v, |x| x.to_le_bytes()),
            Array::S32(v) => flat(v, |x| x.to_le_bytes()),
            Array::S64(v) => flat(v, |x| x.to_le_bytes()),
            Array::U16(v) => flat(v, |x| x.to_le_bytes()),
            Array::U32(v) => flat(v, |x| x.to_le_bytes()),
            Array::U64(v) => flat(v, |x| x.to_le_bytes()),
            Array::F16(v) => flat(v, |x| x.to_le_bytes()),
            Array::BF16(v) => flat(v, |x| x.to_le_bytes()),
            Array::F32(v) => flat(v, |x| x.to_le_bytes()),
            Array::F64(v) => flat(v, |x| x.to_le_bytes()),
            Array::C64(v) => flat(v, |c| {
                let mut b = [0u8; 8];
                b[..4].copy_from_slice(&c.re.to_le_bytes());
                b[4..].copy_from_slice(&c.im.to_le_bytes());
                b
            }),
            Array::C128(v) => flat(v, |c| {
                let mut b = [0u8; 16];
                b[..8].copy_from_slice(&c.re.to_le_bytes());
                b[8..].copy_from_slice(&c.im.to_le_bytes());
                b
            }),
        }
    }

    pub fn elem(&self) -> ElementType {
        use ElementType as E;
        match self {
            Array::Pred(_) => E::Pred,
            Array::S8(_) => E::S8,
            Array::S16(_) => E::S16,
            Array::S32(_) => E::S32,
            Array::S64(_) => E::S64,
            Array::U8(_) => E::U8,
            Array::U16(_) => E::U16,
            Array::U32(_) => E::U32,
            Array::U64(_) => E::U64,
            Array::F16(_) => E::F16,
            Array::BF16(_) => E::BF16,
            Array::F32(_) => E::F32,
            Array::F64(_) => E::F64,
            Array::C64(_) => E::C64,
            Array::C128(_) => E::C128,
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Array::Pred(v) => v.len(),
            Array::S8(v) => v.len(),
            Array::S16(v) => v.len(),
            Array::S32(v) => v.len(),
            Array::S64(v) => v.len(),
            Array::U8(v) => v.len(),
            Array::U16(v) => v.len(),
            Array::U32(v) => v.len(),
            Array::U64(v) => v.len(),
            Array::F16(v) => v.len(),
            Array::BF16(v) => v.len(),
            Array::F32(v) => v.len(),
            Array::F64(v) => v.len(),
            Array::C64(v) => v.len(),
            Array::C128(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`, widened.
    pub fn get(&self, i: usize) -> Scalar {
        match self {
            Array::Pred(v) => Scalar::Bool(v[i]),
            Array::S8(v) => Scalar::Int(v[i] as i128),
            Array::S16(v) => Scalar::Int(v[i] as i128),
            Array::S32(v) => Scalar::Int(v[i] as i128),
            Array::S64(v) => Scalar::Int(v[i] as i128),
            Array::U8(v) => Scalar::Int(v[i] as i128),
            Array::U16(v) => Scalar::Int(v[i] as i128),
            Array::U32(v) => Scalar::Int(v[i] as i128),
            Array::U64(v) => Scalar::Int(v[i] as i128),
            Array::F16(v) => Scalar::Float(v[i].to_f64()),
            Array::BF16(v) => Scalar::Float(v[i].to_f64()),
            Array::F32(v) => Scalar::Float(v[i] as f64),
            Array::F64(v) => Scalar::Float(v[i]),
            Array::C64(v) => Scalar::Complex(v[i].re as f64, v[i].im as f64),
            Array::C128(v) => Scalar::Complex(v[i].re, v[i].im),
        }
    }

    /// Element `i` as an integer index (for index operands); `None` if not an integer.
    pub fn get_index(&self, i: usize) -> Option<i128> {
        match self.get(i) {
            Scalar::Int(v) => Some(v),
            _ => None,
        }
    }

    /// Builds an array of `elem` from widened values, converting each with StableHLO `convert`
    /// rules (see [`to_int`], [`to_f64`] and [`to_bool`]).
    pub fn from_scalars(elem: ElementType, values: impl IntoIterator<Item = Scalar>) -> Result<Array> {
        let it = values.into_iter();
        use ElementType as E;
        Ok(match elem {
            E::Pred => Array::Pred(it.map(to_bool).collect()),
            E::S8 => Array::S8(it.map(|s| to_int(s, 8, true) as i8).collect()),
            E::S2 | E::S4 => Array::S8(it.map(|s| to_int(s, elem.bit_width(), true) as i8).collect()),
            E::U2 | E::U4 => Array::U8(it.map(|s| to_int(s, elem.bit_width(), false) as u8).collect()),
            e if f8::is_f8(e) => Array::F32(it.map(|s| f8::decode(e, f8::encode(e, to_f64(s)))).collect()),
            E::S16 => Array::S16(it.map(|s| to_int(s, 16, true) as i16).collect()),
            E::S32 => Array::S32(it.map(|s| to_int(s, 32, true) as i32).collect()),
            E::S64 => Array::S64(it.map(|s| to_int(s, 64, true) as i64).collect()),
            E::U8 => Array::U8(it.map(|s| to_int(s, 8, false) as u8).collect()),
            E::U16 => Array::U16(it.map(|s| to_int(s, 16, false) as u16).collect()),
            E::U32 => Array::U32(it.map(|s| to_int(s, 32, false) as u32).collect()),
            E::U64 => Array::U64(it.map(|s| to_int(s, 64, false) as u64).collect()),
            E::F16 => Array::F16(it.map(|s| apu_compiler::ir::halfs::f16_from_f64(to_f64(s))).collect()),
            E::BF16 => Array::BF16(it.map(|s| apu_compiler::ir::halfs::bf16_from_f64(to_f64(s))).collect()),
            E::F32 => Array::F32(it.map(to_f32).collect()),
            E::F64 => Array::F64(it.map(to_f64).collect()),
            E::C64 => Array::C64(
                it.map(|s| {
                    let (re, im) = to_complex(s);
                    Complex::new(re as f32, im as f32)
                })
                .collect(),
            ),
            E::C128 => Array::C128(
                it.map(|s| {
                    let (re, im) = to_complex(s);
                    Complex::new(re, im)
                })
                .collect(),
            ),
            other => return Err(unstored("building a tensor", other)),
        })
    }

    /// The elements at `indices`, in that order.
    pub fn take(&self, indices: &[usize]) -> Array {
        map_array!(self, v => indices.iter().map(|&i| v[i]).collect())
    }

    /// The elements at `indices`, or the single element of `fill` where an index is `None`.
    pub fn take_or_fill(&self, indices: &[Option<usize>], fill: &Array) -> Result<Array> {
        zip_array!(self, fill, v, f => indices.iter().map(|i| match i { Some(i) => v[*i], None => f[0] }).collect())
            .ok_or_else(|| Error::internal("padding value has a different element type"))
    }

    /// All arrays one after the other (they must share the element type).
    pub fn concat(parts: &[&Array]) -> Result<Array> {
        let mut out = parts.first().map(|a| (*a).clone()).ok_or_else(|| Error::internal("concat of nothing"))?;
        for p in &parts[1..] {
            out = zip_array!(&out, *p, a, b => { let mut a = a.clone(); a.extend_from_slice(b); a })
                .ok_or_else(|| Error::internal("concatenating arrays of different element types"))?;
        }
        Ok(out)
    }

    /// Copies `src[src_index]` into `self[dst_index]` for each pair.
    pub fn assign(&mut self, src: &Array, pairs: &[(usize, usize)]) -> Result<()> {
        let updated = zip_array!(&*self, src, d, s => {
            let mut d = d.clone();
            for &(di, si) in pairs {
                d[di] = s[si];
            }
            d
        })
        .ok_or_else(|| Error::internal("assigning between arrays of different element types"))?;
        *self = updated;
        Ok(())
    }

    /// `n` copies of element `i`.
    pub fn repeat(&self, i: usize, n: usize) -> Array {
        map_array!(self, v => vec![v[i]; n])
    }
}

pub fn to_bool(s: Scalar) -> bool {
    match s {
        Scalar::Bool(b) => b,
        Scalar::Int(i) => i != 0,
        Scalar::Float(f) => f != 0.0,
        Scalar::Complex(re, im) => re != 0.0 || im != 0.0,
    }
}

/// Conversion to an integer of `bits` bits. Integers wrap (two's complement truncation); floats
/// truncate toward zero, saturate at the type's bounds and map NaN to 0, as XLA does (the spec
/// leaves out-of-range conversions TBD, openxla/stablehlo#180). Complex values use the real part.
pub fn to_int(s: Scalar, bits: u32, signed: bool) -> i128 {
    let (min, max) = int_bounds(bits, signed);
    match s {
        Scalar::Bool(b) => b as i128,
        Scalar::Int(i) => wrap(i, bits, signed),
        Scalar::Float(f) | Scalar::Complex(f, _) => {
            if f.is_nan() {
                0
            } else if f <= min as f64 {
                min
            } else if f >= max as f64 {
                max
            } else {
                f.trunc() as i128
            }
        }
    }
}

pub fn int_bounds(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Two's complement truncation of `v` to `bits` bits, read back as signed or unsigned.
pub fn wrap(v: i128, bits: u32, signed: bool) -> i128 {
    let mask = (1i128 << bits) - 1;
    let low = v & mask;
    if signed && low >> (bits - 1) & 1 == 1 {
        low - (1i128 << bits)
    } else {
        low
    }
}

pub fn to_f64(s: Scalar) -> f64 {
    match s {
        Scalar::Bool(b) => b as u8 as f64,
        Scalar::Int(i) => i as f64,
        Scalar::Float(f) | Scalar::Complex(f, _) => f,
    }
}

/// Like [`to_f64`] then rounding to `f32`, except that integers round once, directly.
fn to_f32(s: Scalar) -> f32 {
    match s {
        Scalar::Int(i) => i as f32,
        other => to_f64(other) as f32,
    }
}

fn to_complex(s: Scalar) -> (f64, f64) {
    match s {
        Scalar::Complex(re, im) => (re, im),
        other => (to_f64(other), 0.0),
    }
}

/// One element of `elem` read from its storage bytes (`bytes` starts at it), widened as
/// [`Array::get`] widens it. The common types are read directly, without building an array: the
/// plan's one-element kernels read their operands this way.
#[inline]
pub fn read_scalar(elem: ElementType, bytes: &[u8]) -> Result<Scalar> {
    use ElementType as E;
    let b4 = |k: usize| -> [u8; 4] { bytes[k..k + 4].try_into().unwrap() };
    let b8 = |k: usize| -> [u8; 8] { bytes[k..k + 8].try_into().unwrap() };
    if bytes.len() < elem.byte_size() {
        return Err(Error::internal(format!("{} bytes hold no {elem} element", bytes.len())));
    }
    Ok(match elem {
        E::Pred => Scalar::Bool(bytes[0] != 0),
        E::S32 => Scalar::Int(i32::from_le_bytes(b4(0)) as i128),
        E::U32 => Scalar::Int(u32::from_le_bytes(b4(0)) as i128),
        E::S64 => Scalar::Int(i64::from_le_bytes(b8(0)) as i128),
        E::U64 => Scalar::Int(u64::from_le_bytes(b8(0)) as i128),
        E::F32 => Scalar::Float(f32::from_le_bytes(b4(0)) as f64),
        E::F64 => Scalar::Float(f64::from_le_bytes(b8(0))),
        E::C64 => Scalar::Complex(f32::from_le_bytes(b4(0)) as f64, f32::from_le_bytes(b4(4)) as f64),
        E::C128 => Scalar::Complex(f64::from_le_bytes(b8(0)), f64::from_le_bytes(b8(8))),
        _ => Array::from_bytes(elem, &bytes[..elem.byte_size()])?.get(0),
    })
}

/// Writes `s` converted to `elem` (by [`Array::from_scalars`]'s rules) as its storage bytes at
/// the start of `out`.
#[inline]
pub fn write_scalar(elem: ElementType, s: Scalar, out: &mut [u8]) -> Result<()> {
    use ElementType as E;
    if out.len() < elem.byte_size() {
        return Err(Error::internal(format!("{} bytes have no room for a {elem} element", out.len())));
    }
    match elem {
        E::Pred => out[0] = to_bool(s) as u8,
        E::S32 => out[..4].copy_from_slice(&(to_int(s, 32, true) as i32).to_le_bytes()),
        E::U32 => out[..4].copy_from_slice(&(to_int(s, 32, false) as u32).to_le_bytes()),
        E::S64 => out[..8].copy_from_slice(&(to_int(s, 64, true) as i64).to_le_bytes()),
        E::U64 => out[..8].copy_from_slice(&(to_int(s, 64, false) as u64).to_le_bytes()),
        E::F32 => out[..4].copy_from_slice(&to_f32(s).to_le_bytes()),
        E::F64 => out[..8].copy_from_slice(&to_f64(s).to_le_bytes()),
        E::C64 => {
            let (re, im) = to_complex(s);
            out[..4].copy_from_slice(&(re as f32).to_le_bytes());
            out[4..8].copy_from_slice(&(im as f32).to_le_bytes());
        }
        E::C128 => {
            let (re, im) = to_complex(s);
            out[..8].copy_from_slice(&re.to_le_bytes());
            out[8..16].copy_from_slice(&im.to_le_bytes());
        }
        _ => {
            let bytes = Array::from_scalars(elem, [s])?.to_bytes_as(elem);
            out[..bytes.len()].copy_from_slice(&bytes);
        }
    }
    Ok(())
}

/// `s` converted to `elem` and widened again: what storing it as `elem` keeps.
pub fn convert_scalar(elem: ElementType, s: Scalar) -> Result<Scalar> {
    let mut bytes = [0u8; 16];
    write_scalar(elem, s, &mut bytes)?;
    read_scalar(elem, &bytes)
}

/// Rounds a widened value to what storing it as `elem` would keep (so that chained scalar steps,
/// like a reduction's accumulator, behave as if stored between steps).
pub fn round_scalar(elem: ElementType, s: Scalar) -> Scalar {
    use ElementType as E;
    match (elem, s) {
        (E::F32, Scalar::Float(x)) => Scalar::Float(x as f32 as f64),
        (E::F16, Scalar::Float(x)) => Scalar::Float(apu_compiler::ir::halfs::f16_from_f64(x).to_f64()),
        (E::BF16, Scalar::Float(x)) => Scalar::Float(apu_compiler::ir::halfs::bf16_from_f64(x).to_f64()),
        (E::C64, Scalar::Complex(re, im)) => Scalar::Complex(re as f32 as f64, im as f32 as f64),
        (e, Scalar::Float(x)) if f8::is_f8(e) => Scalar::Float(f8::decode(e, f8::encode(e, x)) as f64),
        (e, Scalar::Int(v)) if e.is_int() => Scalar::Int(wrap(v, e.bit_width(), e.is_signed_int())),
        _ => s,
    }
}
