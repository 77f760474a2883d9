#!/usr/bin/env bash
# Seeds the fuzz corpora from the real programs: the shared JAX samples (if present) and the
# project's fixtures. Usage: fuzz/seed.sh  (from anywhere; corpora land in fuzz/corpus/<target>).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
sources=("$root/tests/fixtures/programs" "$root/compiler/tests/fixtures")
[ -d "$root/../shared/samples/jax" ] && sources+=("$root/../shared/samples/jax")
mkdir -p "$here/corpus/vhlo_bytecode" "$here/corpus/stablehlo_text" "$here/corpus/hlo_proto"
for dir in "${sources[@]}"; do
  [ -d "$dir" ] || continue
  find "$dir" -maxdepth 1 -name '*.mlirbc' -exec cp -t "$here/corpus/vhlo_bytecode" {} +
  find "$dir" -maxdepth 1 -name '*.mlir' -exec cp -t "$here/corpus/stablehlo_text" {} +
  find "$dir" -maxdepth 1 -name '*.hlo.pb' -exec cp -t "$here/corpus/hlo_proto" {} +
done
for t in vhlo_bytecode stablehlo_text hlo_proto; do
  echo "$t: $(ls "$here/corpus/$t" | wc -l) seeds"
done
