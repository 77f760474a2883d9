#!/usr/bin/env bash
# Benchmarks: the issue-4 workloads on apu and on XLA:CPU (jaxlib 0.10.2) in one process; writes
# docs/performance.md. Then linear algebra (benches/linalg_vs_xla.py), written to docs/performance-linalg.md. Options are passed to benches/jax_vs_xla.py: --quick for a short smoke run,
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
# The machine probe, when a C compiler is at hand: printed, and written above the table.
probe_dir="$(mktemp -d)"
trap 'rm -rf "$probe_dir"' EXIT
if cc -O2 -mavx512f -pthread -o "$probe_dir/read_bw" benches/hw/read_bw.c 2>/dev/null; then
    export APU_BENCH_PROBE="$probe_dir/read_bw"
fi
"$py" benches/jax_vs_xla.py --write docs/performance.md ${args[@]+"${args[@]}"}
case " ${args[*]-} " in
    *" --only "*) ;;  # a single main-table workload was asked for
    *" --quick "*) "$py" benches/linalg_vs_xla.py --quick --write docs/performance-linalg.md ;;
    *) "$py" benches/linalg_vs_xla.py --write docs/performance-linalg.md ;;
esac
