"""JAX's persistent compilation cache on apu.

JAX uses the cache only on platforms it names (`jax/_src/compilation_cache.py`, `is_cache_used`: tpu, gpu,
cpu, neuron in jax 0.10.2 and 0.12.0.1), so for apu it wrote nothing. apu serializes executables
(`PJRT_Executable_Serialize`, an envelope holding the program) and loads them in another process
(`PJRT_Executable_DeserializeAndLoad`), which is all the cache needs. Two functions are wrapped, each
acting only for apu and calling JAX's own function unchanged for every other backend:

- `compilation_cache.is_cache_used(backend)`: for apu, the same decision JAX makes for its own platforms
  (the cache is used when it is enabled, decided once per process and recorded with the same monitoring
  event).
- `compiler._get_cache_key(...)`: a module that calls apu host callbacks (`custom_call @apu_host_callback`)
  gets no key, so it is neither looked up nor stored. Its callback numbers name Python functions of the
  process that lowered it (callbacks.py, decision 63); a program from the cache must never call another
  process's numbers. apu itself also refuses to load such a program serialized by another process
  (runtime/src/client/host_bound.rs), which covers every other route (decision 83).

Everything here is JAX's private API, so the caller guards it; `register` changes nothing unless both
wrappers can be installed.
"""

from __future__ import annotations

import logging
from typing import Any

from .callbacks import TARGET as HOST_CALLBACK_TARGET

logger = logging.getLogger(__name__)


def calls_host(module: Any) -> bool:
    """Whether an `ir.Module` holds a `custom_call @apu_host_callback` anywhere."""
    from jax._src.lib.mlir import ir

    found = False

    def visit(op):
        nonlocal found
        if op.name == "stablehlo.custom_call" and "call_target_name" in op.attributes:
            if ir.StringAttr(op.attributes["call_target_name"]).value == HOST_CALLBACK_TARGET:
                found = True
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _cache_used_for_apu(cc, monitoring) -> bool:
    # JAX's own decision for its platforms, minus the platform list: once per process, under its lock.
    with cc._cache_initialized_mutex:
        if not cc._cache_checked:
            cc._cache_checked = True
            if not cc._is_cache_enabled():
                monitoring.record_event("/jax/compilation_cache/task_disabled_cache")
            else:
                monitoring.record_event("/jax/compilation_cache/tasks_using_cache")
                cc._cache_used = True
        return cc._cache_used


def _module_name(module: Any) -> str:
    try:
        from jax._src.lib.mlir import ir
        return ir.StringAttr(module.operation.attributes["sym_name"]).value
    except Exception:  # noqa: BLE001 - only for the message
        return "<module>"


def _explain_no_entry(cc, compiler, module: Any) -> None:
    """Says why a module that calls the host gets no cache entry, as JAX says it for its own platforms:
    the message of jax 0.10.2's `compiler._cache_write` for programs with host callbacks, through JAX's
    compiler logger, at JAX's level (a warning under `jax_explain_cache_misses`, else debug)."""
    from jax._src import config

    explain = config.explain_cache_misses.value and cc.is_persistent_cache_enabled()
    compiler.logger.log(logging.WARNING if explain else logging.DEBUG,
                        "Not writing persistent cache entry for '%s' because it uses host callbacks (e.g. from "
                        "jax.debug.print or breakpoint); on apu their numbers belong to this process",
                        _module_name(module))


def register(platform: str) -> None:
    from jax._src import compilation_cache as cc
    from jax._src import compiler, monitoring

    original_used = cc.is_cache_used
    original_key = compiler._get_cache_key
    if getattr(original_used, "_apu_wrapped", False):
        return
    # Fail here, not at compile time, if the private names moved.
    for name in ("_cache_initialized_mutex", "_cache_checked", "_cache_used", "_is_cache_enabled",
                 "is_persistent_cache_enabled"):
        if not hasattr(cc, name):
            raise RuntimeError(f"jax._src.compilation_cache has no {name}")
    if not hasattr(compiler, "logger"):
        raise RuntimeError("jax._src.compiler has no logger")

    def is_cache_used(backend) -> bool:
        if getattr(backend, "platform", None) != platform:
            return original_used(backend)
        return _cache_used_for_apu(cc, monitoring)

    def _get_cache_key(options, backend, computation, devices, *args, **kwargs):
        if (getattr(backend, "platform", None) == platform and cc.is_cache_used(backend)
                and calls_host(computation)):
            _explain_no_entry(cc, compiler, computation)
            return None
        return original_key(options, backend, computation, devices, *args, **kwargs)

    is_cache_used._apu_wrapped = True
    _get_cache_key._apu_wrapped = True
    # The key guard first: the cache is never enabled for apu without it.
    compiler._get_cache_key = _get_cache_key
    cc.is_cache_used = is_cache_used
