#!/usr/bin/env bash
# Two builds of the CLI side by side on the GPU, alternated in one call so that both meet the same card:
#   GRAPHS=/tmp/g ALGOS="bfs sssp" bash scripts/gpu-versus.sh BEFORE AFTER [rounds] [trials]
# Generates kron:22:w, urand:22:w and grid:2048x2048 into $GRAPHS (once), then for each algorithm of
# $ALGOS (default: bfs, sssp, pr for 20 iterations, wcc) and graph runs BEFORE and AFTER `rounds` times each, in turn,
# with `--trials trials` at the default settings, and prints one line per run: the reported median.
set -uo pipefail
before=$1
after=$2
rounds=${3:-2}
trials=${4:-5}
dir=${GRAPHS:-$(mktemp -d)}
mkdir -p "$dir"
for spec in kron:22:w urand:22:w grid:2048x2048; do
  name=${spec//:/_}
  [ -f "$dir/$name.sxg" ] || $after gen "$spec" -o "$dir/$name.sxg" >/dev/null
done
for algo in ${ALGOS:-bfs sssp pr wcc}; do
  extra=""
  [ "$algo" = pr ] && extra="--iterations 20 --tolerance 0"
  for name in kron_22_w urand_22_w grid_2048x2048; do
    for round in $(seq "$rounds"); do
      for bin in "$before" "$after"; do
        printf '%-5s %-15s %-26s ' "$algo" "$name" "$(basename "$bin")"
        $bin run $algo "$dir/$name.sxg" --backend cuda --trials "$trials" $extra | sed -n "1s/.*backend cuda: //p"
      done
    done
  done
done
