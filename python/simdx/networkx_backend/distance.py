"""networkx's ``eccentricity`` and ``diameter`` on simdx: hop counts by ``simdx.eccentricity`` (64
breadth-first searches per pass) once every node asked about is known to reach every other, and
weighted lengths by one ``simdx.sssp`` per node (integer weights)."""

from __future__ import annotations

from typing import Any, Dict, Hashable, List, Optional

import networkx as nx
import numpy as np

import simdx

from .graph import DEVICE, SimdxGraph

#: Sources per multi-source search when checking what each of a few nodes reaches.
_BATCH = 64


def _unreachable_error(G: SimdxGraph) -> nx.NetworkXError:
    """networkx's error for a node that does not reach every other."""
    if G.directed:
        return nx.NetworkXError("Found infinite path length because the digraph is not strongly connected")
    return nx.NetworkXError("Found infinite path length because the graph is not connected")


def _check_reach_all(G: SimdxGraph, ids: np.ndarray) -> None:
    """Raises networkx's error unless each vertex of ``ids`` reaches every vertex: on an undirected
    graph, unless it is connected; on a directed one, by a search each way from one vertex when all
    are asked about (strong connectivity), else by searches from the vertices asked about."""
    if not G.directed:
        if not (simdx.wcc(G.simdx_graph(), backend=DEVICE) == 0).all():
            raise _unreachable_error(G)
        return
    if len(ids) == len(G):
        for reverse in (False, True):
            if not (simdx.bfs(G.simdx_graph(reverse=reverse), 0, backend=DEVICE) >= 0).all():
                raise _unreachable_error(G)
        return
    for start in range(0, len(ids), _BATCH):
        if not (simdx.msbfs(G.simdx_graph(), ids[start : start + _BATCH], backend=DEVICE) >= 0).all():
            raise _unreachable_error(G)


def _weighted(G: SimdxGraph, ids: np.ndarray) -> List[Any]:
    """The largest shortest-path length from each of ``ids``, by ``simdx.sssp`` (integer weights)."""
    weights = G.weights
    if (
        weights is not None
        and weights.size
        and not ((weights >= 0).all() and (weights < 2**32).all() and (weights == np.round(weights)).all())
    ):
        raise NotImplementedError("simdx's shortest paths take integer weights in [0, 2**32)")
    cast = int if G.weights_are_ints else float
    g = G.simdx_graph("int")
    values = []
    for vertex in ids.tolist():
        distances = simdx.sssp(g, vertex, backend=DEVICE)
        if not np.isfinite(distances).all():
            raise _unreachable_error(G)
        values.append(cast(distances.max()))
    return values


def eccentricity(G: SimdxGraph, v: Any = None, sp: Any = None, weight: Optional[str] = None) -> Any:
    """``{node: eccentricity}`` (the longest shortest path to another node: hops, or ``weight``'s
    lengths) for the nodes of ``v`` (a node, nodes, or all); one value when ``v`` is a node. Raises
    ``NetworkXError`` when a node asked about does not reach every other. ``sp=None`` only."""
    if sp is not None:
        raise NotImplementedError("simdx computes the distances itself (sp=None)")
    if G.weights_unusable is not None and weight is not None:
        raise NotImplementedError(G.weights_unusable)
    single = v in G
    nodes = [v] if single else list(G.graph.nbunch_iter(v))
    if not nodes:
        return {}
    ids = G.ids_of(nodes)
    if weight is not None and G.uniform_weight() != 1.0:
        values = _weighted(G, ids)
    else:
        _check_reach_all(G, ids)
        values = simdx.eccentricity(G.simdx_graph(), ids if v is not None else None, backend=DEVICE).tolist()
    result: Dict[Hashable, Any] = dict(zip(nodes, values))
    return result[v] if single else result


def diameter(
    G: SimdxGraph, e: Optional[Dict[Hashable, int]] = None, usebounds: bool = False, weight: Any = None
) -> Any:
    """The largest eccentricity (``e``, or computed; ``usebounds`` gives the same value and is not
    needed here)."""
    if e is None:
        e = eccentricity(G, weight=weight)
    return max(e.values())
