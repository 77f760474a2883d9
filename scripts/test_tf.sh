#!/usr/bin/env bash
# The TensorFlow plug-in tests alone: release build of libapu.so, then tests/tf in each pinned TensorFlow venv
# (APU_TF_VERSIONS overrides the list, e.g. APU_TF_VERSIONS=2.21.0).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
lib="$(build_library)"
run_tf_tests "$lib"
