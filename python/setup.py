"""The wheel carries a native library, so it must be tagged for this platform, not `py3-none-any`."""
from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


try:
    from wheel.bdist_wheel import bdist_wheel as _bdist_wheel
except ImportError:  # wheel >= 0.44 moved it into setuptools
    from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel


class bdist_wheel(_bdist_wheel):
    def get_tag(self):
        _, _, plat = super().get_tag()
        # The library is plain C ABI: one wheel serves every CPython 3.
        return "py3", "none", plat


setup(
    distclass=BinaryDistribution,
    cmdclass={"bdist_wheel": bdist_wheel},
    # `tensorflow-plugins/libapu.so` lands in site-packages/tensorflow-plugins/, where `import tensorflow`
    # loads every plug-in library (PluggableDevice / NextPluggableDevice). The build copies the library there
    # (scripts/lib.sh: build_wheel); JAX uses the copy inside apu_plugin.
    packages=["apu_plugin", "tensorflow-plugins"],
    package_dir={"apu_plugin": "apu_plugin", "tensorflow-plugins": "tensorflow-plugins"},
    package_data={"apu_plugin": ["libapu.so", "BUILD_INFO"], "tensorflow-plugins": ["libapu.so"]},
)
