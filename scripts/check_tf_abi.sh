#!/usr/bin/env bash
# Checks every TensorFlow build in src/tf/npd/abi.rs against its own wheel: downloads it (pip download
# --no-deps, cached under $APU_CACHE/wheels), unpacks libtensorflow_cc.so.2 and three headers, and compares
# the PjRtCApiClient object size, absl's OK Status encoding and the XLA_Layout shape with apu's table
# (tests/tf/tf_binary.py). Not part of the default run (about 250 MB per wheel, 700 MB unpacked for a
# moment); run it when adding a build. Arguments: versions to check (default: every build in the table).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
wheels="$APU_CACHE/wheels"
mkdir -p "$wheels"
fail=0
while read -r version size status shape; do
    if [ "$#" -gt 0 ] && [[ " $* " != *" $version "* ]]; then continue; fi
    case "$version" in
        *-dev*) pkg="tf-nightly==${version/-dev/.dev}"; glob="tf_nightly-${version/-dev/.dev}-*.whl" ;;
        *) pkg="tensorflow-cpu==$version"; glob="tensorflow_cpu-$version-*.whl" ;;
    esac
    # shellcheck disable=SC2086
    if ! ls "$wheels"/$glob >/dev/null 2>&1; then
        log "downloading $pkg"
        "$PYTHON" -m pip download -q --no-deps --disable-pip-version-check --python-version 3.11 --only-binary=:all: "$pkg" -d "$wheels" >&2
    fi
    dir="$(mktemp -d)"
    # shellcheck disable=SC2086
    (cd "$dir" && unzip -q -o "$wheels"/$glob 'tensorflow/libtensorflow_cc.so.2' \
        'tensorflow/include/absl/status/status.h' 'tensorflow/include/xla/*c_api_decl.h')
    got="$("$PYTHON" "$APU_ROOT/tests/tf/tf_binary.py" "$dir/tensorflow")"
    rm -rf "$dir"
    want_ok=$([ "$status" = CodeShifted ] && echo 0 || echo 1)
    want_lists=$([ "$shape" = WithDimLists ] && echo true || echo false)
    if echo "$got" | "$PYTHON" -c "
import json, sys
f = json.load(sys.stdin)
ok = (f['constructor_exported'] and f['set_client_exported'] and f['client_object_size'] == $size
      and f['status_ok_rep'] == $want_ok and str(f['xla_layout_has_dim_lists']).lower() == '$want_lists')
sys.exit(0 if ok else 1)"; then
        log "TensorFlow $version: matches apu's table ($got)"
    else
        log "TensorFlow $version: MISMATCH: apu's table says size $size, $status, $shape; the wheel: $got"
        fail=1
    fi
done < <(sed -n 's/.*CheckedBuild { version: "\([^"]*\)", client_object_size: \([0-9]*\), status: StatusEncoding::\([A-Za-z]*\), shape: ShapeAbi::\([A-Za-z]*\) }.*/\1 \2 \3 \4/p' "$APU_ROOT/src/tf/npd/abi.rs")
exit "$fail"
