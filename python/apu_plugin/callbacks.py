"""Host callbacks on apu: `jax.debug.print`, `jax.debug.callback`, `jax.pure_callback` and `io_callback`.

JAX lowers these through `emit_python_callback`, which knows only its built-in platforms, and registers the
`debug_callback` / `debug_print` lowerings for cpu, gpu and tpu alone. On apu:

- `emit_python_callback` is wrapped: for a module lowered for apu alone it emits
  `custom_call @apu_host_callback` whose backend config is a number in this module's registry; for any other
  platform it calls JAX's own function unchanged.
- JAX's own `debug_callback` / `debug_print` lowering rules are registered for apu too (they call
  `emit_python_callback`, so they reach the wrapper).
- A trampoline (a ctypes function) is installed into libapu. When a program reaches the custom call, apu
  calls it from the thread running the program with the operands; ctypes takes the GIL; the trampoline
  calls the registered function with numpy copies of the operands and writes its results into apu's result
  buffers. An exception becomes the error of that execution with its message; nothing unwinds into apu.

Ordered effects (`ordered=True`) pass JAX's token through unchanged: apu runs a program's steps in program
order, so callbacks within one execution keep their order. Tokens as parameters or results of the whole
program (what ordered effects need across executions) are not supported yet and fail at compile time.

Everything here is JAX's private API, so the caller guards it.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from typing import Any, Callable

import numpy as np

TARGET = "apu_host_callback"

# Callback number -> the function to call. Entries live as long as the process: an executable holding a
# number may run at any time, and JAX's CPU backend likewise keeps callbacks alive with its executables.
_registry: dict[int, Callable[..., Any]] = {}
_numbers = itertools.count(1)
_lock = threading.Lock()


class _HostArray(ctypes.Structure):
    # Mirrors apu_runtime::host_callback::HostArray.
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("byte_len", ctypes.c_size_t),
        ("element_type", ctypes.c_char_p),
        ("rank", ctypes.c_size_t),
        ("dims", ctypes.POINTER(ctypes.c_int64)),
    ]


_TRAMPOLINE_TYPE = ctypes.CFUNCTYPE(
    ctypes.c_int,
    ctypes.c_uint64,
    ctypes.c_size_t,
    ctypes.POINTER(_HostArray),
    ctypes.c_size_t,
    ctypes.POINTER(_HostArray),
    ctypes.c_void_p,
    ctypes.c_size_t,
)


def _numpy_dtype(name: str) -> np.dtype:
    plain = {
        "i1": np.bool_,
        "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
        "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
        "f16": np.float16, "f32": np.float32, "f64": np.float64,
        "complex<f32>": np.complex64, "complex<f64>": np.complex128,
    }
    if name in plain:
        return np.dtype(plain[name])
    import ml_dtypes

    extended = {
        "bf16": "bfloat16",
        "i2": "int2", "i4": "int4", "ui2": "uint2", "ui4": "uint4",
        "f8E3M4": "float8_e3m4", "f8E4M3": "float8_e4m3", "f8E4M3FN": "float8_e4m3fn",
        "f8E4M3FNUZ": "float8_e4m3fnuz", "f8E4M3B11FNUZ": "float8_e4m3b11fnuz",
        "f8E5M2": "float8_e5m2", "f8E5M2FNUZ": "float8_e5m2fnuz",
        "f8E8M0FNU": "float8_e8m0fnu", "f4E2M1FN": "float4_e2m1fn",
    }
    if name in extended and hasattr(ml_dtypes, extended[name]):
        return np.dtype(getattr(ml_dtypes, extended[name]))
    raise TypeError(f"apu host callback: no numpy type for element type {name}")


def _to_numpy(a: _HostArray) -> np.ndarray:
    dtype = _numpy_dtype(a.element_type.decode())
    shape = tuple(a.dims[i] for i in range(a.rank))
    if a.byte_len == 0:
        return np.zeros(shape, dtype)
    raw = (ctypes.c_char * a.byte_len).from_address(a.data)
    # A copy: the callback may keep its arguments after apu has reused the buffers.
    return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _write(a: _HostArray, index: int, value: Any) -> None:
    dtype = _numpy_dtype(a.element_type.decode())
    shape = tuple(a.dims[i] for i in range(a.rank))
    out = np.asarray(value)
    if out.shape != shape:
        raise RuntimeError(f"Incorrect output shape for return value #{index}: Expected: {shape}, Actual: {out.shape}")
    if out.dtype != dtype:
        raise RuntimeError(f"Incorrect output dtype for return value #{index}: Expected: {dtype}, Actual: {out.dtype}")
    data = np.ascontiguousarray(out).tobytes()
    if len(data) != a.byte_len:
        raise RuntimeError(f"return value #{index} has {len(data)} bytes, apu expects {a.byte_len}")
    if data:
        ctypes.memmove(a.data, data, len(data))


def _trampoline(number, num_args, args, num_results, results, error, error_len):
    # Runs on an apu thread with the GIL held (ctypes). Must not raise: report through `error`.
    try:
        fn = _registry.get(number)
        if fn is None:
            raise RuntimeError(f"apu host callback {number} is not registered in this process")
        outs = fn(*[_to_numpy(args[i]) for i in range(num_args)])
        outs = () if outs is None else tuple(outs)
        if len(outs) != num_results:
            raise RuntimeError(
                f"Mismatched number of outputs from callback. Expected: {num_results}, Actual: {len(outs)}")
        # As JAX's own callback wrapper does (jax/_src/callback.py, emit_python_callback, jax 0.10.2-0.12):
        # Python literals and foreign arrays become numpy values of JAX's canonical dtype (float64 -> float32
        # with x64 off) before their types are checked.
        from jax._src import dtypes

        for i, value in enumerate(outs):
            _write(results[i], i, dtypes.canonicalize_value(np.asarray(value)))
        return 0
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to apu as a message
        text = f"{type(exc).__name__}: {exc}".encode("utf-8", "replace")[: max(error_len - 1, 0)] + b"\0"
        if error and error_len:
            ctypes.memmove(error, text, len(text))
        return 1


_trampoline_c = _TRAMPOLINE_TYPE(_trampoline)


def _register_callback(fn: Callable[..., Any]) -> int:
    with _lock:
        number = next(_numbers)
        _registry[number] = fn
    return number


def _emit_for_apu(ctx, callback, token, operands, operand_avals, result_avals, *, has_side_effect,
                  returns_token=True, partitioned=False, sharding=None):
    """apu's `emit_python_callback`: one `custom_call @apu_host_callback`; returns (results, token, None)."""
    from jax._src.interpreters import mlir

    del operand_avals, returns_token, partitioned
    number = _register_callback(callback)
    result_types = [mlir.aval_to_ir_type(ctx.module_context, aval) for aval in result_avals]
    op = mlir.custom_call(
        TARGET,
        result_types=result_types,
        operands=list(operands),
        backend_config=str(number),
        has_side_effect=has_side_effect,
        api_version=1,
    )
    # JAX's own lowering annotates the call with the sharding it chose (maximal on one device for a jit,
    # per-device in a manual computation); its tests read it back from the lowered text. apu runs a jit's
    # global program once, so a maximal callback runs once, as there.
    if sharding is not None:
        mlir.set_sharding(ctx.module_context, op, sharding)
    # No host-callback object for JAX: apu calls the function itself (JAX would hand it to the backend).
    return list(op.results), token, None


