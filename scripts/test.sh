#!/usr/bin/env bash
# Every test of apu: Rust unit/integration tests (incl. the C-ABI conformance suite), then the Python end-to-end
# tests against the installed wheel, then JAX's own test suite when a jax checkout is given.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Incremental compilation state is only worth its disk (~2 GB for the test binaries) when the same tree is
# rebuilt again and again; a test run builds each crate once (decision 69).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

lib="$(build_library)"

# Differential oracle and ABI references, fetched once into $APU_CACHE (never committed): XLA's own CPU PJRT
# plugin for the conformance suite's shared cases, and upstream pjrt_c_api.h headers for the layout test.
# Without network the tests that need them say "skipped".
if xla_cpu="$("$APU_ROOT/scripts/fetch-xla-cpu-plugin.sh" 2>/dev/null | tail -1)" && [ -f "$xla_cpu" ]; then
    export APU_XLA_CPU_PLUGIN="$xla_cpu"
else
    log "could not fetch XLA's CPU PJRT plugin: the conformance suite runs on apu only"
fi
"$APU_ROOT/scripts/fetch-upstream-headers.sh" >/dev/null 2>&1 \
    || log "could not fetch upstream PJRT headers: the layout test will say skipped"

# Tests build in the dev profile (dependencies optimised, see Cargo.toml): far quicker to compile than a second
# release build, and the conformance suite still drives the release libapu.so built above.
log "cargo test (workspace)"
(cd "$APU_ROOT" && APU_PJRT_PLUGIN="$lib" cargo test --locked --workspace 2>&1) | tee "$APU_ROOT/target/cargo-test.log" >&2

# The fused kernels are compiled once per vector extension and the best one the CPU has is picked at run
# time, so the run above tested only that one: the plan-vs-interpreter tests again on the lower ones.
for level in avx2 baseline; do
    log "plan vs interpreter, kernels forced to APU_CPU_LEVEL=$level"
    (cd "$APU_ROOT" && APU_CPU_LEVEL="$level" cargo test --locked -q -p apu-runtime \
        --test plan_vs_interp --test golden_programs --test row_groups --test pipeline_samples 2>&1) \
        | tee -a "$APU_ROOT/target/cargo-test.log" >&2
done

# The JAX end-to-end suite on every supported JAX: the newest (jax 0.12.0.1, Python 3.13) and 0.10.2 (Python
# 3.11). One wheel (tagged py3-none) serves both. A failure in the first does not hide the second's results.
py="$(jax_venv)"
wheel="$(build_wheel "$py")"
e2e_rc=0
for jax_py in "$(jax12_venv)" "$py"; do
    install_wheel "$jax_py" "$wheel"
    log "end-to-end tests (pytest, jax $("$jax_py" -c 'import jax; print(jax.__version__)'), $("$jax_py" -V))"
    set +e
    (cd "$APU_ROOT" && "$jax_py" -m pytest -q -p no:cacheprovider tests/e2e)
    rc=$?
    set -e
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; then e2e_rc="$rc"; fi
done
if [ "$e2e_rc" -ne 0 ]; then exit "$e2e_rc"; fi

if [ "${APU_SKIP_TF:-0}" = "1" ]; then
    log "skipped the TensorFlow plug-in tests (APU_SKIP_TF=1)"
else
    run_tf_tests "$lib"
fi

if [ -n "${APU_JAX_CHECKOUT:-}" ] && [ -d "${APU_JAX_CHECKOUT}/tests" ]; then
    # APU_JAX_SUITE picks the suite's JAX (the checkout must be at its tag): 0.10.2 (default) or 0.11.0.
    suite_jax="${APU_JAX_SUITE:-0.10.2}"
    case "$suite_jax" in
        0.10.2) suite_venv="jax-suite" ;;
        *) suite_venv="jax-suite-${suite_jax}-py3.13" ;;
    esac
    log "JAX's own test suite (jax $suite_jax) from $APU_JAX_CHECKOUT"
    "$py" "$APU_ROOT/scripts/jax_conformance.py" "$APU_JAX_CHECKOUT" --jax "$suite_jax" --cpu-only-too
    # The runner's own tests need the suite venv it has just made (absl-py is not in apu's venv).
    (cd "$APU_ROOT" && "$APU_CACHE/venvs/$suite_venv/bin/python" -m pytest -q -p no:cacheprovider tests/jax_suite)
else
    log "skipped JAX's own test suite: set APU_JAX_CHECKOUT to a jax-v0.10.2 checkout (or jax-v0.11.0 with APU_JAX_SUITE=0.11.0) to run it"
fi
