"""Type stubs of ``simdx._native``, the Rust extension behind :mod:`simdx` (use :mod:`simdx` itself)."""

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

HAS_CUDA: bool
OPTIONS: str

class SimdxError(Exception):
    """Something failed inside simdx: a graph file, a run the engine refuses, the GPU."""

Output = Tuple[np.ndarray, Dict[str, Any]]

class Graph:
    @staticmethod
    def from_edges(
        src: np.ndarray,
        dst: np.ndarray,
        weights: Optional[np.ndarray],
        num_vertices: int,
        directed: bool,
        keep_self_loops: bool,
        keep_duplicates: bool,
    ) -> Graph: ...
    @staticmethod
    def from_csr(
        indptr: np.ndarray,
        indices: np.ndarray,
        weights: Optional[np.ndarray],
        directed: bool,
        keep_self_loops: bool,
        keep_duplicates: bool,
    ) -> Graph: ...
    @staticmethod
    def read(
        path: str, undirected: bool, relabel: bool, format: Optional[str]
    ) -> Tuple[Graph, Optional[List[str]]]: ...
    @staticmethod
    def generate(spec: str, seed: int) -> Graph: ...
    def write(self, path: str) -> None: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def num_arcs(self) -> int: ...
    @property
    def directed(self) -> bool: ...
    @property
    def weights(self) -> Optional[str]: ...
    def csr(self) -> Tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]: ...

def bfs(graph: Graph, sources: np.ndarray, backend: str, options: Optional[Dict[str, Any]] = None) -> Output: ...
def sssp(
    graph: Graph, sources: np.ndarray, delta: Optional[int], backend: str, options: Optional[Dict[str, Any]] = None
) -> Output: ...
def pagerank(
    graph: Graph,
    damping: float,
    tolerance: float,
    max_iterations: int,
    backend: str,
    options: Optional[Dict[str, Any]] = None,
) -> Output: ...
def ppr(
    graph: Graph,
    sources: np.ndarray,
    damping: float,
    tolerance: float,
    max_iterations: int,
    backend: str,
    options: Optional[Dict[str, Any]] = None,
) -> Output: ...
def wcc(graph: Graph, backend: str, options: Optional[Dict[str, Any]] = None) -> Output: ...
def kcore(graph: Graph, k: Optional[int], backend: str, options: Optional[Dict[str, Any]] = None) -> Output: ...
def spmv(graph: Graph, x: np.ndarray, backend: str, options: Optional[Dict[str, Any]] = None) -> Output: ...
def bp(
    graph: Graph,
    priors: Optional[np.ndarray],
    iterations: int,
    backend: str,
    options: Optional[Dict[str, Any]] = None,
) -> Output: ...
def mlp(
    graph: Graph,
    input: Optional[np.ndarray],
    bias: float,
    biases: Optional[np.ndarray],
    backend: str,
    options: Optional[Dict[str, Any]] = None,
) -> Output: ...
def levels_from_each(
    graph: Graph,
    sources: np.ndarray,
    group_by: bool,
    backend: str,
    options: Optional[Dict[str, Any]] = None,
    gpus: Optional[int] = None,
) -> Output: ...
def closeness(
    graph: Graph,
    vertices: Optional[np.ndarray],
    group_by: bool,
    backend: str,
    options: Optional[Dict[str, Any]] = None,
    gpus: Optional[int] = None,
) -> Output: ...
def harmonic(
    graph: Graph,
    vertices: Optional[np.ndarray],
    group_by: bool,
    backend: str,
    options: Optional[Dict[str, Any]] = None,
    gpus: Optional[int] = None,
) -> Output: ...
def eccentricity(
    graph: Graph,
    vertices: Optional[np.ndarray],
    group_by: bool,
    backend: str,
    options: Optional[Dict[str, Any]] = None,
    gpus: Optional[int] = None,
) -> Output: ...
def betweenness(
    graph: Graph,
    sources: Optional[np.ndarray],
    normalized: bool,
    backend: str,
    options: Optional[Dict[str, Any]] = None,
    gpus: Optional[int] = None,
) -> Output: ...
def bfs_parents(
    graph: Graph, source: int, backend: str, options: Optional[Dict[str, Any]] = None
) -> Tuple[np.ndarray, np.ndarray, Dict[str, Any]]: ...
def triangle_count(
    graph: Graph, backend: str, options: Optional[Dict[str, Any]] = None
) -> Tuple[int, Dict[str, Any]]: ...
def triangles(graph: Graph, backend: str, options: Optional[Dict[str, Any]] = None) -> Output: ...
def jaccard(
    graph: Graph, pairs: Optional[np.ndarray], backend: str, options: Optional[Dict[str, Any]] = None
) -> Tuple[Tuple[np.ndarray, np.ndarray], Dict[str, Any]]: ...
def scc(graph: Graph, backend: str, options: Optional[Dict[str, Any]] = None) -> Output: ...
def louvain(graph: Graph, resolution: float, threshold: float, max_level: Optional[int], seed: int) -> Output: ...
def gpu_count() -> int: ...
