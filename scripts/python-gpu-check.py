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
    _, stats = simdx.bfs(g, source, return_stats=True)
    check("auto", stats["backend"] == "cuda" and stats["fallback"] is None, f"on {spec}: {stats['backend']}")
print(f"{failures} failures")
sys.exit(1 if failures else 0)
