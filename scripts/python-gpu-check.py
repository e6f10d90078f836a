#!/usr/bin/env python3
"""The Python package on a GPU machine without pytest or networkx: every algorithm with
backend="cuda" against backend="cpu" on generated graphs (exact for integer results, 1e-5 for real
ones), and backend="auto" running on the GPU. Usage: PYTHONPATH=<folder holding simdx/> python3
scripts/python-gpu-check.py; prints one line per check and exits 1 on any difference."""

import sys

import numpy as np

import simdx

failures = 0


def check(name, ok, detail=""):
    global failures
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {name} {detail}")


for spec in ("kron:14:w", "urand:13:w", "grid:64x64"):
    g = simdx.generate(spec)
    source = int(np.argmax(g.out_degrees()))
    for name, run, exact in (
        ("bfs", lambda b: simdx.bfs(g, source, backend=b, return_stats=True), True),
        ("bfs sources", lambda b: simdx.bfs(g, sources=[0, 5, source], backend=b, return_stats=True), True),
        ("sssp", lambda b: simdx.sssp(g, source, backend=b, return_stats=True), True),
        ("pagerank", lambda b: simdx.pagerank(g, tolerance=1e-9, backend=b, return_stats=True), False),
        ("ppr", lambda b: simdx.ppr(g, [source], tolerance=1e-9, backend=b, return_stats=True), False),
        ("wcc", lambda b: simdx.wcc(g, backend=b, return_stats=True), True),
        ("kcore", lambda b: simdx.kcore(g, backend=b, return_stats=True), True),
        ("spmv", lambda b: simdx.spmv(g, np.arange(g.num_vertices) % 7 + 1.0, backend=b, return_stats=True), False),
        ("bp", lambda b: simdx.bp(g, backend=b, return_stats=True), False),
        ("msbfs", lambda b: simdx.msbfs(g, list(range(0, 700, 7)), backend=b, return_stats=True), True),
        ("closeness", lambda b: simdx.closeness(g, list(range(200)), backend=b, return_stats=True), True),
        ("eccentricity", lambda b: simdx.eccentricity(g, list(range(130)), backend=b, return_stats=True), True),
        ("betweenness", lambda b: simdx.betweenness(g, 40, seed=1, backend=b, return_stats=True), None),
    ):
        (gpu, stats), cpu = run("cuda"), run("cpu")[0]
        if exact is None:  # sums of floating-point shares, added in another order
            same = np.allclose(gpu, cpu, rtol=1e-9, atol=1e-12)
        else:
            same = np.array_equal(gpu, cpu) if exact else np.allclose(gpu, cpu, rtol=1e-5, atol=1e-6)
        detail = f"on {spec}: {stats['backend']}, {stats['iterations']} iterations, {stats['time_s'] * 1e3:.2f} ms"
        check(name, same and stats["backend"] == "cuda", detail)
    # BFS parents: the same levels; each parent on the level above with an arc to its child.
    (parents, stats), levels = simdx.bfs_parents(g, source, backend="cuda", return_stats=True), simdx.bfs(g, source)
    indptr, indices, _ = g.csr()
    n = g.num_vertices
    arcs = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr.astype(np.int64))) * n + indices
    child = np.flatnonzero((levels > 0))
    valid = (
        np.array_equal(stats["levels"], levels)
        and parents[source] == source
        and (parents[levels < 0] == -1).all()
        and (levels[parents[child]] == levels[child] - 1).all()
        and np.isin(parents[child] * n + child, arcs).all()
    )
    check("bfs_parents", valid and stats["backend"] == "cuda", f"on {spec}: {stats['backend']}")
    if simdx.gpu_count() > 1:
        ids = list(range(300))
        values, stats = simdx.closeness(g, ids, backend="cuda", gpus="all", return_stats=True)
        same = np.array_equal(values, simdx.closeness(g, ids, backend="cpu"))
        check("closeness gpus=all", same and stats["gpus"] == simdx.gpu_count(), f"on {spec}: {stats['gpus']} GPUs")
        levels_many = simdx.msbfs(g, ids, backend="cuda", gpus=2)
        check("msbfs gpus=2", np.array_equal(levels_many, simdx.msbfs(g, ids, backend="cpu")), f"on {spec}")
    _, stats = simdx.bfs(g, source, return_stats=True)
    check("auto", stats["backend"] == "cuda" and stats["fallback"] is None, f"on {spec}: {stats['backend']}")
network = simdx.generate("mlp:784,256,10")
gpu, stats = simdx.mlp(network, bias=-0.5, backend="cuda", return_stats=True)
cpu = simdx.mlp(network, bias=-0.5, backend="cpu")
check("mlp", np.allclose(gpu, cpu, rtol=1e-5, atol=1e-6) and stats["backend"] == "cuda", "on mlp:784,256,10")
print(f"{failures} failures")
sys.exit(1 if failures else 0)
