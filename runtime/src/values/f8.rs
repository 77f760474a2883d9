//! The narrow float formats (every 8-bit float, and the 6- and 4-bit ones stored one per byte),
//! decoded to f32 for arithmetic and encoded back when written. The formats themselves live in
//! `apu_compiler::ir::minifloat`, shared with the text reader's constants; every value of every
//! format is exact in f32 (the widest, `F8E8M0FNU`, spans 2^-127..2^127).

use apu_compiler::ir::{minifloat, ElementType};

pub fn is_f8(elem: ElementType) -> bool {
    minifloat::is_minifloat(elem)
}

pub fn decode(elem: ElementType, code: u8) -> f32 {
    minifloat::decode(elem, code) as f32
}

pub fn encode(elem: ElementType, x: f64) -> u8 {
    minifloat::encode(elem, x)
}
