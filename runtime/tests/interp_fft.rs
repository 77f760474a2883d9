//! fft: hand-computed small transforms, and round trips FFT→IFFT and RFFT→IRFFT.

mod common;

use apu_compiler::ir::{ElementType::*, FftType, OpKind, TensorType};
use apu_runtime::Tensor;
use common::*;

fn c64s(shape: &[i64], parts: &[f32]) -> Tensor {
    let bytes: Vec<u8> = parts.iter().flat_map(|x| x.to_le_bytes()).collect();
    Tensor::from_bytes(TensorType::new(shape.to_vec(), C64), &bytes).unwrap()
}

fn fft(x: Tensor, ty: FftType, len: &[i64], out: apu_compiler::ir::Type) -> Tensor {
    run_op(OpKind::Fft { fft_type: ty, fft_length: len.to_vec() }, &[x], out).unwrap()
}

#[test]
fn small_transforms_by_hand() {
    // [1, 2, 3, 4] → [10, -2+2i, -2, -2-2i]
    let x = c64s(&[4], &[1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 4.0, 0.0]);
    let f = c64_parts(&fft(x, FftType::Fft, &[4], tt(&[4], C64)));
    assert_close(&f, &[10.0, 0.0, -2.0, 2.0, -2.0, 0.0, -2.0, -2.0], 0.0, 1e-5);
    // 2-D: [[1, 2], [3, 4]] → [[10, -2], [-4, 0]]
    let x = c64s(&[2, 2], &[1.0, 0.0, 2.0, 0.0, 3.0, 0.0, 4.0, 0.0]);
    let f = c64_parts(&fft(x, FftType::Fft, &[2, 2], tt(&[2, 2], C64)));
    assert_close(&f, &[10.0, 0.0, -2.0, 0.0, -4.0, 0.0, 0.0, 0.0], 0.0, 1e-5);
    // RFFT of [1, 2, 3, 4, 5]: bins 0..=2 of the full DFT.
    let r = c64_parts(&fft(f32s(&[5], &[1.0, 2.0, 3.0, 4.0, 5.0]), FftType::Rfft, &[5], tt(&[3], C64)));
    let want: Vec<f32> = (0..3)
        .flat_map(|k| {
            let (mut re, mut im) = (0.0f64, 0.0f64);
            for j in 0..5 {
                let a = -2.0 * std::f64::consts::PI * (k * j) as f64 / 5.0;
                re += (j + 1) as f64 * a.cos();
                im += (j + 1) as f64 * a.sin();
            }
            [re as f32, im as f32]
        })
        .collect();
    assert_close(&r, &want, 1e-6, 1e-5);
}

#[test]
fn round_trips() {
    let vals: Vec<f32> = (0..24).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let parts: Vec<f32> = vals.iter().flat_map(|&v| [v, v * 0.5 - 1.0]).collect();
    let x = c64s(&[2, 3, 4], &parts);
    let f = fft(x, FftType::Fft, &[3, 4], tt(&[2, 3, 4], C64));
    let back = c64_parts(&fft(f, FftType::Ifft, &[3, 4], tt(&[2, 3, 4], C64)));
    assert_close(&back, &parts, 1e-5, 1e-5);
    for n in [4i64, 5] {
        let v: Vec<f32> = vals[..(3 * n) as usize].to_vec();
        let r = fft(f32s(&[3, n], &v), FftType::Rfft, &[3, n], tt(&[3, n / 2 + 1], C64));
        let back = to_f32(&fft(r, FftType::Irfft, &[3, n], tt(&[3, n], F32)));
        assert_close(&back, &v, 1e-5, 1e-5);
    }
}

#[test]
fn zero_lengths_are_empty_transforms() {
    // jnp.fft.fft of a (0,) array sends fft_length [0]; XLA:CPU returns an empty array.
    let f = fft(c64s(&[0], &[]), FftType::Fft, &[0], tt(&[0], C64));
    assert_eq!(f.ty, TensorType::new(vec![0], C64));
    let f = fft(c64s(&[3, 0], &[]), FftType::Ifft, &[0], tt(&[3, 0], C64));
    assert_eq!(f.ty, TensorType::new(vec![3, 0], C64));
    // IRFFT to 0 points from one stored bin (jnp.fft.irfft of a (1,) array: n = 2 * (1 - 1)).
    let f = fft(c64s(&[1], &[1.0, 0.0]), FftType::Irfft, &[0], tt(&[0], F32));
    assert_eq!(f.ty, TensorType::new(vec![0], F32));
}
