#!/usr/bin/env bash
# Fetches XLA's own CPU PJRT plugin (a standalone shared library, PJRT API 0.115, platform "cpu")
# from the lammps-jax-pjrt-cpu wheel on PyPI. The conformance suite (tests/conformance.rs) runs
# its "shared" cases against it to check that the suite itself expects real XLA behaviour.
#
# Result: $HOME/.cache/apu/xla-cpu-plugin/lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so
# (or point APU_XLA_CPU_PLUGIN at any other build of the plugin).
set -euo pipefail

version="${LAMMPS_JAX_PJRT_CPU_VERSION:-0.11.2}"
dest="${APU_XLA_CPU_PLUGIN_DIR:-$HOME/.cache/apu/xla-cpu-plugin}"
lib="$dest/lammps_jax_pjrt_cpu/pjrt_c_api_cpu_plugin.so"

if [ -f "$lib" ]; then
  echo "$lib"
  exit 0
fi
mkdir -p "$dest"

pip_cmd=()
for candidate in "$HOME/.cache/apu/jax-0.10.2/bin/pip" "$HOME/.cache/apu/headers-venv/bin/pip"; do
  if [ -x "$candidate" ]; then pip_cmd=("$candidate"); break; fi
done
if [ "${#pip_cmd[@]}" -eq 0 ]; then
  python3 -m venv "$dest/venv"
  pip_cmd=("$dest/venv/bin/pip")
fi

# --no-deps: the wheel declares a jax pin we do not want; only the shared library is used.
"${pip_cmd[@]}" download --quiet --no-deps --only-binary=:all: --dest "$dest" "lammps-jax-pjrt-cpu==$version"
wheel="$(ls "$dest"/lammps_jax_pjrt_cpu-"$version"-*.whl | head -1)"
unzip -o -q "$wheel" 'lammps_jax_pjrt_cpu/*' -d "$dest"
rm -f "$wheel"
test -f "$lib"
echo "$lib"
