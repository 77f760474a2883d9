//! `jax.lax.approx_max_k` / `approx_min_k` as JAX 0.10.2 lowers them off TPU (`custom_call
//! @ApproxTopK`, `tests/no_fallback/approx_top_k.mlir`), rewritten into a stable sort and slices when
//! read (decision 96): on the plan and on the interpreter, the values and indices XLA:CPU gives for the
//! same input (jaxlib 0.12.0.1), ties broken by the lower index.

use apu_compiler::program::{read_program, ProgramFormat};
use apu_compiler::valid::validate;
use apu_runtime::exec::{Options, Program};
use apu_runtime::{interp, Tensor};
use apu_compiler::ir::{ElementType, TensorType};

fn f32s(shape: &[i64], v: &[f32]) -> Tensor {
    Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::F32), &v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<_>>()).unwrap()
}

fn values(t: &Tensor) -> Vec<f64> {
    let b = t.bytes();
    match t.ty.elem {
        ElementType::F32 => b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
        ElementType::S32 => b.chunks(4).map(|c| i32::from_le_bytes(c.try_into().unwrap()) as f64).collect(),
        other => panic!("unexpected {other}"),
    }
}

#[test]
fn approx_top_k_gives_xla_cpus_exact_answer() {
    let x = f32s(&[4, 8], &[3., 1., 4., 1., 5., 9., 2., 6., 2., 7., 1., 8., 2., 8., 1., 8., 5., 3., 5., 8., 9., 7., 9., 3., 2., 3., 8., 4., 6., 2., 6., 4.]);
    // XLA:CPU: approx_max_k(x, 3, reduction_dimension=1), approx_min_k(x, 2, reduction_dimension=0, aggregate_to_topk=False).
    let want: Vec<Vec<f64>> = vec![
        vec![9., 6., 5., 8., 8., 8., 9., 9., 8., 8., 6., 6.],
        vec![5., 7., 4., 3., 5., 7., 4., 6., 3., 2., 4., 6.],
        vec![2., 1., 1., 1., 2., 2., 1., 3., 2., 3., 4., 4., 5., 7., 2., 4., 3., 3., 5., 8., 6., 8., 6., 6., 5., 7., 8., 8., 9., 9., 9., 8.],
        vec![1., 0., 1., 0., 1., 3., 1., 2., 3., 2., 0., 3., 0., 2., 0., 3., 0., 3., 2., 1., 3., 1., 3., 0., 2., 1., 3., 2., 2., 0., 2., 1.],
    ];
    // The text, and the portable artifact jaxlib 0.10.2 writes of it (target 1.17.0).
    for form in ["no_fallback/approx_top_k.mlir", "fixtures/approx_top_k.vhlo.mlirbc"] {
        let code = std::fs::read(format!("{}/tests/{form}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let m = validate(read_program(ProgramFormat::Mlir, &code).unwrap()).unwrap_or_else(|e| panic!("{form}: {e}"));
        let got: Vec<Vec<f64>> = interp::run(&m, &[x.clone()]).unwrap().iter().map(values).collect();
        assert_eq!(got, want, "{form}: interpreter");
        let options = Options { threads: 2, min_parallel_work: 1, interpret: false, row_block_bytes: apu_runtime::exec::DEFAULT_ROW_BLOCK_BYTES };
        let p = Program::compile_with(&m, &options).unwrap();
        let got: Vec<Vec<f64>> = p.run(&[x.clone()]).unwrap().iter().map(values).collect();
        assert_eq!(got, want, "{form}: plan");
    }
}
