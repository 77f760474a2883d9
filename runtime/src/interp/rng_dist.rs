//! The legacy `rng` op: numbers from a uniform or normal distribution. StableHLO leaves the values
//! implementation-defined (only the distribution is specified), so apu uses its own deterministic
//! generator: SplitMix64 over the element index from a fixed seed. Every run of a program gives the
//! same numbers, like XLA:CPU; they are not XLA's numbers.

use super::array::{to_f64, to_int, Array, Scalar};
use super::value::Dense;
use apu_compiler::ir::{ElementType, RngDistribution, TensorType};
use apu_compiler::{Error, Result};

/// Which element types the op can produce with `distribution`.
pub fn check_output(distribution: RngDistribution, elem: ElementType) -> Result<()> {
    let ok = match distribution {
        RngDistribution::Uniform => elem.is_float() || elem.is_int() || elem.is_pred(),
        RngDistribution::Normal => elem.is_float(),
    };
    if ok {
        Ok(())
    } else {
        Err(Error::unimplemented(format!("rng {distribution:?} producing {elem}")))
    }
}

/// SplitMix64 (Steele, Lea, Flood, OOPSLA 2014) of one counter value: good enough statistics for an
/// op whose values nobody may rely on, and random access by index.
fn splitmix64(counter: u64) -> u64 {
    let mut z = counter.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform double in [0, 1) from the 53 high bits.
fn unit(counter: u64) -> f64 {
    (splitmix64(counter) >> 11) as f64 / (1u64 << 53) as f64
}

/// `rng(a, b, shape)`: uniform on [a, b) (integers: a ≤ x < b), or normal with mean a and standard
/// deviation b. `out_ty` (from the result type) already holds the requested shape.
pub fn rng(distribution: RngDistribution, a: &Dense, b: &Dense, out_ty: &TensorType) -> Result<Dense> {
    check_output(distribution, out_ty.elem)?;
    if !a.shape().is_empty() || !b.shape().is_empty() {
        return Err(Error::invalid("rng: a and b must be scalars"));
    }
    let n = usize::try_from(out_ty.num_elements()).map_err(|_| Error::invalid("rng: result too large"))?;
    let (a, b) = (a.data.get(0), b.data.get(0));
    let elem = out_ty.elem;
    const SEED: u64 = 0x5EED_0A90;
    let values: Vec<Scalar> = match distribution {
        RngDistribution::Uniform if elem.is_float() => {
            let (lo, hi) = (to_f64(a), to_f64(b));
            (0..n as u64).map(|i| Scalar::Float(lo + (hi - lo) * unit(SEED ^ (i << 1)))).collect()
        }
        RngDistribution::Uniform => {
            let (bits, signed) = if elem.is_pred() { (1, false) } else { (elem.bit_width() as u32, elem.is_signed_int()) };
            let (lo, hi) = (to_int(a, bits, signed), to_int(b, bits, signed));
            if hi <= lo {
                return Err(Error::invalid(format!("rng: empty integer range [{lo}, {hi})")));
            }
            let span = (hi - lo) as u128;
            (0..n as u64).map(|i| Scalar::Int(lo + (splitmix64(SEED ^ (i << 1)) as u128 % span) as i128)).collect()
        }
        RngDistribution::Normal => {
            let (mu, sigma) = (to_f64(a), to_f64(b));
            // Box–Muller on two independent uniforms per element.
            (0..n as u64)
                .map(|i| {
                    let u1 = 1.0 - unit(SEED ^ (i << 1)); // (0, 1], so ln is finite
                    let u2 = unit(SEED ^ ((i << 1) | 1));
                    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                    Scalar::Float(mu + sigma * z)
                })
                .collect()
        }
    };
    let mut out = Array::from_scalars(elem, values)?;
    // Rounding to a narrow float can reach `hi` itself; keep the interval half-open.
    if distribution == RngDistribution::Uniform && elem.is_float() {
        let (lo, hi) = (to_f64(a), to_f64(b));
        let fixed: Vec<Scalar> = (0..out.len()).map(|i| match out.get(i) {
            Scalar::Float(x) if x >= hi && hi > lo => Scalar::Float(lo),
            s => s,
        }).collect();
        out = Array::from_scalars(elem, fixed)?;
    }
    Dense::new(out_ty.clone(), out)
}
