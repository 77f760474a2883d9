"""The ops of a Keras CNN and LSTM training step that apu now runs stay on the APU (device placement
log of `fit` with jit_compile=False), and the losses match the CPU run."""
import re

import numpy as np

# Ops that fell back to the CPU before decision 58 and now have APU kernels.
ON_APU = {
    "Pow", "DivNoNan", "Tile", "Fill", "BroadcastTo", "SparseSoftmaxCrossEntropyWithLogits",
    "MaxPool", "AvgPool", "SquaredDifference", "RsqrtGrad", "AddN", "SigmoidGrad", "TanhGrad", "Transpose",
    "MatMul", "Conv2D",
    # The training-step kernels of decision 70: the gradients of convolution and pooling, and the
    # concatenation, split and slice gradient of the LSTM's gates.
    "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPoolGrad", "AvgPoolGrad", "ConcatV2", "Split",
    "StridedSliceGrad",
}


def test_keras_cnn_and_lstm_training_ops_run_on_apu(run_script):
    r = run_script("keras_placement.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "0", "KERAS_DEVICE": "/APU:0"})
    assert r.returncode == 0, r.stderr[-3000:]
    cpu = run_script("keras_placement.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "0", "KERAS_DEVICE": "/CPU:0"})
    assert cpu.returncode == 0, cpu.stderr[-3000:]
    devices = {}
    for line in (r.stdout + "\n" + r.stderr).splitlines():
        m = re.match(r"^\S+: \((\w+)\): /job:localhost/replica:0/task:0/device:(\w+):0$", line)
        if m:
            devices.setdefault(m.group(1), set()).add(m.group(2))
    not_on_apu = {op: sorted(devices.get(op, {"(not seen)"})) for op in ON_APU if devices.get(op) != {"APU"}}
    assert not not_on_apu, not_on_apu
    for kind, losses in r.result.items():
        np.testing.assert_allclose(losses, cpu.result[kind], rtol=1e-3, err_msg=kind)
