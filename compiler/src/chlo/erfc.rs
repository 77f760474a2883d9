//! f64 versions of `chlo.erf` and `chlo.erf_inv`, and `chlo.erfc` (f64 and f32), with the rational
//! and polynomial approximations that StableHLO's CHLO legalization uses (Cephes-derived; the
//! coefficients are those numbers, the op sequences are written here in apu's own form).

use super::Builder;
use crate::ir::*;
use crate::Result;

/// Horner evaluation of `coeffs` (highest power first) at `x`.
fn horner(b: &mut Builder, x: ValueId, coeffs: &[f64], ty: &TensorType) -> Result<ValueId> {
    let mut acc = b.splat(coeffs[0], ty)?;
    for &c in &coeffs[1..] {
        let m = b.bin(BinaryOp::Multiply, acc, x);
        let k = b.splat(c, ty)?;
        acc = b.bin(BinaryOp::Add, m, k);
    }
    Ok(acc)
}

fn ratio(b: &mut Builder, x: ValueId, num: &[f64], den: &[f64], ty: &TensorType) -> Result<(ValueId, ValueId)> {
    Ok((horner(b, x, num, ty)?, horner(b, x, den, ty)?))
}

/// x·T(x²)/U(x²): erf for |x| < 1.
#[allow(clippy::excessive_precision)]
pub(super) fn erf_small_f64(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    const T: [f64; 5] = [9.6049737398705161, 90.026019720384269, 2232.0053459468431, 7003.3251411280507, 55592.301301039493];
    const U: [f64; 6] = [1.0, 33.561714164750313, 521.35794978015269, 4594.3238297098014, 22629.000061389095, 49267.394260863592];
    let x2 = b.bin(BinaryOp::Multiply, x, x);
    let (t, u) = ratio(b, x2, &T, &U, ty)?;
    let xt = b.bin(BinaryOp::Multiply, x, t);
    Ok(b.bin(BinaryOp::Divide, xt, u))
}

/// erfc for |x| >= 1: erfc(|x|) = e^{-x²}·P(|x|)/Q(|x|) (|x| < 8) or e^{-x²}·R(|x|)/S(|x|), 0 once
/// e^{-x²} underflows, and erfc(x) = 2 - erfc(|x|) for x < 0.
#[allow(clippy::excessive_precision)]
pub(super) fn erfc_large_f64(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    const P: [f64; 9] = [
        2.4619698147353052e-10, 0.56418956483106886, 7.4632105644226989, 48.637197098568137, 196.5208329560771, 526.44519499547732,
        934.52852717195765, 1027.5518868951572, 557.53533536939938,
    ];
    const Q: [f64; 9] = [
        1.0, 13.228195115474499, 86.707214088598973, 354.93777888781989, 975.70850174320549, 1823.9091668790973, 2246.3376081871097,
        1656.6630919416134, 557.53534081772773,
    ];
    const R: [f64; 6] = [0.56418958354775506, 1.275366707599781, 5.0190504225118051, 6.160210979930536, 7.4097426995044895, 2.9788666537210022];
    const S: [f64; 7] = [1.0, 2.2605286322011726, 9.3960352493800147, 12.048953980809666, 17.081445074756591, 9.6089680906328585, 3.3690764510008151];
    let pred = TensorType::new(ty.shape.clone(), ElementType::Pred);
    let x2 = b.bin(BinaryOp::Multiply, x, x);
    let neg_x2 = b.un(UnaryOp::Negate, x2);
    let e = b.un(UnaryOp::Exponential, neg_x2);
    let a = b.un(UnaryOp::Abs, x);
    let (p, q) = ratio(b, a, &P, &Q, ty)?;
    let ep = b.bin(BinaryOp::Multiply, e, p);
    let mid = b.bin(BinaryOp::Divide, ep, q);
    let (r, s) = ratio(b, a, &R, &S, ty)?;
    let er = b.bin(BinaryOp::Multiply, e, r);
    let far = b.bin(BinaryOp::Divide, er, s);
    let eight = b.splat(8.0, ty)?;
    let below8 = b.compare(ComparisonDirection::Lt, a, eight, &pred);
    let erfc_abs = b.select(below8, mid, far);
    let underflow_at = b.splat(-709.78271289338397, ty)?;
    let underflows = b.compare(ComparisonDirection::Lt, neg_x2, underflow_at, &pred);
    let zero = b.splat(0.0, ty)?;
    let erfc_abs = b.select(underflows, zero, erfc_abs);
    let negative = b.compare(ComparisonDirection::Lt, x, zero, &pred);
    let two = b.splat(2.0, ty)?;
    let reflected = b.bin(BinaryOp::Subtract, two, erfc_abs);
    Ok(b.select(negative, reflected, erfc_abs))
}

