"""networkx's ``louvain_communities`` on simdx: ``simdx.louvain`` (parallel Louvain on the CPU, the
vertex orders shuffled from a seed) labels every vertex, and the labels become sets of nodes."""

from __future__ import annotations

from typing import Any, Hashable, List, Optional, Set

import numpy as np

import simdx

from .components import _components
from .graph import SimdxGraph


def _seed(seed: Any) -> int:
    """simdx's seed from networkx's: ``py_random_state`` hands the backend a ``random.Random`` (made
    from the integer given, or the global one for ``None``), from which 64 bits are drawn, so that
    the same integer seed gives the same communities."""
    if hasattr(seed, "getrandbits"):
        return int(seed.getrandbits(64))
    return 0 if seed is None else int(seed) % 2**64


def louvain_communities(
    G: SimdxGraph,
    weight: Optional[str] = "weight",
    resolution: float = 1,
    threshold: float = 1e-07,
    max_level: Optional[int] = None,
    seed: Any = None,
) -> List[Set[Hashable]]:
    """Louvain communities of an undirected graph as a list of sets of nodes (ordered by their first
    node in ``list(G)``), ``weight`` (summed over parallel edges) weighting the edges. A level's sweeps
    stop once one gains at most ``threshold``, and levels go on until one moves nothing (or
    ``max_level`` levels), so the modularity is networkx's or better rather than the same partition."""
    if max_level is not None and max_level <= 0:
        raise ValueError("max_level argument must be a positive integer or None")
    g = G.simdx_graph("float" if weight is not None else None, duplicates=True)
    labels = simdx.louvain(g, resolution, seed=_seed(seed), threshold=threshold, max_level=max_level)
    # Communities are numbered in the order of their smallest vertex, so each one's first position in
    # ``labels`` is its smallest vertex: the name ``_components`` expects.
    _, smallest = np.unique(labels, return_index=True)
    return _components(G, smallest[labels])
