"""networkx's ``pagerank`` on simdx: simdx's PageRank program when the surfer's jumps are uniform and
every edge weighs the same, otherwise networkx's power iteration with each step's ``x @ A`` done by
simdx's weighted sparse matrix-vector product (``simdx.spmv``)."""

from __future__ import annotations

from typing import Any, Dict, Hashable, Optional

import networkx as nx
import numpy as np

import simdx

from .graph import DEVICE, SimdxGraph


def _vector(graph: SimdxGraph, values: Dict[Hashable, Any]) -> np.ndarray:
    """A float64 vector from ``{node: value}``, 0 where a node is missing."""
    return np.array([values.get(node, 0) for node in graph.nodes], dtype=float)


def pagerank(
    G: SimdxGraph,
    alpha: float = 0.85,
    personalization: Optional[Dict[Hashable, float]] = None,
    max_iter: int = 100,
    tol: float = 1.0e-6,
    nstart: Optional[Dict[Hashable, float]] = None,
    weight: Optional[str] = "weight",
    dangling: Optional[Dict[Hashable, float]] = None,
) -> Dict[Hashable, float]:
    """PageRank as networkx computes it: ``{node: rank}``, the ranks summing to 1, an undirected edge
    followed both ways, ``weight`` (summed over parallel edges) weighting the out-edges; raises
    ``PowerIterationFailedConvergence`` when ``max_iter`` iterations do not bring the L1 change under
    ``len(G) * tol``."""
    n = len(G)
    if n == 0:
        return {}
    if G.weights_unusable is not None:
        raise NotImplementedError(G.weights_unusable)
    uniform = G.uniform_weight() if weight is not None else 1.0
    plain = personalization is None and nstart is None and dangling is None
    if plain and uniform is not None and uniform > 0 and 0 <= alpha < 1 and max_iter >= 0:
        g = G.simdx_graph(duplicates=True)
        ranks, stats = simdx.pagerank(
            g,
            damping=alpha,
            tolerance=n * tol,
            max_iterations=max_iter + 1,
            backend=DEVICE,
            return_stats=True,
        )
        # One iteration more than allowed was granted: a run that needed it did not converge in time.
        if stats["iterations"] > max_iter:
            raise nx.PowerIterationFailedConvergence(max_iter)
        return dict(zip(G.nodes, ranks.tolist()))
    return _power_iteration(G, alpha, personalization, max_iter, tol, nstart, weight, dangling)


def _power_iteration(
    G: SimdxGraph,
    alpha: float,
    personalization: Optional[Dict[Hashable, float]],
    max_iter: int,
    tol: float,
    nstart: Optional[Dict[Hashable, float]],
    weight: Optional[str],
    dangling: Optional[Dict[Hashable, float]],
) -> Dict[Hashable, float]:
    """networkx's power iteration (``_pagerank_scipy``), ``x @ A`` by ``simdx.spmv`` on the weighted
    graph (parallel edges kept, so their weights add up as in networkx's adjacency matrix), iterated
    on the changes of ``x``."""
    n = len(G)
    if weight is None or G.weights is None:
        g = G.simdx_graph(duplicates=True)
    else:
        if not np.isfinite(G.weights).all() or (G.weights < 0).any():
            raise NotImplementedError("simdx takes finite, non-negative weights")
        g = G.simdx_graph("float", duplicates=True)
    indptr, _, arc_weights = g.csr()
    sources = np.repeat(np.arange(n), np.diff(indptr.astype(np.int64)))
    out_weight = np.bincount(sources, weights=arc_weights, minlength=n).astype(float)
    is_dangling = out_weight == 0
    scale = np.divide(1.0, out_weight, out=np.zeros(n), where=~is_dangling)
    if nstart is None:
        x = np.repeat(1.0 / n, n)
    else:
        x = _vector(G, nstart)
        x /= x.sum()
    if personalization is None:
        p = np.repeat(1.0 / n, n)
    else:
        p = _vector(G, personalization)
        if p.sum() == 0:
            raise ZeroDivisionError
        p /= p.sum()
    if dangling is None:
        dangling_weights = p
    else:
        dangling_weights = _vector(G, dangling)
        dangling_weights /= dangling_weights.sum()

    def step(v: np.ndarray) -> np.ndarray:
        spread = simdx.spmv(g, v * scale, backend=DEVICE)
        return alpha * (spread + v[is_dangling].sum() * dangling_weights)

    # The iteration is linear in its changes: after the first, each change is the last one times the
    # matrix, so simdx multiplies the changes, small numbers whose float32 rounding shrinks with them
    # (the iterates themselves would carry float32's rounding into every step and stall above a
    # tight tolerance).
    change = step(x) + (1 - alpha) * p - x
    for iteration in range(max_iter):
        if iteration:
            change = step(change)
        x = x + change
        if np.absolute(change).sum() < n * tol:
            return dict(zip(G.nodes, x.tolist()))
    raise nx.PowerIterationFailedConvergence(max_iter)