/// erf for f64: the small-argument ratio for |x| < 1, 1 - erfc(x) otherwise.
pub(super) fn erf_f64(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let small = erf_small_f64(b, x, ty)?;
    let erfc = erfc_large_f64(b, x, ty)?;
    let one = b.splat(1.0, ty)?;
    let large = b.bin(BinaryOp::Subtract, one, erfc);
    let a = b.un(UnaryOp::Abs, x);
    let pred = TensorType::new(ty.shape.clone(), ElementType::Pred);
    let below1 = b.compare(ComparisonDirection::Lt, a, one, &pred);
    Ok(b.select(below1, small, large))
}

/// erfc for f64: 1 - erf(x) for |x| < 1, the large-argument form otherwise.
pub(super) fn erfc_f64(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    let large = erfc_large_f64(b, x, ty)?;
    let small = erf_small_f64(b, x, ty)?;
    let one = b.splat(1.0, ty)?;
    let from_erf = b.bin(BinaryOp::Subtract, one, small);
    let a = b.un(UnaryOp::Abs, x);
    let pred = TensorType::new(ty.shape.clone(), ElementType::Pred);
    let below1 = b.compare(ComparisonDirection::Lt, a, one, &pred);
    Ok(b.select(below1, from_erf, large))
}

/// erfc for f32 (Cephes): 1 - x·T(x²) for |x| < 1; otherwise e^{-x²}/|x|·P(1/x²) for |x| < 2 or
/// e^{-x²}/|x|·R(1/x²), 0 once e^{-x²} underflows, 2 - erfc(|x|) for x < 0.
#[allow(clippy::excessive_precision)]
pub(super) fn erfc_f32(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    const T: [f64; 7] = [7.853861353153693e-5, -8.010193625184903e-4, 5.188327685732524e-3, -2.685381193529856e-2, 1.128358514861418e-1, -3.761262582423300e-1, 1.128379165726710];
    const P: [f64; 9] = [
        2.326819970068386e-2, -1.387039388740657e-1, 3.687424674597105e-1, -5.824733027278666e-1, 6.210004621745983e-1, -4.944515323274145e-1,
        3.404879937665872e-1, -2.741127028184656e-1, 5.638259427386472e-1,
    ];
    const R: [f64; 8] = [
        -1.047766399936249e1, 1.297719955372516e1, -7.495518717768503, 2.921019019210786, -1.015265279202700, 4.218463358204948e-1,
        -2.820767439740514e-1, 5.641895067754075e-1,
    ];
    const MAXLOG: f64 = 88.72283905206835;
    let pred = TensorType::new(ty.shape.clone(), ElementType::Pred);
    let x2 = b.bin(BinaryOp::Multiply, x, x);
    let z = b.un(UnaryOp::Negate, x2);
    let a = b.un(UnaryOp::Abs, x);
    let one = b.splat(1.0, ty)?;
    let inv_x2 = b.bin(BinaryOp::Divide, one, x2);
    let ez = b.un(UnaryOp::Exponential, z);
    let inv_a = b.bin(BinaryOp::Divide, one, a);
    let scale = b.bin(BinaryOp::Multiply, ez, inv_a);
    let two = b.splat(2.0, ty)?;
    let below2 = b.compare(ComparisonDirection::Lt, a, two, &pred);
    let p = horner(b, inv_x2, &P, ty)?;
    let r = horner(b, inv_x2, &R, ty)?;
    let poly = b.select(below2, p, r);
    let approx = b.bin(BinaryOp::Multiply, scale, poly);
    let limit = b.splat(-MAXLOG, ty)?;
    let underflows = b.compare(ComparisonDirection::Lt, z, limit, &pred);
    let zero = b.splat(0.0, ty)?;
    let approx = b.select(underflows, zero, approx);
    let negative = b.compare(ComparisonDirection::Lt, x, zero, &pred);
    let reflected = b.bin(BinaryOp::Subtract, two, approx);
    let large = b.select(negative, reflected, approx);
    let t = horner(b, x2, &T, ty)?;
    let erf_small = b.bin(BinaryOp::Multiply, x, t);
    let small = b.bin(BinaryOp::Subtract, one, erf_small);
    let below1 = b.compare(ComparisonDirection::Lt, a, one, &pred);
    Ok(b.select(below1, small, large))
}

/// One Horner step of the piecewise erf_inv polynomial: which of the three pieces
/// (w < 6.25, w < 16, otherwise) take part, with their coefficients.
enum Step {
    All(f64, f64, f64),
    FirstTwo(f64, f64),
    First(f64),
}

