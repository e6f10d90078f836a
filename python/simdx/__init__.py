"""simdx: graph algorithms on NVIDIA GPUs and multicore CPUs, returning numpy arrays.

Make a graph from numpy arrays, scipy, networkx, a file or a generator, then run an algorithm::

    import simdx
    g = simdx.generate("kron:16")                  # or simdx.read("graph.mtx"), Graph.from_scipy(A), ...
    levels = simdx.bfs(g, 0)                       # numpy int64, -1 where unreached
    ranks, stats = simdx.pagerank(g, return_stats=True)
    print(stats["backend"], stats["iterations"], stats["time_s"])

Every algorithm takes ``backend="auto"`` (the GPU when this build has the CUDA backend and a GPU is
usable, otherwise the CPU with a :class:`FallbackWarning`), ``"cpu"`` or ``"cuda"``, and the engine's
options as keyword arguments: ``direction`` (``"auto"``, ``"push"``, ``"pull"``),
``direction_threshold``, ``filter`` (``"jit"``, ``"online"``, ``"ballot"``), ``fusion`` (``"auto"``,
``"none"``, ``"push-pull"``, ``"all"``), ``labels`` (``"link"``, ``"propagate"``: how ``wcc`` reaches
its labels), ``max_iterations`` and ``threads``. With
``return_stats=True`` it returns ``(values, stats)``, where ``stats`` is a dict: ``backend``,
``fallback``, ``gpus`` (how many it ran on, 0 on the CPU), ``iterations``, ``time_s``,
``edges_touched``, ``graph_edges`` and the per-iteration ``trace``.

Vertices are numbered 0 to n-1. A graph made from networkx, or read with ``relabel=True``, keeps each
vertex's name in :attr:`Graph.labels`; on such a graph sources are given by name, and
:meth:`Graph.to_dict` turns a result into ``{name: value}``.

``bp`` (belief propagation) and ``mlp`` (a layered network's forward pass) take per-vertex numpy
arrays, as ``simdx run bp --priors`` and ``simdx run mlp --input --bias`` take files.

Every function also takes ``gpus=N`` (or ``"all"``) with the CUDA backend: ``msbfs``, ``closeness``,
``harmonic``, ``eccentricity`` and ``betweenness`` split their searches over the first N GPUs of the
host, and the programs (``bfs``, ``bfs_parents``, ``sssp``, ``pagerank``, ``ppr``, ``wcc``, ``kcore``,
``spmv``, ``bp``, ``mlp``) split the graph over them, with the same results as on one GPU. ``triangle_count``, ``triangles``,
``jaccard`` and ``scc`` take ``backend`` as the others do (the GPU's sorted-list intersections and
strongly connected components give the CPU's results exactly); ``louvain`` runs on the CPU.

The package is also a networkx backend (:mod:`simdx.networkx_backend`): ``nx.pagerank(G, backend="simdx")``.
"""

from __future__ import annotations

import atexit
import os
import random
import warnings
from typing import Any, Dict, Hashable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native
from ._native import HAS_CUDA, SimdxError

# A first GPU run leaves its program's fused kernels compiling in the background for later runs; the
# interpreter waits for them when it exits, so that the kernel cache holds them for the next process.
atexit.register(_native.finish_gpu_compiles)

__all__ = [
    "Graph",
    "SimdxError",
    "FallbackWarning",
    "HAS_CUDA",
    "read",
    "generate",
    "bfs",
    "sssp",
    "pagerank",
    "ppr",
    "wcc",
    "kcore",
    "spmv",
    "bp",
    "mlp",
    "msbfs",
    "closeness",
    "harmonic",
    "eccentricity",
    "betweenness",
    "bfs_parents",
    "triangle_count",
    "triangles",
    "jaccard",
    "scc",
    "louvain",
    "gpu_count",
]

__version__ = "0.1.0"


class FallbackWarning(UserWarning):
    """``backend="auto"`` ran on the CPU: this build has no CUDA backend, or no GPU is usable."""


