"""networkx's shortest-path lengths, breadth-first layers, edges and trees on simdx: ``simdx.bfs`` for
hop counts (the order networkx visits nodes in follows from them and the adjacency lists, a layer at a
time), ``simdx.sssp`` (delta-stepping on integer weights) for Dijkstra's lengths."""

from __future__ import annotations

from typing import Any, Dict, Hashable, Iterable, Iterator, List, Optional, Tuple

import networkx as nx
import numpy as np

import simdx

from .graph import DEVICE, SimdxGraph


def _ordered(G: SimdxGraph, values: np.ndarray, reached: np.ndarray, cast: Any) -> Dict[Hashable, Any]:
    """``{node: value}`` for the ``reached`` vertices, nearest first (as networkx's searches list them)."""
    ids = np.flatnonzero(reached)
    ids = ids[np.argsort(values[ids], kind="stable")]
    return dict(zip(G.labels_of(ids), map(cast, values[ids].tolist())))


def single_source_shortest_path_length(G: SimdxGraph, source: Hashable, cutoff: Optional[int] = None) -> Dict:
    """``{node: hops}`` for every node ``source`` reaches (along out-edges) within ``cutoff`` hops."""
    if source not in G.index:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    levels = simdx.bfs(G.simdx_graph(), G.index[source], backend=DEVICE)
    reached = levels >= 0
    if cutoff is not None:
        reached &= (levels <= cutoff) | (levels == 0)  # the source, whatever the cutoff, as networkx
    return _ordered(G, levels, reached, int)


def _layers(
    G: SimdxGraph, sources: np.ndarray, reverse: bool = False, depth_limit: Optional[int] = None
) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
    """The layers of a breadth-first search from ``sources`` (along in-arcs with ``reverse``), each as
    networkx's search meets them: its vertices and the parent that reached each (the sources' parents
    are themselves), in the order the previous layer's adjacency lists, read in turn, first reach them.
    The levels come from ``simdx.bfs``; ``depth_limit`` stops after that many layers past the first."""
    levels = simdx.bfs(G.simdx_graph(reverse=reverse and G.directed), sources=sources, backend=DEVICE)
    indptr, indices = G.adjacency(reverse)
    layer, parents = sources, sources
    level = 0
    while layer.size:
        yield layer, parents
        level += 1
        if depth_limit is not None and level > depth_limit:
            return
        # The adjacency lists of this layer, concatenated in order: positions indptr[u]..indptr[u+1].
        starts, counts = indptr[layer], indptr[layer + 1] - indptr[layer]
        offsets = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        reached, owners = indices[offsets], np.repeat(layer, counts)
        new = levels[reached] == level
        reached, owners = reached[new], owners[new]
        _, first_seen = np.unique(reached, return_index=True)
        first_seen.sort()
        layer, parents = reached[first_seen], owners[first_seen]


def bfs_layers(G: SimdxGraph, sources: Any) -> Iterator[List[Hashable]]:
    """The layers of a breadth-first search from ``sources`` (a node or nodes), as lists of nodes,
    each in networkx's order (the order the previous layer's adjacency lists reach them in)."""
    if sources in G:
        sources = [sources]
    first = list(set(sources))
    for source in first:
        if source not in G.index:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if not first:
        return
    for layer, _ in _layers(G, G.ids_of(first)):
        yield G.labels_of(layer)


def bfs_edges(
    G: SimdxGraph,
    source: Hashable,
    reverse: bool = False,
    depth_limit: Optional[int] = None,
    sort_neighbors: Any = None,
) -> Iterator[Tuple[Hashable, Hashable]]:
    """The edges ``(parent, child)`` of a breadth-first search from ``source`` in the order networkx
    yields them (each child from the first node of the previous layer, in visiting order, that has it
    as a neighbour), along in-arcs with ``reverse`` on a directed graph, ``depth_limit`` layers deep.
    ``sort_neighbors=None`` only."""
    if sort_neighbors is not None:
        raise NotImplementedError("simdx visits neighbours in the graph's order (sort_neighbors=None)")
    if source not in G:
        kind = "digraph" if G.directed else "graph"
        raise nx.NetworkXError(f"The node {source} is not in the {kind}.")
    if depth_limit is not None and depth_limit <= 0:
        return
    layers = _layers(G, G.ids_of([source]), reverse, depth_limit)
    next(layers)
    for layer, parents in layers:
        yield from zip(G.labels_of(parents), G.labels_of(layer))


def bfs_tree(
    G: SimdxGraph,
    source: Hashable,
    reverse: bool = False,
    depth_limit: Optional[int] = None,
    sort_neighbors: Any = None,
) -> Any:
    """The breadth-first tree from ``source`` as a ``networkx.DiGraph`` (its edges those of
    :func:`bfs_edges`, added in their order)."""
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, reverse=reverse, depth_limit=depth_limit, sort_neighbors=sort_neighbors))
    return T


def _lengths(G: SimdxGraph, sources: Iterable[Hashable], cutoff: Optional[float], weight: Optional[str]) -> Dict:
    """Dijkstra's ``{node: length}`` from the nearest of ``sources``, by ``simdx.sssp``."""
    if G.weights_unusable is not None:
        raise NotImplementedError(G.weights_unusable)
    weights = G.weights if weight is not None else None
    if weights is not None and weights.size:
        if not (np.isfinite(weights).all() and (weights >= 0).all() and (weights < 2**32).all()):
            raise NotImplementedError("simdx's shortest paths take weights in [0, 2**32)")
        if (weights != np.round(weights)).any():
            raise NotImplementedError("simdx's shortest paths take integer weights")
    ids = G.ids_of(sources)
    distances = simdx.sssp(G.simdx_graph("int"), sources=ids, backend=DEVICE)
    reached = np.isfinite(distances)
    if cutoff is not None:
        reached &= distances <= cutoff
        reached[ids] = True  # the sources, whatever the cutoff, as networkx
    integers = weights is None or G.weights_are_ints
    return _ordered(G, distances, reached, int if integers else float)


def single_source_dijkstra_path_length(
    G: SimdxGraph, source: Hashable, cutoff: Optional[float] = None, weight: Optional[str] = "weight"
) -> Dict:
    """``{node: length}`` of the shortest (lightest) paths from ``source``, within ``cutoff``."""
    return multi_source_dijkstra_path_length(G, {source}, cutoff=cutoff, weight=weight)


def multi_source_dijkstra_path_length(
    G: SimdxGraph, sources: Any, cutoff: Optional[float] = None, weight: Optional[str] = "weight"
) -> Dict:
    """``{node: length}`` of the shortest paths from the nearest of ``sources``, within ``cutoff``."""
    if not sources:
        raise ValueError("sources must not be empty")
    for s in sources:
        if s not in G.index:
            raise nx.NodeNotFound(f"Node {s} not found in graph")
    return _lengths(G, sources, cutoff, weight)
