"""The seeds' example under each setting of the PluggableDevice / NextPluggableDevice switch."""
import pytest

PD_LOG = "physical PluggableDevice (device: 0, name: APU"
NPD_LOG = "Created 1 TensorFlow NextPluggableDevices. Physical device type: APU"


def check_example(run):
    assert run.returncode == 0, run.stderr[-4000:]
    r = run.result
    assert r is not None, run.stdout[-2000:]
    assert ("/physical_device:APU:0", "APU") in [tuple(p) for p in r["physical"]], r["physical"]
    assert all(t != "APU_DUMMY" for _, t in r["physical"]), "the inactive side must have no devices"
    for case in ("default", "apu", "function"):
        assert "error" not in r[case], (case, r[case])
        assert r[case]["device"].endswith("device:APU:0"), (case, r[case])
        assert r[case]["ok"], case
    assert r["cpu"]["device"].endswith("device:CPU:0") and r["cpu"]["ok"], r["cpu"]


def npd_active(run):
    return "TensorFlow device mode: NextPluggableDevice" in (run.mode_line() or "")


def test_pluggable_device_when_switched_off(run_script):
    run = run_script("seed_example.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "0"})
    check_example(run)
    assert PD_LOG in run.stderr
    assert NPD_LOG not in run.stderr
    assert "PluggableDevice (APU_ENABLE_NEXTPLUGGABLE_DEVICE=0)" in run.mode_line()
    # The random op itself has no APU kernel (it runs on the CPU); its scaling ops may run on APU.
    assert "error" not in run.result["random"], run.result["random"]


@pytest.mark.parametrize("value", ["false", "FALSE"])
def test_switch_spellings_for_pluggable_device(run_script, value):
    run = run_script("seed_example.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": value})
    check_example(run)
    assert PD_LOG in run.stderr


def test_exactly_one_mode_line(run_script):
    run = run_script("seed_example.py", {})
    lines = [l for l in run.stderr.splitlines() if "apu: TensorFlow device mode:" in l]
    assert len(lines) == 1, lines


def test_default_mode(run_script):
    """Unset: NextPluggableDevice when this TensorFlow and library can host it, else PluggableDevice."""
    run = run_script("seed_example.py", {})
    check_example(run)
    line = run.mode_line()
    if "NextPluggableDevice (default)" in line:
        assert NPD_LOG in run.stderr
    else:
        assert line.startswith("apu: TensorFlow device mode: PluggableDevice (default would be NextPluggableDevice, but")
        assert PD_LOG in run.stderr


def test_npd_requested(run_script):
    """=1 gives NPD where possible; elsewhere one line says why and PluggableDevice still serves APU."""
    run = run_script("seed_example.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "1"})
    line = run.mode_line()
    assert line is not None, run.stderr[-3000:]
    if "NextPluggableDevice (APU_ENABLE_NEXTPLUGGABLE_DEVICE=1)" in line:
        check_example(run)
        assert NPD_LOG in run.stderr
    else:
        assert "asked for NextPluggableDevice, but" in line and "falling back" in line, line
        check_example(run)
        assert PD_LOG in run.stderr


def test_xla_flags_contradicting_the_switch_do_not_abort(run_script):
    run = run_script(
        "seed_example.py",
        {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "0", "TF_XLA_FLAGS": "--tf_xla_use_device_api=true"},
    )
    check_example(run)
    assert "jit-compiled functions will not run on APU" in run.mode_line()


def test_npd_random_op_runs_on_apu(run_script):
    """On an NPD device every XLA-compilable op runs on APU, random ops included."""
    run = run_script("seed_example.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "1"})
    if not npd_active(run):
        pytest.skip(f"NextPluggableDevice not available here: {run.mode_line()}")
    r = run.result["random"]
    # The shape [5] becomes an int32 constant made on the APU (src/tf/npd/eager_const.rs).
    assert "error" not in r and r["ok"], r
    assert r["device"].endswith("device:APU:0"), r


def test_add_with_xla(run_script):
    """The NextPluggableDevice post's jit example: TF_XLA_FLAGS selects NPD and XLA clusters run on APU."""
    run = run_script(
        "xla_example.py",
        {"TF_XLA_FLAGS": "--tf_xla_use_device_api=true --tf_xla_auto_jit=2"},
    )
    line = run.mode_line()
    assert line is not None, run.stderr[-3000:]
    if not npd_active(run):
        # TensorFlow 2.19+ cannot host apu's NPD: one line says so, jit-compiled functions fail with
        # TensorFlow's own clear error, and the process goes on.
        assert "which implies NextPluggableDevice, but" in line, line
        assert run.returncode == 0, run.stderr[-3000:]
        assert "No JIT device registered for APU" in run.result["add"].get("error", ""), run.result
        pytest.skip(f"NextPluggableDevice not available here: {line}")
    assert run.returncode == 0, run.stderr[-4000:]
    assert NPD_LOG in run.stderr
    r = run.result
    assert r["add"]["value"] == [5.0, 7.0, 9.0], r
    assert r["add"]["device"].endswith("device:APU:0"), r
    assert r["dense"]["ok"], r


def test_seed_npd_example_verbatim(run_script):
    """The NPD seed's session as written, with its flags: one APU NextPluggableDevice and its printed result.
    (test_add_with_xla checks that the addition ran on APU.)"""
    run = run_script("seed_npd_example.py", {"TF_XLA_FLAGS": "--tf_xla_use_device_api=true --tf_xla_auto_jit=2"})
    line = run.mode_line()
    assert line is not None, run.stderr[-3000:]
    if not npd_active(run):
        pytest.skip(f"NextPluggableDevice not available here: {line}")
    assert run.returncode == 0, run.stderr[-4000:]
    assert NPD_LOG in run.stderr
    assert "Result:  tf.Tensor([5. 7. 9.], shape=(3,), dtype=float32)" in run.stdout, run.stdout
