#!/usr/bin/env python3
"""networkx's ``louvain_communities`` on a graph file written by ``simdx gen`` (an edge list), timed,
with its modularity; and, with ``--labels``, the modularity networkx gives to the labels that
``simdx run louvain --output`` wrote for the same graph. Used for docs/experiments/louvain.md.

Usage (in python/.venv):
    simdx gen kron:16 -o k16.el && simdx run louvain k16.el --undirected --output k16.labels
    python scripts/louvain-networkx.py k16.el --seeds 0 1 2 [--labels k16.labels] [--vertices N]
"""

from __future__ import annotations

import argparse
import time

import networkx as nx


def main() -> None:
    """Reads the graph, runs networkx's Louvain once per seed and prints one line per run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph", help="an edge list (`u v` per line, `#` comments)")
    parser.add_argument("--seeds", type=int, nargs="*", default=[0])
    parser.add_argument("--labels", help="`vertex community` lines, as `simdx run louvain --output` writes")
    parser.add_argument("--vertices", type=int, help="vertices 0..N-1 (the edge list leaves out isolated ones)")
    args = parser.parse_args()
    start = time.perf_counter()
    G = nx.read_edgelist(args.graph, nodetype=int, comments="#")
    G.remove_edges_from(nx.selfloop_edges(G))
    if args.vertices:
        G.add_nodes_from(range(args.vertices))
    print(f"{args.graph}: {G.number_of_nodes()} nodes, {G.number_of_edges()} edges, read in {time.perf_counter() - start:.1f} s", flush=True)
    if args.labels:
        groups: dict[int, set] = {}
        with open(args.labels) as f:
            for line in f:
                v, c = line.split()
                groups.setdefault(int(c), set()).add(int(v))
        q = nx.community.modularity(G, groups.values())
        print(f"simdx labels: {len(groups)} communities, networkx modularity {q:.6f}", flush=True)
    for seed in args.seeds:
        start, start_cpu = time.perf_counter(), time.process_time()
        communities = nx.community.louvain_communities(G, seed=seed)
        took, took_cpu = time.perf_counter() - start, time.process_time() - start_cpu
        q = nx.community.modularity(G, communities)
        print(
            f"networkx louvain_communities seed {seed}: {took:.2f} s ({took_cpu:.2f} s of CPU), "
            f"{len(communities)} communities, modularity {q:.6f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
