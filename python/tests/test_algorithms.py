"""Every algorithm of the simdx Python package against networkx or scipy on random graphs."""

import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse

import simdx
from conftest import BACKEND


def test_bfs_levels_match_networkx(pair):
    graph, g = pair
    for source in (0, 17, 199):
        levels = simdx.bfs(g, source, backend=BACKEND)
        assert levels.dtype == np.int64
        expected = nx.single_source_shortest_path_length(graph, source)
        for v in range(g.num_vertices):
            assert levels[v] == expected.get(v, -1), (source, v)


def test_bfs_from_several_sources_takes_the_nearest(pair):
    graph, g = pair
    sources = [3, 50, 120]
    levels = simdx.bfs(g, sources=sources, backend=BACKEND)
    expected = nx.multi_source_dijkstra_path_length(graph, sources, weight=lambda u, v, d: 1)
    assert [levels[v] for v in range(g.num_vertices)] == [expected.get(v, -1) for v in range(g.num_vertices)]


def test_sssp_distances_match_dijkstra(pair):
    graph, g = pair
    for source in (0, 99):
        distances = simdx.sssp(g, source, backend=BACKEND)
        assert distances.dtype == np.float64
        expected = nx.single_source_dijkstra_path_length(graph, source)
        for v in range(g.num_vertices):
            assert distances[v] == expected.get(v, math.inf), (source, v)


def test_sssp_from_several_sources(pair):
    graph, g = pair
    distances = simdx.sssp(g, sources=[1, 2, 150], delta=4, backend=BACKEND)
    expected = nx.multi_source_dijkstra_path_length(graph, [1, 2, 150])
    assert all(distances[v] == expected.get(v, math.inf) for v in range(g.num_vertices))


def test_pagerank_matches_networkx(pair):
    graph, g = pair
    ranks, stats = simdx.pagerank(g, tolerance=1e-10, backend=BACKEND, return_stats=True)
    expected = nx.pagerank(graph, weight=None, tol=1e-12)
    assert abs(ranks.sum() - 1.0) < 1e-6
    assert max(abs(ranks[v] - expected[v]) for v in range(g.num_vertices)) < 1e-6
    assert stats["iterations"] > 1


def test_personalized_pagerank_matches_networkx(pair):
    graph, g = pair
    ranks = simdx.ppr(g, [5, 6], tolerance=1e-10, max_iterations=10000, backend=BACKEND)
    personal = {v: (1.0 if v in (5, 6) else 0.0) for v in graph}
    expected = nx.pagerank(graph, weight=None, tol=1e-12, max_iter=10000, personalization=personal, dangling=personal)
    assert max(abs(ranks[v] - expected[v]) for v in range(g.num_vertices)) < 1e-6


@pytest.mark.parametrize("policy", ["link", "propagate"])
def test_wcc_gives_each_component_its_smallest_vertex(pair, policy):
    graph, g = pair
    labels = simdx.wcc(g, backend=BACKEND, labels=policy)
    for component in nx.weakly_connected_components(graph) if graph.is_directed() else nx.connected_components(graph):
        assert {labels[v] for v in component} == {min(component)}


def test_core_numbers_and_k_cores_match_networkx(pair):
    graph, g = pair
    undirected = nx.Graph(graph)
    undirected.remove_edges_from(nx.selfloop_edges(undirected))
    cores = simdx.kcore(g, backend=BACKEND)
    assert cores.tolist() == [nx.core_number(undirected)[v] for v in range(g.num_vertices)]
    inside = simdx.kcore(g, 3, backend=BACKEND)
    assert inside.dtype == np.bool_
    assert set(np.flatnonzero(inside)) == set(nx.k_core(undirected, 3))


def test_spmv_is_scipys_transpose_product(pair):
    graph, g = pair
    matrix = nx.to_scipy_sparse_array(graph, nodelist=range(g.num_vertices), weight="weight", format="csr")
    x = np.random.default_rng(7).random(g.num_vertices)
    y = simdx.spmv(g, x, backend=BACKEND)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, matrix.T @ x, rtol=1e-5, atol=1e-5)


def test_every_engine_option_gives_the_same_levels(pair):
    _, g = pair
    expected = simdx.bfs(g, 0, backend=BACKEND)
    for options in (
        {"direction": "push"},
        {"direction": "pull"},
        {"direction_threshold": 0.01},
        {"filter": "ballot"},
        {"filter": "online"},
        {"fusion": "none"},
        {"fusion": "all"},
        {"fusion": "push-pull"},
        {"threads": 1},
    ):
        assert simdx.bfs(g, 0, backend=BACKEND, **options).tolist() == expected.tolist(), options


def test_stats_describe_the_run():
    g = simdx.generate("grid:20x20")
    levels, stats = simdx.bfs(g, 0, backend=BACKEND, return_stats=True)
    assert levels[-1] == 38
    assert stats["backend"] == BACKEND
    assert stats["iterations"] == len(stats["trace"]) >= 38
    assert stats["graph_edges"] == g.num_edges
    assert stats["edges_touched"] == sum(row["edges"] for row in stats["trace"])
    assert {row["direction"] for row in stats["trace"]} <= {"push", "pull"}
    capped = simdx.bfs(g, 0, backend=BACKEND, max_iterations=5)
    assert capped.max() <= 5 and (capped == -1).any()


