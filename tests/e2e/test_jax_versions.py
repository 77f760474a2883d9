"""Which JAX apu finds: the plugin says it at registration, and warns (without failing) on an untested release."""

from __future__ import annotations

import logging

import jax
import jaxlib
import pytest

from conftest import PLATFORM

apu_plugin = pytest.importorskip("apu_plugin") if PLATFORM == "apu" else None
if apu_plugin is None:
    pytest.skip("the version announcement is apu's", allow_module_level=True)


def test_this_jax_is_a_tested_version():
    # CI runs this suite only on the versions the wheel declares; a new pin must be added to both.
    assert jax.__version__ in apu_plugin.TESTED_JAX_VERSIONS
    assert jaxlib.__version__ == jax.__version__


def test_registration_logs_the_jax_it_found(run_python):
    proc = run_python("""
        import logging
        logging.basicConfig(level=logging.INFO)
        import jax
        print([d.platform for d in jax.devices()])
    """)
    assert proc.returncode == 0, proc.stderr
    assert "'apu'" in proc.stdout
    assert f"apu: found jax {jax.__version__}, jaxlib {jaxlib.__version__} (a tested version)" in proc.stderr


@pytest.mark.parametrize("found", [("0.11.0", "0.11.0"), ("0.12.0.1", "0.12.0"), (None, "0.12.0.1"), ("0.13.0", None)])
def test_an_untested_version_is_a_warning_naming_it(found):
    level, message = apu_plugin.jax_version_check(*found)
    assert level == logging.WARNING
    assert f"jax {found[0] or 'not installed'}, jaxlib {found[1] or 'not installed'}" in message
    assert "not tested" in message and "0.10.2, 0.12.0.1" in message


@pytest.mark.parametrize("version", ["0.10.2", "0.12.0.1"])
def test_a_tested_version_is_an_info_line(version):
    level, message = apu_plugin.jax_version_check(version, version)
    assert level == logging.INFO
    assert f"found jax {version}, jaxlib {version} (a tested version)" in message
