//! `rng_bit_generator`, bit-exact with XLA:CPU, which expands the op into the generators of XLA's
//! builder library: the state's element 0 is the key and the rest is a counter.
//!
//! - THREE_FRY: Threefry-2x32 (20 rounds) on `counter + linear index`. 64-bit outputs use one
//!   block per element; 32-bit outputs use one block per two elements, split along a chosen
//!   dimension; narrower outputs truncate 32-bit ones. The counter advances by the blocks used.
//! - PHILOX (and DEFAULT, which XLA:CPU maps to PHILOX): Philox-4x32 (10 rounds) after nothing
//!   but a reordering of the state; four 32-bit lanes per 128-bit counter step, interleaved.

use super::array::{Array, Scalar};
use super::value::Dense;
use apu_compiler::ir::{RngAlgorithm, TensorType};
use apu_compiler::{Error, Result};

pub fn supported(algorithm: RngAlgorithm) -> bool {
    matches!(algorithm, RngAlgorithm::ThreeFry | RngAlgorithm::Philox | RngAlgorithm::Default)
}

fn lo(x: u64) -> u32 {
    x as u32
}
fn hi(x: u64) -> u32 {
    (x >> 32) as u32
}
fn join(lo: u32, hi: u32) -> u64 {
    lo as u64 | (hi as u64) << 32
}

/// Threefry-2x32 with 20 rounds (Salmon et al., SC 2011).
pub fn threefry2x32(key: [u32; 2], input: [u32; 2]) -> [u32; 2] {
    const ROT: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    let mut x = [input[0].wrapping_add(ks[0]), input[1].wrapping_add(ks[1])];
    for block in 0..5usize {
        for r in 0..4 {
            let rot = ROT[(block % 2) * 4 + r];
            x[0] = x[0].wrapping_add(x[1]);
            x[1] = x[1].rotate_left(rot) ^ x[0];
        }
        // Key injection after every four rounds.
        let s = block + 1;
        x[0] = x[0].wrapping_add(ks[s % 3]);
        x[1] = x[1].wrapping_add(ks[(s + 1) % 3]).wrapping_add(s as u32);
    }
    x
}

/// Philox-4x32 with 10 rounds.
pub fn philox4x32(key: [u32; 2], mut x: [u32; 4]) -> [u32; 4] {
    const W: [u32; 2] = [0x9E37_79B9, 0xBB67_AE85];
    const M: [u64; 2] = [0xD251_1F53, 0xCD9E_8D57];
    let mut k = key;
    for _ in 0..10 {
        let p0 = x[0] as u64 * M[0];
        let p1 = x[2] as u64 * M[1];
        x = [hi(p1) ^ x[1] ^ k[0], lo(p1), hi(p0) ^ x[3] ^ k[1], lo(p0)];
        k = [k[0].wrapping_add(W[0]), k[1].wrapping_add(W[1])];
    }
    x
}

/// Where XLA splits a shape in halves for 32-bit Threefry output: the first even dimension, else
/// the first largest one.
fn split_dim(shape: &[i64]) -> usize {
    shape.iter().position(|d| d % 2 == 0).unwrap_or_else(|| {
        let mut best = 0;
        for (i, &d) in shape.iter().enumerate() {
            if d > shape[best] {
                best = i;
            }
        }
        best
    })
}

/// 32-bit Threefry output of `shape` (row-major) and the number of counter steps used.
fn threefry_u32(key: u64, counter: u64, shape: &[i64]) -> (Vec<u32>, u64) {
    let kk = [lo(key), hi(key)];
    if shape.is_empty() {
        return (vec![threefry2x32(kk, [lo(counter), hi(counter)])[0]], 1);
    }
    let sd = split_dim(shape);
    let outer: u64 = shape[..sd].iter().product::<i64>() as u64;
    let inner: u64 = shape[sd + 1..].iter().product::<i64>() as u64;
    let d = shape[sd] as u64;
    let half = d.div_ceil(2);
    let n = (outer * d * inner) as usize;
    let mut out = vec![0u32; n];
    // Half-shape element (o, a, i) feeds result positions (o, 2a + j, i) for j = 0, 1.
    for o in 0..outer {
        for a in 0..half {
            for i in 0..inner {
                let linear = (o * half + a) * inner + i;
                let x = counter.wrapping_add(linear);
                let r = threefry2x32(kk, [lo(x), hi(x)]);
                for (j, v) in r.into_iter().enumerate() {
                    let pos = 2 * a + j as u64;
                    if pos < d {
                        out[((o * d + pos) * inner + i) as usize] = v;
                    }
                }
            }
        }
    }
    (out, outer * half * inner)
}

