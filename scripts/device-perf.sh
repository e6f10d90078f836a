#!/usr/bin/env bash
# Sampling profiles of the CPU backend on the GPU machine's CPU (a 16-core Xeon that has no perf of its
# own): this machine's `perf`, its shared libraries and its loader travel in .cpu/perf (git-ignored,
# about 34 MB) beside the binaries of `scripts/cpu-scaling.sh build`.
#   here:  bash scripts/device-perf.sh pack                       # after cpu-scaling.sh build
#   there: bash scripts/device-perf.sh record NAME -- COMMAND...  # writes $OUT/NAME.data, prints the top symbols
#   here:  bash scripts/device-perf.sh annotate FILE SYMBOL       # the hot instructions of SYMBOL
# Seen working on 2026-11-23 (perf 6.1, samples on cpu-clock); annotate reads the symbols from .cpu/simdx,
# the binary that was carried, so run it before rebuilding.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
pack)
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
  echo "usage: bash scripts/device-perf.sh pack | record NAME -- COMMAND... | annotate FILE SYMBOL" >&2
  exit 2
  ;;
esac
