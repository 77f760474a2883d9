"""Every kernel apu registers on its PluggableDevice, against TensorFlow's own CPU result.

Runs in this process in PluggableDevice mode (conftest sets the switch before TensorFlow is imported).
"""
import numpy as np
import pytest
import tensorflow as tf

raw = tf.raw_ops
rng = np.random.default_rng(7)


def f32(*shape, low=-3.0, high=3.0):
    return tf.constant(rng.uniform(low, high, size=shape).astype(np.float32))


def positive(*shape):
    return f32(*shape, low=0.1, high=4.0)


def on(device, fn, args):
    with tf.device(device):
        out = fn(*args)
    return out if isinstance(out, (list, tuple)) else [out]


# (name, function of the inputs, inputs, relative tolerance)
CASES = [
    ("Relu", lambda x: raw.Relu(features=x), [f32(4, 5)], 0),
    ("Relu6", lambda x: raw.Relu6(features=x), [f32(4, 5, low=-8, high=8)], 0),
    ("Elu", lambda x: raw.Elu(features=x), [f32(3, 7)], 1e-5),
    ("Neg", lambda x: raw.Neg(x=x), [f32(6)], 0),
    ("Abs", lambda x: raw.Abs(x=x), [f32(2, 3)], 0),
    ("Exp", lambda x: raw.Exp(x=x), [f32(2, 3)], 1e-5),
    ("Log", lambda x: raw.Log(x=x), [positive(2, 3)], 1e-5),
    ("Tanh", lambda x: raw.Tanh(x=x), [f32(10)], 1e-5),
    ("Sigmoid", lambda x: raw.Sigmoid(x=x), [f32(10)], 1e-5),
    ("Sqrt", lambda x: raw.Sqrt(x=x), [positive(8)], 1e-6),
    ("Rsqrt", lambda x: raw.Rsqrt(x=x), [positive(8)], 1e-5),
    ("Square", lambda x: raw.Square(x=x), [f32(8)], 0),
    ("AddV2", lambda x, y: raw.AddV2(x=x, y=y), [f32(2, 3), f32(2, 3)], 0),
    ("AddV2 broadcast", lambda x, y: raw.AddV2(x=x, y=y), [f32(4, 1, 3), f32(5, 1)], 0),
    ("Add", lambda x, y: raw.Add(x=x, y=y), [f32(3), f32(2, 3)], 0),
    ("Sub", lambda x, y: raw.Sub(x=x, y=y), [f32(2, 3), f32(3)], 0),
    ("Mul", lambda x, y: raw.Mul(x=x, y=y), [f32(2, 1), f32(1, 4)], 0),
    ("Mul scalar", lambda x, y: raw.Mul(x=x, y=y), [f32(2, 4), tf.constant(2.5)], 0),
    ("RealDiv", lambda x, y: raw.RealDiv(x=x, y=y), [f32(3, 4), positive(4)], 1e-6),
    ("Maximum", lambda x, y: raw.Maximum(x=x, y=y), [f32(3, 4), f32(3, 4)], 0),
    ("Minimum", lambda x, y: raw.Minimum(x=x, y=y), [f32(3, 4), f32(1)], 0),
    ("MatMul", lambda a, b: raw.MatMul(a=a, b=b), [f32(3, 4), f32(4, 5)], 1e-5),
    ("MatMul transposed", lambda a, b: raw.MatMul(a=a, b=b, transpose_a=True, transpose_b=True), [f32(4, 3), f32(5, 4)], 1e-5),
    ("BatchMatMulV2", lambda x, y: raw.BatchMatMulV2(x=x, y=y), [f32(2, 3, 4), f32(2, 4, 5)], 1e-5),
    ("BatchMatMulV2 broadcast adj", lambda x, y: raw.BatchMatMulV2(x=x, y=y, adj_x=True, adj_y=True), [f32(3, 1, 4, 2), f32(5, 3, 4)], 1e-5),
    ("BiasAdd", lambda v, b: raw.BiasAdd(value=v, bias=b), [f32(2, 3, 4), f32(4)], 0),
    ("BiasAdd NCHW", lambda v, b: raw.BiasAdd(value=v, bias=b, data_format="NCHW"), [f32(2, 3, 4, 4), f32(3)], 0),
    ("Softmax", lambda x: raw.Softmax(logits=x), [f32(3, 6)], 1e-5),
    ("LogSoftmax", lambda x: raw.LogSoftmax(logits=x), [f32(3, 6)], 1e-5),
    ("Sum", lambda x: raw.Sum(input=x, axis=tf.constant([1])), [f32(3, 4, 5)], 1e-5),
    ("Sum keep_dims int64 axes", lambda x: raw.Sum(input=x, axis=tf.constant([0, -1], tf.int64), keep_dims=True), [f32(3, 4, 5)], 1e-5),
    ("Mean", lambda x: raw.Mean(input=x, axis=tf.constant([0, 2])), [f32(3, 4, 5)], 1e-5),
    ("Max", lambda x: raw.Max(input=x, axis=tf.constant(1)), [f32(3, 4)], 0),
    ("Min", lambda x: raw.Min(input=x, axis=tf.constant([0]), keep_dims=True), [f32(3, 4)], 0),
    ("Mean int64 axes", lambda x: raw.Mean(input=x, axis=tf.constant([-2], tf.int64), keep_dims=True), [f32(2, 3, 4)], 1e-5),
    ("Max int64 axes", lambda x: raw.Max(input=x, axis=tf.constant([0, 1], tf.int64)), [f32(3, 4)], 0),
    ("Min int64 axes", lambda x: raw.Min(input=x, axis=tf.constant(1, tf.int64)), [f32(3, 4)], 0),
    ("Cast f32->i32", lambda x: raw.Cast(x=x, DstT=tf.int32), [f32(10, low=-50, high=50)], 0),
    ("Cast i32->f32", lambda x: raw.Cast(x=x, DstT=tf.float32), [tf.constant(np.arange(-5, 5, dtype=np.int32))], 0),
    ("Conv2D SAME", lambda x, w: raw.Conv2D(input=x, filter=w, strides=[1, 1, 1, 1], padding="SAME"), [f32(2, 5, 5, 3), f32(3, 3, 3, 4)], 1e-5),
    ("Conv2D VALID strided", lambda x, w: raw.Conv2D(input=x, filter=w, strides=[1, 2, 2, 1], padding="VALID"), [f32(1, 7, 6, 2), f32(3, 2, 2, 3)], 1e-5),
    ("Conv2D SAME strided dilated", lambda x, w: raw.Conv2D(input=x, filter=w, strides=[1, 2, 1, 1], padding="SAME", dilations=[1, 1, 2, 1]), [f32(1, 6, 7, 2), f32(2, 3, 2, 2)], 1e-5),
    ("Conv2D EXPLICIT", lambda x, w: raw.Conv2D(input=x, filter=w, strides=[1, 1, 1, 1], padding="EXPLICIT", explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0]), [f32(1, 4, 4, 2), f32(2, 2, 2, 1)], 1e-5),
    ("ReluGrad", lambda g, f: raw.ReluGrad(gradients=g, features=f), [f32(3, 4), f32(3, 4)], 0),
    ("BiasAddGrad", lambda g: raw.BiasAddGrad(out_backprop=g), [f32(2, 3, 5)], 1e-5),
    ("BiasAddGrad NCHW", lambda g: raw.BiasAddGrad(out_backprop=g, data_format="NCHW"), [f32(2, 3, 4, 4)], 1e-5),
    ("SoftmaxCrossEntropyWithLogits", lambda f, l: raw.SoftmaxCrossEntropyWithLogits(features=f, labels=l), [f32(4, 5), tf.nn.softmax(f32(4, 5))], 1e-5),
    # The ops a Keras training step (MLP, CNN, LSTM; jit_compile=False) needs beyond the set above.
    ("Pow", lambda x, y: raw.Pow(x=x, y=y), [positive(3, 4), f32(4)], 1e-5),
    ("DivNoNan", lambda x, y: raw.DivNoNan(x=x, y=y), [f32(2, 4), tf.constant([0.0, 2.0, -0.5, 0.0])], 1e-6),
    ("SquaredDifference", lambda x, y: raw.SquaredDifference(x=x, y=y), [f32(3, 4), f32(4)], 1e-6),
    ("RsqrtGrad", lambda y, dy: raw.RsqrtGrad(y=y, dy=dy), [positive(7), f32(7)], 1e-6),
    ("SigmoidGrad", lambda y, dy: raw.SigmoidGrad(y=y, dy=dy), [f32(7, low=0, high=1), f32(7)], 1e-6),
    ("TanhGrad", lambda y, dy: raw.TanhGrad(y=y, dy=dy), [f32(7, low=-1, high=1), f32(7)], 1e-6),
    ("Sign", lambda x: raw.Sign(x=x), [tf.constant([-2.0, 0.0, 3.0, -0.0])], 0),
    ("ZerosLike", lambda x: raw.ZerosLike(x=x), [f32(2, 3)], 0),
    ("OnesLike", lambda x: raw.OnesLike(x=x), [f32(2, 3)], 0),
    ("AddN", lambda a, b, c: raw.AddN(inputs=[a, b, c]), [f32(3, 4), f32(3, 4), f32(3, 4)], 1e-6),
    ("Equal", lambda x, y: raw.Equal(x=x, y=y), [tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 0.0, 3.0])], 0),
    ("NotEqual", lambda x, y: raw.NotEqual(x=x, y=y), [tf.constant([[1.0], [2.0]]), tf.constant([1.0, 2.0])], 0),
    ("Greater", lambda x, y: raw.Greater(x=x, y=y), [f32(3, 4), f32(4)], 0),
    ("GreaterEqual", lambda x, y: raw.GreaterEqual(x=x, y=y), [f32(3, 4), tf.constant(0.5)], 0),
    ("Less", lambda x, y: raw.Less(x=x, y=y), [f32(3, 4), f32(3, 4)], 0),
    ("LessEqual", lambda x, y: raw.LessEqual(x=x, y=y), [f32(3, 4), f32(1, 4)], 0),
    ("SelectV2", lambda c, t, e: raw.SelectV2(condition=c, t=t, e=e), [tf.constant([[True], [False], [True]]), f32(3, 4), f32(4)], 0),
    ("Tile", lambda x: raw.Tile(input=x, multiples=tf.constant([2, 1, 3])), [f32(2, 3, 2)], 0),
    ("Tile int64 multiples", lambda x: raw.Tile(input=x, multiples=tf.constant([3, 2], tf.int64)), [f32(2, 3)], 0),
    ("BroadcastTo", lambda x: raw.BroadcastTo(input=x, shape=tf.constant([4, 2, 3])), [f32(2, 1)], 0),
    ("BroadcastTo int64 shape", lambda x: raw.BroadcastTo(input=x, shape=tf.constant([3, 5], tf.int64)), [f32(5)], 0),
    ("Transpose", lambda x: raw.Transpose(x=x, perm=tf.constant([2, 0, 1])), [f32(2, 3, 4)], 0),
    ("Transpose int64 perm", lambda x: raw.Transpose(x=x, perm=tf.constant([1, 0], tf.int64)), [f32(3, 5)], 0),
    ("Fill", lambda v: raw.Fill(dims=tf.constant([2, 3]), value=v), [tf.constant(1.5)], 0),
    ("Fill int64 dims", lambda v: raw.Fill(dims=tf.constant([4], tf.int64), value=v), [tf.constant(-2.0)], 0),
    ("SparseSoftmaxCrossEntropyWithLogits", lambda f, l: raw.SparseSoftmaxCrossEntropyWithLogits(features=f, labels=l), [f32(4, 5), tf.constant([0, 4, 2, 1], tf.int64)], 1e-5),
    ("SparseSoftmaxCrossEntropyWithLogits int32", lambda f, l: raw.SparseSoftmaxCrossEntropyWithLogits(features=f, labels=l), [f32(3, 6), tf.constant([5, 0, 3], tf.int32)], 1e-5),
    ("MaxPool VALID", lambda x: raw.MaxPool(input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"), [f32(2, 7, 6, 3)], 0),
    ("MaxPool SAME 3x3/2", lambda x: raw.MaxPool(input=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"), [f32(2, 7, 6, 3)], 0),
    ("AvgPool VALID", lambda x: raw.AvgPool(value=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"), [f32(2, 6, 6, 3)], 1e-6),
    ("AvgPool SAME 3x3/2", lambda x: raw.AvgPool(value=x, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"), [f32(1, 7, 5, 2)], 1e-6),
    ("Cast i64->f32", lambda x: raw.Cast(x=x, DstT=tf.float32), [tf.constant(np.arange(-5, 5, dtype=np.int64))], 0),
    ("Cast f32->i64", lambda x: raw.Cast(x=x, DstT=tf.int64), [f32(10, low=-50, high=50)], 0),
    ("Cast i32->i64", lambda x: raw.Cast(x=x, DstT=tf.int64), [tf.constant(np.arange(-5, 5, dtype=np.int32))], 0),
    ("Cast i64->i32", lambda x: raw.Cast(x=x, DstT=tf.int32), [tf.constant(np.arange(-5, 5, dtype=np.int64))], 0),
    ("Cast bool->f32", lambda x: raw.Cast(x=x, DstT=tf.float32), [tf.constant([True, False, True])], 0),
    ("Cast bool->i32", lambda x: raw.Cast(x=x, DstT=tf.int32), [tf.constant([True, False, True])], 0),
    # The training-step kernels (decision 70): gradients, slicing, stacking, splitting, gathering.
    ("Prod", lambda x: raw.Prod(input=x, axis=tf.constant([1])), [f32(3, 4, low=0.5, high=1.5)], 1e-5),
    ("Prod int64 axes", lambda x: raw.Prod(input=x, axis=tf.constant([0], tf.int64), keep_dims=True), [f32(3, 4, low=0.5, high=1.5)], 1e-5),
    ("FloorMod", lambda x, y: raw.FloorMod(x=x, y=y), [f32(3, 5, low=-7, high=7), tf.constant([2.5, -1.5, 3.0, -4.0, 0.75])], 1e-5),
    ("Conv2DBackpropInput SAME", lambda w, dy: raw.Conv2DBackpropInput(input_sizes=tf.constant([2, 5, 5, 3]), filter=w, out_backprop=dy, strides=[1, 1, 1, 1], padding="SAME"), [f32(3, 3, 3, 4), f32(2, 5, 5, 4)], 1e-5),
    ("Conv2DBackpropInput VALID strided", lambda w, dy: raw.Conv2DBackpropInput(input_sizes=tf.constant([1, 7, 6, 2]), filter=w, out_backprop=dy, strides=[1, 2, 2, 1], padding="VALID"), [f32(3, 2, 2, 3), f32(1, 3, 3, 3)], 1e-5),
    ("Conv2DBackpropInput SAME strided dilated", lambda w, dy: raw.Conv2DBackpropInput(input_sizes=tf.constant([1, 6, 7, 2]), filter=w, out_backprop=dy, strides=[1, 2, 1, 1], padding="SAME", dilations=[1, 1, 2, 1]), [f32(2, 3, 2, 2), f32(1, 3, 7, 2)], 1e-5),
    ("Conv2DBackpropFilter SAME", lambda x, dy: raw.Conv2DBackpropFilter(input=x, filter_sizes=tf.constant([3, 3, 3, 4]), out_backprop=dy, strides=[1, 1, 1, 1], padding="SAME"), [f32(2, 5, 5, 3), f32(2, 5, 5, 4)], 1e-5),
    ("Conv2DBackpropFilter VALID strided", lambda x, dy: raw.Conv2DBackpropFilter(input=x, filter_sizes=tf.constant([3, 2, 2, 3]), out_backprop=dy, strides=[1, 2, 2, 1], padding="VALID"), [f32(1, 7, 6, 2), f32(1, 3, 3, 3)], 1e-5),
    ("Conv2DBackpropFilter SAME strided dilated", lambda x, dy: raw.Conv2DBackpropFilter(input=x, filter_sizes=tf.constant([2, 3, 2, 2]), out_backprop=dy, strides=[1, 2, 1, 1], padding="SAME", dilations=[1, 1, 2, 1]), [f32(1, 6, 7, 2), f32(1, 3, 7, 2)], 1e-5),
    ("MaxPoolGrad VALID", lambda x, y, g: raw.MaxPoolGrad(orig_input=x, orig_output=y, grad=g, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"),
     (lambda x: [x, tf.nn.max_pool2d(x, 2, 2, "VALID"), f32(2, 3, 3, 3)])(f32(2, 7, 6, 3)), 0),
    ("MaxPoolGrad SAME 3x3/2", lambda x, y, g: raw.MaxPoolGrad(orig_input=x, orig_output=y, grad=g, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"),
     (lambda x: [x, tf.nn.max_pool2d(x, 3, 2, "SAME"), f32(2, 4, 3, 3)])(f32(2, 7, 6, 3)), 1e-6),
    ("AvgPoolGrad VALID", lambda g: raw.AvgPoolGrad(orig_input_shape=tf.constant([2, 6, 6, 3]), grad=g, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"), [f32(2, 3, 3, 3)], 1e-6),
    ("AvgPoolGrad SAME 3x3/2", lambda g: raw.AvgPoolGrad(orig_input_shape=tf.constant([1, 7, 5, 2]), grad=g, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME"), [f32(1, 4, 3, 2)], 1e-6),
    ("StridedSlice", lambda x: raw.StridedSlice(input=x, begin=tf.constant([1, 0, 0]), end=tf.constant([3, 5, 4]), strides=tf.constant([1, 2, 1])), [f32(4, 5, 6)], 0),
    ("StridedSlice masks negative stride int64", lambda x: raw.StridedSlice(input=x, begin=tf.constant([0, -1, 0], tf.int64), end=tf.constant([2, 0, 0], tf.int64), strides=tf.constant([1, -2, 1], tf.int64),
                                                                           begin_mask=1, end_mask=4, shrink_axis_mask=0, new_axis_mask=0), [f32(4, 5, 6)], 0),
    ("StridedSlice ellipsis new axis shrink", lambda x: raw.StridedSlice(input=x, begin=tf.constant([0, 0, 2]), end=tf.constant([0, 0, 3]), strides=tf.constant([1, 1, 1]),
                                                                         ellipsis_mask=1, new_axis_mask=2, shrink_axis_mask=4), [f32(3, 4, 5)], 0),
    ("StridedSliceGrad", lambda dy: raw.StridedSliceGrad(shape=tf.constant([4, 5, 6]), begin=tf.constant([1, 0, 0]), end=tf.constant([3, 5, 4]), strides=tf.constant([1, 2, 1]), dy=dy), [f32(2, 3, 4)], 0),
    ("StridedSliceGrad masks negative stride int64", lambda dy: raw.StridedSliceGrad(shape=tf.constant([4, 5, 6], tf.int64), begin=tf.constant([0, -1, 0], tf.int64), end=tf.constant([2, 0, 0], tf.int64),
                                                                                     strides=tf.constant([1, -2, 1], tf.int64), begin_mask=1, end_mask=4, dy=dy), [f32(2, 2, 6)], 0),
    ("StridedSliceGrad shrink", lambda dy: raw.StridedSliceGrad(shape=tf.constant([3, 4, 5]), begin=tf.constant([0, -1]), end=tf.constant([0, 0]), strides=tf.constant([1, 1]),
                                                                begin_mask=1, end_mask=1, shrink_axis_mask=2, dy=dy), [f32(3, 5)], 0),
    ("Slice", lambda x: raw.Slice(input=x, begin=tf.constant([1, 0, 2]), size=tf.constant([2, -1, 3])), [f32(4, 5, 6)], 0),
    ("Slice int64", lambda x: raw.Slice(input=x, begin=tf.constant([0, 1], tf.int64), size=tf.constant([3, 2], tf.int64)), [f32(3, 4)], 0),
    ("Pack", lambda a, b, c: raw.Pack(values=[a, b, c], axis=1), [f32(2, 3), f32(2, 3), f32(2, 3)], 0),
    ("Unpack", lambda x: raw.Unpack(value=x, num=4, axis=-1), [f32(2, 3, 4)], 0),
    ("ConcatV2", lambda a, b: raw.ConcatV2(values=[a, b], axis=tf.constant(-1)), [f32(2, 3), f32(2, 5)], 0),
    ("ConcatV2 int64 axis", lambda a, b, c: raw.ConcatV2(values=[a, b, c], axis=tf.constant(0, tf.int64)), [f32(1, 3), f32(2, 3), f32(3, 3)], 0),
    ("Split", lambda x: raw.Split(axis=tf.constant(1), value=x, num_split=4), [f32(2, 8, 3)], 0),
    ("SplitV", lambda x: raw.SplitV(value=x, size_splits=tf.constant([1, -1, 2]), axis=tf.constant(-1), num_split=3), [f32(2, 6)], 0),
    ("SplitV int64", lambda x: raw.SplitV(value=x, size_splits=tf.constant([2, 1], tf.int64), axis=tf.constant(0), num_split=2), [f32(3, 2)], 0),
    ("GatherV2", lambda p, i: raw.GatherV2(params=p, indices=i, axis=tf.constant(0)), [f32(5, 3), tf.constant([[4, 0], [2, 2]])], 0),
    ("GatherV2 int64 axis 1", lambda p, i: raw.GatherV2(params=p, indices=i, axis=tf.constant(1, tf.int64)), [f32(2, 5, 3), tf.constant([3, 1, 0], tf.int64)], 0),
    ("GatherV2 int64 axis int32 indices", lambda p, i: raw.GatherV2(params=p, indices=i, axis=tf.constant(-1, tf.int64)), [f32(2, 5), tf.constant([3, 1], tf.int32)], 0),
    ("GatherV2 int64 indices int32 axis", lambda p, i: raw.GatherV2(params=p, indices=i, axis=tf.constant(0)), [f32(4, 2), tf.constant([3, 1], tf.int64)], 0),
]


@pytest.mark.parametrize("name,fn,args,rtol", CASES, ids=[c[0] for c in CASES])
def test_kernel_matches_cpu(name, fn, args, rtol):
    want = on("/CPU:0", fn, args)
    got = on("/APU:0", fn, args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.device.endswith("device:APU:0"), f"{name} did not run on APU: {g.device}"
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        # Sums may add in another order than TensorFlow's: allow rounding relative to the largest value.
        atol = rtol * max(1.0, float(np.max(np.abs(w.numpy())))) if rtol and w.shape.num_elements() else 0
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol, atol=atol)


def test_kernels_inside_tf_function_match_cpu():
    x, w, b = f32(4, 3), f32(3, 5), f32(5)

    def model(x, w, b):
        return tf.reduce_mean(tf.nn.softmax(tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))), axis=0)

    with tf.device("/CPU:0"):
        want = tf.function(model)(x, w, b)
    with tf.device("/APU:0"):
        got = tf.function(model)(x, w, b)
    assert got.device.endswith("device:APU:0")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5)


def test_gradient_tape_on_apu_matches_cpu():
    x, w, labels = f32(4, 3), f32(3, 5), tf.one_hot([0, 2, 4, 1], 5)

    def grads():
        with tf.GradientTape() as tape:
            tape.watch(w)
            logits = tf.nn.relu(tf.matmul(x, w))
            loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        return tape.gradient(loss, w)

    with tf.device("/CPU:0"):
        want = grads()
    with tf.device("/APU:0"):
        got = grads()
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-7)


def test_failing_op_raises_and_the_process_survives():
    with tf.device("/APU:0"):
        with pytest.raises(tf.errors.InvalidArgumentError, match="apu: MatMul on APU failed: .*contracting dimensions differ"):
            raw.MatMul(a=f32(2, 3), b=f32(4, 4))
        # Grouped convolution is outside what apu implements: a named UNIMPLEMENTED error.
        with pytest.raises(tf.errors.UnimplementedError, match="grouped convolution"):
            raw.Conv2D(input=f32(1, 4, 4, 4), filter=f32(1, 1, 2, 4), strides=[1, 1, 1, 1], padding="VALID")
        x = f32(5)
        y = tf.nn.relu(x)
    assert y.device.endswith("device:APU:0")
    np.testing.assert_array_equal(y.numpy(), np.maximum(x.numpy(), 0))


def test_unregistered_dtype_falls_back_to_cpu():
    """int32 Relu has no APU kernel: soft placement runs it on the CPU."""
    x = tf.constant([-2, 0, 3], dtype=tf.int32)
    y = tf.nn.relu(x)
    assert y.device.endswith("device:CPU:0")
    np.testing.assert_array_equal(y.numpy(), [0, 0, 3])



def test_every_registered_apu_kernel_is_compared_above():
    """The kernel list TensorFlow holds for device APU is exactly what CASES covers (with each type pair)."""
    from tensorflow.python.framework import kernels

    registered = {}
    for k in kernels.get_all_registered_kernels().kernel:
        if k.device_type == "APU":
            types = tuple(sorted((c.name, tuple(c.allowed_values.list.type)) for c in k.constraint))
            registered.setdefault(k.op, set()).add(types)
    tested_ops = {name.split(" ")[0].split("/")[0] for name, *_ in CASES}
    assert set(registered) == tested_ops, (set(registered) ^ tested_ops)
    # Reductions are registered for int32 and int64 axes; Cast for eight type pairs (see CASES).
    assert len(registered["Sum"]) == 2 and len(registered["Cast"]) == 8
    assert len(registered["Tile"]) == 2 and len(registered["SparseSoftmaxCrossEntropyWithLogits"]) == 2
    assert sum(len(v) for v in registered.values()) == 97


def test_a_second_call_with_the_same_shapes_compiles_nothing(run_script):
    """APU_TF_LOG_COMPILES=1 logs every compilation of the kernel cache: the same op on the same shapes
    compiles once, a new shape compiles again."""
    r = run_script("compile_count.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "0", "APU_TF_LOG_COMPILES": "1"})
    assert r.returncode == 0, r.stderr[-3000:]
    compiles = [l for l in r.stderr.splitlines() if "apu: compiled TensorFlow op" in l]
    matmuls = [l for l in compiles if "op MatMul for tensor<8x16xf32>, tensor<16x4xf32>" in l]
    assert len(matmuls) == 1, compiles
    assert len([l for l in compiles if "op MatMul for tensor<3x16xf32>, tensor<16x4xf32>" in l]) == 1, compiles
    assert r.result == {"first": r.result["first"], "same": True}