fn threefry_u64(key: u64, counter: u64, n: usize) -> Vec<u64> {
    let kk = [lo(key), hi(key)];
    (0..n as u64)
        .map(|k| {
            let x = counter.wrapping_add(k);
            let r = threefry2x32(kk, [lo(x), hi(x)]);
            join(r[0], r[1])
        })
        .collect()
}

/// Philox lanes for `blocks` consecutive 128-bit counters from `(c_lo, c_hi)`.
fn philox_blocks(key: u64, c_lo: u64, c_hi: u64, blocks: u64) -> Vec<[u32; 4]> {
    (0..blocks)
        .map(|k| {
            let l = c_lo.wrapping_add(k);
            let h = if l < c_lo { c_hi.wrapping_add(1) } else { c_hi };
            philox4x32([lo(key), hi(key)], [lo(l), hi(l), lo(h), hi(h)])
        })
        .collect()
}

pub fn rng_bit_generator(algorithm: RngAlgorithm, state: &Dense, state_ty: &TensorType, out_ty: &TensorType) -> Result<(Dense, Dense)> {
    let Array::U64(s) = &state.data else {
        return Err(Error::invalid(format!("rng_bit_generator: state must be ui64, got {}", state.ty)));
    };
    let bits = out_ty.elem.bit_width();
    if !out_ty.elem.is_int() || !matches!(bits, 8 | 16 | 32 | 64) {
        return Err(Error::unimplemented(format!("rng_bit_generator {algorithm:?} producing {out_ty}")));
    }
    let n = out_ty.num_elements();
    let key = *s.first().ok_or_else(|| Error::invalid("rng_bit_generator: empty state"))?;
    let (words, new_state): (Vec<u64>, Vec<u64>) = match algorithm {
        RngAlgorithm::ThreeFry => {
            if s.len() != 2 {
                return Err(Error::invalid(format!("rng_bit_generator THREE_FRY: state must be ui64[2], got {}", state.ty)));
            }
            if bits == 64 {
                (threefry_u64(key, s[1], n), vec![key, s[1].wrapping_add(n as u64)])
            } else {
                let (v, used) = threefry_u32(key, s[1], &out_ty.shape);
                (v.into_iter().map(u64::from).collect(), vec![key, s[1].wrapping_add(used)])
            }
        }
        RngAlgorithm::Philox | RngAlgorithm::Default => {
            // The 128-bit counter is (state[1], state[2]) for ui64[3]; for ui64[2] XLA reads
            // (state[1], state[0]) and keeps only the low word afterwards.
            let (c_lo, c_hi) = match s.len() {
                2 => (s[1], s[0]),
                3 => (s[1], s[2]),
                _ => return Err(Error::invalid(format!("rng_bit_generator PHILOX: state must be ui64[2] or ui64[3], got {}", state.ty))),
            };
            let lanes32 = if bits == 64 { 2 * n } else { n };
            let blocks = (lanes32 as u64).div_ceil(4);
            let b = philox_blocks(key, c_lo, c_hi, blocks);
            let words: Vec<u64> = if bits == 64 {
                b.iter().flat_map(|x| [join(x[0], x[1]), join(x[2], x[3])]).take(n).collect()
            } else {
                b.iter().flat_map(|x| x.map(u64::from)).take(n).collect()
            };
            let new_lo = c_lo.wrapping_add(blocks);
            let new_hi = if new_lo < c_lo { c_hi.wrapping_add(1) } else { c_hi };
            let st = if s.len() == 2 { vec![key, new_lo] } else { vec![key, new_lo, new_hi] };
            (words, st)
        }
    };
    // Narrow outputs keep the low bits; signed outputs reinterpret them.
    let values = words.into_iter().map(|w| Scalar::Int(w as i128));
    let data = Array::from_scalars(out_ty.elem, values)?;
    let state_out = Dense::new(state_ty.clone(), Array::U64(new_state))?;
    Ok((state_out, Dense::new(out_ty.clone(), data)?))
}

