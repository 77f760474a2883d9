"""PluggableDevice kernels run on TensorFlow's buffers in place (decision 76): inputs are viewed, not
copied, and results are written straight into the output tensors TensorFlow allocated. These tests fail
if a kernel writes an input, if the executor keeps an output buffer past the call (a later call would
overwrite an earlier result), or if a result that could not be written in place is not copied.
"""
import numpy as np
import tensorflow as tf

raw = tf.raw_ops
rng = np.random.default_rng(76)


def on_apu(fn, *args):
    with tf.device("/APU:0"):
        return fn(*args)


def test_inputs_are_never_written_and_earlier_results_survive_later_calls():
    # 512x256 f32 = 512 KiB: above the executor's output-recycling size, so a kept buffer would show.
    xs = [rng.standard_normal((512, 256)).astype(np.float32) for _ in range(4)]
    w = rng.standard_normal((256, 128)).astype(np.float32)
    with tf.device("/APU:0"):
        ins = [tf.identity(tf.constant(x)) for x in xs]
        wt = tf.identity(tf.constant(w))
    outs = []
    for x in ins:
        # Elementwise (its input at its last use inside the program), a matmul and a reduce.
        chain = on_apu(lambda v: tf.tanh(tf.exp(-tf.square(v)) * 0.5 + v), x)
        mm = on_apu(lambda v: tf.matmul(v, wt), x)
        red = on_apu(lambda v: tf.reduce_sum(v, axis=0), x)
        outs.append((chain, mm, red))
    for x, t, (chain, mm, red) in zip(xs, ins, outs):
        np.testing.assert_array_equal(t.numpy(), x, err_msg="an APU kernel wrote its input")
        np.testing.assert_allclose(chain.numpy(), np.tanh(np.exp(-np.square(x)) * 0.5 + x), rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(mm.numpy(), x @ w, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(red.numpy(), x.sum(axis=0), rtol=1e-4, atol=1e-4)
    assert len({id(o) for trio in outs for o in trio}) == 12


def test_results_that_are_not_computed_by_a_step_are_copied():
    x = rng.standard_normal((64, 32)).astype(np.float32)
    with tf.device("/APU:0"):
        t = tf.identity(tf.constant(x))
        # BroadcastTo to its own shape and a one-way split return the input itself from the program.
        same = raw.BroadcastTo(input=t, shape=tf.constant([64, 32]))
        (whole,) = raw.Split(axis=tf.constant(0), value=t, num_split=1)
        doubled = t * 2.0
    np.testing.assert_array_equal(same.numpy(), x)
    np.testing.assert_array_equal(whole.numpy(), x)
    np.testing.assert_array_equal(doubled.numpy(), x * 2.0)
    np.testing.assert_array_equal(t.numpy(), x)


def test_several_outputs_of_one_kernel_each_land_in_their_tensor():
    logits = rng.standard_normal((256, 300)).astype(np.float32)
    labels = rng.dirichlet(np.ones(300), size=256).astype(np.float32)
    loss, backprop = on_apu(lambda a, b: raw.SoftmaxCrossEntropyWithLogits(features=a, labels=b), tf.constant(logits), tf.constant(labels))
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(backprop.numpy(), p - labels, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(loss.numpy(), -(labels * np.log(p)).sum(axis=1), rtol=1e-4, atol=1e-5)
    parts = on_apu(lambda v: raw.Unpack(value=v, num=4, axis=0), tf.constant(logits[:4]))
    for i, part in enumerate(parts):
        np.testing.assert_array_equal(part.numpy(), logits[i])
