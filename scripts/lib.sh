# Shared helpers for apu's scripts: pinned Python environments under $HOME/.cache/apu, and building the wheel.
# Sourced, not run.

APU_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
APU_CACHE="${APU_CACHE:-$HOME/.cache/apu}"
PYTHON="${PYTHON:-python3}"

# The versions apu is tested against (see docs/integration-notes.md).
JAX_PINS="jax==0.10.2 jaxlib==0.10.2 numpy==2.4.6 ml_dtypes==0.6.0 scipy==1.17.1 opt_einsum==3.4.0 pytest==9.2.0"

log() { printf '\033[1m[apu]\033[0m %s\n' "$*" >&2; }

# ensure_venv NAME "PINS..." [PYTHON] -> prints the venv's python. Reuses the venv when its pins file matches.
# PYTHON (default $PYTHON) is the interpreter the venv is made from.
ensure_venv() {
    local name="$1" pins="$2" base="${3:-$PYTHON}" dir="$APU_CACHE/venvs/$1"
    if [ -x "$dir/bin/python" ] && [ "$(cat "$dir/.pins" 2>/dev/null)" = "$pins" ]; then
        echo "$dir/bin/python"
        return
    fi
    log "creating venv $dir ($pins)"
    rm -rf "$dir"
    mkdir -p "$APU_CACHE/venvs"
    "$base" -m venv "$dir" >&2
    "$dir/bin/pip" install -q --disable-pip-version-check $pins setuptools wheel >&2
    echo "$pins" > "$dir/.pins"
    echo "$dir/bin/python"
}

jax_venv() { ensure_venv "jax-0.10.2" "$JAX_PINS"; }

# The newest JAX apu supports: jax/jaxlib 0.12.0.1 needs Python >= 3.12; these pins all ship 3.13 wheels.
JAX12_PINS="jax==0.12.0.1 jaxlib==0.12.0.1 numpy==2.5.5 ml_dtypes==0.6.0 scipy==1.18.1 opt_einsum==3.4.0 pytest==9.2.0"
# The model zoo (benches/model_zoo.py): real flax nnx + optax models on jax 0.12.0.1, Python 3.13. Separate from
# the e2e tests' jax 0.12 venv because it also holds flax and optax (and their dependencies, pinned too).
ZOO_PINS="jax==0.12.0.1 jaxlib==0.12.0.1 flax==0.12.12 optax==0.2.8 numpy==2.5.5 ml_dtypes==0.6.0 scipy==1.18.1 \
opt_einsum==3.4.0 orbax-checkpoint==0.12.8 tensorstore==0.1.86 treescope==0.1.10 msgpack==1.2.4"

# python313 -> prints the path of a Python 3.13 interpreter (pyenv's 3.13.0 where pyenv has it, else python3.13).
python313() {
    local py
    py="$(PYENV_VERSION=3.13.0 pyenv which python3.13 2>/dev/null || command -v python3.13 || true)"
    if [ -z "$py" ]; then
        log "no Python 3.13 found (pyenv 3.13.0 or python3.13 on PATH)"
        return 1
    fi
    echo "$py"
}

# jax12_venv -> prints the python of the jax 0.12.0.1 venv (Python 3.13): the e2e tests' and the demo's newest JAX.
jax12_venv() { ensure_venv "jax-0.12.0.1-py3.13" "$JAX12_PINS" "$(python313)"; }
# zoo_venv -> prints the python of the model-zoo venv (jax 0.12.0.1 + flax 0.12.12 + optax 0.2.8, Python 3.13).
zoo_venv() { ensure_venv "zoo-jax-0.12.0.1-flax-0.12.12-optax-0.2.8-py3.13" "$ZOO_PINS" "$(python313)"; }

# build_library: release build of libapu.so
build_library() {
    log "building libapu.so (cargo build --release)"
    (cd "$APU_ROOT" && cargo build --release --locked -p apu >&2)
    echo "$APU_ROOT/target/release/libapu.so"
}

