//! `Program::run_into`: results written straight into the caller's memory (a TensorFlow output
//! tensor, decision 76), arguments viewed in the caller's memory, and neither kept past the run.

use apu_compiler::ir::{ElementType, TensorType};
use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::{AlignedBytes, Tensor};
use std::sync::Arc;

fn program(text: &str, threads: usize) -> Program {
    let module = validate(read_program(ProgramFormat::Mlir, text.as_bytes()).unwrap()).unwrap();
    let options = Options { threads, ..Options::from_env() };
    let p = Program::compile_with(&module, &options).unwrap();
    assert!(p.plan().is_some(), "planned");
    p
}

fn f32s(t: &[u8]) -> Vec<f32> {
    t.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A caller's buffer viewed as external memory.
fn view(owner: &mut AlignedBytes) -> AlignedBytes {
    // SAFETY: every owner outlives the run its view is passed to.
    unsafe { AlignedBytes::external(owner.as_mut_ptr(), owner.len()) }.unwrap()
}

const PROGRAM: &str = r#"
func.func @main(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>, %x: tensor<4096xf32>) -> (tensor<64x16xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<16xf32>) {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %t = stablehlo.tanh %x : tensor<4096xf32>
  %e = stablehlo.exponential %t : tensor<4096xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [0] : (tensor<64x16xf32>, tensor<f32>) -> tensor<16xf32>
  return %d, %e, %x, %r : tensor<64x16xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<16xf32>
}
"#;

#[test]
fn results_land_in_the_callers_memory_and_match_a_plain_run() {
    for threads in [1, 2] {
        let p = program(PROGRAM, threads);
        let a: Vec<f32> = (0..64 * 32).map(|i| (i % 13) as f32 * 0.25 - 1.0).collect();
        let b: Vec<f32> = (0..32 * 16).map(|i| (i % 7) as f32 * 0.5 - 1.5).collect();
        let x: Vec<f32> = (0..4096).map(|i| (i % 29) as f32 * 0.1 - 1.4).collect();
        let mut xs = AlignedBytes::from_slice(&bytes(&x));
        let args = vec![
            Tensor::from_bytes(TensorType::new(vec![64, 32], ElementType::F32), &bytes(&a)).unwrap(),
            Tensor::from_bytes(TensorType::new(vec![32, 16], ElementType::F32), &bytes(&b)).unwrap(),
            // The caller's own memory as an argument, not copied.
            Tensor { ty: TensorType::new(vec![4096], ElementType::F32), data: Arc::new(view(&mut xs)) },
        ];
        let want = p.run(&args).unwrap();
        for round in 0..3 {
            let mut owners: Vec<AlignedBytes> = want.iter().map(|t| AlignedBytes::zeroed(t.data.len())).collect();
            let targets: Vec<Option<AlignedBytes>> = owners.iter_mut().map(|o| Some(view(o))).collect();
            let got = p.run_into(&args, targets).unwrap();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(f32s(g.bytes()), f32s(w.bytes()), "result {i}, round {round}, {threads} threads");
            }
            // The dot, the elementwise chain and the reduce wrote the caller's memory; the
            // passed-through argument is the argument's memory itself.
            for i in [0, 1, 3] {
                assert_eq!(got[i].data.as_ptr(), owners[i].as_ptr(), "result {i} written in place");
                assert_eq!(f32s(owners[i].as_slice()), f32s(want[i].bytes()), "result {i}");
            }
            assert_eq!(got[2].data.as_ptr(), xs.as_ptr(), "a passed-through argument is not copied");
            assert_ne!(owners[2].as_ptr(), got[2].data.as_ptr());
            drop(got);
            // Nothing of the caller's is kept: scribbling over it changes no later result.
            for o in &mut owners {
                o.as_mut_slice().fill(0xAB);
            }
            let again = p.run(&args).unwrap();
            for (g, w) in again.iter().zip(&want) {
                assert_eq!(f32s(g.bytes()), f32s(w.bytes()), "a later plain run, round {round}");
                assert!(owners.iter().all(|o| o.as_ptr() != g.data.as_ptr()), "a later run reuses no caller memory");
            }
        }
        assert_eq!(f32s(xs.as_slice()), x, "an argument is never written");
    }
}

#[test]
fn a_target_of_the_wrong_size_or_none_is_left_alone() {
    let p = program(PROGRAM, 1);
    let args = vec![
        Tensor::zeroed(TensorType::new(vec![64, 32], ElementType::F32)),
        Tensor::zeroed(TensorType::new(vec![32, 16], ElementType::F32)),
        Tensor::zeroed(TensorType::new(vec![4096], ElementType::F32)),
    ];
    let mut small = AlignedBytes::zeroed(8);
    let got = p.run_into(&args, vec![Some(view(&mut small)), None]).unwrap();
    assert_eq!(got.len(), 4);
    assert_ne!(got[0].data.as_ptr(), small.as_ptr());
    assert_eq!(got[0].data.len(), 64 * 16 * 4);
}
