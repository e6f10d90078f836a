#!/usr/bin/env bash
# The CPU backend beside the graph crate on 2, 4, 8 and all cores of a bigger machine (the GPU machine's
# CPU, which has no Rust): build the comparison here, run it there.
#   here:  bash scripts/cpu-scaling.sh build        # writes .cpu/versus and .cpu/simdx (git-ignored)
#   there: bash scripts/cpu-scaling.sh run [rounds]  # from the project root, with .cpu carried along
# `run` prints the `cargo bench --bench versus` table on all cores (every row), then its SSSP rows under
# `taskset` on the first 2, 4 and 8 cores, then fused against stepped SSSP and WCC (`--fusion none`).
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
build)
  mkdir -p .git/info .cpu
  grep -qx '/.cpu/' .git/info/exclude 2>/dev/null || echo '/.cpu/' >> .git/info/exclude
  cargo build --release --bin simdx
  exe=$(cargo bench --bench versus --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "versus":
        print(m["executable"])')
  cp "$exe" .cpu/versus
  cp target/release/simdx .cpu/simdx
  strip --strip-debug .cpu/versus .cpu/simdx
  ls -l .cpu
  ;;
run)
  rounds=${2:-11}
  cores=$(nproc)
  echo "== all $cores cores"
  .cpu/versus --rounds "$rounds"
  for n in 2 4 8; do
    [ "$n" -lt "$cores" ] || continue
    echo "== $n cores (taskset), SSSP"
    taskset -c 0-$((n - 1)) .cpu/versus sssp --rounds "$rounds" | grep '^| [kug]'
  done
  echo "== fused rounds against single steps, all cores (median ms of 11)"
  for run in "sssp urand:18:w" "sssp kron:18:w" "sssp grid:512x512" "sssp grid:512x512 --delta 1008" \
    "wcc kron:18" "wcc urand:18" "wcc grid:512x512"; do
    for fusion in all none; do
      # shellcheck disable=SC2086 # $run is an algorithm, a graph and options, split on purpose
      ms=$(.cpu/simdx run $run --backend cpu --trials 11 --fusion "$fusion" --validate | grep -o 'cpu: [0-9.]* ms')
      echo "$run, fusion $fusion: $ms"
    done
  done
  ;;
*)
  echo "usage: bash scripts/cpu-scaling.sh build | run [rounds]" >&2
  exit 2
  ;;
esac
