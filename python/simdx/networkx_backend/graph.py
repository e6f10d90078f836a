"""The backend's graph: a networkx graph read once into numpy arrays, node labels of any hashable kind
numbered 0..n-1 in ``list(G)`` order, and the :class:`simdx.Graph` forms the algorithms need, each made
when first asked for and kept (networkx keeps the converted graph in ``G.__networkx_cache__``, so a
second call on the same graph converts nothing).
"""

from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from itertools import chain
from operator import methodcaller
from typing import Any, Dict, Hashable, Iterator, List, Optional, Tuple

import numpy as np

import simdx

#: Where the backend runs simdx: "auto" (a GPU when one is usable, else the CPU), "cpu" or "cuda".
DEVICE = os.environ.get("SIMDX_NETWORKX_DEVICE", "auto")


_VALUES_KEY = "simdx_edge_values"


def edge_values(graph: Any, weight: str, default: Any, *, keep: bool = False) -> List[Any]:
    """The ``weight`` attribute (``default`` where missing) of every arc of a networkx graph in
    adjacency order: ``graph._adj[u]`` for each node ``u`` in turn (each undirected edge from both
    ends, every parallel edge of a multigraph), read in one pass of C-level iteration. ``keep`` leaves
    the values in ``graph.__networkx_cache__`` for the next call, which takes them out (``can_run``
    reads them, then the conversion of the same call uses them)."""
    cache = getattr(graph, "__networkx_cache__", None)
    kept = cache.get(_VALUES_KEY) if cache is not None else None
    if kept is not None and kept[0] == (weight, default):
        if not keep:
            del cache[_VALUES_KEY]
        return kept[1]
    arcs = chain.from_iterable(map(dict.values, graph._adj.values()))
    if graph.is_multigraph():
        arcs = chain.from_iterable(map(dict.values, arcs))
    values = list(map(methodcaller("get", weight, default), arcs))
    if keep and cache is not None:
        cache[_VALUES_KEY] = ((weight, default), values)
    return values


def drop_kept_values(graph: Any) -> None:
    """Drops the values :func:`edge_values` kept for a conversion that will not happen."""
    cache = getattr(graph, "__networkx_cache__", None)
    if cache is not None:
        cache.pop(_VALUES_KEY, None)


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
        self._pred: Optional[Tuple[np.ndarray, np.ndarray]] = None
        self._read(weight, default)

    def _read(self, weight: Optional[str], default: Any) -> None:
        index, adj, n = self.index, self.graph._adj, len(self.nodes)
        degrees = np.fromiter(map(len, adj.values()), dtype=np.int64, count=n)
        self.nbr_indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(degrees, out=self.nbr_indptr[1:])
        neighbours = chain.from_iterable(adj.values())
        if not (n and self.nodes[0] == 0 and self.nodes[-1] == n - 1 and self.nodes == list(range(n))):
            neighbours = map(index.__getitem__, neighbours)
        self.nbr_indices = np.fromiter(neighbours, dtype=np.int64, count=int(self.nbr_indptr[-1]))
        src = np.repeat(np.arange(n, dtype=np.int64), degrees)
        dst = self.nbr_indices
        if self.multigraph:
            keys = chain.from_iterable(map(dict.values, adj.values()))
            counts = np.fromiter(map(len, keys), dtype=np.int64, count=len(dst))
            src, dst = np.repeat(src, counts), np.repeat(dst, counts)
        keep = None if self.directed else src <= dst
        if keep is not None:
            src, dst = src[keep], dst[keep]
        self.arc_src, self.arc_dst = src, dst
        if weight is None:
            return
        values = edge_values(self.graph, weight, default)
        try:
            weights = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            self.weights_unusable = f"the {weight!r} attributes are not all numbers"
            return
        self.weights = weights if keep is None else weights[keep]
        self.weights_are_ints = all(issubclass(kind, (int, np.integer)) for kind in set(map(type, values)))

    def adjacency(self, reverse: bool = False) -> Tuple[np.ndarray, np.ndarray]:
        """Each node's distinct neighbours in networkx's order, as ``(indptr, indices)``: ``G[node]``
        (``nbr_indptr``/``nbr_indices``), or with ``reverse`` on a directed graph its predecessors in
        ``G.pred[node]`` order (read from the networkx graph when first asked for, then kept)."""
        if not (reverse and self.directed):
            return self.nbr_indptr, self.nbr_indices
        if self._pred is None:
            index, pred, n = self.index, self.graph._pred, len(self.nodes)
            indptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(np.fromiter(map(len, pred.values()), dtype=np.int64, count=n), out=indptr[1:])
            nodes = map(index.__getitem__, chain.from_iterable(pred.values()))
            self._pred = (indptr, np.fromiter(nodes, dtype=np.int64, count=int(indptr[-1])))
        return self._pred

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
