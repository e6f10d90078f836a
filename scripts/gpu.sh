#!/usr/bin/env bash
# The GPU runner: every measurement and check simdx makes on a GPU machine, one subcommand each. It runs
# from the project root on a GPU machine that has no Rust, after the development environment's gpu-pack
# tool has gathered the CLI (.gpu/bin/simdx) and the GPU test executables (.gpu/run.sh) here; `prune`
# runs here, on the packed folder, before it is carried.
#
#   bash scripts/gpu.sh prune                          # here: keep in .gpu/ only what needs a GPU
#   bash scripts/gpu.sh tests [ARGS...]                # every packed test, the CLI tests included
#   bash scripts/gpu.sh record [trials]                # BENCHMARKS.md's GPU table of record
#   bash scripts/gpu.sh modes [trials]                 # BFS, SSSP, PageRank: fusion all / push-pull / none and the CPU
#   bash scripts/gpu.sh sanitize                       # memcheck and racecheck over every phase, each run validated
#   bash scripts/gpu.sh filters [trials]               # BFS and SSSP under every filter policy, fusion all / none
#   bash scripts/gpu.sh pagerank [trials]              # PageRank validated, 20 iterations and to tolerance
#   bash scripts/gpu.sh sssp-delta [trials] [deltas]   # SSSP's bucket width under auto and async
#   bash scripts/gpu.sh versus BEFORE AFTER [rounds] [trials]   # two CLI builds alternated on one card
#   bash scripts/gpu.sh parents [trials]               # BFS levels against BFS with parents, GPU and every CPU core
#   bash scripts/gpu.sh multi [gpus]                   # a multi-GPU host: the multi-GPU tests
#   bash scripts/gpu.sh scaling [gpus] [trials]        # a multi-GPU host: 1 against N GPUs, with the exchanges' share
#   bash scripts/gpu.sh bigger [gpus]                  # a multi-GPU host: a graph over one GPU's limit, every algorithm validated
#
# Shared settings (environment): BIN, the CLI (.gpu/bin/simdx); GRAPHS, the folder of generated graphs,
# made once and reused by every subcommand (/tmp/simdx-graphs); OUT, where JSON reports go (/tmp).
# `sanitize` is narrowed by TOOLS (memcheck racecheck), ALGOS (bfs sssp pr kcore wcc), FUSIONS (none all
# auto async; push-pull is the fifth mode) and SMALL (kron:10:w urand:10:w grid:48x48); `versus` by ALGOS
# (bfs sssp pr wcc). The big graphs are kron:22:w, urand:22:w and grid:2048x2048 (weights 1..255).
set -uo pipefail
bin=${BIN:-.gpu/bin/simdx}
out=${OUT:-/tmp}
graphs=${GRAPHS:-/tmp/simdx-graphs}
big="kron:22:w urand:22:w grid:2048x2048"

# The file name of a generator spec in $graphs: kron:22:w -> kron_22_w.
name_of() { echo "${1//:/_}"; }

# Generates each spec into $graphs unless it is there already (with CLI $gen, $bin by default).
generate() {
  local spec gen=${gen:-$bin}
  mkdir -p "$graphs"
  for spec in "$@"; do
    [ -f "$graphs/$(name_of "$spec").sxg" ] || "$gen" gen "$spec" -o "$graphs/$(name_of "$spec").sxg" >/dev/null
  done
}

# The comma-separated .sxg files of the big graphs, for `simdx bench --graphs`.
big_files() {
  local spec list=""
  for spec in $big; do list="$list,$graphs/$(name_of "$spec").sxg"; done
  echo "${list#,}"
}

