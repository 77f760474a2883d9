"""The committed fixture files are complete and of the kind their names say (for apu's program readers)."""

import json
import pathlib

import pytest

from programs import PROGRAMS

PROGRAMS_DIR = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "programs"
MANIFEST = json.loads((PROGRAMS_DIR / "manifest.json").read_text())
KINDS = ["stablehlo.mlir", "stablehlo_generic.mlir", "vhlo_v1_10_0.mlirbc", "vhlo_v1_13_7.mlirbc",
         "vhlo_v1_17_0.mlirbc", "hlo.pb", "io.npz"]


def test_manifest_lists_every_program():
    assert MANIFEST["jax"] == "0.10.2"
    assert sorted(MANIFEST["programs"]) == sorted(PROGRAMS)


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_files_present_and_well_formed(name):
    entry = MANIFEST["programs"][name]
    assert entry["tolerance"] == PROGRAMS[name].tolerance
    for kind in KINDS:
        path = PROGRAMS_DIR / f"{name}.{kind}"
        data = path.read_bytes()
        assert entry["files"][path.name]["size"] == len(data), f"{path.name} changed since the manifest"
        if kind.endswith(".mlirbc"):
            assert data[:4] == b"ML\xefR", f"{path.name} is not MLIR bytecode"
            version = kind[len("vhlo_v"):-len(".mlirbc")].replace("_", ".")
            assert f"StableHLO_v{version}".encode() in data[:64], f"{path.name}: wrong producer"
        elif kind.endswith(".mlir"):
            text = data.decode()
            assert f"module @jit_{name}" in text or f'"builtin.module"' in text
            assert "func.func public @main" in text or '"func.func"' in text
