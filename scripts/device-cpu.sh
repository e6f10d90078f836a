#!/usr/bin/env bash
# The CPU backend on the GPU machine's CPU (a 16-core Xeon with no Rust and no perf of its own): build
# here, carry .cpu/ (git-ignored), run there.
#   here:  bash scripts/device-cpu.sh build                       # writes .cpu/versus and .cpu/simdx
#   there: bash scripts/device-cpu.sh scaling [rounds]            # against the graph crate on 2, 4, 8, all cores
#   here:  bash scripts/device-cpu.sh perf-pack                   # this machine's perf into .cpu/perf (~34 MB)
#   there: bash scripts/device-cpu.sh record NAME -- COMMAND...   # writes $OUT/NAME.data, prints the top symbols
#   here:  bash scripts/device-cpu.sh annotate FILE SYMBOL        # the hot instructions of SYMBOL
# `scaling` prints the `cargo bench -p simdx-benches --bench versus` table on all cores (every row), then
# its SSSP rows under `taskset` on the first 2, 4 and 8 cores, then fused against stepped SSSP and WCC
# (`--fusion none`). The profiles were seen working on 2026-11-23 (perf 6.1, samples on cpu-clock);
# `annotate` reads the symbols from .cpu/simdx, the binary that was carried, so run it before rebuilding.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
build)
  mkdir -p .git/info .cpu
  grep -qx '/.cpu/' .git/info/exclude 2>/dev/null || echo '/.cpu/' >> .git/info/exclude
  cargo build --release --bin simdx
  exe=$(cargo bench -p simdx-benches --bench versus --no-run --message-format=json 2>/dev/null \
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
scaling)
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
perf-pack)
  command -v perf >/dev/null || { echo "perf is not installed here (apt-get install linux-perf)" >&2; exit 1; }
  mkdir -p .cpu/perf
  exe=$(readlink -f "$(command -v perf)")
  cp -L "$exe" .cpu/perf/perf
  ldd "$exe" | awk '$3 ~ /^\// {print $3}' | xargs -I{} cp -L {} .cpu/perf/
  cp -L /lib64/ld-linux-x86-64.so.2 .cpu/perf/
  du -sh .cpu/perf
  ;;
record)
  name=${2:?usage: record NAME -- COMMAND...}
  shift 2
  [ "${1:-}" = "--" ] && shift
  perf() { .cpu/perf/ld-linux-x86-64.so.2 --library-path .cpu/perf .cpu/perf/perf "$@"; }
  out=${OUT:-.}
  perf record -F 2000 -o "$out/$name.data" -- "$@"
  perf report -i "$out/$name.data" --no-children --sort symbol --stdio 2>/dev/null | grep % | head -25
  ;;
annotate)
  file=${2:?usage: annotate FILE SYMBOL}
  symbol=${3:?usage: annotate FILE SYMBOL}
  perf buildid-cache -a .cpu/simdx
  perf annotate -i "$file" --stdio --no-source -s "$symbol" 2>/dev/null | awk -F: '$1 + 0 > 1'
  ;;
*)
  echo "usage: bash scripts/device-cpu.sh build | scaling [rounds] | perf-pack | record NAME -- COMMAND... | annotate FILE SYMBOL" >&2
  exit 2
  ;;
esac