# Keeps in .gpu/ only what needs a GPU: the test executables whose source (a file, or every file of a test
# folder) names the CUDA backend, the library tests of simdx-cuda and the facade, the CLI binary and the
# compile_time example, so that the folder fits what the device tool carries (64 MiB); writes
# .gpu/run-all.sh, which puts the CLI where the CLI tests look for it and runs .gpu/run.sh.
prune() {
  set -e
  cd "$(git rev-parse --show-toplevel)"
  # A test executable is a file tests/NAME.rs or a folder tests/NAME/ with a main.rs.
  local keep t src name pkg
  keep=$(for t in tests/*.rs simdx-cuda/tests/*.rs tests/*/main.rs simdx-cuda/tests/*/main.rs; do
    [ -f "$t" ] || continue
    case $t in */main.rs) src=$(dirname "$t") name=$(basename "$src") ;; *) src=$t name=$(basename "$t" .rs) ;; esac
    if grep -r -q -i "cuda\|gpu" "$src"; then echo "$name-test"; fi
  done)
  keep="$keep simdx_cuda-lib simdx-lib"
  : >.gpu/tests.keep
  while IFS=$'\t' read -r name pkg; do
    if echo " $keep " | tr '\n' ' ' | grep -q " $name "; then
      printf '%s\t%s\n' "$name" "$pkg" >>.gpu/tests.keep
    else
      rm -f ".gpu/tests/$name"
    fi
  done <.gpu/tests.tsv
  mv .gpu/tests.keep .gpu/tests.tsv
  find .gpu/bin -type f ! -name simdx ! -name compile_time -delete
  cat >.gpu/run-all.sh <<'RUN'
#!/usr/bin/env bash
# Every packed test, the CLI tests included: they run the binary cargo built, target/release/simdx.
cd "$(dirname "$0")/.." && mkdir -p target/release && cp .gpu/bin/simdx target/release/simdx && exec bash .gpu/run.sh "$@"
RUN
  echo "prune: $(wc -l <.gpu/tests.tsv) test executables, $(du -sm .gpu | cut -f1) MiB"
}

# Every packed GPU test, required to find a GPU; the CLI tests run the packed CLI from target/release.
# Four tests at a time ($TEST_THREADS): the fused SSSP hang that several test threads once met is a race
# fixed since (docs/experiments/gpu-fusion.md). The tests of a device memory limit (named
# `memory_limit`) run after, one at a time: a limit counts what the device lost since the process
# opened it, so other tests' allocations meanwhile would count against it.
tests() {
  export SIMDX_REQUIRE_GPU=1
  mkdir -p target/release && cp "$bin" target/release/simdx
  local status=0
  bash .gpu/run.sh --test-threads "${TEST_THREADS:-4}" --skip memory_limit "$@" || status=1
  bash .gpu/run.sh --test-threads 1 memory_limit "$@" || status=1
  return $status
}

# The GPU table of record (BENCHMARKS.md): the defaults against the fixed fusion modes, one call.
record() {
  local trials=${1:-5}
  generate $big
  "$bin" bench --algorithms bfs,sssp,pr,wcc --graphs "$(big_files)" --backends cuda \
    --fusions auto,async,none,all --trials "$trials" --iterations 20 --json "$out/record.json"
}

