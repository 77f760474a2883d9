"""int32 tensors on the NextPluggableDevice hold the values Python asked for.

Regression test for the eager `_EagerConst` path (src/tf/npd/eager_const.rs): without apu's
host-memory kernel, int32 constants made under /APU:0 came back as bytes of TensorFlow's own buffer
handle. Only meaningful where apu runs as an NPD (every pinned TensorFlow, test_npd_abi.py); skipped elsewhere.
"""
import pytest

from conftest import run_in_fresh_interpreter
from test_modes import npd_active

EXPECTED = {
    "constant": [1, 2, 3],
    "scalar": -5,
    "constant_2d": [[1, 2], [3, 4], [5, 6]],
    "plus_python_int": [2, 3, 4],
    "times_constant": [4, 10, 18],
    "from_cpu_plus": [8, -7, 10],
    "range": [0, 1, 2, 3, 4],
    "zeros_shape": [2, 3],
    "reshape": [[0, 1], [2, 3], [4, 5]],
    "fill": [[7, 7], [7, 7]],
    "normal_shape": [5],
    "function_args": [13, 43],
    "int64": [2, 3, 4],
}


@pytest.fixture(scope="module")
def npd_int32():
    run = run_in_fresh_interpreter("int32_values.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "1"})
    if not npd_active(run):
        pytest.skip(f"NextPluggableDevice not available here: {run.mode_line()}")
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.result is not None, run.stdout[-2000:]
    assert "host-memory _EagerConst kernel failed" not in run.stderr
    return run.result


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_int32_values_on_npd(npd_int32, case):
    r = npd_int32[case]
    assert "error" not in r, r
    assert r["value"] == EXPECTED[case], r
    assert r["device"].endswith("device:APU:0"), r
    assert r["dtype"] == ("int64" if case == "int64" else "int32"), r
