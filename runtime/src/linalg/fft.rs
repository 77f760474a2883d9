//! `fft` as a direct discrete Fourier transform per axis (O(n²) per line, in f64): FFT/IFFT over
//! the last `fft_length.len()` dimensions, RFFT (real in, first n/2+1 bins out along the last
//! dimension) and IRFFT (its inverse; the imaginary parts of bins 0 and n/2 are ignored).

use crate::values::array::{to_f64, Array, Scalar};
use crate::values::complex::C64;
use crate::values::value::Dense;
use apu_compiler::ir::{FftType, TensorType};
use apu_compiler::{Error, Result};

/// One DFT of `input` (zero-padded or truncated to `n` points), `inverse` with the 1/n factor.
fn dft(input: &[C64], n: usize, inverse: bool) -> Vec<C64> {
    let sign = if inverse { 1.0 } else { -1.0 };
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        let mut acc = C64::new(0.0, 0.0);
        for (j, &x) in input.iter().take(n).enumerate() {
            // (k * j) mod n keeps the angle small, so the twiddle stays accurate.
            let angle = sign * 2.0 * std::f64::consts::PI * ((k * j) % n) as f64 / n as f64;
            acc = acc + x * C64::new(angle.cos(), angle.sin());
        }
        out.push(if inverse { C64::new(acc.re / n as f64, acc.im / n as f64) } else { acc });
    }
    out
}

/// Applies `f` to every line along `axis` of a row-major buffer of `shape`, producing lines of
/// `out_len`; returns the new buffer and shape.
fn along_axis(data: &[C64], shape: &[usize], axis: usize, out_len: usize, f: impl Fn(&[C64]) -> Vec<C64>) -> (Vec<C64>, Vec<usize>) {
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let len = shape[axis];
    let mut new_shape = shape.to_vec();
    new_shape[axis] = out_len;
    let mut out = vec![C64::new(0.0, 0.0); outer * out_len * inner];
    let mut line = vec![C64::new(0.0, 0.0); len];
    for o in 0..outer {
        for i in 0..inner {
            for (j, slot) in line.iter_mut().enumerate() {
                *slot = data[(o * len + j) * inner + i];
            }
            for (j, v) in f(&line).into_iter().enumerate().take(out_len) {
                out[(o * out_len + j) * inner + i] = v;
            }
        }
    }
    (out, new_shape)
}

pub fn fft(x: &Dense, fft_type: FftType, fft_length: &[i64], result: &TensorType) -> Result<Dense> {
    let rank = x.ty.rank();
    let l = fft_length.len();
    // A length of 0 is an empty transform (jnp.fft.fft of a (0,) array): empty lines out.
    if l == 0 || l > rank || fft_length.iter().any(|&n| n < 0) {
        return Err(Error::invalid(format!("fft: fft_length {fft_length:?} does not fit {}", x.ty)));
    }
    let want_complex_in = !matches!(fft_type, FftType::Rfft);
    if x.elem().is_complex() != want_complex_in || !matches!(x.elem().real_part(), apu_compiler::ir::ElementType::F32 | apu_compiler::ir::ElementType::F64) {
        return Err(Error::unimplemented(format!("fft {fft_type:?} for {}", x.elem())));
    }
    let mut shape: Vec<usize> = x.ty.shape.iter().map(|&d| d as usize).collect();
    let mut data: Vec<C64> = (0..x.data.len())
        .map(|k| match x.data.get(k) {
            Scalar::Complex(re, im) => C64::new(re, im),
            s => C64::new(to_f64(s), 0.0),
        })
        .collect();
    let lens: Vec<usize> = fft_length.iter().map(|&n| n as usize).collect();
    let first = rank - l;
    match fft_type {
        FftType::Fft | FftType::Ifft => {
            let inverse = fft_type == FftType::Ifft;
            for (a, &n) in lens.iter().enumerate() {
                (data, shape) = along_axis(&data, &shape, first + a, n, |line| dft(line, n, inverse));
            }
        }
        FftType::Rfft => {
            let last = rank - 1;
            let n = lens[l - 1];
            (data, shape) = along_axis(&data, &shape, last, n / 2 + 1, |line| dft(line, n, false));
            for (a, &n) in lens[..l - 1].iter().enumerate() {
                (data, shape) = along_axis(&data, &shape, first + a, n, |line| dft(line, n, false));
            }
        }
        FftType::Irfft => {
            for (a, &n) in lens[..l - 1].iter().enumerate() {
                (data, shape) = along_axis(&data, &shape, first + a, n, |line| dft(line, n, true));
            }
            let last = rank - 1;
            let n = lens[l - 1];
            (data, shape) = along_axis(&data, &shape, last, n, |line| {
                // Hermitian extension of the n/2+1 stored bins, then the real part.
                let full: Vec<C64> = (0..n)
                    .map(|k| {
                        if k < line.len() && k <= n / 2 {
                            line[k]
                        } else {
                            let m = line.get(n - k).copied().unwrap_or_default();
                            C64::new(m.re, -m.im)
                        }
                    })
                    .collect();
                dft(&full, n, true).into_iter().map(|z| C64::new(z.re, 0.0)).collect()
            });
        }
    }
    if shape.iter().map(|&d| d as i64).collect::<Vec<_>>() != result.shape {
        return Err(Error::invalid(format!("fft: result {result} does not match the transform of {}", x.ty)));
    }
    let values = data.into_iter().map(|z| if result.elem.is_complex() { Scalar::Complex(z.re, z.im) } else { Scalar::Float(z.re) });
    Dense::new(result.clone(), Array::from_scalars(result.elem, values)?)
}