# BFS, SSSP and PageRank (20 iterations) from vertex 1 under fusion all, push-pull and none and on the CPU
# backend (all cores), one line per run and one JSON report each.
modes() {
  local trials=${1:-5} spec name algo mode backend fusion extra
  generate $big
  for spec in $big; do
    name=$(name_of "$spec")
    for algo in bfs sssp pr; do
      extra=""
      [ "$algo" = pr ] && extra="--iterations 20 --tolerance 0"
      for mode in cuda:all cuda:push-pull cuda:none cpu:none; do
        backend=${mode%%:*} fusion=${mode##*:}
        printf '%-15s %-4s %-5s %-9s ' "$name" "$algo" "$backend" "$fusion"
        # shellcheck disable=SC2086 # $extra is options, split on purpose
        "$bin" run $algo "$graphs/$name.sxg" --source 1 --backend "$backend" --fusion "$fusion" \
          --trials "$trials" $extra --json "$out/$name.$algo.$backend.$fusion.json" | head -1
      done
    done
  done
}

# compute-sanitizer over the engine's phases on small graphs, each run validated; one line per run: the
# tool's exit status, its summary line, and whether the validation passed.
sanitize() {
  local tool spec name algo fusion status extra log
  # Under racecheck a fused kernel's blocks can wait at a grid barrier longer than its 10 s watchdog.
  export SIMDX_NVRTC_DEFINES="${SIMDX_NVRTC_DEFINES:-} SX_BARRIER_WATCHDOG_NS=300000000000ull"
  local small=${SMALL:-kron:10:w urand:10:w grid:48x48}
  generate $small
  log=$(mktemp)
  for tool in ${TOOLS:-memcheck racecheck}; do
    for spec in $small; do
      name=$(name_of "$spec")
      for algo in ${ALGOS:-bfs sssp pr kcore wcc}; do
        for fusion in ${FUSIONS:-none all auto async}; do
          printf '%-9s %-11s %-6s %-9s ' "$tool" "$name" "$algo" "$fusion"
          extra=()
          # Propagating labels, so that every fusion mode applies to WCC.
          [ "$algo" = wcc ] && extra=(--labels propagate)
          compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin" run "$algo" "$graphs/$name.sxg" \
            --backend cuda --fusion "$fusion" --validate "${extra[@]}" >"$log" 2>&1
          status=$?
          echo "exit $status / $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | head -1) /" \
            "$(grep -c 'validation: passed' "$log") validated"
        done
      done
    done
  done
  rm -f "$log"
}

# BFS and SSSP on the big graphs under every filter policy x fusion all / none (JSON: filters.json), then
# BFS and SSSP validated at the defaults on kron and urand.
filters() {
  local trials=${1:-5} spec algo
  generate $big
  "$bin" bench --algorithms bfs,sssp --graphs "$(big_files)" --backends cuda --filters online,ballot,jit \
    --fusions all,none --trials "$trials" --json "$out/filters.json"
  for spec in kron:22:w urand:22:w; do
    for algo in bfs sssp; do "$bin" run $algo "$graphs/$(name_of "$spec").sxg" --backend cuda --validate | tail -1; done
  done
}

# PageRank validated on kron:20:w and grid:1024x1024 (with the first lines of its trace), then on the big
# graphs: 20 iterations under fusion all / none (`simdx bench`, JSON: pagerank20.json) and to the default
# tolerance under all / none.
pagerank() {
  local trials=${1:-5} spec name fusion
  generate kron:20:w grid:1024x1024 $big
  for spec in kron:20:w grid:1024x1024; do
    "$bin" run pr "$graphs/$(name_of "$spec").sxg" --backend cuda --validate --trace | awk 'NR <= 4 || /validation/'
  done
  "$bin" bench --algorithms pr --graphs "$(big_files)" --backends cuda --fusions all,none --trials "$trials" \
    --json "$out/pagerank20.json"
  for spec in $big; do
    name=$(name_of "$spec")
    for fusion in all none; do
      printf '%-15s %-5s ' "$name" "$fusion"
      "$bin" run pr "$graphs/$name.sxg" --backend cuda --fusion "$fusion" --trials "$trials" | head -1
    done
  done
}

# SSSP from vertex 1 on the big graphs: the default settings (JSON with the per-iteration trace), then each
# bucket width of `deltas` under `auto` and `async`.
sssp_delta() {
  local trials=${1:-5} deltas=${2:-"4 8 16 32 64 128 256 1024"} spec name delta fusion
  generate $big
  for spec in $big; do
    name=$(name_of "$spec")
    printf '%-15s default  ' "$name"
    "$bin" run sssp "$graphs/$name.sxg" --source 1 --backend cuda --trials "$trials" --json "$out/$name.sssp.json" | head -1
    for delta in $deltas; do
      for fusion in auto async; do
        printf '%-15s d=%-5s %-5s ' "$name" "$delta" "$fusion"
        "$bin" run sssp "$graphs/$name.sxg" --source 1 --backend cuda --trials "$trials" --delta "$delta" \
          --fusion "$fusion" | sed -n "1s/.*backend cuda: //p"
      done
    done
  done
}

# Two builds of the CLI alternated on the same card: for each algorithm of $ALGOS (PageRank for 20
# iterations) and big graph, BEFORE and AFTER `rounds` times each, in turn, at the default settings; one
# line per run, the reported median.
versus() {
  local before=${1:?usage: versus BEFORE AFTER [rounds] [trials]} after=${2:?usage: versus BEFORE AFTER [rounds] [trials]}
  local rounds=${3:-2} trials=${4:-5} algo spec name round b extra
  gen=$after generate $big
  for algo in ${ALGOS:-bfs sssp pr wcc}; do
    extra=""
    [ "$algo" = pr ] && extra="--iterations 20 --tolerance 0"
    for spec in $big; do
      name=$(name_of "$spec")
      for round in $(seq "$rounds"); do
        for b in "$before" "$after"; do
          printf '%-5s %-15s %-26s ' "$algo" "$name" "$(basename "$b")"
          # shellcheck disable=SC2086 # $extra is options, split on purpose
          "$b" run $algo "$graphs/$name.sxg" --backend cuda --trials "$trials" $extra | sed -n "1s/.*backend cuda: //p"
        done
      done
    done
  done
}

# Issue 57's target, BFS with parents within 10% of BFS with levels: on each big graph and backend of
# $BACKENDS (cuda cpu; the CPU on every core), levels and parents alternated, $ROUNDS (2) rounds, from the
# CLI's default source; one line per run, the reported median.
parents() {
  local trials=${1:-9} spec name backend round extra
  generate $big
  for spec in $big; do
    name=$(name_of "$spec")
    for backend in ${BACKENDS:-cuda cpu}; do
      for round in $(seq "${ROUNDS:-2}"); do
        for extra in levels --parents; do
          printf '%-15s %-4s %-9s ' "$name" "$backend" "$extra"
          [ "$extra" = levels ] && extra=""
          # shellcheck disable=SC2086 # $extra is an option or nothing
          "$bin" run bfs "$graphs/$name.sxg" --backend "$backend" --trials "$trials" $extra | sed -n "1s/.*backend [a-z]*: //p"
        done
      done
    done
  done
}

# On a host with several GPUs: the multi-GPU tests (shares over GPUs against one, a graph whose shares
# fit only as out-arcs, a share that fails aborting the others' NCCL waits, searches over GPUs), with
# `gpus` GPUs required. NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
multi() {
  local count=${1:-2} filter
  export NCCL_NVLS_ENABLE=0 SIMDX_REQUIRE_GPU=1 SIMDX_REQUIRE_GPUS=$count
  mkdir -p target/release && cp "$bin" target/release/simdx
  for filter in partitioned two_gpus a_share_that_leaves nccl gpus; do bash .gpu/run.sh --test-threads 1 "$filter"; done
}

# Issue 55's scaling runs: 1 against `gpus` GPUs alternated, $ROUNDS rounds (2): PageRank-20, BFS and SSSP
# on $SCALING_GRAPH (kron:26:w), closeness from 256 sampled sources on $SEARCH_GRAPH (kron:24); ALGOS
# narrows them (pr bfs sssp closeness), so that each call stays within the device's 10 minutes. Timed
# without profiling (its waits stop copies overlapping steps); then one profiled run per algorithm on
# `gpus` GPUs prints, per share, its iterations' time and how much went to exchanges (SIMDX_PROFILE=1).
# DELTAS (e.g. "64 256") adds SSSP runs on `gpus` GPUs with those bucket widths.
scaling() {
  local count=${1:-2} trials=${2:-3} round g algo delta
  local graph=${SCALING_GRAPH:-kron:26:w} search=${SEARCH_GRAPH:-kron:24}
  export NCCL_NVLS_ENABLE=0
  for algo in ${ALGOS:-pr bfs sssp closeness}; do
    if [ "$algo" = closeness ]; then generate "$search"; else generate "$graph"; fi
  done
  for round in $(seq "${ROUNDS:-2}"); do
    for g in 1 "$count"; do
      for algo in ${ALGOS:-pr bfs sssp closeness}; do scaling_run "$algo" "$g" "round $round" --trials "$trials"; done
    done
  done
  for delta in ${DELTAS:-}; do scaling_run sssp "$count" "delta $delta" --trials "$trials" --delta "$delta"; done
  for algo in ${ALGOS:-pr bfs sssp closeness}; do
    SIMDX_PROFILE=1 scaling_run "$algo" "$count" profiled --trials 1
  done
}

# One run of `scaling`: ALGO on G GPUs, a label, then extra CLI arguments.
scaling_run() {
  local algo=$1 g=$2 label=$3 file="$graphs/$(name_of "${SCALING_GRAPH:-kron:26:w}").sxg"
  shift 3
  local extra=("$@")
  [ "$algo" = pr ] && extra+=(--iterations 20 --tolerance 0)
  [ "$algo" = closeness ] && extra+=(--samples 256) && file="$graphs/$(name_of "${SEARCH_GRAPH:-kron:24}").sxg"
  echo "== $algo $(basename "$file" .sxg) on $g GPUs, $label"
  "$bin" run "$algo" "$file" --backend cuda --gpus "$g" "${extra[@]}" 2>&1 |
    grep -E "backend cuda|simdx profile|error" | sed "s/.*backend cuda/cuda/"
}

# Issue 55's graph bigger than one GPU: each of ALGOS (bfs sssp pr wcc kcore) under a per-GPU limit
# (--device-memory-limit) that one GPU cannot run it in, which must refuse it (before or at its run),
# then on `gpus` GPUs under the same limit, validated (the checks run on the host's cores: seconds each
# at kron:26). SSSP runs on $WEIGHTED_GRAPH (kron:26:w) under $WEIGHTED_LIMIT (30G), the others on
# $BIGGER_GRAPH (kron:26) under $BIGGER_LIMIT (15000M). The defaults come from the estimates that
# refuse a run (`share_bytes`, `DeviceGraph::bytes_needed`, `Workspace::bytes`): kron:26 (67.1M
# vertices, 1.05G edges) takes ~15.3 GiB on one GPU (graph 8.3, run arrays 7.0) and ~13.7 GiB a share on
# two (out-arcs only); kron:26:w ~38.8 GiB for SSSP on one (its arcs in weight order too) and ~25.4 GiB
# a share on two. Then SEARCHES (closeness eccentricity) from $SAMPLES (16) sources on the split graph.
# Each line is printed as it comes; each N-GPU process says how long it took.
bigger() {
  local count=${1:-2} algo spec limit extra started
  export NCCL_NVLS_ENABLE=0
  for algo in ${ALGOS:-bfs sssp pr wcc kcore}; do
    spec=${BIGGER_GRAPH:-kron:26} limit=${BIGGER_LIMIT:-15000M}
    [ "$algo" = sssp ] && spec=${WEIGHTED_GRAPH:-kron:26:w} limit=${WEIGHTED_LIMIT:-30G}
    generate "$spec"
    extra=()
    [ "$algo" = pr ] && extra=(--tolerance 1e-7)
    echo "== $algo $spec on 1 GPU limited to $limit (must be refused)"
    "$bin" --device-memory-limit "$limit" run "$algo" "$graphs/$(name_of "$spec").sxg" --backend cuda --gpus 1 \
      "${extra[@]}" 2>&1 | tail -1
    echo "== $algo $spec on $count GPUs limited to $limit each"
    started=$SECONDS
    "$bin" --device-memory-limit "$limit" run "$algo" "$graphs/$(name_of "$spec").sxg" --backend cuda \
      --gpus "$count" --validate "${extra[@]}" 2>&1 | grep -Ev "^simdx profile"
    echo "(the process took $((SECONDS - started)) s)"
  done
  # Searches on the same split graph: no GPU holds it whole under the limit, so one partitioned BFS
  # per source (SplitSearches); one GPU alone could hold it for searches, so there is no refusal to see.
  for algo in ${SEARCHES:-closeness eccentricity}; do
    spec=${BIGGER_GRAPH:-kron:26} limit=${BIGGER_LIMIT:-15000M}
    echo "== $algo from ${SAMPLES:-16} sources, $spec on $count GPUs limited to $limit each"
    started=$SECONDS
    "$bin" --device-memory-limit "$limit" run "$algo" "$graphs/$(name_of "$spec").sxg" --backend cuda \
      --gpus "$count" --samples "${SAMPLES:-16}" --validate 2>&1 | grep -Ev "^simdx profile"
    echo "(the process took $((SECONDS - started)) s)"
  done
}

command=${1:-}
[ $# -gt 0 ] && shift
case "$command" in
prune | tests | record | modes | sanitize | filters | pagerank | versus | parents | multi | scaling | bigger) "$command" "$@" ;;
sssp-delta) sssp_delta "$@" ;;
*)
  echo "usage: bash scripts/gpu.sh prune | tests | record | modes | sanitize | filters | pagerank | sssp-delta | versus BEFORE AFTER | parents [trials] | multi [gpus] | scaling [gpus] [trials] | bigger [gpus] (the script's header says more)" >&2
  exit 2
  ;;
esac
