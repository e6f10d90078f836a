#!/usr/bin/env bash
# GPU benchmark of record, run on the GPU machine from the project root after ../shared/tools/gpu-pack:
#   bash scripts/gpu-bench.sh [trials]
# Generates kron:22, urand:22 and grid:2048x2048 (weighted, 1..255) once, then runs BFS, SSSP and PageRank
# on the CUDA backend and on the CPU backend (all cores), each --trials times, printing one line per run
# and writing JSON reports to $OUT (or /tmp) for BENCHMARKS.md.
set -euo pipefail
trials=${1:-5}
bin=.gpu/bin/simdx
out=${OUT:-/tmp}
dir=$(mktemp -d)
for spec in kron:22:w urand:22:w grid:2048x2048; do
  name=${spec//:/_}
  $bin gen "$spec" -o "$dir/$name.sxg" >/dev/null
done
for name in kron_22_w urand_22_w grid_2048x2048; do
  for algo in bfs sssp pr; do
    extra=""
    [ "$algo" = pr ] && extra="--iterations 20 --tolerance 0"
    for mode in cuda:all cuda:push-pull cuda:none cpu:none; do
      backend=${mode%%:*}; fusion=${mode##*:}
      printf '%-10s %-9s ' "$backend" "$fusion"
      $bin run $algo "$dir/$name.sxg" --source 1 --backend $backend --fusion $fusion --trials "$trials" $extra \
        --json "$out/$name.$algo.$backend.$fusion.json" | head -1
    done
  done
done