def register(platform: str, library: str) -> None:
    from jax._src import callback as jax_callback
    from jax._src import debugging
    from jax._src.interpreters import mlir

    original = jax_callback.emit_python_callback
    if getattr(original, "_apu_wrapped", False):
        return

    def emit_python_callback(ctx, *args, **kwargs):
        platforms = ctx.module_context.platforms
        if len(platforms) == 1 and platforms[0] == platform:
            return _emit_for_apu(ctx, *args, **kwargs)
        return original(ctx, *args, **kwargs)

    emit_python_callback._apu_wrapped = True
    lib = ctypes.CDLL(library)
    lib.apu_host_callback_install.argtypes = [_TRAMPOLINE_TYPE]
    lib.apu_host_callback_install.restype = ctypes.c_int
    if lib.apu_host_callback_install(_trampoline_c) != 0:
        raise RuntimeError("libapu refused the host-callback trampoline")
    jax_callback.emit_python_callback = emit_python_callback
    mlir.register_lowering(debugging.debug_callback_p, debugging.debug_callback_lowering, platform=platform)
    mlir.register_lowering(debugging.debug_print_p, debugging.debug_print_lowering_rule, platform=platform)
    # checkify's runtime checks (jax_experimental_unsafe_xla_runtime_errors) are host callbacks on CPU and GPU;
    # the same rule works here since it calls `emit_python_callback` through the module attribute.
    from jax._src import checkify

    mlir.register_lowering(checkify.check_p, checkify.check_lowering_rule, platform=platform)
