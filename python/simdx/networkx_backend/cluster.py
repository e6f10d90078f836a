"""networkx's triangle counts and (unweighted, undirected) clustering on simdx: ``simdx.triangles``
counts each vertex's triangles by sorted-list intersections (on the package's device,
``SIMDX_NETWORKX_DEVICE``: the GPU where one is usable, else the CPU); transitivity and the clustering
coefficients follow from them and the degrees, with networkx's formulas and number types."""

from __future__ import annotations

from typing import Any, Dict, Hashable, List, Tuple

import networkx as nx
import numpy as np

import simdx

from .graph import DEVICE, SimdxGraph


def _counts(G: SimdxGraph) -> np.ndarray:
    """Each vertex's triangles (int64); self-loops and parallel edges do not count."""
    if G.directed:
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    return simdx.triangles(G.simdx_graph(), backend=DEVICE).astype(np.int64)


def _degrees(G: SimdxGraph) -> np.ndarray:
    """Each vertex's number of distinct neighbours other than itself (networkx's ``len(set(G[v]) - {v})``)."""
    degrees = np.diff(G.nbr_indptr)
    loops = np.unique(G.arc_src[G.arc_src == G.arc_dst])
    degrees[loops] -= 1
    return degrees


def _chosen(G: SimdxGraph, nodes: Any) -> Tuple[List[Hashable], np.ndarray]:
    """The nodes of ``nodes`` (all when ``None``; networkx's ``nbunch_iter``) and their numbers."""
    if nodes is None:
        return G.nodes, np.arange(len(G))
    chosen = list(G.graph.nbunch_iter(nodes))
    return chosen, G.ids_of(chosen)


def triangles(G: SimdxGraph, nodes: Any = None) -> Any:
    """``{node: triangles}`` for the nodes of ``nodes`` (default: all), or one count when ``nodes`` is a
    node. Undirected graphs only."""
    if nodes is not None and G.multigraph:
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")
    counts = _counts(G)
    if nodes is not None and nodes in G:
        return int(counts[G.index[nodes]])
    chosen, ids = _chosen(G, nodes)
    return dict(zip(chosen, counts[ids].tolist()))


def transitivity(G: SimdxGraph) -> Any:
    """The fraction of connected triples that are triangles: 3 * triangles / triads (0 without any)."""
    if len(G) == 0:
        return 0
    triangles = 2 * int(_counts(G).sum())
    degrees = _degrees(G)
    triads = int((degrees * (degrees - 1)).sum())
    return 0 if triangles == 0 else triangles / triads


def clustering(G: SimdxGraph, nodes: Any = None, weight: Any = None) -> Any:
    """``{node: clustering coefficient}`` (``2 T(v) / (deg(v) (deg(v) - 1))``, 0 without triangles)
    for the nodes of ``nodes`` (default: all), or one value when ``nodes`` is a node. Unweighted,
    undirected graphs only."""
    if weight is not None:
        raise NotImplementedError("simdx's clustering is unweighted")
    chosen, ids = _chosen(G, nodes if nodes is None or nodes not in G else [nodes])
    twice = 2 * _counts(G)[ids]
    degrees = _degrees(G)[ids]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = twice / (degrees * (degrees - 1))
    values: Dict[Hashable, Any] = {
        node: 0 if t == 0 else r for node, t, r in zip(chosen, twice.tolist(), ratios.tolist())
    }
    if nodes is not None and nodes in G:
        return values[nodes]
    return values


def average_clustering(G: SimdxGraph, nodes: Any = None, weight: Any = None, count_zeros: bool = True) -> float:
    """The mean clustering coefficient of the nodes of ``nodes`` (default: all), leaving out zeros
    unless ``count_zeros``; raises ``ZeroDivisionError`` when no node is left, as networkx does."""
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)
