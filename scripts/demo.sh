#!/usr/bin/env bash
# The main job: build apu, install its wheel into a pinned JAX venv, and run the demos on the APU.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build_library >/dev/null
py="$(jax_venv)"
wheel="$(build_wheel "$py")"
install_wheel "$py" "$wheel"
log "JAX demo"
"$py" "$APU_ROOT/examples/jax_demo.py"
