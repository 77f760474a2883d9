//! The stateful `rng` op (HLO `rng`, StableHLO `stablehlo.rng`): `UNIFORM` draws from `[a, b)`,
//! `NORMAL` from a normal distribution with mean `a` and standard deviation `b`.
//!
//! XLA leaves the values to the implementation; apu's choice, identical in the interpreter and the
//! plan executor (which runs this op through the interpreter):
//!
//! - Every run of a program has a 64-bit *run seed* ([`RunRng`], in `crate::rng`: the run state
//!   the interpreter and the executor share); the executor derives it from the
//!   program's serial number and the run's index, so runs differ and a process that compiles and
//!   runs the same programs in the same order sees the same numbers.
//! - Each evaluation of an `rng` op in a run (in program order; an op inside a loop counts once per
//!   iteration) takes the next *call index* `c` = 0, 1, 2, …
//! - Element `i` of the result reads Philox-4x32-10 keyed by the run seed at the 128-bit counter
//!   `(i / 2, c)`: lanes `(0, 1)` form one 64-bit word and lanes `(2, 3)` another.
//!   - UNIFORM, floats: word `i % 2`'s top 53 bits give `u` in `[0, 1)`, the value is `a + (b - a) u`
//!     computed in f64 and rounded once to the result type; a value that rounds up to `b` becomes
//!     the largest value of the type below `b`. `a >= b` gives `a`.
//!   - UNIFORM, integers and pred: `a + floor(word · (b - a) / 2^64)` (a multiply-shift, bias below
//!     2^-32 for ranges up to 2^32). `a >= b` gives `a`.
//!   - NORMAL (floats only): Box–Muller on the two words (as `u1` in `(0, 1]` and `u2` in `[0, 1)`),
//!     giving `z0 = r cos θ` for even `i` and `z1 = r sin θ` for odd `i`; the value is `a + b z`.

use super::array::{round_scalar, to_f64, Array, Scalar};
use super::rng::philox4x32;
use super::value::Dense;
use apu_compiler::ir::{ElementType, RngDistribution, TensorType};
use apu_compiler::{Error, Result};
use half::{bf16, f16};
pub use crate::rng::RunRng;

/// Whether `rng` with this distribution can produce `elem`; the message names what is missing.
pub fn check_output(distribution: RngDistribution, elem: ElementType) -> Result<()> {
    use ElementType as E;
    let ok = match distribution {
        RngDistribution::Uniform => elem == E::Pred || elem.is_int() || matches!(elem, E::F16 | E::BF16 | E::F32 | E::F64),
        RngDistribution::Normal => matches!(elem, E::F16 | E::BF16 | E::F32 | E::F64),
    };
    if !ok {
        return Err(Error::unimplemented(format!("rng {distribution:?} producing {elem}")));
    }
    Ok(())
}

/// The two 64-bit words of Philox block `block` of call `call`.
fn words(key: u64, call: u64, block: u64) -> [u64; 2] {
    let x = philox4x32([key as u32, (key >> 32) as u32], [block as u32, (block >> 32) as u32, call as u32, (call >> 32) as u32]);
    [x[0] as u64 | (x[1] as u64) << 32, x[2] as u64 | (x[3] as u64) << 32]
}

