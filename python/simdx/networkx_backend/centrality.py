"""networkx's betweenness, closeness and harmonic centrality on simdx (unweighted shortest paths):
``simdx.betweenness`` (Brandes, scaled as networkx scales it), ``simdx.closeness`` (with the
Wasserman-Faust correction) and ``simdx.harmonic``, 64 breadth-first searches per pass."""

from __future__ import annotations

from typing import Any, Dict, Hashable, Optional

import networkx as nx
import numpy as np

import simdx

from .graph import DEVICE, SimdxGraph


def _unit_weights(G: SimdxGraph, weight: Optional[str], what: str) -> None:
    """Refuses (``NotImplementedError``) edge weights that are not all 1: simdx's searches count hops."""
    if weight is not None and G.uniform_weight() != 1.0:
        raise NotImplementedError(f"simdx's {what} counts hops; the {weight!r} weights are not all 1")


def betweenness_centrality(
    G: SimdxGraph,
    k: Optional[int] = None,
    normalized: bool = True,
    weight: Optional[str] = None,
    endpoints: bool = False,
    seed: Any = None,
) -> Dict[Hashable, float]:
    """``{node: betweenness}`` from the shortest paths from every node, or from ``k`` sources drawn as
    networkx draws them (``seed.sample(list(G), k)``, ``seed`` a ``random.Random`` given by networkx's
    ``py_random_state``), scaled as networkx scales them. Unweighted paths (``weight`` must give
    every edge the same weight); ``endpoints=False`` only."""
    if endpoints:
        raise NotImplementedError("simdx's betweenness does not count endpoints")
    if weight is not None:
        uniform = G.uniform_weight()
        if uniform is None or uniform <= 0:
            raise NotImplementedError("simdx's betweenness counts hops; the weights differ")
    if k == len(G):
        k = None
    g = G.simdx_graph()
    if k is None:
        values = simdx.betweenness(g, normalized=normalized, backend=DEVICE) if len(G) else np.zeros(0)
    else:
        if seed is None or isinstance(seed, int):
            seed = nx.utils.create_py_random_state(seed)
        chosen = seed.sample(list(G.nodes), k)
        if not chosen:
            # networkx scales an empty sample by 1 / 0 unless there are too few nodes to scale.
            if len(G) - 1 >= 2:
                raise ZeroDivisionError("division by zero")
            return dict.fromkeys(G.nodes, 0.0)
        values = simdx.betweenness(g, sources=G.ids_of(chosen), normalized=normalized, backend=DEVICE)
    return dict(zip(G.nodes, values.tolist()))


def closeness_centrality(
    G: SimdxGraph, u: Optional[Hashable] = None, distance: Optional[str] = None, wf_improved: bool = True
) -> Any:
    """``{node: closeness}`` (from the distances *to* each node on a directed graph), with the
    Wasserman-Faust scaling for graphs that are not connected; one value when ``u`` is given.
    ``distance`` must give every edge weight 1; ``wf_improved=True`` only."""
    if not wf_improved:
        raise NotImplementedError("simdx's closeness always applies the Wasserman-Faust scaling")
    _unit_weights(G, distance, "closeness")
    if u is not None:
        if u not in G.index:
            raise nx.NodeNotFound(f"Source {u} is not in G")
        return float(simdx.closeness(G.simdx_graph(), [G.index[u]], backend=DEVICE)[0])
    if len(G) == 0:
        return {}
    return dict(zip(G.nodes, simdx.closeness(G.simdx_graph(), backend=DEVICE).tolist()))


def harmonic_centrality(
    G: SimdxGraph, nbunch: Any = None, distance: Optional[str] = None, sources: Any = None
) -> Dict[Hashable, float]:
    """``{node: harmonic centrality}`` for the nodes of ``nbunch`` (default: all): the sum of
    1 / distance from every other node that reaches it. ``sources=None`` only; ``distance`` must
    give every edge weight 1."""
    if sources is not None:
        raise NotImplementedError("simdx's harmonic centrality sums over every source")
    _unit_weights(G, distance, "harmonic centrality")
    wanted = set(G.graph.nbunch_iter(nbunch)) if nbunch is not None else None
    if not len(G) or wanted is not None and not wanted:
        return {}
    vertices = None if wanted is None else [i for i, node in enumerate(G.nodes) if node in wanted]
    values = simdx.harmonic(G.simdx_graph(), vertices, backend=DEVICE)
    nodes = G.nodes if vertices is None else G.labels_of(vertices)
    return dict(zip(nodes, values.tolist()))
