"""Every program of tests/fixtures/programs.py, jitted on the device under test, agrees with CPU."""

import functools
import pathlib

import numpy as np
import pytest

import jax

import npz_io
from programs import PROGRAMS, run_on
from tolerance import assert_close

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"

NAMES = list(PROGRAMS)


@functools.lru_cache(maxsize=None)
def cpu_outputs(name):
    return run_on(PROGRAMS[name], jax.devices("cpu")[0])


@pytest.mark.parametrize("name", NAMES)
def test_program_matches_cpu(dev, name):
    program = PROGRAMS[name]
    got = run_on(program, dev)
    want = cpu_outputs(name)
    assert len(got) == len(want), f"{name}: {len(got)} outputs, CPU gives {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert_close(g, w, program.tolerance, f"{name} output {i}")


@pytest.mark.parametrize("name", NAMES)
def test_committed_fixture_is_current(name):
    """The committed .io.npz holds this catalogue's inputs and what CPU computes from them.

    If this fails, programs.py changed without `tests/fixtures/generate.py` being rerun.
    """
    program = PROGRAMS[name]
    programs_dir = FIXTURES / "programs"
    assert (programs_dir / f"{name}.io.npz").exists(), f"{name}.io.npz missing: run tests/fixtures/generate.py"
    saved_inputs, saved_outputs = npz_io.load(programs_dir, name)
    inputs = program.inputs()
    assert len(saved_inputs) == len(inputs)
    for i, (s, a) in enumerate(zip(saved_inputs, inputs)):
        assert s.dtype == a.dtype, f"{name} in{i}: {s.dtype} != {a.dtype}"
        assert s.tobytes() == a.tobytes(), f"{name} in{i} differs"
    outputs = cpu_outputs(name)
    assert len(saved_outputs) == len(outputs)
    for i, (s, o) in enumerate(zip(saved_outputs, outputs)):
        assert_close(s, o, program.tolerance, f"{name} out{i}")