/// `[0, 1)` from the top 53 bits.
fn unit(w: u64) -> f64 {
    (w >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The largest value of float type `elem` below `b` (already a value of that type).
fn below(elem: ElementType, b: f64) -> f64 {
    match elem {
        ElementType::F64 => b.next_down(),
        ElementType::F32 => (b as f32).next_down() as f64,
        ElementType::F16 => step_down_bits(apu_compiler::ir::halfs::f16_from_f64(b).to_bits()).map_or(b, |bits| f16::from_bits(bits).to_f64()),
        ElementType::BF16 => step_down_bits(apu_compiler::ir::halfs::bf16_from_f64(b).to_bits()).map_or(b, |bits| bf16::from_bits(bits).to_f64()),
        _ => b,
    }
}

/// The next lower 16-bit IEEE-style float, by its bits (sign-magnitude order).
fn step_down_bits(bits: u16) -> Option<u16> {
    let magnitude = bits & 0x7FFF;
    match (bits >> 15, magnitude) {
        (_, 0) => Some(0x8001),             // ±0 → smallest negative subnormal
        (0, _) => Some(bits - 1),           // positive: smaller magnitude
        (_, m) if m < 0x7FFF => Some(bits + 1), // negative: larger magnitude
        _ => None,
    }
}

/// Evaluates `rng` for one call: `a` and `b` are scalars of the result's element type.
pub fn rng(distribution: RngDistribution, a: &Dense, b: &Dense, out_ty: &TensorType, state: &RunRng) -> Result<Dense> {
    check_output(distribution, out_ty.elem)?;
    for (name, d) in [("a", a), ("b", b)] {
        if d.ty.rank() != 0 || d.ty.elem != out_ty.elem {
            return Err(Error::invalid(format!("rng: operand {name} must be a {} scalar, got {}", out_ty.elem, d.ty)));
        }
    }
    let call = state.next_call();
    let key = state.seed();
    let n = out_ty.num_elements();
    let elem = out_ty.elem;
    let (sa, sb) = (a.data.get(0), b.data.get(0));
    let values: Vec<Scalar> = match distribution {
        RngDistribution::Uniform if elem.is_float() => {
            let (lo, hi) = (to_f64(sa), to_f64(sb));
            (0..n)
                .map(|i| {
                    if !(lo < hi) {
                        return Scalar::Float(lo);
                    }
                    let u = unit(words(key, call, (i / 2) as u64)[i % 2]);
                    let v = to_f64(round_scalar(elem, Scalar::Float(lo + (hi - lo) * u)));
                    Scalar::Float(if v >= hi { below(elem, hi).max(lo) } else { v.max(lo) })
                })
                .collect()
        }
        RngDistribution::Uniform => {
            let as_int = |s: Scalar| match s {
                Scalar::Bool(x) => x as i128,
                Scalar::Int(x) => x,
                other => to_f64(other) as i128,
            };
            let (lo, hi) = (as_int(sa), as_int(sb));
            (0..n)
                .map(|i| {
                    if lo >= hi {
                        return Scalar::Int(lo);
                    }
                    let range = (hi - lo) as u128; // at most 2^64 for 64-bit types
                    let w = words(key, call, (i / 2) as u64)[i % 2] as u128;
                    Scalar::Int(lo + ((w * range) >> 64) as i128)
                })
                .collect()
        }
        RngDistribution::Normal => {
            let (mean, stddev) = (to_f64(sa), to_f64(sb));
            (0..n)
                .map(|i| {
                    let [w1, w2] = words(key, call, (i / 2) as u64);
                    let u1 = 1.0 - unit(w1); // (0, 1]: the logarithm stays finite
                    let theta = 2.0 * std::f64::consts::PI * unit(w2);
                    let r = (-2.0 * u1.ln()).sqrt();
                    let z = if i % 2 == 0 { r * theta.cos() } else { r * theta.sin() };
                    Scalar::Float(mean + stddev * z)
                })
                .collect()
        }
    };
    let values = values.into_iter().map(|v| match (elem, v) {
        (ElementType::Pred, Scalar::Int(x)) => Scalar::Bool(x != 0),
        _ => v,
    });
    Dense::new(out_ty.clone(), Array::from_scalars(elem, values)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(elem: ElementType, v: Scalar) -> Dense {
        Dense::new(TensorType::scalar(elem), Array::from_scalars(elem, [v]).unwrap()).unwrap()
    }

    fn floats(d: &Dense) -> Vec<f64> {
        (0..d.data.len()).map(|i| to_f64(d.data.get(i))).collect()
    }

    fn mean_std(v: &[f64]) -> (f64, f64) {
        let n = v.len() as f64;
        let m = v.iter().sum::<f64>() / n;
        (m, (v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n).sqrt())
    }

    #[test]
    fn uniform_f32_stays_in_range_with_the_right_moments() {
        let ty = TensorType::new(vec![200, 100], ElementType::F32);
        let (a, b) = (scalar(ElementType::F32, Scalar::Float(-2.0)), scalar(ElementType::F32, Scalar::Float(3.0)));
        let out = rng(RngDistribution::Uniform, &a, &b, &ty, &RunRng::new(7)).unwrap();
        let v = floats(&out);
        assert!(v.iter().all(|&x| (-2.0..3.0).contains(&x)));
        let (m, s) = mean_std(&v);
        // Uniform on [-2, 3): mean 0.5, stddev 5/sqrt(12); 20000 samples give a mean error ~0.01.
        assert!((m - 0.5).abs() < 0.05, "mean {m}");
        assert!((s - 5.0 / 12f64.sqrt()).abs() < 0.03, "stddev {s}");
    }

    #[test]
    fn uniform_never_returns_the_upper_bound_even_when_rounding_reaches_it() {
        // In f16 a + (b - a)u rounds to b for u close to 1; those must become the value below b.
        let ty = TensorType::new(vec![4096], ElementType::F16);
        let (a, b) = (scalar(ElementType::F16, Scalar::Float(1000.0)), scalar(ElementType::F16, Scalar::Float(1001.0)));
        let out = rng(RngDistribution::Uniform, &a, &b, &ty, &RunRng::new(3)).unwrap();
        let v = floats(&out);
        assert!(v.iter().all(|&x| (1000.0..1001.0).contains(&x)), "{v:?}");
        assert!(v.contains(&1000.5), "the f16 values in [1000, 1001) are 1000 and 1000.5, both expected");
        assert_eq!(below(ElementType::F16, 1001.0), 1000.5);
        assert_eq!(below(ElementType::BF16, 1.0), 1.0 - 1.0 / 256.0);
        assert_eq!(step_down_bits(0), Some(0x8001));
    }

    #[test]
    fn uniform_integers_cover_the_range_evenly() {
        let ty = TensorType::new(vec![60000], ElementType::S32);
        let (a, b) = (scalar(ElementType::S32, Scalar::Int(-3)), scalar(ElementType::S32, Scalar::Int(3)));
        let out = rng(RngDistribution::Uniform, &a, &b, &ty, &RunRng::new(11)).unwrap();
        let mut counts = [0usize; 6];
        for i in 0..out.data.len() {
            let Scalar::Int(x) = out.data.get(i) else { panic!("not an integer") };
            assert!((-3..3).contains(&x), "{x}");
            counts[(x + 3) as usize] += 1;
        }
        // 10000 expected per value; the binomial stddev is ~91.
        assert!(counts.iter().all(|&c| c.abs_diff(10000) < 500), "{counts:?}");
        let full = rng(RngDistribution::Uniform, &scalar(ElementType::U8, Scalar::Int(0)), &scalar(ElementType::U8, Scalar::Int(255)), &TensorType::new(vec![1000], ElementType::U8), &RunRng::new(1)).unwrap();
        assert!((0..1000).all(|i| full.data.get(i) != Scalar::Int(255)));
        let empty = rng(RngDistribution::Uniform, &scalar(ElementType::S64, Scalar::Int(5)), &scalar(ElementType::S64, Scalar::Int(5)), &TensorType::new(vec![3], ElementType::S64), &RunRng::new(1)).unwrap();
        assert_eq!(floats(&empty), vec![5.0; 3]);
    }

    #[test]
    fn normal_has_the_requested_mean_and_stddev() {
        let ty = TensorType::new(vec![40000], ElementType::F32);
        let (a, b) = (scalar(ElementType::F32, Scalar::Float(1.5)), scalar(ElementType::F32, Scalar::Float(0.5)));
        let out = rng(RngDistribution::Normal, &a, &b, &ty, &RunRng::new(5)).unwrap();
        let v = floats(&out);
        assert!(v.iter().all(|x| x.is_finite()));
        let (m, s) = mean_std(&v);
        // Standard errors: 0.5/200 = 0.0025 for the mean, ~0.0018 for the stddev.
        assert!((m - 1.5).abs() < 0.015, "mean {m}");
        assert!((s - 0.5).abs() < 0.012, "stddev {s}");
        // About 68.3% within one stddev.
        let within = v.iter().filter(|&&x| (x - 1.5).abs() < 0.5).count() as f64 / v.len() as f64;
        assert!((within - 0.6827).abs() < 0.015, "{within}");
    }

    #[test]
    fn calls_and_seeds_give_different_streams_and_a_seed_repeats_its_stream() {
        let ty = TensorType::new(vec![8], ElementType::F64);
        let (a, b) = (scalar(ElementType::F64, Scalar::Float(0.0)), scalar(ElementType::F64, Scalar::Float(1.0)));
        let st = RunRng::new(42);
        let first = rng(RngDistribution::Normal, &a, &b, &ty, &st).unwrap();
        let second = rng(RngDistribution::Normal, &a, &b, &ty, &st).unwrap();
        assert_ne!(first, second, "a second call in the same run must draw new numbers");
        let again = rng(RngDistribution::Normal, &a, &b, &ty, &RunRng::new(42)).unwrap();
        assert_eq!(first, again, "the same seed and call index repeat the stream");
        let other = rng(RngDistribution::Normal, &a, &b, &ty, &RunRng::new(43)).unwrap();
        assert_ne!(first, other);
        assert_ne!(RunRng::run_seed(0, 0), RunRng::run_seed(0, 1));
        assert_ne!(RunRng::run_seed(0, 1), RunRng::run_seed(1, 0));
    }

    #[test]
    fn unsupported_types_and_bad_operands_are_named_errors() {
        let ty = TensorType::new(vec![2], ElementType::S32);
        let (a, b) = (scalar(ElementType::S32, Scalar::Int(0)), scalar(ElementType::S32, Scalar::Int(1)));
        let e = rng(RngDistribution::Normal, &a, &b, &ty, &RunRng::new(0)).unwrap_err();
        assert!(e.to_string().contains("rng Normal producing i32"), "{e}");
        let f = scalar(ElementType::F32, Scalar::Float(0.0));
        let e = rng(RngDistribution::Uniform, &f, &b, &ty, &RunRng::new(0)).unwrap_err();
        assert!(e.to_string().contains("operand a must be a i32 scalar"), "{e}");
    }
}
