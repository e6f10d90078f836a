"""The ``networkx.backend_info`` entry point: what networkx's documentation says of the ``simdx``
backend. Imports neither networkx nor the backend's algorithms (networkx reads it while importing)."""

from __future__ import annotations

from typing import Any, Dict

_NOTES = {
    "pagerank": "simdx's PageRank program when the jumps are uniform and every edge weighs the same; "
    "otherwise networkx's power iteration with each product by simdx's weighted SpMV (float32).",
    "single_source_dijkstra_path_length": "Delta-stepping; integer weights in [0, 2**32) only.",
    "multi_source_dijkstra_path_length": "Delta-stepping; integer weights in [0, 2**32) only.",
    "betweenness_centrality": "Unweighted (or equal weights), endpoints=False. With k, the sources are "
    "those networkx samples (seed.sample(list(G), k)).",
    "closeness_centrality": "Hop counts (distance weights all 1); wf_improved=True only.",
    "harmonic_centrality": "Hop counts (distance weights all 1); sources=None only.",
    "eccentricity": "Hop counts, or integer weights in [0, 2**32) (one SSSP per node); sp=None only.",
    "diameter": "Hop counts, or integer weights in [0, 2**32) (one SSSP per node).",
    "core_number": "A directed graph's degree is in- plus out-degree, as in networkx.",
    "triangles": "Sorted neighbour-list intersections on the GPU or the CPU; undirected graphs.",
    "transitivity": "From simdx's triangle counts and the degrees; undirected graphs without parallel edges.",
    "clustering": "From simdx's triangle counts and the degrees; unweighted, undirected graphs only.",
    "average_clustering": "From simdx's triangle counts and the degrees; unweighted, undirected graphs only.",
    "jaccard_coefficient": "Sorted neighbour-list intersections on the GPU or the CPU, a chunk of pairs at a time "
    "(the default pairs, every non-edge, come from nx.non_edges lazily, as in networkx).",
    "strongly_connected_components": "Multistep (trim, forward-backward, colouring) on the CPU; the components "
    "come ordered by their first node in list(G).",
    "louvain_communities": "Parallel Louvain on the CPU, deterministic for an integer seed; undirected graphs, "
    "resolution and threshold >= 0. Levels go on until one moves nothing (networkx stops when a level gains "
    "under threshold), so the partition differs from networkx's, its modularity as high or higher.",
    "bfs_edges": "Levels from simdx's BFS, the edges in networkx's order; sort_neighbors=None only.",
    "bfs_tree": "Levels from simdx's BFS, the edges in networkx's order; sort_neighbors=None only.",
}

_FUNCTIONS = [
    "average_clustering",
    "betweenness_centrality",
    "bfs_edges",
    "bfs_layers",
    "bfs_tree",
    "closeness_centrality",
    "clustering",
    "connected_components",
    "core_number",
    "diameter",
    "eccentricity",
    "harmonic_centrality",
    "is_connected",
    "is_strongly_connected",
    "jaccard_coefficient",
    "k_core",
    "louvain_communities",
    "multi_source_dijkstra_path_length",
    "node_connected_component",
    "number_connected_components",
    "number_strongly_connected_components",
    "pagerank",
    "single_source_dijkstra_path_length",
    "single_source_shortest_path_length",
    "strongly_connected_components",
    "transitivity",
    "triangles",
    "weakly_connected_components",
]


def get_info() -> Dict[str, Any]:
    """The backend's description for networkx: name, project, summary and per-function notes."""
    return {
        "backend_name": "simdx",
        "project": "simdx",
        "package": "simdx",
        "url": "https://github.com/simdx/simdx",
        "short_summary": "Graph algorithms on NVIDIA GPUs and multicore CPUs (SIMD-X style).",
        "functions": {name: {"additional_docs": _NOTES[name]} if name in _NOTES else {} for name in _FUNCTIONS},
    }
