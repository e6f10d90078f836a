"""Which calls the ``simdx`` backend takes (``can_run``) and which it should take (``should_run``).

``can_run`` refuses the arguments simdx does not implement, so that networkx runs those calls: a
weight given as a function, weights that are not numbers, negative or (for shortest paths,
eccentricity and diameter) not integers below 2**32, weighted betweenness, closeness and harmonic
centrality (simdx's searches count hops; weights that are all 1 are accepted, and all equal for
betweenness),
``endpoints=True``, ``wf_improved=False``, ``harmonic_centrality(sources=...)``,
``eccentricity(sp=...)``, ``bfs_edges``/``bfs_tree`` with ``sort_neighbors``, weighted clustering,
``louvain_communities`` on directed graphs or with a negative resolution or threshold, and the graphs
networkx itself refuses (directed ones for triangles, clustering and Jaccard
coefficients, multigraphs where networkx raises, undirected ones for strong connectivity), so that
networkx raises its own errors. What it learns about a graph's weights is kept in
``G.__networkx_cache__`` (which networkx empties when the graph changes), so repeated calls do not
read the edges again, and the values it read wait there for the conversion of the same call (one pass
over the edges, not two). ``should_run`` declines graphs too small for simdx to gain.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple, Union

import numpy as np

from .graph import SimdxGraph, drop_kept_values, edge_values

#: Graphs with fewer nodes plus edges than this are left to networkx unless simdx is asked for by name.
MIN_SIZE = int(os.environ.get("SIMDX_NETWORKX_MIN_SIZE", "2000"))

_CACHE_KEY = "simdx_edge_weights"


@dataclass(frozen=True)
class Weights:
    """What simdx needs to know of one edge attribute's values (``default`` where an edge lacks it)."""

    #: Every value is a real number (bools and ints included).
    numbers: bool
    #: Every value is finite and non-negative.
    non_negative: bool
    #: Every value is an integer in [0, 2**32).
    small_integers: bool
    #: The one value all edges have, or ``None`` when they differ (1.0 for a graph without edges).
    uniform: Optional[float]

    @classmethod
    def of(cls, values: Any) -> "Weights":
        """The summary of a sequence (or float array) of edge attribute values."""
        try:
            array = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            return cls(False, False, False, None)
        if array.size == 0:
            return cls(True, True, True, 1.0)
        non_negative = bool(np.isfinite(array).all() and (array >= 0).all())
        small = non_negative and bool((array < 2**32).all() and (array == np.round(array)).all())
        low, high = float(array.min()), float(array.max())
        return cls(True, non_negative, small, low if low == high else None)


def edge_weights(G: Any, attribute: str) -> Weights:
    """The summary of ``G``'s ``attribute`` values (1 where missing), kept in ``G.__networkx_cache__``."""
    if isinstance(G, SimdxGraph):
        if G.weight != attribute or G.weights_unusable:
            return Weights(False, False, False, None)
        return Weights.of(G.weights if G.weights is not None else [])
    cache = getattr(G, "__networkx_cache__", None)
    known = cache.get(_CACHE_KEY, {}).get(attribute) if cache is not None else None
    if known is not None:
        return known
    summary = Weights.of(edge_values(G, attribute, 1, keep=True))
    if cache is not None:
        cache.setdefault(_CACHE_KEY, {})[attribute] = summary
    return summary


Verdict = Union[bool, str]


def _weight_rule(need: Callable[[Weights], Optional[str]]) -> Callable[[Any, Any], Verdict]:
    """A check of a weight argument: ``None`` passes, a function is refused, an attribute name passes
    when ``need`` finds nothing wrong with its values."""

    def check(G: Any, weight: Any) -> Verdict:
        if weight is None:
            return True
        if not isinstance(weight, str):
            return "simdx reads weights from an edge attribute, not from a function"
        summary = edge_weights(G, weight)
        if not summary.numbers:
            return f"the {weight!r} edge attributes are not all numbers"
        problem = need(summary)
        return True if problem is None else problem

    return check


_any_weights = _weight_rule(lambda w: None if w.non_negative else "simdx takes finite, non-negative weights")
_integer_weights = _weight_rule(
    lambda w: None if w.small_integers else "simdx's shortest paths take integer weights in [0, 2**32)"
)
_unit_weights = _weight_rule(lambda w: None if w.uniform == 1.0 else "simdx's searches count hops (weights not all 1)")
_equal_weights = _weight_rule(
    lambda w: None if w.uniform is not None and w.uniform > 0 else "simdx's searches count hops (weights differ)"
)


def _always(**_: Any) -> Verdict:
    return True


def _undirected(G: Any) -> Verdict:
    """Triangles are counted on undirected graphs (networkx raises on a directed one)."""
    return True if not G.is_directed() else "simdx counts triangles of undirected graphs"


def _simple_undirected(G: Any) -> Verdict:
    """Undirected graphs without parallel edges (networkx raises on the others, or computes directed
    clustering, which simdx does not)."""
    if G.is_directed():
        return "simdx computes this on undirected graphs"
    return True if not G.is_multigraph() else "networkx does not take multigraphs here"


