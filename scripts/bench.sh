#!/usr/bin/env bash
# Benchmarks: the issue-4 workloads on apu and on XLA:CPU (jaxlib 0.10.2) in one process; writes
# docs/performance.md. Then linear algebra (benches/linalg_vs_xla.py), written to docs/performance-linalg.md. Then
# the model zoo (benches/model_zoo.py: real flax nnx + optax models on jax 0.12.0.1 / Python 3.13, in a venv of its
# own), written as a section of docs/performance.md. Options are passed to benches/jax_vs_xla.py: --quick for a short
# smoke run (also passed to the other benches), --only SUBSTRING to time only matching workloads (the table is then
# not written, and the model zoo is not run).
# --no-install: do not reinstall the wheel into the shared venv; load this checkout's
# target/release/libapu.so through APU_LIBRARY_PATH instead (for a venv that other jobs are using).
# --zoo-only: run only the model zoo; --no-zoo: everything but the model zoo. APU_ZOO_MODELS=a,b limits the zoo to
# those models (its section is still written).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

args=()
install=1
zoo=1
main=1
for a in "$@"; do
    case "$a" in
        --no-install) install=0 ;;
        --no-zoo) zoo=0 ;;
        --zoo-only) main=0 ;;
        *) args+=("$a") ;;
    esac
done

lib="$(build_library)"
py="$(jax_venv)"
wheel=""
if [ "$install" = 1 ]; then
    wheel="$(build_wheel "$py")"
    install_wheel "$py" "$wheel"
else
    export APU_LIBRARY_PATH="$lib"
fi
cd "$APU_ROOT"

# run_model_zoo: the model zoo in its own pinned venv (the wheel is pure-Python around libapu.so, so the one
# built above serves it; with --no-install it is installed only if the venv lacks apu_plugin, and
# APU_LIBRARY_PATH points it at this checkout's library).
run_model_zoo() {
    local zoo_py quick=()
    zoo_py="$(zoo_venv)"
    if [ -z "$wheel" ] && ! "$zoo_py" -c 'import apu_plugin' 2>/dev/null; then
        wheel="$(build_wheel "$py")"
    fi
    if [ -n "$wheel" ]; then install_wheel "$zoo_py" "$wheel"; fi
    case " ${args[*]-} " in *" --quick "*) quick=(--quick) ;; esac
    log "model zoo (benches/model_zoo.py, $("$zoo_py" -c 'import jax, flax, optax; print("jax", jax.__version__, "flax", flax.__version__, "optax", optax.__version__)'))"
    "$zoo_py" benches/model_zoo.py --write docs/performance.md ${quick[@]+"${quick[@]}"} \
        ${APU_ZOO_MODELS:+--models "$APU_ZOO_MODELS"}
}

if [ "$main" = 0 ]; then
    run_model_zoo
    exit 0
fi
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
case " ${args[*]-} " in
    *" --only "*) ;;  # a single main-table workload was asked for
    *) if [ "$zoo" = 1 ]; then run_model_zoo; fi ;;
esac
