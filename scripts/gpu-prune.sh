#!/usr/bin/env bash
# Keeps in .gpu/ (made by ../shared/tools/gpu-pack) only what needs a GPU: the test executables whose
# source (a file, or every file of a test folder) names the CUDA backend, the library tests of simdx-cuda and the facade, the CLI binary and the compile_time example, so
# that the folder fits what the device tool carries (64 MiB); writes .gpu/run-all.sh, which puts the CLI
# where the CLI tests look for it (target/release/simdx) and runs .gpu/run.sh.
# Usage: bash scripts/gpu-prune.sh, then on the GPU machine: bash .gpu/run-all.sh
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
# A test executable is a file tests/NAME.rs or a folder tests/NAME/ with a main.rs; a folder's source is
# every file in it.
keep=$(for t in tests/*.rs simdx-cuda/tests/*.rs tests/*/main.rs simdx-cuda/tests/*/main.rs; do
  [ -f "$t" ] || continue
  case $t in */main.rs) src=$(dirname "$t") name=$(basename "$src") ;; *) src=$t name=$(basename "$t" .rs) ;; esac
  if grep -r -q -i "cuda\|gpu" "$src"; then echo "$name-test"; fi
done)
keep="$keep simdx_cuda-lib simdx-lib"
: > .gpu/tests.keep
while IFS=$'\t' read -r name pkg; do
  if echo " $keep " | tr '\n' ' ' | grep -q " $name "; then
    printf '%s\t%s\n' "$name" "$pkg" >> .gpu/tests.keep
  else
    rm -f ".gpu/tests/$name"
  fi
done < .gpu/tests.tsv
mv .gpu/tests.keep .gpu/tests.tsv
find .gpu/bin -type f ! -name simdx ! -name compile_time -delete
cat > .gpu/run-all.sh <<'RUN'
#!/usr/bin/env bash
# Every packed test, the CLI tests included: they run the binary cargo built, target/release/simdx.
cd "$(dirname "$0")/.." && mkdir -p target/release && cp .gpu/bin/simdx target/release/simdx && exec bash .gpu/run.sh "$@"
RUN
echo "gpu-prune: $(wc -l < .gpu/tests.tsv) test executables, $(du -sm .gpu | cut -f1) MiB"