def _ids(name: str, values: Any) -> np.ndarray:
    """A 1-D integer array of ids, read in place when numpy already holds int32/int64/uint32/uint64."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {array.shape}")
    if array.dtype in (np.int64, np.int32, np.uint32, np.uint64):
        return np.ascontiguousarray(array)
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integer vertex ids, not {array.dtype}")
    return np.ascontiguousarray(array, dtype=np.int64)


def _weights(values: Any) -> Optional[np.ndarray]:
    """Edge weights as int64 (integer weights) or float32/float64 (real weights)."""
    if values is None:
        return None
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"weights must be one-dimensional, not of shape {array.shape}")
    if array.dtype in (np.float32, np.float64, np.int64):
        return np.ascontiguousarray(array)
    if array.dtype.kind in "iub":
        return np.ascontiguousarray(array, dtype=np.int64)
    if array.dtype.kind == "f":
        return np.ascontiguousarray(array, dtype=np.float64)
    raise TypeError(f"weights must be numbers, not {array.dtype}")


class Graph:
    """A graph held by simdx: CSR with 32-bit vertex ids and optional integer or real edge weights.

    Undirected graphs are stored with both arcs of each edge; directed graphs with out- and
    in-neighbours. Self-loops and duplicate edges are removed unless kept (a duplicate keeps its
    smallest weight). Make one with :meth:`from_edges`, :meth:`from_scipy`, :meth:`from_networkx`,
    :func:`read` or :func:`generate`. On a GPU the graph is uploaded by the first algorithm that runs
    there and stays for later calls.
    """

    __slots__ = ("_native", "labels", "_index", "_warned")

    def __init__(self, native: Any, labels: Optional[Sequence[Hashable]] = None) -> None:
        """Wraps a native graph; use the constructors above instead."""
        self._native = native
        #: Each vertex's name (from networkx, or from a relabelled edge list), or ``None``.
        self.labels: Optional[List[Hashable]] = None if labels is None else list(labels)
        self._index: Optional[Dict[Hashable, int]] = None
        self._warned = False

    @classmethod
    def from_edges(
        cls,
        src: Any,
        dst: Any,
        weights: Any = None,
        *,
        directed: bool = False,
        num_vertices: Optional[int] = None,
        keep_self_loops: bool = False,
        keep_duplicates: bool = False,
    ) -> "Graph":
        """A graph from edges ``src[i] -> dst[i]`` (arrays of vertex ids) with optional weights.

        Integer weights must lie in [0, 2**32); real ones are stored as float32 and must be finite
        and non-negative. ``num_vertices`` defaults to the largest id plus one. Undirected unless
        ``directed=True``.
        """
        src, dst = _ids("src", src), _ids("dst", dst)
        if num_vertices is None:
            num_vertices = 1 + max((int(ids.max()) for ids in (src, dst) if ids.size), default=-1)
        native = _native.Graph.from_edges(
            src, dst, _weights(weights), num_vertices, directed, keep_self_loops, keep_duplicates
        )
        return cls(native)

    @classmethod
    def from_scipy(
        cls,
        matrix: Any,
        *,
        directed: bool = True,
        weighted: bool = True,
        keep_self_loops: bool = False,
        keep_duplicates: bool = False,
    ) -> "Graph":
        """A graph from a square scipy sparse matrix: an arc ``u -> v`` for each stored ``A[u, v]``.

        The matrix's values become the weights unless ``weighted=False`` (integer dtypes give
        integer weights). With ``directed=False`` each stored entry is an undirected edge, so a
        symmetric matrix gives each edge once. CSR arrays are read in place.
        """
        import scipy.sparse

        csr = matrix if scipy.sparse.issparse(matrix) and matrix.format == "csr" else scipy.sparse.csr_array(matrix)
        rows, cols = csr.shape
        if rows != cols:
            raise ValueError(f"the matrix must be square to be a graph, not {rows} x {cols}")
        weights = _weights(csr.data) if weighted else None
        native = _native.Graph.from_csr(
            _ids("indptr", csr.indptr),
            _ids("indices", csr.indices),
            weights,
            directed,
            keep_self_loops,
            keep_duplicates,
        )
        return cls(native)

    @classmethod
    def from_networkx(cls, graph: Any, *, weight: Optional[str] = "weight") -> "Graph":
        """A graph from a networkx graph, its nodes numbered in ``list(graph)`` order (kept as
        :attr:`labels`). Directed if the networkx graph is.

        Edges take their ``weight`` attribute when at least one edge has it (others get 1, as in
        networkx); ``weight=None`` ignores weights.
        """
        nodes = list(graph)
        index = {node: i for i, node in enumerate(nodes)}
        edges = list(graph.edges(data=True))
        src = np.fromiter((index[u] for u, _, _ in edges), dtype=np.int64, count=len(edges))
        dst = np.fromiter((index[v] for _, v, _ in edges), dtype=np.int64, count=len(edges))
        weights = None
        if weight is not None and any(weight in data for _, _, data in edges):
            weights = [data.get(weight, 1) for _, _, data in edges]
        native = _native.Graph.from_edges(
            src,
            dst,
            _weights(weights),
            len(nodes),
            graph.is_directed(),
            True,
            graph.is_multigraph(),
        )
        return cls(native, nodes)

    @property
    def num_vertices(self) -> int:
        """Number of vertices."""
        return self._native.num_vertices

    @property
    def num_edges(self) -> int:
        """Number of edges (unordered pairs if undirected)."""
        return self._native.num_edges

    @property
    def num_arcs(self) -> int:
        """Number of stored arcs (twice the edges if undirected)."""
        return self._native.num_arcs

    @property
    def directed(self) -> bool:
        """Whether the graph is directed."""
        return self._native.directed

    @property
    def weights(self) -> Optional[str]:
        """``"int"``, ``"float"`` or ``None``."""
        return self._native.weights

    def __len__(self) -> int:
        return self.num_vertices

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        weights = f", {self.weights} weights" if self.weights else ""
        return f"<simdx.Graph {kind}, {self.num_vertices} vertices, {self.num_edges} edges{weights}>"

    def csr(self) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
        """The out-neighbour CSR: ``(indptr, indices, weights)``, neighbour lists sorted."""
        return self._native.csr()

    def out_degrees(self) -> np.ndarray:
        """Each vertex's number of out-arcs (neighbours, if undirected)."""
        indptr, _, _ = self.csr()
        return np.diff(indptr.astype(np.int64))

    def to_scipy(self) -> Any:
        """The adjacency matrix as a ``scipy.sparse.csr_array`` (values: weights, or 1)."""
        import scipy.sparse

        indptr, indices, weights = self.csr()
        data = np.ones(len(indices), dtype=np.float32) if weights is None else weights
        n = self.num_vertices
        return scipy.sparse.csr_array((data, indices.astype(np.int64), indptr.astype(np.int64)), shape=(n, n))

    def to_dict(self, values: Sequence[Any]) -> Dict[Hashable, Any]:
        """``{label: value}`` for a result of this graph (vertex numbers when it has no labels)."""
        names = self.labels if self.labels is not None else range(self.num_vertices)
        return dict(zip(names, values))

    def vertex(self, name: Hashable) -> int:
        """The number of the vertex called ``name`` (on a graph without labels, ``name`` itself)."""
        if self.labels is None:
            return int(name)  # type: ignore[call-overload]
        if self._index is None:
            self._index = {label: i for i, label in enumerate(self.labels)}
        for key in (name, str(name)):
            if key in self._index:
                return self._index[key]
        raise KeyError(f"the graph has no vertex called {name!r}")

    def write(self, path: Union[str, os.PathLike]) -> None:
        """Writes the graph in the format its extension names (.mtx, .el, .wel, .gr, .sxg)."""
        self._native.write(os.fspath(path))


