"""networkx's connected components, strongly connected components and k-cores on simdx: ``simdx.wcc``
and ``simdx.scc`` label every vertex with the smallest vertex number of its component, ``simdx.kcore``
peels the cores."""

from __future__ import annotations

from typing import Any, Dict, Hashable, Iterator, List, Optional, Set

import networkx as nx
import numpy as np

import simdx

from .graph import DEVICE, SimdxGraph, paused_gc


def _component_labels(G: SimdxGraph) -> np.ndarray:
    """Each vertex's component: the smallest vertex number in it (a directed graph's arcs taken as
    undirected edges)."""
    return simdx.wcc(G.simdx_graph(), backend=DEVICE)


def _components(G: SimdxGraph, labels: Optional[np.ndarray] = None) -> List[Set[Hashable]]:
    """The components (of ``labels``, default the weakly connected ones) as sets of nodes, by the
    first node of each in ``list(G)``, which is the order of their smallest vertex numbers, simdx's
    labels (networkx's order for connected components)."""
    if labels is None:
        labels = _component_labels(G)
    sizes = np.bincount(labels, minlength=len(G))
    roots = np.flatnonzero(sizes)
    # Every component as a set of its first node, then the larger ones filled in: graphs often have
    # many isolated nodes, and a set literal is the cheapest set Python makes. The sets make no
    # cycles; with the collector paused, making thousands of them does not trigger collections that
    # walk the whole networkx graph.
    with paused_gc():
        components = [{node} for node in G.labels_of(roots)]
        larger = np.flatnonzero(sizes[roots] > 1)
        if larger.size:
            members = np.flatnonzero(sizes[labels] > 1)
            members = members[np.argsort(labels[members], kind="stable")]
            nodes = G.labels_of(members)
            start = 0
            for position, size in zip(larger.tolist(), sizes[roots[larger]].tolist()):
                components[position] = set(nodes[start : start + size])
                start += size
    return components


def connected_components(G: SimdxGraph) -> Iterator[Set[Hashable]]:
    """A generator of the connected components of an undirected graph, each a set of nodes."""
    return iter(_components(G))


def weakly_connected_components(G: SimdxGraph) -> Iterator[Set[Hashable]]:
    """A generator of the weakly connected components of a directed graph, each a set of nodes."""
    return iter(_components(G))


def number_connected_components(G: SimdxGraph) -> int:
    """The number of connected components."""
    return int(np.unique(_component_labels(G)).size)


def is_connected(G: SimdxGraph) -> bool:
    """Whether the graph is connected; raises ``NetworkXPointlessConcept`` on the null graph."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return bool((_component_labels(G) == 0).all())


def node_connected_component(G: SimdxGraph, n: Hashable) -> Set[Hashable]:
    """The set of nodes in the component holding node ``n``."""
    vertex = G.index[n]
    labels = _component_labels(G)
    return set(G.labels_of(np.flatnonzero(labels == labels[vertex])))


def _strong_labels(G: SimdxGraph) -> np.ndarray:
    """Each vertex's strongly connected component: the smallest vertex number in it (``simdx.scc``)."""
    if not G.directed:
        raise nx.NetworkXNotImplemented("not implemented for undirected type")
    return simdx.scc(G.simdx_graph(), backend=DEVICE)


def _sinks_first(G: SimdxGraph, labels: np.ndarray) -> np.ndarray:
    """The components' labels in reverse topological order of the condensation, as Tarjan's search
    (networkx's) gives them: every component after the components it reaches. The condensation is
    peeled a layer of sinks at a time, each layer by smallest vertex number; each round costs the arcs
    into its layer."""
    n = len(labels)
    src, dst = labels[G.arc_src], labels[G.arc_dst]
    between = src != dst
    pairs = np.unique(src[between] * n + dst[between])
    src, dst = pairs // n, pairs % n
    out_degree = np.bincount(src, minlength=n)
    by_target = np.argsort(dst, kind="stable")
    predecessors = src[by_target]
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(dst, minlength=n), out=indptr[1:])
    roots = np.flatnonzero(labels == np.arange(n))
    layer = roots[out_degree[roots] == 0]
    layers = []
    while layer.size:
        layers.append(layer)
        starts, counts = indptr[layer], indptr[layer + 1] - indptr[layer]
        offsets = np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(counts.sum())
        above, arcs = np.unique(predecessors[offsets], return_counts=True)
        out_degree[above] -= arcs
        layer = above[out_degree[above] == 0]
    return np.concatenate(layers) if layers else roots


def strongly_connected_components(G: SimdxGraph) -> Iterator[Set[Hashable]]:
    """A generator of the strongly connected components of a directed graph, each a set of nodes, in
    reverse topological order as networkx's (every component after those it reaches), components
    otherwise unordered by that rule coming by their first node in ``list(G)``."""
    labels = _strong_labels(G)
    components = _components(G, labels)
    roots = np.flatnonzero(labels == np.arange(len(labels)))
    positions = np.searchsorted(roots, _sinks_first(G, labels))
    return iter([components[i] for i in positions.tolist()])


def number_strongly_connected_components(G: SimdxGraph) -> int:
    """The number of strongly connected components."""
    return int(np.unique(_strong_labels(G)).size)


def is_strongly_connected(G: SimdxGraph) -> bool:
    """Whether every node reaches every other; raises ``NetworkXPointlessConcept`` on the null graph."""
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return bool((_strong_labels(G) == 0).all())


def _check_self_loops(G: SimdxGraph) -> None:
    if (G.arc_src == G.arc_dst).any():
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G))."
        )


def _core_numbers(G: SimdxGraph) -> np.ndarray:
    """Each vertex's core number; a directed graph's degree is its in- plus out-degree, as networkx
    counts it (its arcs are taken as undirected edges, reciprocal arcs as two)."""
    _check_self_loops(G)
    if G.directed:
        return simdx.kcore(G.simdx_graph(duplicates=True, undirected=True), backend=DEVICE)
    return simdx.kcore(G.simdx_graph(), backend=DEVICE)


def core_number(G: SimdxGraph) -> Dict[Hashable, int]:
    """``{node: core number}``: the largest k for which the node is in the k-core."""
    return dict(zip(G.nodes, _core_numbers(G).tolist()))


def k_core(G: SimdxGraph, k: Optional[int] = None, core_number: Optional[Dict[Hashable, int]] = None) -> Any:
    """The k-core (the largest subgraph whose nodes all have degree k or more in it) as a networkx
    graph, a copy with all attributes; ``k`` defaults to the largest core number. ``core_number``
    gives precomputed core numbers."""
    core = core_number if core_number is not None else dict(zip(G.nodes, _core_numbers(G).tolist()))
    if k is None:
        k = max(core.values())
    return G.graph.subgraph(v for v in core if core[v] >= k).copy()
