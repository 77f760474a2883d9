#!/usr/bin/env bash
# Benchmarks: the issue-4 workloads on apu and on XLA:CPU (jaxlib 0.10.2) in one process; writes
# docs/performance.md. Options are passed to benches/jax_vs_xla.py: --quick for a short smoke run,
# --only SUBSTRING to time only matching workloads (the table is then not written).
# --no-install: do not reinstall the wheel into the shared venv; load this checkout's
# target/release/libapu.so through APU_LIBRARY_PATH instead (for a venv that other jobs are using).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

args=()
install=1
for a in "$@"; do
    if [ "$a" = "--no-install" ]; then install=0; else args+=("$a"); fi
done

lib="$(build_library)"
py="$(jax_venv)"
if [ "$install" = 1 ]; then
    wheel="$(build_wheel "$py")"
    install_wheel "$py" "$wheel"
else
    export APU_LIBRARY_PATH="$lib"
fi
cd "$APU_ROOT"
"$py" benches/jax_vs_xla.py --write docs/performance.md ${args[@]+"${args[@]}"}
