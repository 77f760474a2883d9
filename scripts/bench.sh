#!/usr/bin/env bash
# Benchmarks: the issue-4 workloads on apu and on XLA:CPU (jaxlib 0.10.2) in one process; writes
# docs/performance.md. Pass --quick for a short smoke run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

build_library >/dev/null
py="$(jax_venv)"
wheel="$(build_wheel "$py")"
install_wheel "$py" "$wheel"
cd "$APU_ROOT"
"$py" benches/jax_vs_xla.py --write docs/performance.md "$@"
