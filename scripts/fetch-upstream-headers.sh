#!/usr/bin/env bash
# Fetches upstream PJRT C API headers (xla/pjrt/c/pjrt_c_api.h) from PyPI wheels, for the
# layout comparison test pjrt_api/tests/layout_vs_upstream.rs. Nothing fetched here is committed.
#
# Result: $APU_HEADERS_DIR (default $HOME/.cache/apu/headers-venv)/<package>-<version>/.../pjrt_c_api.h
#   tensorflow-cpu 2.21.0              -> PJRT API 0.90
#   xla-cpu-pjrt 0.0.1                 -> PJRT API 0.81
#   tf-nightly 2.23.0.dev20261026      -> PJRT API 0.117
# Only the header files are unpacked; the wheels are deleted afterwards unless KEEP_WHEELS=1.
# Usage: scripts/fetch-upstream-headers.sh [package==version ...]
set -euo pipefail

dest="${APU_HEADERS_DIR:-$HOME/.cache/apu/headers-venv}"
mkdir -p "$dest/wheels"

# A private venv only provides a pip that can download; nothing is installed into it.
if [ ! -x "$dest/bin/pip" ]; then
  python3 -m venv "$dest"
fi
pip="$dest/bin/pip"

if [ "$#" -gt 0 ]; then
  specs=("$@")
else
  specs=("tensorflow-cpu==2.21.0" "xla-cpu-pjrt==0.0.1" "tf-nightly==2.23.0.dev20261026")
fi

for spec in "${specs[@]}"; do
  name="${spec%%==*}"
  version="${spec#*==}"
  out="$dest/$name-$version"
  if find "$out" -name pjrt_c_api.h 2>/dev/null | grep -q .; then
    echo "have $spec: $(find "$out" -name pjrt_c_api.h | head -1)"
    continue
  fi
  echo "downloading $spec (no dependencies) ..."
  "$pip" download --quiet --no-deps --only-binary=:all: --dest "$dest/wheels" "$spec"
  normalized="$(echo "$name" | tr '-' '_')"
  wheel="$(ls "$dest/wheels/${normalized}-${version}-"*.whl | head -1)"
  mkdir -p "$out"
  # Only the PJRT header(s); the wheels are large.
  unzip -o -q "$wheel" '*pjrt_c_api.h' -d "$out" || true
  find "$out" -name pjrt_c_api.h | sed 's/^/  header: /'
  if [ "${KEEP_WHEELS:-0}" != "1" ]; then
    rm -f "$wheel"
  fi
done

echo
echo "Headers found (set APU_UPSTREAM_PJRT_HEADERS to choose explicitly):"
find "$dest" -path "$dest/lib" -prune -o -name pjrt_c_api.h -print
