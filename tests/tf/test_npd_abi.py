"""apu hands TensorFlow 2.19+ its PJRT client through TensorFlow's exported C++ (src/tf/npd/client.rs), only
on builds listed in src/tf/npd/abi.rs. These tests check that list against the running TensorFlow's own
files (tests/tf/tf_binary.py) and that every pinned TensorFlow really runs apu as a NextPluggableDevice."""
import ctypes
import pathlib
import re
import sysconfig

import pytest

import tf_binary
from test_modes import NPD_LOG, check_example

ROOT = pathlib.Path(__file__).resolve().parents[2]
TF_DIR = pathlib.Path(sysconfig.get_paths()["platlib"]) / "tensorflow"
ENTRY = re.compile(
    r'CheckedBuild \{ version: "([^"]+)", client_object_size: (\d+), status: StatusEncoding::(\w+), shape: ShapeAbi::(\w+) \}'
)
OK_REP = {"CodeShifted": 0, "CodeShiftedPlusOne": 1}


def checked_builds():
    """version -> (object size, OK status rep, layout has the dim lists), parsed from apu's table."""
    text = (ROOT / "src/tf/npd/abi.rs").read_text()
    return {v: (int(size), OK_REP[status], shape == "WithDimLists") for v, size, status, shape in ENTRY.findall(text)}


def tf_version():
    lib = ctypes.CDLL(str(TF_DIR / "libtensorflow_cc.so.2"))
    lib.TF_Version.restype = ctypes.c_char_p
    return lib.TF_Version().decode()


@pytest.fixture(scope="module")
def facts():
    return tf_binary.facts(TF_DIR)


def test_table_parses():
    builds = checked_builds()
    assert {"2.19.0", "2.20.0", "2.21.0"} <= set(builds), builds


def test_this_tensorflow_is_a_checked_build(facts):
    """Every pinned TensorFlow either exports the C function or is in apu's table with the facts its own
    binary and headers show (a new pin must be checked before it can run apu as an NPD)."""
    assert facts["constructor_exported"] and facts["set_client_exported"], facts
    if facts["c_function_exported"]:
        return
    version = tf_version()
    builds = checked_builds()
    assert version in builds, f"TensorFlow {version} is not in src/tf/npd/abi.rs; its facts: {facts}"
    size, ok_rep, dim_lists = builds[version]
    assert size == facts["client_object_size"], (version, size, facts)
    assert ok_rep == facts["status_ok_rep"], (version, ok_rep, facts)
    assert dim_lists == facts["xla_layout_has_dim_lists"], (version, dim_lists, facts)


def test_pinned_tensorflow_runs_apu_as_npd(run_script, facts):
    """No NPD test may skip on a pinned TensorFlow: the seeds' example runs as an NPD and the log says how
    the client reached TensorFlow (with the checked object size on the C++ route)."""
    run = run_script("seed_example.py", {"APU_ENABLE_NEXTPLUGGABLE_DEVICE": "1"})
    line = run.mode_line()
    assert line and "NextPluggableDevice (APU_ENABLE_NEXTPLUGGABLE_DEVICE=1)" in line, (line, run.stderr[-3000:])
    check_example(run)
    assert NPD_LOG in run.stderr
    handed = [l for l in run.stderr.splitlines() if "apu: PJRT client for APU handed to TensorFlow" in l]
    assert len(handed) == 1, run.stderr[-3000:]
    if facts["c_function_exported"]:
        assert "through TF_CreateAndSetPjRtCApiClient" in handed[0], handed
    else:
        assert f"{facts['client_object_size']}-byte object" in handed[0], handed
