"""The backend's graph: a networkx graph read once into numpy arrays, node labels of any hashable kind
numbered 0..n-1 in ``list(G)`` order, and the :class:`simdx.Graph` forms the algorithms need, each made
when first asked for and kept (networkx keeps the converted graph in ``G.__networkx_cache__``, so a
second call on the same graph converts nothing).
"""

from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from typing import Any, Dict, Hashable, Iterator, List, Optional, Tuple

import numpy as np

import simdx

#: Where the backend runs simdx: "auto" (a GPU when one is usable, else the CPU), "cpu" or "cuda".
DEVICE = os.environ.get("SIMDX_NETWORKX_DEVICE", "auto")


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pauses Python's cyclic garbage collector (if it runs) while results are built: they hold no
    cycles, and a collection triggered by many new containers walks every object of a large networkx
    graph."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class SimdxGraph:
    """A networkx graph as the ``simdx`` backend holds it.

    ``graph`` is the networkx graph itself (functions that return graphs, such as ``k_core``, take
    their subgraphs from it); ``nodes`` the node labels in vertex order and ``index`` their numbers.
    The arcs are kept in networkx's adjacency order: ``arc_src``/``arc_dst`` (every parallel edge of a
    multigraph; an undirected edge once, from its lower-numbered end) with ``weights`` (float64, from
    the edge attribute the call named, or ``None``), and ``nbr_indptr``/``nbr_indices``, each node's
    distinct neighbours (successors if directed) in ``G[node]`` order.
    """

    __networkx_backend__ = "simdx"

    def __init__(self, graph: Any, weight: Optional[str] = None, default: Any = 1) -> None:
        """Reads ``graph``'s nodes and edges, and the ``weight`` attribute of each edge if named
        (``default`` where an edge lacks it)."""
        self.graph = graph
        self.nodes: List[Hashable] = list(graph)
        self.index: Dict[Hashable, int] = {node: i for i, node in enumerate(self.nodes)}
        self.directed: bool = graph.is_directed()
        self.multigraph: bool = graph.is_multigraph()
        self.weight = weight
        self.weights: Optional[np.ndarray] = None
        #: Why the weights cannot be used by simdx (not numbers), or ``None``.
        self.weights_unusable: Optional[str] = None
        #: Whether every weight is an integer (networkx's sums of them are then ints, not floats).
        self.weights_are_ints = True
        self._forms: Dict[Tuple[Any, ...], simdx.Graph] = {}
        self._node_array: Optional[np.ndarray] = None
        self._read(weight, default)

    def _read(self, weight: Optional[str], default: Any) -> None:
        index, adj = self.index, self.graph._adj
        degrees = np.fromiter((len(nbrs) for nbrs in adj.values()), dtype=np.int64, count=len(adj))
        self.nbr_indptr = np.zeros(len(adj) + 1, dtype=np.int64)
        np.cumsum(degrees, out=self.nbr_indptr[1:])
        self.nbr_indices = np.fromiter(
            (index[v] for nbrs in adj.values() for v in nbrs), dtype=np.int64, count=int(self.nbr_indptr[-1])
        )
        src = np.repeat(np.arange(len(adj), dtype=np.int64), degrees)
        dst = self.nbr_indices
        values: Optional[List[Any]] = None
        if self.multigraph:
            counts = np.fromiter((len(keys) for nbrs in adj.values() for keys in nbrs.values()), np.int64, len(dst))
            src, dst = np.repeat(src, counts), np.repeat(dst, counts)
            if weight is not None:
                values = [
                    d.get(weight, default) for nbrs in adj.values() for keys in nbrs.values() for d in keys.values()
                ]
        elif weight is not None:
            values = [d.get(weight, default) for nbrs in adj.values() for d in nbrs.values()]
        keep = None if self.directed else src <= dst
        if keep is not None:
            src, dst = src[keep], dst[keep]
        self.arc_src, self.arc_dst = src, dst
        if values is not None:
            try:
                weights = np.asarray(values, dtype=np.float64)
            except (TypeError, ValueError):
                self.weights_unusable = f"the {weight!r} attributes are not all numbers"
                return
            self.weights = weights if keep is None else weights[keep]
            self.weights_are_ints = all(isinstance(v, (int, np.integer)) for v in values)

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, node: Any) -> bool:
        """Whether ``node`` is a node of the graph (``False`` for unhashable objects, as in networkx)."""
        try:
            return node in self.index
        except TypeError:
            return False

    def is_directed(self) -> bool:
        """Whether the graph is directed (as networkx graphs say)."""
        return self.directed

    def is_multigraph(self) -> bool:
        """Whether the graph is a multigraph (as networkx graphs say)."""
        return self.multigraph

    def uniform_weight(self) -> Optional[float]:
        """The weight every edge has when all have the same (1.0 when the call named no weight);
        ``None`` when they differ or cannot be used."""
        if self.weights_unusable is not None:
            return None
        if self.weights is None or self.weights.size == 0:
            return 1.0
        low, high = float(self.weights.min()), float(self.weights.max())
        return low if low == high else None

    def simdx_graph(
        self,
        weights: Optional[str] = None,
        *,
        duplicates: bool = False,
        undirected: bool = False,
        reverse: bool = False,
    ) -> simdx.Graph:
        """The graph as simdx holds it, made once per form: ``weights`` ``"int"`` or ``"float"`` (the
        edge weights; ``None``: unweighted), ``duplicates`` keeps a multigraph's parallel edges (else
        one arc per pair, the lightest), ``undirected`` takes a directed graph's arcs as undirected
        edges (reciprocal arcs then give two parallel edges when ``duplicates``), ``reverse`` turns
        every arc around. Self-loops are kept."""
        key = (weights, duplicates, undirected, reverse)
        made = self._forms.get(key)
        if made is None:
            src, dst = (self.arc_dst, self.arc_src) if reverse else (self.arc_src, self.arc_dst)
            values = None
            if weights is not None:
                if self.weights is None:
                    values = np.ones(len(src), dtype=np.int64 if weights == "int" else np.float64)
                else:
                    values = self.weights.astype(np.int64) if weights == "int" else self.weights
            made = simdx.Graph.from_edges(
                src,
                dst,
                values,
                directed=self.directed and not undirected,
                num_vertices=len(self.nodes),
                keep_self_loops=True,
                keep_duplicates=duplicates,
            )
            made._warned = True  # the backend's users asked networkx, not simdx, for a device
            self._forms[key] = made
        return made

    def labels_of(self, ids: Any) -> List[Hashable]:
        """The labels of vertex numbers ``ids``."""
        if self._node_array is None:
            self._node_array = np.fromiter(self.nodes, dtype=object, count=len(self.nodes))
        return self._node_array[np.asarray(ids, dtype=np.int64)].tolist()

    def ids_of(self, labels: Any) -> np.ndarray:
        """The vertex numbers of ``labels`` (each a node of the graph)."""
        index = self.index
        return np.fromiter((index[label] for label in labels), dtype=np.int64)


