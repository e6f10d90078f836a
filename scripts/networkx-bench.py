#!/usr/bin/env python3
"""networkx against its ``simdx`` backend on a generated graph held as a networkx graph: pagerank,
betweenness_centrality(k=256), connected_components and triangles, and strongly_connected_components
on the directed graph of the same spec (``:d`` appended), each timed in networkx and through
``backend="simdx"`` (the first call converts the graph, the later ones use networkx's cached
conversion). Prints a Markdown table.

Usage (in python/.venv):
    python scripts/networkx-bench.py [--graph kron:16] [--device cpu] [--repeat 3] [--only NAME]
        [--skip-networkx NAME]
"""

from __future__ import annotations

import argparse
import os
import time

import networkx as nx

import simdx


def timed(call, repeat=1):
    """The result of ``call()`` and the smallest of ``repeat`` timings, in seconds."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        best = min(best, time.perf_counter() - start)
    return result, best


def main() -> None:
    """Times each algorithm and prints the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", default="kron:16")
    parser.add_argument("--device", default="cpu", help="SIMDX_NETWORKX_DEVICE: auto, cpu or cuda")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="time only the functions whose names contain this")
    parser.add_argument(
        "--skip-networkx",
        help="do not time networkx itself for the functions whose names contain this (betweenness takes minutes)",
    )
    args = parser.parse_args()
    os.environ["SIMDX_NETWORKX_DEVICE"] = args.device
    nx.config.warnings_to_ignore.add("cache")
    g = simdx.generate(args.graph)
    G = nx.from_scipy_sparse_array(g.to_scipy())
    print(f"{args.graph}: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges")
    directed = {}

    def digraph():
        """The directed graph of the same spec, made when first needed."""
        if not directed:
            d = simdx.generate(args.graph + ":d")
            directed["G"] = nx.from_scipy_sparse_array(d.to_scipy(), create_using=nx.DiGraph)
            D = directed["G"]
            print(f"{args.graph}:d: {D.number_of_nodes()} nodes, {D.number_of_edges()} arcs")
        return directed["G"]

    cases = {
        "pagerank": (lambda: G, lambda backend: nx.pagerank(G, backend=backend)),
        "betweenness_centrality(k=256)": (
            lambda: G,
            lambda backend: nx.betweenness_centrality(G, k=256, seed=1, backend=backend),
        ),
        "connected_components": (lambda: G, lambda backend: list(nx.connected_components(G, backend=backend))),
        "triangles": (lambda: G, lambda backend: nx.triangles(G, backend=backend)),
        "strongly_connected_components (directed)": (
            digraph,
            lambda backend: list(nx.strongly_connected_components(digraph(), backend=backend)),
        ),
    }
    print("| function | networkx (s) | simdx, first call (s) | simdx, cached (s) | speed-up (cached) |")
    print("|---|---:|---:|---:|---:|")
    for name, (graph, call) in cases.items():
        if args.only and args.only not in name:
            continue
        graph().__networkx_cache__.clear()
        _, ours_first = timed(lambda: call("simdx"))
        _, ours = timed(lambda: call("simdx"), args.repeat)
        if args.skip_networkx and args.skip_networkx in name:
            print(f"| `{name}` | not run | {ours_first:.3f} | {ours:.4f} | |", flush=True)
            continue
        _, theirs = timed(lambda: call("networkx"))
        print(f"| `{name}` | {theirs:.3f} | {ours_first:.3f} | {ours:.4f} | {theirs / ours:.0f}x |", flush=True)


if __name__ == "__main__":
    main()