/// erf_inv for f64 (Giles' double-precision approximation): w = -log(1 - x²) and a polynomial in
/// w - 3.125 (w < 6.25), √w - 3.25 (w < 16) or √w - 5; ±inf at x = ±1.
#[allow(clippy::excessive_precision)]
pub(super) fn erf_inv_f64(b: &mut Builder, x: ValueId, ty: &TensorType) -> Result<ValueId> {
    use Step::*;
    const STEPS: [Step; 22] = [
        All(-3.6444120640178197e-21, 2.2137376921775787e-9, -2.7109920616438573e-11),
        All(-1.6850591381820166e-19, 9.075656193888539e-8, -2.5556418169965252e-10),
        All(1.28584807152564e-18, -2.7517406297064545e-7, 1.5076572693500548e-9),
        All(1.1157877678025181e-17, 1.8239629214389228e-8, -3.789465440126737e-9),
        All(-1.3331716628546209e-16, 1.5027403968909828e-6, 7.6157012080783394e-9),
        All(2.0972767875968562e-17, -4.013867526981546e-6, -1.496002662714924e-8),
        All(6.6376381343583238e-15, 2.9234449089955446e-6, 2.9147953450901081e-8),
        All(-4.0545662729752069e-14, 1.2475304481671779e-5, -6.7711997758452339e-8),
        All(-8.1519341976054721e-14, -4.7318229009055734e-5, 2.2900482228026655e-7),
        All(2.6335093153082323e-12, 6.8284851459573175e-5, -9.9298272942317003e-7),
        All(-1.2975133253453532e-11, 2.4031110387097894e-5, 4.5260625972231537e-6),
        All(-5.4154120542946279e-11, -3.5503752036284748e-4, -1.9681778105531671e-5),
        All(1.0512122733215323e-9, 9.5328937973738049e-4, 7.5995277030017761e-5),
        All(-4.1126339803469837e-9, -0.0016882755560235047, -2.1503011930044477e-4),
        All(-2.9070369957882005e-8, 0.0024914420961078508, -1.3871931833623122e-4),
        All(4.2347877827932404e-7, -0.0037512085075692412, 1.0103004648645344),
        All(-1.3654692000834679e-6, 0.0053709145535900636, 4.8499064014085844),
        FirstTwo(-1.3882523362786469e-5, 1.0052589676941592),
        FirstTwo(1.8673420803405714e-4, 3.0838856104922208),
        First(-7.4070253416626698e-4),
        First(-0.0060336708714301491),
        First(0.24015818242558962),
    ];
    const LAST: f64 = 1.6536545626831027;
    let pred = TensorType::new(ty.shape.clone(), ElementType::Pred);
    let neg_x = b.un(UnaryOp::Negate, x);
    let minus_x2 = b.bin(BinaryOp::Multiply, x, neg_x);
    let l = b.un(UnaryOp::LogPlusOne, minus_x2);
    let w = b.un(UnaryOp::Negate, l);
    let c625 = b.splat(6.25, ty)?;
    let first = b.compare(ComparisonDirection::Lt, w, c625, &pred);
    let c16 = b.splat(16.0, ty)?;
    let second = b.compare(ComparisonDirection::Lt, w, c16, &pred);
    let sw = b.un(UnaryOp::Sqrt, w);
    let c3125 = b.splat(3.125, ty)?;
    let t_first = b.bin(BinaryOp::Subtract, w, c3125);
    let c325 = b.splat(3.25, ty)?;
    let c5 = b.splat(5.0, ty)?;
    let shift = b.select(second, c325, c5);
    let t_rest = b.bin(BinaryOp::Subtract, sw, shift);
    let t = b.select(first, t_first, t_rest);
    let mut p: Option<ValueId> = None;
    for step in STEPS.iter().chain(std::iter::once(&First(LAST))) {
        let next = |b: &mut Builder, coef: ValueId, p: Option<ValueId>| match p {
            None => coef,
            Some(p) => {
                let m = b.bin(BinaryOp::Multiply, p, t);
                b.bin(BinaryOp::Add, coef, m)
            }
        };
        p = Some(match *step {
            All(c1, c2, c3) => {
                let (k1, k2, k3) = (b.splat(c1, ty)?, b.splat(c2, ty)?, b.splat(c3, ty)?);
                let k12 = b.select(first, k1, k2);
                let k = b.select(second, k12, k3);
                next(b, k, p)
            }
            FirstTwo(c1, c2) => {
                let (k1, k2) = (b.splat(c1, ty)?, b.splat(c2, ty)?);
                let k = b.select(first, k1, k2);
                let n = next(b, k, p);
                match p {
                    Some(old) => b.select(second, n, old),
                    None => n,
                }
            }
            First(c1) => {
                let k = b.splat(c1, ty)?;
                let n = next(b, k, p);
                match p {
                    Some(old) => b.select(first, n, old),
                    None => n,
                }
            }
        });
    }
    let p = p.expect("at least one step");
    let r = b.bin(BinaryOp::Multiply, p, x);
    let ax = b.un(UnaryOp::Abs, x);
    let one = b.splat(1.0, ty)?;
    let at_one = b.compare(ComparisonDirection::Eq, ax, one, &pred);
    let inf = b.splat(f64::INFINITY, ty)?;
    let x_inf = b.bin(BinaryOp::Multiply, x, inf);
    Ok(b.select(at_one, x_inf, r))
}
