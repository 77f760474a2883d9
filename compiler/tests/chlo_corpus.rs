//! Checks apu's CHLO expansions numerically against StableHLO's `testdata` programs (each holds
//! inputs, a chlo op and expected outputs). Ignored by default; run with
//! `APU_TEXT_CORPUS=<stablehlo checkout>/stablehlo/testdata cargo test -p apu-compiler --test chlo_corpus -- --ignored --nocapture`.
//! The evaluator computes in f64, so it measures the expansion's approximation error only.

use apu_compiler::ir::*;
use apu_compiler::text::literal_text::decode_float;
use apu_compiler::text::parse_module;

fn eval_fn(m: &Module, f: &Function, args: Vec<Vec<f64>>) -> Vec<Vec<f64>> {
    let mut vals: Vec<Option<Vec<f64>>> = vec![None; f.values.len()];
    for (p, a) in f.body.params.iter().zip(args) {
        vals[p.index()] = Some(a);
    }
    for op in &f.body.ops {
        let arg = |i: usize| vals[op.operands[i].index()].clone().expect("defined");
        let map1 = |g: fn(f64) -> f64| arg(0).into_iter().map(g).collect::<Vec<_>>();
        let map2 = |g: fn(f64, f64) -> f64| arg(0).into_iter().zip(arg(1)).map(|(a, b)| g(a, b)).collect::<Vec<_>>();
        let out: Vec<Vec<f64>> = match &op.kind {
            OpKind::Call { callee } => eval_fn(m, m.function(callee).unwrap(), (0..op.operands.len()).map(arg).collect()),
            OpKind::CustomCall { .. } => vec![],
            OpKind::Constant(l) => {
                let n = l.ty.num_elements();
                let bytes = l.to_dense_bytes();
                let es = l.ty.elem.byte_size();
                vec![(0..n).map(|i| decode_float(&bytes[i * es..], l.ty.elem)).collect()]
            }
            OpKind::Convert => vec![arg(0)],
            OpKind::BroadcastInDim { .. } if arg(0).len() == 1 => {
                let n = f.values[op.results[0].index()].as_tensor().unwrap().num_elements();
                vec![vec![arg(0)[0]; n]]
            }
            OpKind::Binary(BinaryOp::Add) => vec![map2(|a, b| a + b)],
            OpKind::Binary(BinaryOp::Subtract) => vec![map2(|a, b| a - b)],
            OpKind::Binary(BinaryOp::Multiply) => vec![map2(|a, b| a * b)],
            OpKind::Binary(BinaryOp::Divide) => vec![map2(|a, b| a / b)],
            OpKind::Binary(BinaryOp::Atan2) => vec![map2(f64::atan2)],
            OpKind::Unary(UnaryOp::Negate) => vec![map1(|a| -a)],
            OpKind::Unary(UnaryOp::Abs) => vec![map1(f64::abs)],
            OpKind::Unary(UnaryOp::Sqrt) => vec![map1(f64::sqrt)],
            OpKind::Unary(UnaryOp::Log) => vec![map1(f64::ln)],
            OpKind::Unary(UnaryOp::LogPlusOne) => vec![map1(f64::ln_1p)],
            OpKind::Unary(UnaryOp::Exponential) => vec![map1(f64::exp)],
            OpKind::Unary(UnaryOp::ExponentialMinusOne) => vec![map1(f64::exp_m1)],
            OpKind::Unary(UnaryOp::Tan) => vec![map1(f64::tan)],
            OpKind::Unary(UnaryOp::Sine) => vec![map1(f64::sin)],
            OpKind::Unary(UnaryOp::Cosine) => vec![map1(f64::cos)],
            OpKind::Unary(UnaryOp::Floor) => vec![map1(f64::floor)],
            OpKind::Unary(UnaryOp::IsFinite) => vec![map1(|a| a.is_finite() as u8 as f64)],
            OpKind::Binary(BinaryOp::And) => vec![map2(|a, b| ((a != 0.0) && (b != 0.0)) as u8 as f64)],
            OpKind::Unary(UnaryOp::Sign) => vec![map1(|a| if a.is_nan() { a } else if a == 0.0 { 0.0 } else { a.signum() })],
            OpKind::Compare { direction, .. } => {
                let d = *direction;
                vec![arg(0).into_iter().zip(arg(1)).map(|(a, b)| {
                    let r = match d {
                        ComparisonDirection::Eq => a == b,
                        ComparisonDirection::Ne => a != b,
                        ComparisonDirection::Lt => a < b,
                        ComparisonDirection::Le => a <= b,
                        ComparisonDirection::Gt => a > b,
                        ComparisonDirection::Ge => a >= b,
                    };
                    r as u8 as f64
                }).collect()]
            }
            OpKind::Select => {
                let (p, a, b) = (arg(0), arg(1), arg(2));
                vec![(0..a.len()).map(|i| if p[i.min(p.len() - 1)] != 0.0 { a[i] } else { b[i] }).collect()]
            }
            OpKind::Clamp => {
                let (lo, x, hi) = (arg(0), arg(1), arg(2));
                vec![(0..x.len()).map(|i| x[i].max(lo[i.min(lo.len() - 1)]).min(hi[i.min(hi.len() - 1)])).collect()]
            }
            other => panic!("evaluator does not know {other:?}"),
        };
        for (r, v) in op.results.iter().zip(out) {
            vals[r.index()] = Some(v);
        }
    }
    f.body.results.iter().map(|r| vals[r.index()].clone().unwrap()).collect()
}