def _directed(G: Any) -> Verdict:
    """Strong connectivity is for directed graphs (networkx raises on an undirected one)."""
    return True if G.is_directed() else "strongly connected components are for directed graphs"


def _louvain(G: Any, weight: Any, resolution: Any, threshold: Any) -> Verdict:
    """simdx's Louvain takes undirected graphs, a resolution and a threshold of at least 0 (finite),
    and finite, non-negative weights."""
    if G.is_directed():
        return "simdx's Louvain is for undirected graphs (networkx's uses directed modularity)"
    for name, value in (("resolution", resolution), ("threshold", threshold)):
        if not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
            return f"simdx's Louvain takes a finite {name} of at least 0"
    return _any_weights(G, weight)


#: Per function: a check of its bound arguments, True or the reason it cannot run.
RULES: Dict[str, Callable[..., Verdict]] = {
    "pagerank": lambda G, weight, **_: _any_weights(G, weight),
    "single_source_shortest_path_length": _always,
    "bfs_layers": _always,
    "single_source_dijkstra_path_length": lambda G, weight, **_: _integer_weights(G, weight),
    "multi_source_dijkstra_path_length": lambda G, weight, **_: _integer_weights(G, weight),
    "connected_components": _always,
    "number_connected_components": _always,
    "is_connected": _always,
    "node_connected_component": _always,
    "weakly_connected_components": _always,
    "core_number": _always,
    "k_core": _always,
    "betweenness_centrality": lambda G, weight, endpoints, **_: (
        "simdx's betweenness does not count endpoints" if endpoints else _equal_weights(G, weight)
    ),
    "closeness_centrality": lambda G, distance, wf_improved, **_: (
        _unit_weights(G, distance) if wf_improved else "simdx's closeness always uses the Wasserman-Faust scaling"
    ),
    "harmonic_centrality": lambda G, distance, sources, **_: (
        _unit_weights(G, distance) if sources is None else "simdx's harmonic centrality sums over every source"
    ),
    "eccentricity": lambda G, weight, sp, **_: (
        _integer_weights(G, weight) if sp is None else "simdx computes the distances itself (sp=None)"
    ),
    "diameter": lambda G, weight, e, **_: True if e is not None else _integer_weights(G, weight),
    "bfs_edges": lambda sort_neighbors, **_: (
        True if sort_neighbors is None else "simdx visits neighbours in the graph's order (sort_neighbors=None)"
    ),
    "bfs_tree": lambda sort_neighbors, **_: (
        True if sort_neighbors is None else "simdx visits neighbours in the graph's order (sort_neighbors=None)"
    ),
    "triangles": lambda G, nodes, **_: _undirected(G) if nodes is None else _simple_undirected(G),
    "transitivity": lambda G, **_: _simple_undirected(G),
    "clustering": lambda G, weight, **_: (
        _simple_undirected(G) if weight is None else "simdx's clustering is unweighted (weight=None)"
    ),
    "average_clustering": lambda G, weight, **_: (
        _simple_undirected(G) if weight is None else "simdx's clustering is unweighted (weight=None)"
    ),
    "jaccard_coefficient": lambda G, **_: _simple_undirected(G),
    "strongly_connected_components": lambda G, **_: _directed(G),
    "number_strongly_connected_components": lambda G, **_: _directed(G),
    "is_strongly_connected": lambda G, **_: _directed(G),
    "louvain_communities": lambda G, weight, resolution, threshold, **_: _louvain(G, weight, resolution, threshold),
}


def _bind(name: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The call's arguments by parameter name, defaults filled in (``None`` if they do not bind)."""
    from . import interface

    kwargs = {key: value for key, value in kwargs.items() if key != "backend"}
    try:
        bound = inspect.signature(getattr(interface.BackendInterface, name)).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return dict(bound.arguments)


def can_run(name: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Verdict:
    """Whether simdx implements this call: True, or a string saying why not."""
    rule = RULES.get(name)
    if rule is None:
        return f"simdx does not implement {name}"
    arguments = _bind(name, args, kwargs)
    if arguments is None:
        return "the arguments do not match networkx's signature"
    verdict = rule(**arguments)
    if verdict is not True:
        drop_kept_values(arguments["G"])
    return verdict


def should_run(name: str, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Verdict:
    """Whether simdx should take this call when not asked for by name: not on graphs with fewer than
    :data:`MIN_SIZE` nodes plus edges, where converting and launching cost more than networkx does."""
    graph = args[0] if args else kwargs.get("G")
    if graph is None or isinstance(graph, SimdxGraph) or len(graph) >= MIN_SIZE:
        return True
    size = len(graph) + graph.number_of_edges()  # counting edges takes a pass over the nodes
    if size < MIN_SIZE:
        drop_kept_values(graph)
        return f"the graph is small ({size} nodes plus edges < {MIN_SIZE}); networkx is as fast"
    return True