def read(
    path: Union[str, os.PathLike],
    *,
    undirected: bool = False,
    relabel: bool = False,
    format: Optional[str] = None,
) -> Graph:
    """Reads a graph file: Matrix Market ``.mtx``, edge lists ``.el``/``.wel``, DIMACS ``.gr`` or
    simdx's binary ``.sxg`` (``format`` overrides the extension). ``undirected`` symmetrises a
    directed file; ``relabel`` numbers an edge list's ids (any numbers or names) densely and keeps
    the originals as :attr:`Graph.labels` (strings).
    """
    native, labels = _native.Graph.read(os.fspath(path), undirected, relabel, format)
    return Graph(native, labels)


def generate(spec: str, seed: int = 1) -> Graph:
    """A generated graph: ``kron:SCALE[:DEGREE]``, ``urand:SCALE[:DEGREE]``, ``rmat:...``,
    ``grid:WxH`` or ``mlp:W0,W1,...``; append ``:w`` for weights. The same seed gives the same graph.
    """
    return Graph(_native.Graph.generate(spec, seed))


Result = Union[np.ndarray, Tuple[np.ndarray, Dict[str, Any]]]


def _finish(graph: Graph, output: Tuple[np.ndarray, Dict[str, Any]], backend: str, return_stats: bool) -> Result:
    values, stats = output
    if backend == "auto" and stats["fallback"] and not graph._warned:
        graph._warned = True
        warnings.warn(f"simdx runs on the CPU: {stats['fallback']}", FallbackWarning, stacklevel=3)
    return (values, stats) if return_stats else values