#[test]
#[ignore]
fn chlo_expansions_match_stablehlo_testdata() {
    let Some(dir) = std::env::var_os("APU_TEXT_CORPUS") else { return };
    let dir = std::path::PathBuf::from(dir);
    let mut worst_overall: f64 = 0.0;
    for op in ["erf", "erf_inv", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "lgamma", "digamma", "erfc"] {
        for ty in ["float32", "float64"] {
            let path = dir.join(format!("{op}_{ty}_20_20_chlo.mlir"));
            let path = if path.exists() { path } else { dir.join(format!("{op}_{ty}_20_20.mlir")) };
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let m = match parse_module(&text) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("{op} {ty}: {e}");
                    continue;
                }
            };
            if let Err(e) = apu_compiler::valid::validate(m.clone()) {
                panic!("{op} {ty}: expansion does not validate: {e}");
            }
            let main = m.entry_function();
            let got = eval_fn(&m, main, vec![]).remove(0);
            let expected = eval_fn(&m, m.function("expected").unwrap(), vec![]).remove(0);
            let inputs = eval_fn(&m, m.function("inputs").unwrap(), vec![]).remove(0);
            let mut worst = (0.0f64, 0.0, 0.0, 0.0);
            for i in 0..got.len() {
                let (g, e) = (got[i], expected[i]);
                if e.is_nan() && g.is_nan() || g == e {
                    continue;
                }
                // Mixed error: relative for |e| > 1, absolute below (near zeros of lgamma, digamma).
                let rel = ((g - e) / e.abs().max(1.0)).abs();
                let rel = if rel.is_nan() { f64::INFINITY } else { rel };
                if rel > worst.0 {
                    worst = (rel, inputs[i], g, e);
                }
            }
            eprintln!("{op:8} {ty}: worst mixed error {:.3e} at x = {} (got {}, expected {})", worst.0, worst.1, worst.2, worst.3);
            // Relative to each type's precision.
            let scaled = if ty == "float32" { worst.0 } else { worst.0 * 1e8 };
            worst_overall = worst_overall.max(scaled);
        }
    }
    assert!(worst_overall < 1e-5, "an expansion is off by {worst_overall:e} (f64 errors scaled by 1e8)");
}
