#!/usr/bin/env python3
"""networkx's own tests as the oracle of the simdx networkx backend.

Runs the networkx test modules of the functions the backend implements with
``NETWORKX_TEST_BACKEND=simdx NETWORKX_FALLBACK_TO_NX=True`` (networkx converts every graph to simdx
and calls the backend, falling back to networkx where ``can_run`` refuses or simdx lacks the
function), on the CPU, one pytest run per module, and prints a Markdown table: passed, failed,
skipped and xfailed tests per module, how many calls simdx itself ran and how many its ``can_run``
refused (counted by the pytest plugin ``networkx_backend_calls.py`` next to this script), then the
reasons of the refusals and of the tests left out (``LEFT_OUT``: those that cannot hold for simdx).
Exits non-zero when a test fails.

Usage (in a virtual environment with simdx, networkx, scipy and pytest installed):
    python scripts/networkx-tests.py [--markdown FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

#: The networkx test modules that exercise the backend's functions.
MODULES = [
    "networkx.algorithms.link_analysis.tests.test_pagerank",
    "networkx.algorithms.shortest_paths.tests.test_unweighted",
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.shortest_paths.tests.test_weighted",
    "networkx.algorithms.components.tests.test_connected",
    "networkx.algorithms.components.tests.test_weakly_connected",
    "networkx.algorithms.tests.test_core",
    "networkx.algorithms.centrality.tests.test_betweenness_centrality",
    "networkx.algorithms.centrality.tests.test_closeness_centrality",
    "networkx.algorithms.centrality.tests.test_harmonic_centrality",
    "networkx.algorithms.tests.test_distance_measures",
    "networkx.algorithms.tests.test_cluster",
    "networkx.algorithms.tests.test_link_prediction",
    "networkx.algorithms.components.tests.test_strongly_connected",
    "networkx.algorithms.community.tests.test_louvain",
]

#: Tests that cannot hold for simdx, left out of their module's run (`-k "not ..."`), with the reason;
#: the table counts them and the reasons are printed under it.
LEFT_OUT = {
    "networkx.algorithms.community.tests.test_louvain": {
        "test_karate_club_partition": "an exact partition from networkx's own seeded vertex order; "
        "simdx's seeded batches reach another partition of similar modularity",
        "test_none_weight_param": "exact partitions from networkx's own seeded vertex order (as above)",
        "test_undirected_selfloops": "an exact partition from networkx's own seeded vertex order (as above)",
        "test_max_level": "compares simdx's partition with networkx's own louvain_partitions, level by level",
        "test_threshold": "simdx's threshold ends a level's passes, not the run (levels go on until one "
        "moves nothing), so a larger threshold need not lower the modularity",
    },
}

OUTCOMES = ("passed", "failed", "skipped", "xfailed", "xpassed", "error")


def run_module(module: str, calls_file: str) -> dict:
    """Runs one test module with the backend; the counts of its outcomes and of simdx's calls."""
    env = dict(
        os.environ,
        NETWORKX_TEST_BACKEND="simdx",
        NETWORKX_FALLBACK_TO_NX="True",
        SIMDX_NETWORKX_DEVICE="cpu",
        SIMDX_NETWORKX_CALLS=calls_file,
        PYTHONPATH=os.pathsep.join(filter(None, [str(Path(__file__).parent), os.environ.get("PYTHONPATH")])),
    )
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-rfE",
        "-p",
        "no:cacheprovider",
        "-p",
        "networkx_backend_calls",
        "--pyargs",
        module,
    ]
    left_out = LEFT_OUT.get(module, {})
    if left_out:
        command += ["-k", " and ".join(f"not {name}" for name in left_out)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
    counts = {outcome: 0 for outcome in OUTCOMES}
    for number, outcome in re.findall(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)", summary):
        counts["error" if outcome.startswith("error") else outcome] += int(number)
    counts["simdx_calls"], counts["refused"], counts["left_out"] = 0, {}, len(left_out)
    if os.path.exists(calls_file):
        with open(calls_file) as f:
            calls = json.load(f)
        counts["simdx_calls"], counts["refused"] = sum(calls["calls"].values()), calls["refused"]
    if done.returncode not in (0, 5):
        counts["failures"] = "\n".join(
            line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))
        )
        if not counts["failures"]:
            counts["failures"] = done.stdout[-3000:] + done.stderr[-3000:]
    return counts


def table(results: dict) -> str:
    """The Markdown table of the results."""
    lines = [
        "| networkx test module | passed | failed | skipped | xfailed | left out | calls run by simdx | "
        "refused by `can_run` |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for module, c in results.items():
        name = module.replace("networkx.algorithms.", "")
        lines.append(
            f"| `{name}` | {c['passed']} | {c['failed'] + c['error']} | {c['skipped']} | "
            f"{c['xfailed'] + c['xpassed']} | {c['left_out']} | {c['simdx_calls']} | {sum(c['refused'].values())} |"
        )
    return "\n".join(lines)


def main() -> int:
    """Runs every module, prints the table (and writes it to ``--markdown``), and fails on failures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, module in enumerate(MODULES):
            results[module] = run_module(module, os.path.join(tmp, f"calls-{i}.json"))
    text = table(results)
    print(text)
    refused = Counter()
    for counts in results.values():
        refused.update(counts["refused"])
    if refused:
        print("\nCalls refused by can_run (networkx ran them), by reason:")
        for reason, times in sorted(refused.items()):
            print(f"  {times:5}  {reason}")
    print("\nTests left out (they cannot hold for simdx), by reason:")
    for module, tests in LEFT_OUT.items():
        for name, reason in tests.items():
            print(f"  {module.replace('networkx.algorithms.', '')}::{name}: {reason}")
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    failed = {m: c["failures"] for m, c in results.items() if "failures" in c}
    for module, lines in failed.items():
        print(f"\n{module}:\n{lines}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
