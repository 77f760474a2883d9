//! The one place where a TensorFlow op meets apu's execution: look the op up in the compiled-op cache
//! (lowering, validating and planning it on a miss), then run its plan-executor program.

use super::cache;
use super::ops::TfOp;
use apu_compiler::Result;
use apu_runtime::Tensor;
use std::sync::Arc;

/// Computes `op` on `inputs` (all inputs, host-memory ones included) through the process's op cache.
pub fn run_single_op(op: &TfOp, inputs: &[Tensor]) -> Result<Vec<Tensor>> {
    let key: Arc<str> = format!("{op:?}").into();
    cache::global().run(&key, op, inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tf::kernels::ops::{Padding, TfReduction, TfUnary};
    use apu_compiler::ir::{BinaryOp, ElementType, TensorType};

    fn t(shape: &[i64], v: &[f32]) -> Tensor {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        Tensor::from_bytes(TensorType::new(shape.to_vec(), ElementType::F32), &bytes).unwrap()
    }

    fn i32s(v: &[i32]) -> Tensor {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        Tensor::from_bytes(TensorType::new(vec![v.len() as i64], ElementType::S32), &bytes).unwrap()
    }

    fn f(t: &Tensor) -> Vec<f32> {
        t.bytes().chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    fn seq(n: usize, scale: f32, offset: f32) -> Vec<f32> {
        (0..n).map(|i| i as f32 * scale + offset).collect()
    }

    #[test]
    fn a_second_call_with_the_same_shapes_compiles_nothing() {
        let cache = cache::OpCache::new(8);
        let op = TfOp::MatMul { transpose_a: false, transpose_b: false };
        let key: Arc<str> = format!("{op:?}").into();
        let (a, b) = (t(&[2, 3], &seq(6, 1.0, 0.0)), t(&[3, 2], &seq(6, 0.5, 1.0)));
        let first = cache.run(&key, &op, &[a.clone(), b.clone()]).unwrap();
        assert_eq!(cache.compiles(), 1);
        let (a2, b2) = (t(&[2, 3], &seq(6, -1.0, 2.0)), t(&[3, 2], &seq(6, 0.25, 0.0)));
        let second = cache.run(&key, &op, &[a2, b2]).unwrap();
        assert_eq!(cache.compiles(), 1, "same op and shapes: no new compilation");
        assert_ne!(f(&first[0]), f(&second[0]), "the cached program ran on the new inputs");
        cache.run(&key, &op, &[t(&[1, 3], &[1.0, 2.0, 3.0]), b]).unwrap();
        assert_eq!(cache.compiles(), 2, "a new shape compiles");
        // Host-memory values are part of the key: another axis is another program.
        let sum = TfOp::Reduce { reduction: TfReduction::Sum, keep_dims: false };
        let skey: Arc<str> = format!("{sum:?}").into();
        let x = t(&[2, 3], &seq(6, 1.0, 0.0));
        let r0 = cache.run(&skey, &sum, &[x.clone(), i32s(&[0])]).unwrap();
        let r1 = cache.run(&skey, &sum, &[x.clone(), i32s(&[1])]).unwrap();
        assert_eq!((f(&r0[0]), f(&r1[0])), (vec![3.0, 5.0, 7.0], vec![3.0, 12.0]));
        assert_eq!(cache.compiles(), 4);
        cache.run(&skey, &sum, &[x, i32s(&[1])]).unwrap();
        assert_eq!(cache.compiles(), 4);
    }

    #[test]
    fn the_cache_is_bounded_and_evicts_the_least_recently_used() {
        let cache = cache::OpCache::new(2);
        let op = TfOp::Relu;
        let key: Arc<str> = format!("{op:?}").into();
        let x = |n: usize| t(&[n as i64], &seq(n, 1.0, -2.0));
        cache.run(&key, &op, &[x(1)]).unwrap();
        cache.run(&key, &op, &[x(2)]).unwrap();
        cache.run(&key, &op, &[x(1)]).unwrap(); // 1 is now more recent than 2
        cache.run(&key, &op, &[x(3)]).unwrap(); // evicts 2
        assert_eq!((cache.len(), cache.evictions(), cache.compiles()), (2, 1, 3));
        cache.run(&key, &op, &[x(1)]).unwrap();
        assert_eq!(cache.compiles(), 3, "1 stayed");
        cache.run(&key, &op, &[x(2)]).unwrap();
        assert_eq!(cache.compiles(), 4, "2 was evicted");
    }

    #[test]
    fn concurrent_calls_share_one_cache() {
        let cache = std::sync::Arc::new(cache::OpCache::new(16));
        let op = TfOp::Unary(TfUnary::Square);
        let key: Arc<str> = format!("{op:?}").into();
        std::thread::scope(|s| {
            for k in 0..4 {
                let (cache, key, op) = (cache.clone(), key.clone(), op.clone());
                s.spawn(move || {
                    for i in 0..20 {
                        let v = (k * 100 + i) as f32;
                        let out = cache.run(&key, &op, &[t(&[2], &[v, -v])]).unwrap();
                        assert_eq!(f(&out[0]), vec![v * v, v * v]);
                    }
                });
            }
        });
        assert!(cache.compiles() >= 1 && cache.compiles() <= 4, "{}", cache.compiles());
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn relu_and_relu6() {
        let x = t(&[5], &[-2.0, -0.0, 0.5, 6.5, 3.0]);
        assert_eq!(f(&run_single_op(&TfOp::Relu, std::slice::from_ref(&x)).unwrap()[0]), vec![0.0, 0.0, 0.5, 6.5, 3.0]);
        assert_eq!(f(&run_single_op(&TfOp::Relu6, &[x]).unwrap()[0]), vec![0.0, 0.0, 0.5, 6.0, 3.0]);
    }

    #[test]
    fn broadcasting_sub_matches_elementwise_definition() {
        let (a, b) = (seq(6, 1.0, 0.0), seq(3, 10.0, 1.0));
        let out = run_single_op(&TfOp::Binary(BinaryOp::Subtract), &[t(&[2, 3], &a), t(&[3], &b)]).unwrap();
        assert_eq!(out[0].ty.shape, vec![2, 3]);
        let want: Vec<f32> = (0..6).map(|i| a[i] - b[i % 3]).collect();
        assert_eq!(f(&out[0]), want);
    }

    #[test]
    fn matmul_with_transposes_matches_naive_product() {
        let (a, b) = (seq(6, 0.5, -1.0), seq(12, 0.25, -2.0)); // a: [3,2] used as a^T [2,3]; b: [4,3] used as b^T [3,4]
        let out = run_single_op(&TfOp::MatMul { transpose_a: true, transpose_b: true }, &[t(&[3, 2], &a), t(&[4, 3], &b)]).unwrap();
        assert_eq!(out[0].ty.shape, vec![2, 4]);
        let got = f(&out[0]);
        for i in 0..2 {
            for j in 0..4 {
                let want: f32 = (0..3).map(|k| a[k * 2 + i] * b[j * 3 + k]).sum();
                assert!((got[i * 4 + j] - want).abs() < 1e-5, "({i},{j}) {} vs {want}", got[i * 4 + j]);
            }
        }
    }

    #[test]
    fn mean_over_axes_with_keep_dims() {
        let x = seq(24, 1.0, 0.0);
        let op = TfOp::Reduce { reduction: TfReduction::Mean, keep_dims: true };
        let out = run_single_op(&op, &[t(&[2, 3, 4], &x), i32s(&[0, -1])]).unwrap();
        assert_eq!(out[0].ty.shape, vec![1, 3, 1]);
        let want: Vec<f32> = (0..3)
            .map(|j| {
                let mut s = 0.0f32;
                for i in 0..2 {
                    for k in 0..4 {
                        s += x[i * 12 + j * 4 + k];
                    }
                }
                s / 8.0
            })
            .collect();
        assert_eq!(f(&out[0]), want);
    }

    #[test]
    fn out_of_range_axis_is_an_invalid_argument() {
        let op = TfOp::Reduce { reduction: TfReduction::Sum, keep_dims: false };
        let err = run_single_op(&op, &[t(&[2], &[1.0, 2.0]), i32s(&[3])]).unwrap_err();
        assert_eq!(err.kind, apu_compiler::error::ErrorKind::InvalidArgument);
        assert!(err.to_string().contains("axis 3 is out of range"), "{err}");
    }

    #[test]
    fn conv2d_same_matches_naive_convolution() {
        let (x, w) = (seq(2 * 4 * 4, 0.1, -1.0), seq(3 * 3 * 2 * 3, 0.05, -0.5));
        let op = TfOp::Conv2D { strides: vec![1, 1, 1, 1], dilations: vec![1, 1, 1, 1], padding: Padding::Same, channels_first: false };
        let out = run_single_op(&op, &[t(&[1, 4, 4, 2], &x), t(&[3, 3, 2, 3], &w)]).unwrap();
        assert_eq!(out[0].ty.shape, vec![1, 4, 4, 3]);
        let got = f(&out[0]);
        for oy in 0..4i64 {
            for ox in 0..4i64 {
                for o in 0..3usize {
                    let mut want = 0.0f32;
                    for ky in 0..3i64 {
                        for kx in 0..3i64 {
                            let (iy, ix) = (oy + ky - 1, ox + kx - 1);
                            if !(0..4).contains(&iy) || !(0..4).contains(&ix) {
                                continue;
                            }
                            for c in 0..2usize {
                                want += x[((iy * 4 + ix) * 2) as usize + c] * w[((ky * 3 + kx) as usize * 2 + c) * 3 + o];
                            }
                        }
                    }
                    let g = got[((oy * 4 + ox) * 3) as usize + o];
                    assert!((g - want).abs() < 1e-4, "({oy},{ox},{o}) {g} vs {want}");
                }
            }
        }
    }

    #[test]
    fn softmax_cross_entropy_loss_and_backprop() {
        let logits = [1.0f32, 2.0, 3.0, -1.0, 0.0, 1.0];
        let labels = [0.0f32, 0.0, 1.0, 0.5, 0.5, 0.0];
        let out = run_single_op(&TfOp::SoftmaxCrossEntropyWithLogits, &[t(&[2, 3], &logits), t(&[2, 3], &labels)]).unwrap();
        let (loss, backprop) = (f(&out[0]), f(&out[1]));
        for r in 0..2 {
            let row = &logits[r * 3..r * 3 + 3];
            let z: f32 = row.iter().map(|v| v.exp()).sum();
            let want_loss: f32 = (0..3).map(|k| -labels[r * 3 + k] * (row[k].exp() / z).ln()).sum();
            assert!((loss[r] - want_loss).abs() < 1e-5, "row {r}: {} vs {want_loss}", loss[r]);
            for k in 0..3 {
                let want = row[k].exp() / z - labels[r * 3 + k];
                assert!((backprop[r * 3 + k] - want).abs() < 1e-5);
            }
        }
    }

    #[test]
    fn square_and_wrong_arity() {
        let out = run_single_op(&TfOp::Unary(TfUnary::Square), &[t(&[2], &[-3.0, 0.5])]).unwrap();
        assert_eq!(f(&out[0]), vec![9.0, 0.25]);
        let err = run_single_op(&TfOp::Relu, &[]).unwrap_err();
        assert!(err.to_string().contains("Relu expects 1 inputs, got 0"), "{err}");
    }

    #[test]
    fn grouped_convolution_is_unimplemented() {
        let op = TfOp::Conv2D { strides: vec![1, 1, 1, 1], dilations: vec![1, 1, 1, 1], padding: Padding::Valid, channels_first: false };
        let err = run_single_op(&op, &[t(&[1, 2, 2, 4], &[0.0; 16]), t(&[1, 1, 2, 4], &[0.0; 8])]).unwrap_err();
        assert_eq!(err.kind, apu_compiler::error::ErrorKind::Unimplemented);
    }
}
