"""jax.ffi for apu: forwards `jax.ffi.register_ffi_target(..., platform="apu")` to libapu.

JAX hands FFI targets to a platform only through a handler the platform installs with
`xla_client.register_custom_call_handler` (XLA:CPU and the CUDA plugin install theirs; JAX installs none
for other PJRT plugins). Registrations made before apu loads are queued by JAX and replayed when the
handler is installed. The handler runs under JAX's registration lock, so it registers nothing itself.
"""

from __future__ import annotations

import ctypes
import logging

logger = logging.getLogger("apu_plugin")

_lib = None
# The capsules JAX handed over: kept alive for as long as libapu may call their functions.
_kept: list = []

_STAGES = ("execute", "instantiate", "prepare", "initialize")


def _capsule_pointer(capsule) -> int:
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    # jax.ffi.pycapsule makes unnamed capsules; jaxlib's own are named. Either way the name must match.
    pointer = get_pointer(capsule, get_name(capsule))
    if not pointer:
        raise ValueError(f"the FFI target {capsule!r} holds no function pointer")
    return pointer


def _call(fn, *args) -> None:
    error = ctypes.create_string_buffer(1024)
    if fn(*args, error, len(error)) != 0:
        raise ValueError(error.value.decode(errors="replace"))


def _register_target(name, fn, platform, api_version, traits=None) -> None:
    name = name.decode() if isinstance(name, bytes) else str(name)
    if api_version != 1:
        raise ValueError(
            f"apu runs typed FFI handlers only: FFI target {name!r} was registered with api_version="
            f"{api_version} (the untyped custom-call API); register it with api_version=1"
        )
    if isinstance(fn, dict):
        unknown = sorted(set(fn) - set(_STAGES))
        if unknown:
            raise ValueError(f"FFI target {name!r}: unknown stages {unknown}")
        others = sorted(s for s in fn if s != "execute")
        if others:
            raise ValueError(
                f"FFI target {name!r} has stages {others}; apu runs the execute stage only "
                "(register the execute handler alone)"
            )
        if "execute" not in fn:
            raise ValueError(f"FFI target {name!r} has no execute handler")
        fn = fn["execute"]
    _kept.append(fn)
    _call(_lib.apu_ffi_register, name.encode(), _capsule_pointer(fn))


def _register_type(name, registration) -> None:
    name = name.decode() if isinstance(name, bytes) else str(name)
    type_id = registration["type_id"] if isinstance(registration, dict) else registration
    _kept.append(type_id)
    slot = ctypes.cast(_capsule_pointer(type_id), ctypes.POINTER(ctypes.c_int64))
    _call(_lib.apu_ffi_register_type, name.encode(), slot)


def register(platform: str, library: str) -> None:
    global _lib
    from jax._src.lib import xla_client

    lib = ctypes.CDLL(library)
    lib.apu_ffi_register.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.apu_ffi_register.restype = ctypes.c_int
    lib.apu_ffi_register_type.argtypes = [
        ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_char_p, ctypes.c_size_t,
    ]
    lib.apu_ffi_register_type.restype = ctypes.c_int
    _lib = lib
    xla_client.register_custom_call_handler(platform, _register_target)
    register_types = getattr(xla_client, "register_custom_type_handler", None) or getattr(
        xla_client, "register_custom_type_id_handler", None
    )
    if register_types is not None:
        register_types(platform, _register_type)
