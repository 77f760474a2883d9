//! Comparing apu's outputs with the ones JAX's CPU backend recorded in a fixture's `.io.npz`.

use apu_compiler::ir::ElementType;
use apu_runtime::Tensor;

/// Elements as f64 (complex as interleaved parts) for comparison; None for types compared bytewise.
pub fn as_f64(t: &Tensor) -> Option<Vec<f64>> {
    let b = t.bytes();
    Some(match t.ty.elem {
        ElementType::F32 | ElementType::C64 => {
            b.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64).collect()
        }
        ElementType::F64 | ElementType::C128 => b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect(),
        ElementType::F16 => b.chunks_exact(2).map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64()).collect(),
        ElementType::BF16 => b.chunks_exact(2).map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f64()).collect(),
        _ => return None,
    })
}

/// Compares one output; floats within a tolerance per type (transcendental chains in f32: 2e-5 relative),
/// everything else bit-exact.
pub fn compare(name: &str, got: &Tensor, want: &Tensor) -> Result<(), String> {
    if got.ty != want.ty {
        return Err(format!("{name}: type {} but JAX produced {}", got.ty, want.ty));
    }
    match (as_f64(got), as_f64(want)) {
        (Some(g), Some(w)) => {
            let (rtol, atol) = match got.ty.elem {
                ElementType::F64 | ElementType::C128 => (1e-12, 1e-12),
                ElementType::F16 | ElementType::BF16 => (1e-2, 1e-2),
                _ => (2e-5, 2e-6),
            };
            for (i, (g, w)) in g.iter().zip(&w).enumerate() {
                let ok = if w.is_nan() {
                    g.is_nan()
                } else if w.is_infinite() {
                    g == w
                } else {
                    (g - w).abs() <= atol + rtol * w.abs()
                };
                if !ok {
                    return Err(format!("{name}[{i}]: got {g}, JAX produced {w}"));
                }
            }
            Ok(())
        }
        _ if got.bytes() == want.bytes() => Ok(()),
        _ => Err(format!("{name}: bytes differ from JAX's ({})", got.ty)),
    }
}

/// `.npy` has no bfloat16, so fixtures store bf16 arrays as their u16 bit patterns: read them back as bf16
/// where the program says bf16.
pub fn as_type(t: &Tensor, want: &apu_compiler::ir::Type) -> Tensor {
    match want.as_tensor() {
        Some(w) if w.elem == ElementType::BF16 && t.ty.elem == ElementType::U16 && w.shape == t.ty.shape => {
            Tensor { ty: w.clone(), data: t.data.clone() }
        }
        _ => t.clone(),
    }
}