def _sources(graph: Graph, source: Any, sources: Any) -> np.ndarray:
    if (source is None) == (sources is None):
        raise TypeError("give exactly one of source and sources")
    names = [source] if sources is None else list(sources)
    return np.array([graph.vertex(name) for name in names], dtype=np.int64)


def bfs(
    graph: Graph,
    source: Any = None,
    *,
    sources: Optional[Sequence[Any]] = None,
    backend: str = "auto",
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Breadth-first search: each vertex's level (hop count) from ``source``, or from the nearest of
    ``sources``, as int64; -1 where unreached."""
    ids = _sources(graph, source, sources)
    return _finish(graph, _native.bfs(graph._native, ids, backend, options), backend, return_stats)


def bfs_parents(
    graph: Graph,
    source: Any,
    *,
    backend: str = "auto",
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """The breadth-first tree from ``source``: each vertex's parent as int64, a vertex of the level
    above adjacent to it (an in-neighbour on a directed graph; the smallest-numbered such when the run
    pulls, ``direction="pull"``, except on one GPU for vertices of large in-degree, whose in-arcs are
    pulled in chunks at once; any of them otherwise); the source is its own parent, -1 where
    unreached (Graph500's output, and ``simdx run bfs --parents``'). One run gives levels and
    parents: ``stats["levels"]`` holds the levels as :func:`bfs` gives them."""
    parents, levels, stats = _native.bfs_parents(graph._native, graph.vertex(source), backend, options)
    stats["levels"] = levels
    return _finish(graph, (parents, stats), backend, return_stats)


def sssp(
    graph: Graph,
    source: Any = None,
    *,
    sources: Optional[Sequence[Any]] = None,
    delta: Optional[int] = None,
    backend: str = "auto",
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Single-source shortest paths by delta-stepping (integer weights; 1 per edge if unweighted):
    each vertex's distance from ``source``, or from the nearest of ``sources``, as float64; ``inf``
    where unreached. ``delta`` is the bucket width (default: largest weight / mean degree, wider where
    the mean degree is under 16; four times that on a GPU)."""
    ids = _sources(graph, source, sources)
    return _finish(graph, _native.sssp(graph._native, ids, delta, backend, options), backend, return_stats)


def pagerank(
    graph: Graph,
    *,
    damping: float = 0.85,
    tolerance: float = 1e-6,
    max_iterations: int = 100,
    backend: str = "auto",
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """PageRank as networkx defines it (ranks sum to 1; dangling vertices jump anywhere), float64;
    stops when the ranks change by less than ``tolerance`` (L1) or after ``max_iterations``."""
    output = _native.pagerank(graph._native, damping, tolerance, max_iterations, backend, options)
    return _finish(graph, output, backend, return_stats)


def ppr(
    graph: Graph,
    sources: Sequence[Any],
    *,
    damping: float = 0.85,
    tolerance: float = 1e-6,
    max_iterations: int = 100,
    backend: str = "auto",
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Personalized PageRank jumping to ``sources``, each alike (networkx's pagerank with that
    personalization; dangling vertices jump there too), float64."""
    ids = _sources(graph, None, sources)
    output = _native.ppr(graph._native, ids, damping, tolerance, max_iterations, backend, options)
    return _finish(graph, output, backend, return_stats)


def wcc(graph: Graph, *, backend: str = "auto", return_stats: bool = False, **options: Any) -> Result:
    """Weakly connected components: each vertex's component id, the smallest vertex number in it
    (int64). A directed graph is taken as undirected."""
    return _finish(graph, _native.wcc(graph._native, backend, options), backend, return_stats)


def kcore(
    graph: Graph,
    k: Optional[int] = None,
    *,
    backend: str = "auto",
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Without ``k``: each vertex's core number (networkx's ``core_number``), int64. With ``k``:
    whether each vertex is in the k-core, bool. A directed graph is taken as undirected."""
    if k is not None and k < 0:
        raise ValueError(f"k = {k} is negative")
    return _finish(graph, _native.kcore(graph._native, k, backend, options), backend, return_stats)


def spmv(graph: Graph, x: Any, *, backend: str = "auto", return_stats: bool = False, **options: Any) -> Result:
    """``y = A.T @ x`` for the graph's adjacency matrix ``A`` (``y[v]`` sums ``w * x[u]`` over arcs
    ``u -> v``; weight 1 on unweighted graphs), computed in float32."""
    vector = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    if vector.ndim != 1:
        raise ValueError(f"x must be one-dimensional, not of shape {vector.shape}")
    return _finish(graph, _native.spmv(graph._native, vector, backend, options), backend, return_stats)


def _per_vertex(name: str, values: Any) -> np.ndarray:
    """A 1-D float64 array of per-vertex values (the length is checked by the native side)."""
    array = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {array.shape}")
    return array


def bp(
    graph: Graph,
    priors: Any = None,
    *,
    iterations: int = 10,
    backend: str = "auto",
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Belief propagation in SIMD-X's form (``simdx run bp``): beliefs start at ``priors`` (one
    finite, non-negative value per vertex, not all 0; uniform ``1 / n`` by default), and each of the
    ``iterations`` iterations sets ``y[v] = priors[v] * sum of w * belief[u] over in-arcs u -> v`` (the
    likelihood ``w`` is the edge weight as float32, 1 on an unweighted graph), then normalises the
    beliefs to ``y / y.sum()``. Returns the beliefs, float64, summing to 1; a vertex without
    in-neighbours ends at 0. Raises ``ValueError`` where the CLI refuses: ``iterations`` below 1,
    priors negative, NaN, infinite, all 0 or not one per vertex, and a graph and priors that leave
    every belief 0 (no vertex with a positive prior receives belief along an arc of positive weight).
    """
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)):
        raise TypeError(f"iterations must be an integer, not {iterations!r}")
    if iterations < 1:
        raise ValueError(f"iterations = {iterations} is not at least 1")
    vector = None if priors is None else _per_vertex("priors", priors)
    output = _native.bp(graph._native, vector, int(iterations), backend, options)
    return _finish(graph, output, backend, return_stats)


def mlp(
    graph: Graph,
    input: Any = None,
    bias: Any = 0.0,
    *,
    backend: str = "auto",
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """The forward pass of a multi-layer perceptron laid out as a layered directed graph
    (``simdx run mlp``; ``simdx.generate("mlp:784,256,10")`` makes one): neurons are vertices, weights
    are the edge weights (1 on an unweighted graph). Input neurons, the vertices without in-arcs, hold
    ``input[v]`` (one value per vertex, the others unread; ``((v mod 10) + 1) / 10`` by default); each
    further layer becomes ``sigmoid(sum of w * x[u] over in-arcs u -> v + bias[v])``. ``bias`` is one
    number for every neuron or one value per vertex. Returns every neuron's activation, float32.
    Raises ``ValueError`` for a graph that is not a layered network (undirected, an arc that skips or
    goes back a layer, a vertex no input reaches) and for inputs or biases that are not finite float32
    values or not one per vertex."""
    vector = None if input is None else _per_vertex("input", input)
    if np.ndim(bias) == 0:
        one, each = float(bias), None
    else:
        one, each = 0.0, _per_vertex("bias", bias)
    output = _native.mlp(graph._native, vector, one, each, backend, options)
    return _finish(graph, output, backend, return_stats)


def _vertex_ids(graph: Graph, vertices: Optional[Sequence[Any]]) -> Optional[np.ndarray]:
    if vertices is None:
        return None
    return np.array([graph.vertex(name) for name in vertices], dtype=np.int64)


def _gpus(gpus: Optional[Union[int, str]]) -> Optional[int]:
    """The number of GPUs ``gpus=`` asks for: ``None`` (one), a count, or ``"all"`` (every GPU of the
    host, at least one)."""
    if gpus is None:
        return None
    if gpus == "all":
        return max(1, _native.gpu_count())
    if isinstance(gpus, bool) or not isinstance(gpus, (int, np.integer)):
        raise TypeError(f"gpus must be a number of GPUs or 'all', not {gpus!r}")
    if gpus < 1:
        raise ValueError(f"gpus = {gpus} is not at least 1")
    return int(gpus)


def msbfs(
    graph: Graph,
    sources: Sequence[Any],
    *,
    group_by: bool = False,
    backend: str = "auto",
    gpus: Optional[Union[int, str]] = None,
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Breadth-first levels from each of ``sources`` at once (64 searches per pass over the graph,
    bitwise, as iBFS): an int64 array of shape ``(num_vertices, len(sources))``, -1 where unreached.
    ``direction`` and ``direction_threshold`` choose top-down/bottom-up; ``group_by`` batches sources
    that share a highest-degree neighbour (iBFS's GroupBy)."""
    ids = _sources(graph, None, sources)
    output = _native.levels_from_each(graph._native, ids, group_by, backend, options, _gpus(gpus))
    return _finish(graph, output, backend, return_stats)


def closeness(
    graph: Graph,
    vertices: Optional[Sequence[Any]] = None,
    *,
    group_by: bool = False,
    backend: str = "auto",
    gpus: Optional[Union[int, str]] = None,
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Closeness centrality as networkx's ``closeness_centrality`` (distances to each vertex, with
    the Wasserman-Faust correction), float64, for ``vertices`` (default: all, in vertex order).
    64 searches per pass."""
    ids = _vertex_ids(graph, vertices)
    return _finish(
        graph, _native.closeness(graph._native, ids, group_by, backend, options, _gpus(gpus)), backend, return_stats
    )


def harmonic(
    graph: Graph,
    vertices: Optional[Sequence[Any]] = None,
    *,
    group_by: bool = False,
    backend: str = "auto",
    gpus: Optional[Union[int, str]] = None,
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Harmonic centrality as networkx's ``harmonic_centrality`` (the sum of 1 / distance from every
    other vertex that reaches it), float64, for ``vertices`` (default: all, in vertex order). A search
    program (``#[search_kernel]``) on the multi-source traversal, 64 searches per pass."""
    ids = _vertex_ids(graph, vertices)
    return _finish(
        graph, _native.harmonic(graph._native, ids, group_by, backend, options, _gpus(gpus)), backend, return_stats
    )


def eccentricity(
    graph: Graph,
    vertices: Optional[Sequence[Any]] = None,
    *,
    group_by: bool = False,
    backend: str = "auto",
    gpus: Optional[Union[int, str]] = None,
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Each vertex's eccentricity within what it reaches (networkx's ``eccentricity`` on a connected
    graph), int64, for ``vertices`` (default: all); the largest is the diameter."""
    ids = _vertex_ids(graph, vertices)
    output = _native.eccentricity(graph._native, ids, group_by, backend, options, _gpus(gpus))
    return _finish(graph, output, backend, return_stats)


def betweenness(
    graph: Graph,
    k: Optional[int] = None,
    *,
    sources: Optional[Sequence[Any]] = None,
    normalized: bool = True,
    seed: Optional[int] = None,
    backend: str = "auto",
    gpus: Optional[Union[int, str]] = None,
    return_stats: bool = False,
    **options: Any,
) -> Result:
    """Betweenness centrality as networkx's ``betweenness_centrality`` (3.5 and later; unweighted
    shortest paths, Brandes), float64: exact from every vertex; with ``k``, estimated from ``k``
    sources drawn as networkx draws them (``random.Random(seed).sample`` of the vertices in order) and
    scaled as networkx scales a sample (a source's own estimate from the other ``k - 1``); or from the
    given ``sources``, scaled the same way. ``normalized`` divides by the pairs that could pass
    through a vertex. On the CPU sources run in parallel; on the GPU one after another, each over the
    whole device."""
    if sources is not None and k is not None:
        raise ValueError("give k or sources, not both")
    if k is not None:
        if not 0 < k <= graph.num_vertices:
            raise ValueError(f"k = {k} is not within 1..{graph.num_vertices}")
        ids: Optional[np.ndarray] = np.array(random.Random(seed).sample(range(graph.num_vertices), k), dtype=np.int64)
    else:
        ids = _vertex_ids(graph, sources)
    output = _native.betweenness(graph._native, ids, normalized, backend, options, _gpus(gpus))
    return _finish(graph, output, backend, return_stats)


def gpu_count() -> int:
    """How many CUDA devices this host has (0 without the CUDA backend or a driver): the most
    ``gpus=`` can ask for."""
    return _native.gpu_count()


def triangle_count(graph: Graph, *, backend: str = "auto", return_stats: bool = False, **options: Any) -> Any:
    """The number of triangles of an undirected graph (each counted once; self-loops and repeated
    edges ignored), on ``backend``. Raises ``ValueError`` on a directed graph."""
    return _finish(graph, _native.triangle_count(graph._native, backend, options), backend, return_stats)


def triangles(graph: Graph, *, backend: str = "auto", return_stats: bool = False, **options: Any) -> Result:
    """The number of triangles each vertex of an undirected graph is in (networkx's ``triangles``),
    uint64, on ``backend``. Raises ``ValueError`` on a directed graph."""
    return _finish(graph, _native.triangles(graph._native, backend, options), backend, return_stats)


def jaccard(
    graph: Graph, pairs: Any = None, *, backend: str = "auto", return_stats: bool = False, **options: Any
) -> Any:
    """The Jaccard similarity ``|N(u) & N(v)| / |N(u) | N(v)|`` of vertex pairs of an undirected
    graph (0 where both have no neighbours), on ``backend``: ``(pairs, coefficients)``, the pairs an int64
    array of shape ``(k, 2)`` of vertex numbers and the coefficients float64. ``pairs`` (shape
    ``(k, 2)``; names on a graph with labels) defaults to every edge once, ``u < v``. On a graph with
    self-loops a vertex with one is its own neighbour (networkx's ``jaccard_coefficient`` leaves
    ``u`` and ``v`` out of the common neighbours). Raises ``ValueError`` on a directed graph."""
    if pairs is not None:
        if graph.labels is not None:
            pairs = [[graph.vertex(u), graph.vertex(v)] for u, v in pairs]
        array = np.asarray(pairs)
        if array.size == 0:
            array = array.reshape(0, 2)
        if array.ndim != 2 or array.shape[1] != 2:
            raise ValueError(f"pairs must have shape (k, 2), not {array.shape}")
        if array.size and array.dtype.kind not in "iu":
            raise TypeError(f"pairs must hold integer vertex ids, not {array.dtype}")
        pairs = np.ascontiguousarray(array, dtype=np.int64)
    return _finish(graph, _native.jaccard(graph._native, pairs, backend, options), backend, return_stats)


def scc(graph: Graph, *, backend: str = "auto", return_stats: bool = False, **options: Any) -> Result:
    """Strongly connected components: each vertex's component id, the smallest vertex number in it
    (int64), by the Multistep method (trimming, forward-backward from a pivot, colouring) on
    ``backend`` (the GPU's labels are the CPU's); on an undirected graph, its connected components.
    ``stats`` has ``trimmed`` (vertices placed by trimming), ``pivot_component`` (the size of the
    pivot's) and ``colour_rounds``."""
    return _finish(graph, _native.scc(graph._native, backend, options), backend, return_stats)


def louvain(
    graph: Graph,
    resolution: float = 1.0,
    *,
    seed: Optional[int] = None,
    threshold: float = 1e-7,
    max_level: Optional[int] = None,
    return_stats: bool = False,
) -> Result:
    """Louvain communities of an undirected graph (networkx's ``louvain_communities``), on the CPU:
    each vertex's community as int64, numbered in the order of the communities' smallest vertex
    numbers (vertex 0 is in community 0). Weighted graphs use their edge weights (1 per unweighted
    edge). ``resolution`` above 1 favours smaller communities; a level's sweeps stop once one raises
    the modularity by at most ``threshold``; levels go on until one moves nothing, or ``max_level``
    levels. The vertex orders are shuffled from ``seed`` (``None`` means 0): the same seed gives the
    same labels on any number of threads. ``stats`` has ``modularity``, ``communities`` and per-level
    ``levels`` (vertices, sweeps, moves, communities, modularity). Raises ``ValueError`` on a directed
    graph, a negative resolution or threshold, or ``max_level`` below 1."""
    if seed is not None and not 0 <= int(seed) < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), not {seed}")
    if max_level is not None and int(max_level) < 1:
        raise ValueError(f"max_level must be a positive integer or None, not {max_level}")
    levels = None if max_level is None else int(max_level)
    output = _native.louvain(graph._native, float(resolution), float(threshold), levels, 0 if seed is None else int(seed))
    return _finish(graph, output, "cpu", return_stats)