def convert_from_nx(
    graph: Any,
    edge_attrs: Optional[Dict[str, Any]] = None,
    node_attrs: Optional[Dict[str, Any]] = None,
    preserve_edge_attrs: bool = False,
    preserve_node_attrs: bool = False,
    preserve_graph_attrs: bool = False,
    name: Optional[str] = None,
    graph_name: Optional[str] = None,
) -> SimdxGraph:
    """networkx's conversion hook: ``graph`` as a :class:`SimdxGraph`, with the one edge attribute the
    call uses (``edge_attrs``, ``{name: default}``) as its weights. The networkx graph stays
    reachable (``SimdxGraph.graph``), so every other attribute is preserved there."""
    if isinstance(graph, SimdxGraph):
        return graph
    weight, default = None, 1
    if edge_attrs:
        if len(edge_attrs) > 1:
            raise NotImplementedError(f"simdx reads one edge attribute, not {sorted(edge_attrs)}")
        ((weight, default),) = edge_attrs.items()
    return SimdxGraph(graph, weight, 1 if default is None else default)


def convert_to_nx(obj: Any, *, name: Optional[str] = None) -> Any:
    """networkx's conversion hook back: a :class:`SimdxGraph` gives its networkx graph; results
    (dicts, sets, numbers, networkx graphs) are already networkx's and pass through."""
    if isinstance(obj, SimdxGraph):
        return obj.graph
    return obj
