#!/usr/bin/env bash
# The main job: build apu, install its wheel into pinned JAX and TensorFlow venvs, and run a JAX demo and a
# TensorFlow demo on the APU.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build_library >/dev/null
# The newest JAX apu supports (scripts/lib.sh: jax12_venv); the wheel is the same for every Python 3.
py="$(jax12_venv)"
wheel="$(build_wheel "$py")"
install_wheel "$py" "$wheel"
log "JAX demo (jax 0.12.0.1, Python 3.13)"
"$py" "$APU_ROOT/examples/jax_demo.py"

tf_version="${APU_DEMO_TF_VERSION:-2.21.0}"
tfpy="$(tf_venv "$tf_version")"
install_wheel "$tfpy" "$wheel"
log "TensorFlow demo (tensorflow-cpu $tf_version)"
"$tfpy" "$APU_ROOT/examples/tf_demo.py"
