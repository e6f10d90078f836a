#!/usr/bin/env bash
# Fuzzes every graph reader with libFuzzer (cargo fuzz; fuzz/ is its own crate): each target for
# SECONDS (default 60), starting from the seed files in fuzz/seeds/<target> and growing a corpus in
# fuzz/corpus/<target> (git-ignored). A finding stops the run and is saved under fuzz/artifacts; fix
# it and keep the input as a regression test in simdx-core/tests/graphs/bad_input.rs.
# Needs `cargo install cargo-fuzz`; on a stable toolchain RUSTC_BOOTSTRAP=1 lets it use the sanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
export RUSTC_BOOTSTRAP="${RUSTC_BOOTSTRAP:-1}"
for target in read_mtx read_el read_wel read_gr read_sxg read_el_relabel; do
    mkdir -p "fuzz/corpus/$target"
    echo "== $target, ${seconds} s"
    cargo fuzz run "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=1024 -malloc_limit_mb=1024 -timeout=5 -print_final_stats=1
done
