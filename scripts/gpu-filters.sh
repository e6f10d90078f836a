#!/usr/bin/env bash
# Online-filter check of record, run on the GPU machine from the project root after ../shared/tools/gpu-pack:
#   bash scripts/gpu-filters.sh [trials]
# 1. every packed GPU test (.gpu/run.sh, with SIMDX_REQUIRE_GPU=1);
# 2. compute-sanitizer memcheck and racecheck on BFS and SSSP (kron:10:w, fusion all and none, jit filter);
# 3. BFS and SSSP on kron:22:w, urand:22:w and grid:2048x2048 under every filter policy and fusion
#    all / none, --trials times, with the JSON report in $OUT (or /tmp).
set -uo pipefail
trials=${1:-5}
bin=.gpu/bin/simdx
out=${OUT:-/tmp}
export SIMDX_REQUIRE_GPU=1
mkdir -p target/release && cp .gpu/bin/simdx target/release/simdx  # where the CLI tests look for it
bash .gpu/run.sh 2>&1 | tail -3
dir=$(mktemp -d)
$bin gen kron:10:w -o "$dir/k10.sxg" >/dev/null
for algo in bfs sssp; do
  for fusion in all none; do
    for tool in memcheck racecheck; do
      printf 'sanitizer %-9s %-4s %-4s: ' "$tool" "$algo" "$fusion"
      compute-sanitizer --tool "$tool" --error-exitcode 9 $bin run $algo "$dir/k10.sxg" --backend cuda \
        --fusion $fusion --validate >"$dir/san.txt" 2>&1
      echo "exit $? / $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dir/san.txt" | head -1) / $(grep -c passed "$dir/san.txt") validated"
    done
  done
done
for spec in kron:22:w urand:22:w grid:2048x2048; do
  $bin gen "$spec" -o "$dir/${spec//:/_}.sxg" >/dev/null
done
$bin bench --algorithms bfs,sssp --graphs "$dir/kron_22_w.sxg,$dir/urand_22_w.sxg,$dir/grid_2048x2048.sxg" \
  --backends cuda --filters online,ballot,jit --fusions all,none --trials "$trials" --json "$out/filters.json"
for spec in kron_22_w urand_22_w; do
  for algo in bfs sssp; do $bin run $algo "$dir/$spec.sxg" --backend cuda --validate | tail -1; done
done
