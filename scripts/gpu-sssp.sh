#!/usr/bin/env bash
# SSSP on the GPU: the bucket width and the fusion mode against time, run on the GPU machine from the
# project root after ../shared/tools/gpu-pack:
#   bash scripts/gpu-sssp.sh [trials] [deltas]
# Generates kron:22:w, urand:22:w and grid:2048x2048 (weights 1..255) once, then times SSSP from vertex 1
# under the default settings, at each bucket width of `deltas` (default "4 8 16 32 64 128 256 1024")
# under `auto` and `async`, and writes each run's JSON (with its per-iteration trace) to $OUT (or /tmp).
set -uo pipefail
trials=${1:-5}
deltas=${2:-"4 8 16 32 64 128 256 1024"}
bin=.gpu/bin/simdx
out=${OUT:-/tmp}
dir=${GRAPHS:-$(mktemp -d)}
for spec in kron:22:w urand:22:w grid:2048x2048; do
  name=${spec//:/_}
  [ -f "$dir/$name.sxg" ] || $bin gen "$spec" -o "$dir/$name.sxg" >/dev/null
done
for name in kron_22_w urand_22_w grid_2048x2048; do
  printf '%-15s default  ' "$name"
  $bin run sssp "$dir/$name.sxg" --source 1 --backend cuda --trials "$trials" --json "$out/$name.sssp.json" | head -1
  for delta in $deltas; do
    for fusion in auto async; do
      printf '%-15s d=%-5s %-5s ' "$name" "$delta" "$fusion"
      $bin run sssp "$dir/$name.sxg" --source 1 --backend cuda --trials "$trials" --delta "$delta" \
        --fusion "$fusion" | sed -n "1s/.*backend cuda: //p"
    done
  done
done
