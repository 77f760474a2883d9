"""apu for JAX: registers the `apu` PJRT platform.

JAX imports this module through the `jax_plugins` entry point and calls `initialize()` the first time a backend
is requested. Nothing here may raise: a broken apu install must never break plain-CPU JAX, so problems are
logged and the platform is simply not registered.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import logging
import os
import pathlib

__version__ = "0.1.0"

PLATFORM_NAME = "apu"
# JAX's default plugin priority: above the built-in CPU (0), so `jax.devices()` prefers apu once installed.
DEFAULT_PRIORITY = 400

logger = logging.getLogger(__name__)

_VERSION_TAG = b"apu-plugin-version:"

# The jax/jaxlib releases apu's CI runs the end-to-end suite on (scripts/lib.sh: JAX_PINS, JAX12_PINS). Another
# version is used all the same, with a warning: the plugin relies on a few private JAX APIs (donation, lowerings)
# and on the PJRT C API the framework was built with, both of which move between releases.
TESTED_JAX_VERSIONS = ("0.10.2", "0.12.0.1")


def _installed_version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def jax_version_check(jax_version: str | None, jaxlib_version: str | None) -> tuple[int, str]:
    """(logging level, message) saying which JAX apu found and whether apu is tested with it."""
    found = f"jax {jax_version or 'not installed'}, jaxlib {jaxlib_version or 'not installed'}"
    if jax_version in TESTED_JAX_VERSIONS and jaxlib_version == jax_version:
        return logging.INFO, f"apu: found {found} (a tested version)"
    tested = ", ".join(TESTED_JAX_VERSIONS)
    return logging.WARNING, (
        f"apu: found {found}, which apu {__version__} is not tested with (tested: {tested}, jax and jaxlib "
        f"equal); registering the apu platform anyway"
    )


def library_path() -> pathlib.Path:
    """Where the plugin library is: `APU_LIBRARY_PATH` if set, else the copy inside this package."""
    override = os.environ.get("APU_LIBRARY_PATH")
    if override:
        return pathlib.Path(override)
    return pathlib.Path(__file__).resolve().parent / "libapu.so"


def library_version(path: pathlib.Path) -> str | None:
    """The version stamped into the library (a NUL-terminated tag in its read-only data), or None."""
    data = path.read_bytes()
    start = data.find(_VERSION_TAG)
    if start < 0:
        return None
    start += len(_VERSION_TAG)
    end = data.find(b"\0", start)
    return data[start:end].decode("ascii", "replace") if end > start else None


def _client_options() -> dict:
    options = {}
    devices = os.environ.get("APU_NUM_DEVICES")
    if devices:
        try:
            options["num_devices"] = int(devices)
        except ValueError:
            logger.warning("apu: ignoring APU_NUM_DEVICES=%r (not an integer)", devices)
    return options


def _enable_donation() -> None:
    # JAX drops donate_argnums for platforms outside a private list; apu implements donation, so join it.
    try:
        from jax._src.interpreters import mlir

        if PLATFORM_NAME not in mlir._platforms_with_donation:
            mlir._platforms_with_donation.append(PLATFORM_NAME)
    except Exception as exc:  # private API: never let a JAX change break registration
        logger.warning("apu: could not enable buffer donation: %s", exc)


# apu's own lowerings of linear-algebra primitives that JAX lowers only for its built-in platforms, each in
# a module with `register(platform)`:
# - eigh.py: without it jnp.linalg.eigh, and through it svd, lstsq, pinv and polyfit, fail to lower on apu;
# - condensed.py: hessenberg and tridiagonal (LAPACK on CPU only);
# - lu.py: lu (solve, inv, det), which otherwise runs JAX's loop of whole-panel passes;
# - schur.py: schur and eig (LAPACK on CPU only), and through them sqrtm, funm, solve_sylvester, eigvals.
_LOWERINGS = (
    ("eigh", "eigh"),
    ("condensed", "hessenberg and tridiagonal"),
    ("lu", "the LU kernel"),
    ("schur", "schur and eig"),
)


def _enable_lowerings() -> None:
    for module_name, what in _LOWERINGS:
        try:
            importlib.import_module(f".{module_name}", __name__).register(PLATFORM_NAME)
        except Exception as exc:  # private API: never let a JAX change break registration
            logger.warning("apu: could not enable %s: %s", what, exc)


def _enable_callbacks(path: pathlib.Path) -> None:
    # jax.debug.print / debug.callback / pure_callback / io_callback (callbacks.py).
    try:
        from . import callbacks

        callbacks.register(PLATFORM_NAME, str(path))
    except Exception as exc:  # private API: never let a JAX change break registration
        logger.warning("apu: could not enable host callbacks (jax.debug.print, pure_callback): %s", exc)


def _enable_ffi(path: pathlib.Path) -> None:
    # jax.ffi.register_ffi_target(..., platform="apu") (ffi.py).
    try:
        from . import ffi

        ffi.register(PLATFORM_NAME, str(path))
    except Exception as exc:  # private API: never let a JAX change break registration
        logger.warning("apu: could not enable jax.ffi targets for apu: %s", exc)


def _enable_compilation_cache() -> None:
    # JAX's persistent compilation cache, which JAX uses only on platforms it names (cache.py).
    try:
        from . import cache

        cache.register(PLATFORM_NAME)
    except Exception as exc:  # private API: never let a JAX change break registration
        logger.warning("apu: could not enable JAX's persistent compilation cache: %s", exc)


def initialize() -> None:
    level, message = jax_version_check(_installed_version("jax"), _installed_version("jaxlib"))
    logger.log(level, message)
    path = library_path()
    if not path.exists():
        logger.warning("apu: plugin library not found at %s; the apu platform is not registered", path)
        return
    found = library_version(path)
    if found != __version__:
        logger.warning(
            "apu: library %s has version %s but the Python package is %s; the apu platform is not registered",
            path, found, __version__,
        )
        return
    try:
        from jax._src import xla_bridge as xb
    except Exception as exc:
        logger.warning("apu: cannot import JAX's plugin registry: %s", exc)
        return
    try:
        xb.register_plugin(
            PLATFORM_NAME,
            priority=DEFAULT_PRIORITY,
            library_path=str(path),
            options=_client_options,
        )
    except Exception as exc:
        logger.warning("apu: registering the plugin failed: %s", exc)
        return
    _enable_donation()
    _enable_lowerings()
    _enable_callbacks(path)
    _enable_ffi(path)
    _enable_compilation_cache()
