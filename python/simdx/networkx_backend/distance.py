"""networkx's ``eccentricity`` and ``diameter`` on simdx (unweighted): ``simdx.eccentricity``, 64
breadth-first searches per pass, after checking that every node reaches every other (``simdx.wcc``
on an undirected graph, a search each way from one node on a directed one)."""

from __future__ import annotations

from typing import Any, Dict, Hashable, Optional

import networkx as nx
import simdx

from .graph import DEVICE, SimdxGraph


def _check_reaches_all(G: SimdxGraph) -> None:
    """Raises networkx's error for an infinite path length unless every node reaches every other."""
    if G.directed:
        ok = all((simdx.bfs(G.simdx_graph(reverse=rev), 0, backend=DEVICE) >= 0).all() for rev in (False, True))
        if not ok:
            raise nx.NetworkXError("Found infinite path length because the digraph is not strongly connected")
    elif not (simdx.wcc(G.simdx_graph(), backend=DEVICE) == 0).all():
        raise nx.NetworkXError("Found infinite path length because the graph is not connected")


def eccentricity(G: SimdxGraph, v: Any = None, sp: Any = None, weight: Optional[str] = None) -> Any:
    """``{node: eccentricity}`` (the most hops to another node) for the nodes of ``v`` (a node, nodes,
    or all); one value when ``v`` is a node. Raises ``NetworkXError`` on a graph that is not
    (strongly) connected. ``sp=None`` only; ``weight`` must give every edge weight 1."""
    if sp is not None:
        raise NotImplementedError("simdx computes the distances itself (sp=None)")
    if weight is not None and G.uniform_weight() != 1.0:
        raise NotImplementedError(f"simdx's eccentricity counts hops; the {weight!r} weights are not all 1")
    single = v in G
    nodes = [v] if single else list(G.graph.nbunch_iter(v))
    if not nodes:
        return {}
    _check_reaches_all(G)
    values = simdx.eccentricity(G.simdx_graph(), G.ids_of(nodes) if v is not None else None, backend=DEVICE)
    result: Dict[Hashable, int] = dict(zip(nodes, values.tolist()))
    return result[v] if single else result


def diameter(
    G: SimdxGraph, e: Optional[Dict[Hashable, int]] = None, usebounds: bool = False, weight: Any = None
) -> Any:
    """The largest eccentricity (``e``, or computed; ``usebounds`` gives the same value and is not
    needed here)."""
    if e is None:
        e = eccentricity(G, weight=weight)
    return max(e.values())
