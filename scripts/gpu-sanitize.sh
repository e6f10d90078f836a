#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck over the GPU engine's phases, run on the GPU machine from the
# project root after ../shared/tools/gpu-pack:
#   bash scripts/gpu-sanitize.sh                      # or TOOLS=memcheck ALGOS="pr sssp" bash ...
# BFS, SSSP, PageRank, k-core and WCC (propagating labels, so that every fusion mode applies) on small
# generated graphs under each fusion mode (the step kernels, the persistent kernel, asynchronous rounds),
# each run validated; prints one line per run: the tool's exit status, its summary line, and whether the
# validation passed.
set -uo pipefail
# Under racecheck a fused kernel's blocks can wait at a grid barrier longer than its 10 s watchdog.
export SIMDX_NVRTC_DEFINES="${SIMDX_NVRTC_DEFINES:-} SX_BARRIER_WATCHDOG_NS=300000000000ull"
bin=.gpu/bin/simdx
dir=$(mktemp -d)
for spec in kron:10:w urand:10:w grid:48x48; do
  $bin gen "$spec" -o "$dir/${spec//:/_}.sxg" >/dev/null
done
for tool in ${TOOLS:-memcheck racecheck}; do
  for graph in kron_10_w urand_10_w grid_48x48; do
    for algo in ${ALGOS:-bfs sssp pr kcore wcc}; do
      for fusion in none all auto async; do
        printf '%-9s %-11s %-6s %-6s ' "$tool" "$graph" "$algo" "$fusion"
        extra=()
        [ "$algo" = wcc ] && extra=(--labels propagate)
        compute-sanitizer --tool "$tool" --error-exitcode 9 $bin run $algo "$dir/$graph.sxg" --backend cuda \
          --fusion $fusion --validate "${extra[@]}" >"$dir/log.txt" 2>&1
        status=$?
        echo "exit $status / $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dir/log.txt" | head -1) /" \
          "$(grep -c 'validation: passed' "$dir/log.txt") validated"
      done
    done
  done
done
