#!/usr/bin/env bash
# PageRank check of record, run on the GPU machine from the project root after ../shared/tools/gpu-pack:
#   bash scripts/gpu-pagerank.sh [trials]
# 1. every packed GPU test (.gpu/run.sh, with SIMDX_REQUIRE_GPU=1);
# 2. compute-sanitizer memcheck and racecheck on PageRank (kron:10, fusion all, push-pull and none);
# 3. PageRank validated on kron:20:w and grid:1024x1024, with the per-iteration trace;
# 4. PageRank on kron:22:w, urand:22:w and grid:2048x2048: 20 iterations (`simdx bench`, JSON in $OUT or
#    /tmp) and to the default tolerance, fusion all and none.
set -uo pipefail
trials=${1:-5}
bin=.gpu/bin/simdx
out=${OUT:-/tmp}
export SIMDX_REQUIRE_GPU=1
mkdir -p target/release && cp .gpu/bin/simdx target/release/simdx  # where the CLI tests look for it
bash .gpu/run.sh 2>&1 | tail -3
dir=$(mktemp -d)
for spec in kron:10 kron:20:w grid:1024x1024 kron:22:w urand:22:w grid:2048x2048; do
  $bin gen "$spec" -o "$dir/${spec//:/_}.sxg" >/dev/null
done
for fusion in all push-pull none; do
  for tool in memcheck racecheck; do
    printf 'sanitizer %-9s pr %-9s: ' "$tool" "$fusion"
    compute-sanitizer --tool "$tool" --error-exitcode 9 $bin run pr "$dir/kron_10.sxg" --backend cuda --fusion $fusion \
      --validate >"$dir/san.txt" 2>&1
    echo "exit $? / $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$dir/san.txt" | head -1) / $(grep -c passed "$dir/san.txt") validated"
  done
done
for name in kron_20_w grid_1024x1024; do
  $bin run pr "$dir/$name.sxg" --backend cuda --validate --trace | awk 'NR <= 4 || /validation/'
done
$bin bench --algorithms pr --graphs "$dir/kron_22_w.sxg,$dir/urand_22_w.sxg,$dir/grid_2048x2048.sxg" --backends cuda \
  --fusions all,none --trials "$trials" --json "$out/pagerank20.json"
for name in kron_22_w urand_22_w grid_2048x2048; do
  for fusion in all none; do
    printf '%-15s %-5s ' "$name" "$fusion"
    $bin run pr "$dir/$name.sxg" --backend cuda --fusion $fusion --trials "$trials" | head -1
  done
done