# build_wheel PYTHON -> prints the wheel's path. Needs build_library first.
build_wheel() {
    local py="$1" out="$APU_ROOT/target/wheels"
    rm -rf "$out" "$APU_ROOT/python/build" "$APU_ROOT/python/"*.egg-info
    mkdir -p "$out"
    cp "$APU_ROOT/target/release/libapu.so" "$APU_ROOT/python/apu_plugin/libapu.so"
    mkdir -p "$APU_ROOT/python/tensorflow-plugins"
    cp "$APU_ROOT/target/release/libapu.so" "$APU_ROOT/python/tensorflow-plugins/libapu.so"
    log "building the apu-plugin wheel"
    "$py" -m pip wheel -q --no-deps --no-build-isolation -w "$out" "$APU_ROOT/python" >&2
    rm -rf "$APU_ROOT/python/build" "$APU_ROOT/python/"*.egg-info "$APU_ROOT/python/apu_plugin/libapu.so" \
        "$APU_ROOT/python/tensorflow-plugins"
    ls "$out"/apu_plugin-*.whl
}

# install_wheel PYTHON WHEEL
install_wheel() {
    "$1" -m pip install -q --force-reinstall --no-deps "$2" >&2
}

# TensorFlow versions the plug-in is tested against (both device modes on each; docs/tensorflow.md): the newest
# release and 2.18.1, the newest that still exports TF_CreateAndSetPjRtCApiClient (apu's other route to hand
# TensorFlow its PJRT client, src/tf/npd/client.rs). An entry is a tensorflow-cpu version, or `nightly` for the
# pinned tf-nightly build below (opt-in: APU_TF_VERSIONS="2.21.0 2.18.1 nightly"; see tf_pins for why).
TF_VERSIONS="${APU_TF_VERSIONS:-2.21.0 2.18.1}"

# The pinned nightly: an exact tf-nightly build (a pre-release, so only an exact == pin installs it). tf-nightly,
# not tf-nightly-cpu: the -cpu wheels stopped at 2.22.0.dev20260905. Change the date to move the pin.
TF_NIGHTLY="${APU_TF_NIGHTLY:-2.23.0.dev20261026}"

# tf_pins ENTRY -> "VENV-NAME PINS..." for one TF_VERSIONS entry.
tf_pins() {
    case "$1" in
        nightly) echo "tf-nightly-$TF_NIGHTLY tf-nightly==$TF_NIGHTLY pytest==9.2.0" ;;
        *) echo "tensorflow-cpu-$1 tensorflow-cpu==$1 pytest==9.2.0" ;;
    esac
}

# tf_venv ENTRY -> prints the python of a pinned TensorFlow venv, e.g. `tf_venv 2.21.0`, `tf_venv nightly`.
# Used by the TensorFlow plug-in tests (tests/tf); the plug-in is put into its site-packages/tensorflow-plugins.
tf_venv() {
    local spec name
    spec="$(tf_pins "$1")"
    name="${spec%% *}"
    ensure_venv "$name" "${spec#* }"
}

# install_tf_plugin PYTHON LIBRARY: make TensorFlow in that venv load LIBRARY at import time, as the wheel does
# (site-packages/tensorflow-plugins/libapu.so). A symlink, so a rebuilt library is picked up without copying.
install_tf_plugin() {
    local site
    site="$("$1" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')"
    mkdir -p "$site/tensorflow-plugins"
    ln -sf "$2" "$site/tensorflow-plugins/libapu.so"
}

# run_tf_tests LIBRARY: the TensorFlow plug-in tests (tests/tf) in every pinned TensorFlow venv.
run_tf_tests() {
    local lib="$1" version py rc
    for version in $TF_VERSIONS; do
        py="$(tf_venv "$version")"
        install_tf_plugin "$py" "$lib"
        log "TensorFlow plug-in tests (pytest, tensorflow-cpu $version)"
        set +e
        (cd "$APU_ROOT" && "$py" -m pytest -q -p no:cacheprovider tests/tf)
        rc=$?
        set -e
        if [ "$rc" -ne 0 ]; then return "$rc"; fi
    done
}
