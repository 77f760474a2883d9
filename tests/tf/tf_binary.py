"""Facts about a TensorFlow build read from its files (no import of TensorFlow): the size of the
`xla::PjRtCApiClient` object its own code allocates, the absl `Status` encoding and the XLA C shape layout
its headers declare. apu's table of checked builds (src/tf/npd/abi.rs) must agree with these; the tests and
scripts/check_tf_abi.py compare them.

Usable as a script: `python tests/tf/tf_binary.py <tensorflow package dir>` prints the facts as JSON.
"""
import json
import pathlib
import re
import subprocess
import sys

CTOR = "_ZN3xla14PjRtCApiClientC1EPK8PJRT_ApiP11PJRT_ClientSt10unique_ptrIN4pjrt25PJRT_KeyValueCallbackDataESt14default_deleteIS8_EE"
SET_CLIENT = "_ZN10tensorflow38SetPjRtClientInTFGlobalResourceManagerERKN3tsl10DeviceTypeESt10unique_ptrIN3xla10PjRtClientESt14default_deleteIS6_EE"
# Functions of TensorFlow's own that `new` a PjRtCApiClient and call its constructor (the first exists from
# 2.19 on, the second in every version).
CALLERS = ("_ZN3xla20WrapClientAroundCApiEPK8PJRT_Api", "_ZN3xla13GetCApiClientE")


def dynamic_symbols(lib):
    """name -> (address, size) of the defined dynamic symbols (version suffixes dropped)."""
    out = subprocess.run(["nm", "-D", "-S", "--defined-only", str(lib)], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            syms[parts[3].split("@")[0]] = (int(parts[0], 16), int(parts[1], 16))
    return syms


def client_object_size(lib, syms=None):
    """The operand of the `mov $N,%edi` before the last `call _Znwm` that precedes a call of the
    PjRtCApiClient constructor inside TensorFlow's own client factories; None if not found."""
    syms = syms or dynamic_symbols(lib)
    for prefix in CALLERS:
        for name, (addr, size) in syms.items():
            if not name.startswith(prefix) or size == 0:
                continue
            asm = subprocess.run(
                ["objdump", "-d", "--no-show-raw-insn", f"--start-address={addr:#x}", f"--stop-address={addr + size:#x}", str(lib)],
                capture_output=True, text=True, check=True,
            ).stdout.splitlines()
            last_new = None
            for i, line in enumerate(asm):
                if re.search(r"call.*<_Znwm@plt>", line):
                    m = next((re.search(r"mov\s+\$0x([0-9a-f]+),%edi", asm[j]) for j in range(i - 1, max(i - 4, -1), -1)
                              if re.search(r"mov\s+\$0x([0-9a-f]+),%edi", asm[j])), None)
                    last_new = int(m.group(1), 16) if m else None
                if CTOR in line and "call" in line and last_new is not None:
                    return last_new
    return None


def status_ok_rep(include):
    """The `uintptr_t` of an OK absl::Status: 0 with `code << 2`, 1 with `(code << 2) + 1`."""
    text = (include / "absl/status/status.h").read_text()
    m = re.search(r"Status::CodeToInlinedRep\(absl::StatusCode code\)\s*\{\s*return ([^;]*);", text)
    body = m.group(1).replace(" ", "")
    if body.endswith("<<2)+1"):
        return 1
    if body.endswith("<<2"):
        return 0
    raise ValueError(f"unknown absl::Status encoding: {m.group(1)}")


def xla_layout_has_dim_lists(include):
    """Whether the XLA C API's `XLA_Layout` still has `dim_level_types`/`dim_unique`/`dim_ordered`."""
    # The header moved from xla/stream_executor/tpu/ (up to 2.21) to xla/tpu/ (nightly 2.23).
    path = next(p for p in (include / "xla/stream_executor/tpu/c_api_decl.h", include / "xla/tpu/c_api_decl.h") if p.exists())
    text = path.read_text()
    layout = text[text.index("typedef struct XLA_Layout"):]
    layout = layout[: layout.index("} XLA_Layout;")]
    return "dim_level_types" in layout


def facts(tf_dir):
    tf_dir = pathlib.Path(tf_dir)
    lib = tf_dir / "libtensorflow_cc.so.2"
    syms = dynamic_symbols(lib)
    include = tf_dir / "include"
    return {
        "c_function_exported": "TF_CreateAndSetPjRtCApiClient" in syms,
        "constructor_exported": CTOR in syms,
        "set_client_exported": SET_CLIENT in syms,
        "client_object_size": client_object_size(lib, syms),
        "status_ok_rep": status_ok_rep(include),
        "xla_layout_has_dim_lists": xla_layout_has_dim_lists(include),
    }


if __name__ == "__main__":
    print(json.dumps(facts(sys.argv[1])))
