#!/usr/bin/env bash
# Seeds the fuzz corpora from the real programs: the shared JAX samples (if present) and the
# project's fixtures. Usage: fuzz/seed.sh  (from anywhere; corpora land in fuzz/corpus/<target>).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
sources=("$root/tests/fixtures/programs" "$root/compiler/tests/fixtures")
[ -d "$root/../shared/samples/jax" ] && sources+=("$root/../shared/samples/jax")
mkdir -p "$here/corpus/vhlo_bytecode" "$here/corpus/stablehlo_text" "$here/corpus/hlo_proto"
copy() { # copy FILE into corpus dir DEST, named after its folder too (fixtures repeat names)
  cp "$1" "$2/$(basename "$(dirname "$1")")_$(basename "$1")"
}
for dir in "${sources[@]}"; do
  [ -d "$dir" ] || continue
  while IFS= read -r -d '' f; do
    case "$f" in
      *.mlirbc) copy "$f" "$here/corpus/vhlo_bytecode" ;;
      *.mlir) copy "$f" "$here/corpus/stablehlo_text" ;;
      *.hlo.pb) copy "$f" "$here/corpus/hlo_proto" ;;
    esac
  done < <(find "$dir" -maxdepth 2 -type f -print0)
done
for t in vhlo_bytecode stablehlo_text hlo_proto; do
  echo "$t: $(ls "$here/corpus/$t" | wc -l) seeds"
done
