#!/usr/bin/env bash
# Regenerates pjrt_api/src/bindings.rs from pjrt_api/include/apu_pjrt_c_api.h.
# Needs libclang at run time (Debian: apt-get install -y libclang-dev).
set -euo pipefail
cd "$(dirname "$0")/.."
BLESS=1 cargo test -p apu-pjrt-api --test bindings_up_to_date -- --nocapture
