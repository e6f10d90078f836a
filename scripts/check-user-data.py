#!/usr/bin/env python3
"""Checks `simdx run` with a user's data against scipy and networkx on generated graphs:
spmv --input (scipy's A.T @ x, 1e-5 relative), ppr --sources (networkx pagerank with that
personalization, 1e-4 L1), and bfs / sssp --sources (networkx multi-source BFS / Dijkstra, exact).

Usage: python3 scripts/check-user-data.py [SIMDX_BINARY] [--backend auto|cpu|cuda]
Needs numpy, scipy and networkx (pip install numpy scipy networkx). Prints one line per check and
exits 1 if any fails.
"""
import os
import subprocess
import sys
import tempfile

import networkx as nx
import numpy as np
import scipy.sparse as sp

simdx = next((a for a in sys.argv[1:] if not a.startswith("--") and a not in ("auto", "cpu", "cuda")), "target/release/simdx")
backend = sys.argv[sys.argv.index("--backend") + 1] if "--backend" in sys.argv else "auto"
tmp = tempfile.mkdtemp(prefix="simdx-check-")
failed = False


def run(*args):
    out = subprocess.run([simdx, *args, "--backend", backend], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"simdx {' '.join(args)} failed: {out.stderr}")
    return out.stdout


def values(path):
    v = {}
    for line in open(path):
        i, x = line.split()
        v[int(i)] = float("inf") if x == "inf" else float(x)
    return np.array([v[i] for i in range(len(v))])


def report(name, ok, detail):
    global failed
    failed |= not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {detail}")


def edges_of(spec, weighted):
    """The graph of a generator spec as arcs (u, v, w), written by simdx itself."""
    path = os.path.join(tmp, spec.replace(":", "_") + (".wel" if weighted else ".el"))
    subprocess.run([simdx, "convert", spec, path], check=True, capture_output=True)
    arcs = [tuple(map(int, l.split())) for l in open(path) if l.strip() and not l.startswith("#")]
    return path, arcs


rng = np.random.default_rng(7)
for spec in ["kron:12:w", "urand:12:w", "grid:64x64"]:
    path, arcs = edges_of(spec, True)
    n = int(run("run", "bfs", path, "--undirected", "--source", "0").split("(")[1].split()[0])
    u = np.array([a[0] for a in arcs] + [a[1] for a in arcs if a[0] != a[1]])
    v = np.array([a[1] for a in arcs] + [a[0] for a in arcs if a[0] != a[1]])
    w = np.array([a[2] for a in arcs] + [a[2] for a in arcs if a[0] != a[1]], dtype=np.float64)
    A = sp.csr_matrix((w, (u, v)), shape=(n, n))

    x = rng.standard_normal(n).astype(np.float32)
    xfile = os.path.join(tmp, "x.txt")
    np.savetxt(xfile, x, fmt="%.9g")
    yfile = os.path.join(tmp, "y.txt")
    run("run", "spmv", path, "--undirected", "--input", xfile, "--output", yfile)
    y = values(yfile)
    want = A.T @ x.astype(np.float64)
    scale = abs(A.T) @ abs(x.astype(np.float64))
    rel = np.max(np.abs(y - want) / np.maximum(scale, 1e-30))
    report(f"spmv {spec}", rel <= 1e-5, f"largest error relative to sum |w x| {rel:.2e} (limit 1e-5)")

    G = nx.DiGraph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
    seeds = [3, 7, n // 2]
    rfile = os.path.join(tmp, "r.txt")
    run("run", "ppr", path, "--undirected", "--sources", ",".join(map(str, seeds)), "--output", rfile)
    r = values(rfile)
    p = {s: 1.0 for s in seeds}
    nxr = nx.pagerank(G, alpha=0.85, personalization=p, weight=None, tol=1e-12, max_iter=1000)
    l1 = sum(abs(r[i] - nxr[i]) for i in range(n))
    report(f"ppr {spec} seeds {seeds}", l1 <= 1e-4, f"L1 distance to networkx {l1:.2e} (limit 1e-4)")

    lfile = os.path.join(tmp, "l.txt")
    run("run", "bfs", path, "--undirected", "--sources", ",".join(map(str, seeds)), "--output", lfile)
    levels = values(lfile)
    nxl = nx.multi_source_dijkstra_path_length(G, set(seeds), weight=lambda a, b, d: 1)
    want = np.array([nxl.get(i, float("inf")) for i in range(n)])
    report(f"bfs {spec} sources {seeds}", np.array_equal(levels, want), f"{int(np.sum(levels != want))} levels differ")

    dfile = os.path.join(tmp, "d.txt")
    run("run", "sssp", path, "--undirected", "--sources", ",".join(map(str, seeds)), "--output", dfile)
    dist = values(dfile)
    nxd = nx.multi_source_dijkstra_path_length(G, set(seeds), weight="weight")
    want = np.array([nxd.get(i, float("inf")) for i in range(n)])
    report(f"sssp {spec} sources {seeds}", np.array_equal(dist, want), f"{int(np.sum(dist != want))} distances differ")

sys.exit(1 if failed else 0)
