#!/usr/bin/env sh
# Lines of code of each algorithm (simdx-algos/src/*.rs except lib.rs) and of the custom-algorithm
# example: non-blank lines that are not comments (`//`, `///`, `//!`). Prints a Markdown table for README.
# Usage: sh scripts/loc.sh   (from the project root)
printf '| algorithm | file | lines of code |\n|---|---|---|\n'
for f in simdx-algos/src/*.rs examples/custom_algorithm.rs; do
  case "$f" in */lib.rs) continue ;; esac
  n=$(awk '{ sub(/^[ \t]+/, "") } $0 != "" && substr($0, 1, 2) != "//" { c++ } END { print c + 0 }' "$f")
  printf '| %s | `%s` | %s |\n' "$(basename "$f" .rs)" "$f" "$n"
done
