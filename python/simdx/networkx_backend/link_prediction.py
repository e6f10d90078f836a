"""networkx's ``jaccard_coefficient`` on simdx: the common neighbours of each pair by ``simdx.jaccard``
(sorted-list intersections on the package's device, ``SIMDX_NETWORKX_DEVICE``), a chunk of pairs at a
time, so that the result stays a lazy generator as networkx's is (its default pairs, every non-edge,
are quadratic in number)."""

from __future__ import annotations

from itertools import islice
from typing import Any, Hashable, Iterator, Tuple

import networkx as nx
import numpy as np

import simdx

from .graph import DEVICE, SimdxGraph

#: Pairs per call to simdx.
_CHUNK = 16384


def jaccard_coefficient(G: SimdxGraph, ebunch: Any = None) -> Iterator[Tuple[Hashable, Hashable, float]]:
    """A generator of ``(u, v, |N(u) & N(v) - {u, v}| / |N(u) | N(v)|)`` (0 where the union is empty)
    for the pairs of ``ebunch``, default every non-edge (``nx.non_edges``, in its order). Raises
    ``NodeNotFound`` at once for a pair naming a node that is not in the graph (reading ``ebunch``
    to check it, as networkx does). Undirected graphs without parallel edges only."""
    if G.directed:
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    if G.multigraph:
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")
    if ebunch is None:
        ebunch = nx.non_edges(G.graph)
    else:
        for u, v in ebunch:
            if u not in G.graph:
                raise nx.NodeNotFound(f"Node {u} not in G.")
            if v not in G.graph:
                raise nx.NodeNotFound(f"Node {v} not in G.")
    return _coefficients(G, iter(ebunch))


def _coefficients(G: SimdxGraph, pairs: Iterator[Any]) -> Iterator[Tuple[Hashable, Hashable, float]]:
    g = G.simdx_graph()
    degrees = np.diff(G.nbr_indptr)
    loops = np.zeros(len(G), dtype=bool)
    loops[G.arc_src[G.arc_src == G.arc_dst]] = True
    adj = G.graph._adj
    while True:
        chunk = list(islice(pairs, _CHUNK))
        if not chunk:
            return
        ids = G.ids_of(node for pair in chunk for node in pair).reshape(-1, 2)
        _, values = simdx.jaccard(g, ids, backend=DEVICE)
        # networkx's union is empty only where both ends have no neighbours; its 0 is then an int.
        empty = (degrees[ids[:, 0]] == 0) & (degrees[ids[:, 1]] == 0)
        # A self-loop makes simdx count the vertex as a common neighbour; networkx leaves u and v out.
        odd = loops[ids[:, 0]] | loops[ids[:, 1]]
        for (u, v), value, none, loop in zip(chunk, values.tolist(), empty.tolist(), odd.tolist()):
            if none:
                value = 0
            elif loop:
                value = len(adj[u].keys() & adj[v].keys() - {u, v}) / len(set(adj[u]) | set(adj[v]))
            yield u, v, value