def test_results_on_labelled_graphs_are_found_by_name():
    graph = nx.Graph([("a", "b"), ("b", "c"), ("x", "y")])
    g = simdx.Graph.from_networkx(graph)
    levels = g.to_dict(simdx.bfs(g, "a", backend=BACKEND))
    assert levels == {"a": 0, "b": 1, "c": 2, "x": -1, "y": -1}
    components = g.to_dict(simdx.wcc(g, backend=BACKEND))
    assert components["c"] == components["a"] != components["y"]


def test_auto_backend_runs_and_says_where():
    g = simdx.generate("grid:8x8")
    with pytest.warns(simdx.FallbackWarning) if not simdx.HAS_CUDA else _maybe_warns():
        levels, stats = simdx.bfs(g, 0, return_stats=True)
    assert levels[63] == 14
    assert stats["backend"] in ("cpu", "cuda")
    assert (stats["fallback"] is None) == (stats["backend"] == "cuda")


class _maybe_warns:
    """A context that accepts a FallbackWarning or none (a CUDA build on a machine with or without a GPU)."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore", simdx.FallbackWarning)

    def __exit__(self, *exc):
        return self._catch.__exit__(*exc)


def test_scipy_matrix_in_and_out():
    matrix = scipy.sparse.random_array((50, 50), density=0.1, random_state=3, format="csr")
    matrix.data = np.round(matrix.data * 10) + 1
    g = simdx.Graph.from_scipy(matrix.astype(np.int32))
    assert g.directed and g.weights == "int"
    back = g.to_scipy()
    without_loops = matrix.copy()
    without_loops.setdiag(0)
    without_loops.eliminate_zeros()
    assert (back != without_loops).nnz == 0
    x = np.arange(50, dtype=np.float64)
    np.testing.assert_allclose(simdx.spmv(g, x, backend=BACKEND), without_loops.T @ x, rtol=1e-6)


def test_msbfs_gives_a_column_of_levels_per_source(pair):
    graph, g = pair
    sources = list(range(0, 200, 3))  # 67 searches: two batches
    levels, stats = simdx.msbfs(g, sources, backend=BACKEND, return_stats=True)
    assert simdx.msbfs(g, sources, group_by=True, backend=BACKEND).tolist() == levels.tolist()
    assert levels.shape == (g.num_vertices, len(sources)) and levels.dtype == np.int64
    assert stats["batches"] == 2 and stats["backend"] == BACKEND
    for column, source in enumerate(sources):
        expected = nx.single_source_shortest_path_length(graph, source)
        assert levels[:, column].tolist() == [expected.get(v, -1) for v in range(g.num_vertices)], source


def test_closeness_matches_networkx(pair):
    graph, g = pair
    expected = nx.closeness_centrality(graph)
    values = simdx.closeness(g, backend=BACKEND)
    assert max(abs(values[v] - expected[v]) for v in range(g.num_vertices)) < 1e-12
    some = simdx.closeness(g, [5, 9], direction="pull", group_by=True, backend=BACKEND)
    assert some.tolist() == [values[5], values[9]]


def test_harmonic_matches_networkx(pair):
    graph, g = pair
    expected = nx.harmonic_centrality(graph)
    values = simdx.harmonic(g, backend=BACKEND)
    assert max(abs(values[v] - expected[v]) for v in range(g.num_vertices)) < 1e-9
    some = simdx.harmonic(g, [5, 9], direction="pull", group_by=True, backend=BACKEND)
    assert abs(some[0] - values[5]) < 1e-9 and abs(some[1] - values[9]) < 1e-9


@pytest.mark.parametrize("normalized", [True, False])
def test_betweenness_matches_networkx(pair, normalized):
    graph, g = pair
    expected = nx.betweenness_centrality(graph, normalized=normalized)
    values = simdx.betweenness(g, normalized=normalized, backend=BACKEND)
    assert max(abs(values[v] - expected[v]) for v in range(g.num_vertices)) < 1e-9


def test_sampled_betweenness_draws_and_scales_as_networkx(pair):
    graph, g = pair
    expected = nx.betweenness_centrality(graph, k=20, seed=7)
    values, stats = simdx.betweenness(g, 20, seed=7, backend=BACKEND, return_stats=True)
    assert max(abs(values[v] - expected[v]) for v in range(g.num_vertices)) < 1e-9
    assert stats["backend"] == BACKEND and stats["edges_touched"] > 0
    with pytest.raises(ValueError):
        simdx.betweenness(g, 3, sources=[1, 2])


def test_eccentricity_matches_networkx_on_a_connected_graph():
    graph = nx.connected_watts_strogatz_graph(150, 4, 0.05, seed=3)
    g = simdx.Graph.from_networkx(graph)
    expected = nx.eccentricity(graph)
    assert simdx.eccentricity(g, backend=BACKEND).tolist() == [expected[v] for v in range(150)]
    assert simdx.eccentricity(g, backend=BACKEND, direction="push").max() == nx.diameter(graph)


def test_sssp_distances_past_two_to_the_32_are_exact():
    # Four heavy edges in a path: every distance but the source's passes 2**32 - 1.
    weight = 4294967295
    g = simdx.Graph.from_edges(np.arange(4), np.arange(1, 5), np.full(4, weight, dtype=np.uint64), directed=True)
    distances = simdx.sssp(g, 0, backend=BACKEND)
    assert list(distances) == [float(v * weight) for v in range(5)]
    assert list(simdx.sssp(g, sources=[0, 2], backend=BACKEND)) == [0.0, weight, 0.0, weight, 2.0 * weight]
