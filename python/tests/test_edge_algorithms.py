"""Triangles, Jaccard similarity, strongly connected components, BFS parents and the ``gpus=`` option
of the simdx Python package against networkx and scipy on random and small graphs."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse
import scipy.sparse.csgraph

import simdx
from conftest import BACKEND, random_graph


def undirected_graphs():
    """Small and random undirected networkx graphs (self-loops in one), with their names."""
    loops = random_graph(80, 0.1, 4)
    loops.add_edges_from([(0, 0), (5, 5), (7, 7)])
    return {
        "karate": nx.karate_club_graph(),
        "complete": nx.complete_graph(7),
        "gnp": random_graph(200, 0.05, 0),
        "sparse": random_graph(200, 0.01, 2),
        "self-loops": loops,
        "empty": nx.empty_graph(5),
    }


@pytest.fixture(params=sorted(undirected_graphs()))
def undirected(request):
    graph = undirected_graphs()[request.param]
    return graph, simdx.Graph.from_networkx(graph, weight=None)


def test_triangles_match_networkx(undirected):
    graph, g = undirected
    per_vertex = simdx.triangles(g, backend=BACKEND)
    assert per_vertex.dtype == np.uint64
    expected = nx.triangles(graph)
    assert per_vertex.tolist() == [expected[v] for v in graph]
    total = simdx.triangle_count(g, backend=BACKEND)
    assert isinstance(total, int)
    assert 3 * total == sum(expected.values())


def test_transitivity_from_triangles_and_degrees_matches_networkx(undirected):
    graph, g = undirected
    triangles = simdx.triangles(g).astype(np.float64)
    simple = nx.Graph(graph)
    simple.remove_edges_from(nx.selfloop_edges(simple))
    degrees = np.array([simple.degree(v) for v in graph], dtype=np.float64)
    pairs = (degrees * (degrees - 1)).sum()
    transitivity = 0 if triangles.sum() == 0 else 2 * triangles.sum() / pairs
    assert transitivity == pytest.approx(nx.transitivity(graph))


def test_jaccard_along_every_edge_matches_networkx(undirected):
    graph, g = undirected
    pairs, values = simdx.jaccard(g, backend=BACKEND)
    assert pairs.dtype == np.int64 and values.dtype == np.float64 and pairs.shape == (len(values), 2)
    edges = {(min(u, v), max(u, v)) for u, v in graph.edges() if u != v}
    assert {tuple(p) for p in pairs.tolist()} == edges
    assert (pairs[:, 0] < pairs[:, 1]).all()
    loops = {v for v, _ in nx.selfloop_edges(graph)}
    expected = {(u, v): c for u, v, c in nx.jaccard_coefficient(graph, edges)}
    for (u, v), value in zip(pairs.tolist(), values.tolist()):
        if u in loops or v in loops:
            continue  # networkx leaves u and v out of their common neighbours; simdx counts a self-loop
        assert value == pytest.approx(expected[(u, v)]), (u, v)


def test_jaccard_of_given_pairs_matches_networkx():
    graph = random_graph(150, 0.06, 1)
    g = simdx.Graph.from_networkx(graph, weight=None)
    rng = np.random.default_rng(5)
    pairs = rng.integers(0, 150, size=(500, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    got_pairs, values = simdx.jaccard(g, pairs, backend=BACKEND)
    assert (got_pairs == pairs).all()
    expected = [c for _, _, c in nx.jaccard_coefficient(graph, pairs.tolist())]
    assert values == pytest.approx(expected)
    empty_pairs, empty = simdx.jaccard(g, np.zeros((0, 2), dtype=np.int64))
    assert empty_pairs.shape == (0, 2) and empty.size == 0


def test_jaccard_takes_names_on_a_labelled_graph():
    graph = nx.Graph([("a", "b"), ("b", "c"), ("a", "c"), ("c", "d")])
    g = simdx.Graph.from_networkx(graph)
    pairs, values = simdx.jaccard(g, [("a", "d"), ("b", "a")])
    assert pairs.tolist() == [[0, 3], [1, 0]]
    assert values.tolist() == pytest.approx([c for _, _, c in nx.jaccard_coefficient(graph, [("a", "d"), ("b", "a")])])


def test_triangles_and_jaccard_refuse_directed_graphs_and_bad_pairs():
    g = simdx.Graph.from_edges([0, 1, 2], [1, 2, 0], directed=True)
    for call in (simdx.triangles, simdx.triangle_count, simdx.jaccard):
        with pytest.raises(ValueError, match="undirected"):
            call(g)
    u = simdx.Graph.from_edges([0, 1, 2], [1, 2, 0])
    with pytest.raises(ValueError, match="not a vertex"):
        simdx.jaccard(u, [[0, 3]])
    with pytest.raises(ValueError, match="shape"):
        simdx.jaccard(u, [0, 1])


def directed_graphs():
    """Random directed graphs of several densities (many small components and a giant one), a cycle
    with a tail, and a graph with self-loops and isolated vertices."""
    tail = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (5, 5)])
    tail.add_node(6)
    return {
        "gnp-0.01": nx.gnp_random_graph(300, 0.01, seed=1, directed=True),
        "gnp-0.004": nx.gnp_random_graph(300, 0.004, seed=2, directed=True),
        "gnp-0.03": nx.gnp_random_graph(200, 0.03, seed=3, directed=True),
        "tail": tail,
    }


@pytest.fixture(params=sorted(directed_graphs()))
def directed(request):
    graph = directed_graphs()[request.param]
    return graph, simdx.Graph.from_networkx(graph, weight=None)


def test_scc_matches_networkx_and_scipy(directed):
    graph, g = directed
    components, stats = simdx.scc(g, return_stats=True)
    assert components.dtype == np.int64
    assert stats["backend"] == "cpu" and stats["trimmed"] <= g.num_vertices
    for component in nx.strongly_connected_components(graph):
        assert {components[v] for v in component} == {min(component)}
    count, labels = scipy.sparse.csgraph.connected_components(g.to_scipy(), directed=True, connection="strong")
    assert count == np.unique(components).size
    # The same partition as scipy's: a label of one gives a label of the other.
    assert len(set(zip(labels.tolist(), components.tolist()))) == count


def test_scc_of_a_generated_graph_matches_scipy():
    g = simdx.generate("kron:10:d", seed=3)
    components = simdx.scc(g)
    count, labels = scipy.sparse.csgraph.connected_components(g.to_scipy(), directed=True, connection="strong")
    assert np.unique(components).size == count
    assert len(set(zip(labels.tolist(), components.tolist()))) == count
    assert (components <= np.arange(g.num_vertices)).all()


def test_scc_of_an_undirected_graph_is_its_connected_components():
    g = simdx.Graph.from_networkx(random_graph(200, 0.01, 2))
    assert (simdx.scc(g) == simdx.wcc(g, backend="cpu")).all()


@pytest.mark.parametrize("direction", ["auto", "push", "pull"])
@pytest.mark.parametrize("directed", [False, True])
def test_bfs_parents_form_a_breadth_first_tree(directed, direction):
    graph = random_graph(200, 0.02, 6, directed=directed)
    g = simdx.Graph.from_networkx(graph, weight=None)
    for source in (0, 42):
        parents, stats = simdx.bfs_parents(g, source, backend=BACKEND, direction=direction, return_stats=True)
        assert parents.dtype == np.int64
        levels = stats["levels"]
        expected = nx.single_source_shortest_path_length(graph, source)
        assert levels.tolist() == [expected.get(v, -1) for v in range(g.num_vertices)]
        assert parents[source] == source
        for v in range(g.num_vertices):
            if v == source:
                continue
            if v not in expected:
                assert parents[v] == -1
                continue
            # Graph500's rules: the parent is a vertex of the level above with an arc to v; a pull keeps
            # the smallest-numbered one (a push keeps whichever update its vote met first).
            above = [u for u in (graph.predecessors(v) if directed else graph[v]) if expected.get(u) == expected[v] - 1]
            assert int(parents[v]) in above, (source, v)
            if direction == "pull":
                assert int(parents[v]) == min(above), (source, v)


def test_gpus_is_checked_and_runs_where_the_backend_can():
    g = simdx.Graph.from_networkx(random_graph(100, 0.05, 0))
    with pytest.raises(ValueError, match="gpus"):
        simdx.closeness(g, backend="cpu", gpus=2)
    with pytest.raises(ValueError, match="at least 1"):
        simdx.harmonic(g, gpus=0)
    with pytest.raises(TypeError, match="gpus"):
        simdx.eccentricity(g, gpus="two")
    assert simdx.gpu_count() >= 0
    expected = simdx.closeness(g, backend="cpu")
    assert (simdx.closeness(g, backend="cpu", gpus=1) == expected).all()
    if simdx.gpu_count() < 2:
        # auto on two GPUs falls back to the CPU where they cannot be used, as auto on one does.
        with pytest.warns(simdx.FallbackWarning):
            values, stats = simdx.closeness(g, gpus=2, return_stats=True)
        assert stats["backend"] == "cpu" and stats["gpus"] == 0
        assert values == pytest.approx(expected)
        with pytest.raises(simdx.SimdxError):
            simdx.betweenness(g, backend="cuda", gpus=2)
    else:
        values, stats = simdx.closeness(g, gpus="all", return_stats=True)
        assert stats["gpus"] == simdx.gpu_count()
        assert values == pytest.approx(expected)
        levels = simdx.msbfs(g, list(range(100)), gpus=2, backend="cuda")
        assert (levels == simdx.msbfs(g, list(range(100)), backend="cpu")).all()


def test_programs_take_gpus_and_check_it():
    g = simdx.Graph.from_networkx(random_graph(100, 0.05, 1))
    with pytest.raises(ValueError, match="gpus"):
        simdx.bfs(g, 0, backend="cpu", gpus=2)
    with pytest.raises(ValueError, match="gpus"):
        simdx.sssp(g, 0, backend="cpu", gpus="two")
    with pytest.raises(ValueError, match="gpus"):
        simdx.kcore(g, backend="cpu", gpus=2)
    levels = simdx.bfs(g, 0, backend="cpu")
    assert (simdx.bfs(g, 0, backend="cpu", gpus=1) == levels).all()
    if simdx.gpu_count() >= 2:
        # The graph split over two GPUs gives what one gives.
        assert (simdx.bfs(g, 0, backend="cuda", gpus=2) == levels).all()
        ranks = simdx.pagerank(g, backend="cuda")
        assert simdx.pagerank(g, backend="cuda", gpus=2) == pytest.approx(ranks, abs=1e-6)
        assert (simdx.kcore(g, backend="cuda", gpus=2) == simdx.kcore(g, backend="cpu")).all()
