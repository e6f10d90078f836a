"""The networkx backend (``backend="simdx"``) against networkx itself on a few graphs: the karate club
(weighted), a path, a disconnected graph with string labels, and a weighted directed graph."""

import ast
import subprocess
import sys

import networkx as nx
import pytest

from simdx.networkx_backend import dispatch, info, interface
from simdx.networkx_backend.graph import SimdxGraph

# networkx notes each use of a cached conversion; the caching is what these tests check.
pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs:UserWarning")


def string_graph():
    """Two components and an isolated node, every node named by a string."""
    G = nx.Graph()
    G.add_edges_from([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("x", "y"), ("y", "z")])
    G.add_node("lonely")
    return G


def weighted_digraph():
    """A directed graph with integer weights 1..9 on its edges."""
    G = nx.gnp_random_graph(60, 0.08, seed=3, directed=True)
    for i, (u, v) in enumerate(G.edges()):
        G[u][v]["weight"] = 1 + (i * 7) % 9
    return G


GRAPHS = {
    "karate": nx.karate_club_graph,
    "path": lambda: nx.path_graph(12),
    "strings": string_graph,
    "weighted-digraph": weighted_digraph,
}


@pytest.fixture(params=sorted(GRAPHS))
def graph(request):
    return GRAPHS[request.param]()


def close(a, b, tol=1e-6):
    """Dicts with the same keys and values within ``tol``."""
    return a.keys() == b.keys() and all(abs(a[k] - b[k]) <= tol for k in a)


def test_pagerank_matches_networkx(graph):
    for weight in ("weight", None):
        expected = nx.pagerank(graph, weight=weight, tol=1e-10, max_iter=500)
        assert close(nx.pagerank(graph, weight=weight, tol=1e-10, max_iter=500, backend="simdx"), expected, 1e-5)
    personalization = {node: i % 3 for i, node in enumerate(graph)}
    expected = nx.pagerank(graph, personalization=personalization, tol=1e-10, max_iter=500)
    assert close(
        nx.pagerank(graph, personalization=personalization, tol=1e-10, max_iter=500, backend="simdx"), expected, 1e-5
    )


def test_pagerank_that_does_not_converge_raises():
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(nx.karate_club_graph(), weight=None, max_iter=2, backend="simdx")


def test_hop_counts_and_layers_match_networkx(graph):
    source = next(iter(graph))
    for cutoff in (None, 2, -1):
        expected = nx.single_source_shortest_path_length(graph, source, cutoff=cutoff)
        assert nx.single_source_shortest_path_length(graph, source, cutoff=cutoff, backend="simdx") == expected
    assert list(nx.bfs_layers(graph, source, backend="simdx")) == list(nx.bfs_layers(graph, source))


def test_dijkstra_lengths_match_networkx(graph):
    source = next(iter(graph))
    expected = nx.single_source_dijkstra_path_length(graph, source)
    assert nx.single_source_dijkstra_path_length(graph, source, backend="simdx") == expected
    sources = list(graph)[:3]
    for cutoff in (5, -1):
        expected = nx.multi_source_dijkstra_path_length(graph, sources, cutoff=cutoff)
        assert nx.multi_source_dijkstra_path_length(graph, sources, cutoff=cutoff, backend="simdx") == expected


def test_components_match_networkx(graph):
    if graph.is_directed():
        assert list(nx.weakly_connected_components(graph, backend="simdx")) == list(
            nx.weakly_connected_components(graph)
        )
        return
    assert list(nx.connected_components(graph, backend="simdx")) == list(nx.connected_components(graph))
    assert nx.number_connected_components(graph, backend="simdx") == nx.number_connected_components(graph)
    assert nx.is_connected(graph, backend="simdx") == nx.is_connected(graph)
    node = list(graph)[-1]
    assert nx.node_connected_component(graph, node, backend="simdx") == nx.node_connected_component(graph, node)


def test_cores_match_networkx(graph):
    assert nx.core_number(graph, backend="simdx") == nx.core_number(graph)
    assert nx.utils.graphs_equal(nx.k_core(graph, backend="simdx"), nx.k_core(graph))


def test_centralities_match_networkx(graph):
    assert close(nx.betweenness_centrality(graph, backend="simdx"), nx.betweenness_centrality(graph))
    k = len(graph) // 2
    expected = nx.betweenness_centrality(graph, k=k, seed=7, normalized=False)
    assert close(nx.betweenness_centrality(graph, k=k, seed=7, normalized=False, backend="simdx"), expected)
    assert close(nx.closeness_centrality(graph, backend="simdx"), nx.closeness_centrality(graph))
    assert close(nx.harmonic_centrality(graph, backend="simdx"), nx.harmonic_centrality(graph))


def test_eccentricity_and_diameter_match_networkx_or_raise_alike(graph):
    try:
        expected = nx.eccentricity(graph)
    except nx.NetworkXError as error:
        with pytest.raises(nx.NetworkXError, match=str(error)):
            nx.eccentricity(graph, backend="simdx")
        return
    assert nx.eccentricity(graph, backend="simdx") == expected
    assert nx.diameter(graph, backend="simdx") == nx.diameter(graph)


def test_unsupported_arguments_are_refused_so_networkx_runs_them():
    G = nx.karate_club_graph()
    assert isinstance(dispatch.can_run("betweenness_centrality", (G,), {"weight": "weight"}), str)
    assert isinstance(dispatch.can_run("closeness_centrality", (G,), {"wf_improved": False}), str)
    assert isinstance(dispatch.can_run("pagerank", (G,), {"weight": lambda u, v, d: 1}), str)
    assert dispatch.can_run("pagerank", (G,), {}) is True
    H = nx.path_graph(3)
    H.add_edge(0, 1, weight=0.5)
    assert isinstance(dispatch.can_run("single_source_dijkstra_path_length", (H, 0), {}), str)
    assert isinstance(dispatch.should_run("pagerank", (G,), {}), str)
    assert nx.betweenness_centrality(G, weight="weight") == pytest.approx(
        nx.betweenness_centrality(G, weight="weight", backend="networkx")
    )


def test_the_conversion_is_cached_on_the_networkx_graph():
    G = nx.path_graph(50)
    nx.pagerank(G, backend="simdx")
    cached = [g for g in G.__networkx_cache__["backends"]["simdx"].values() if isinstance(g, SimdxGraph)]
    assert len(cached) == 1
    nx.pagerank(G, backend="simdx")
    again = [g for g in G.__networkx_cache__["backends"]["simdx"].values() if isinstance(g, SimdxGraph)]
    assert again == cached
    G.add_edge(0, 49)
    assert "backends" not in G.__networkx_cache__


def test_backend_info_lists_every_function():
    assert sorted(info.get_info()["functions"]) == interface.FUNCTIONS
    assert "simdx" in nx.utils.backends.backend_info
    assert "simdx" in nx.pagerank.backends


def test_readme_example_runs():
    code = "import networkx as nx; G = nx.karate_club_graph(); print(nx.pagerank(G, backend='simdx'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert close(ast.literal_eval(out), nx.pagerank(nx.karate_club_graph()), 1e-6)


def test_backend_priority_runs_large_graphs_on_simdx_and_small_ones_on_networkx():
    large, small = nx.path_graph(1500), nx.path_graph(10)
    saved = list(nx.config.backend_priority.algos)
    nx.config.backend_priority.algos = ["simdx"]
    try:
        assert nx.number_connected_components(large) == 1
        assert nx.number_connected_components(small) == 1
        # A refused argument (wf_improved=False) runs on networkx, and gives networkx's answer.
        assert nx.closeness_centrality(large, 0, wf_improved=False) == pytest.approx(
            nx.closeness_centrality(large, 0, wf_improved=False, backend="networkx")
        )
    finally:
        nx.config.backend_priority.algos = saved
    assert "simdx" in large.__networkx_cache__.get("backends", {})
    assert "simdx" not in small.__networkx_cache__.get("backends", {})


def test_weighted_eccentricity_and_a_subset_of_a_digraph_match_networkx():
    G = weighted_digraph().subgraph(max(nx.strongly_connected_components(weighted_digraph()), key=len)).copy()
    assert nx.eccentricity(G, weight="weight", backend="simdx") == nx.eccentricity(G, weight="weight")
    assert nx.diameter(G, weight="weight", backend="simdx") == nx.diameter(G, weight="weight")
    # Only the nodes asked about must reach every other.
    D = nx.DiGraph([(0, 1), (1, 2), (2, 0), (2, 3)])
    assert nx.eccentricity(D, v=[0, 1], backend="simdx") == nx.eccentricity(D, v=[0, 1])
    with pytest.raises(nx.NetworkXError, match="not strongly connected"):
        nx.eccentricity(D, backend="simdx")


def test_triangles_and_clustering_match_networkx(graph):
    if graph.is_directed():
        assert isinstance(dispatch.can_run("triangles", (graph,), {}), str)
        assert isinstance(dispatch.can_run("transitivity", (graph,), {}), str)
        return
    assert nx.triangles(graph, backend="simdx") == nx.triangles(graph)
    node = list(graph)[-1]
    assert nx.triangles(graph, node, backend="simdx") == nx.triangles(graph, node)
    some = list(graph)[::3] + ["not a node"]
    assert list(nx.triangles(graph, some, backend="simdx").items()) == list(nx.triangles(graph, some).items())
    assert nx.transitivity(graph, backend="simdx") == nx.transitivity(graph)
    assert nx.clustering(graph, backend="simdx") == nx.clustering(graph)
    assert nx.clustering(graph, node, backend="simdx") == nx.clustering(graph, node)
    assert nx.average_clustering(graph, backend="simdx") == nx.average_clustering(graph)
    if nx.transitivity(graph) == 0:
        with pytest.raises(ZeroDivisionError):
            nx.average_clustering(graph, count_zeros=False, backend="simdx")
        return
    expected = nx.average_clustering(graph, count_zeros=False)
    assert nx.average_clustering(graph, count_zeros=False, backend="simdx") == expected


def test_clustering_with_self_loops_and_weights():
    G = nx.karate_club_graph()
    G.add_edges_from([(0, 0), (5, 5)])
    assert nx.triangles(G, backend="simdx") == nx.triangles(G)
    assert nx.clustering(G, backend="simdx") == nx.clustering(G)
    assert nx.transitivity(G, backend="simdx") == nx.transitivity(G)
    assert isinstance(dispatch.can_run("clustering", (G,), {"weight": "weight"}), str)
    assert nx.transitivity(nx.Graph(), backend="simdx") == nx.transitivity(nx.Graph()) == 0


def test_jaccard_coefficients_match_networkx(graph):
    if graph.is_directed():
        assert isinstance(dispatch.can_run("jaccard_coefficient", (graph,), {}), str)
        return
    nodes = list(graph)
    ebunch = [(nodes[i], nodes[(7 * i + 3) % len(nodes)]) for i in range(len(nodes))]
    assert list(nx.jaccard_coefficient(graph, ebunch, backend="simdx")) == list(nx.jaccard_coefficient(graph, ebunch))
    assert list(nx.jaccard_coefficient(graph, backend="simdx")) == list(nx.jaccard_coefficient(graph))
    with pytest.raises(nx.NodeNotFound):
        nx.jaccard_coefficient(graph, [(nodes[0], "missing")], backend="simdx")


def test_jaccard_coefficients_with_self_loops_and_isolated_nodes():
    G = nx.Graph([(0, 1), (1, 2), (0, 2), (2, 2), (2, 3)])
    G.add_nodes_from([8, 9])
    pairs = [(0, 1), (2, 3), (1, 3), (2, 2), (8, 9), (0, 8)]
    got = list(nx.jaccard_coefficient(G, pairs, backend="simdx"))
    expected = list(nx.jaccard_coefficient(G, pairs))
    assert got == expected
    assert [type(c) for _, _, c in got] == [type(c) for _, _, c in expected]


def test_strongly_connected_components_match_networkx(graph):
    if not graph.is_directed():
        assert isinstance(dispatch.can_run("strongly_connected_components", (graph,), {}), str)
        return
    got = list(nx.strongly_connected_components(graph, backend="simdx"))
    assert sorted(map(sorted, got)) == sorted(map(sorted, nx.strongly_connected_components(graph)))
    # As networkx's (Tarjan's): every component comes after the components it reaches.
    position = {node: i for i, component in enumerate(got) for node in component}
    assert all(position[u] >= position[v] for u, v in graph.edges())
    D = nx.DiGraph([(1, 2), (1, 3), (1, 4), (4, 2), (3, 4), (2, 3), (5, 1), (5, 6), (6, 5)])
    assert list(nx.strongly_connected_components(D, backend="simdx")) == list(nx.strongly_connected_components(D))
    assert nx.number_strongly_connected_components(graph, backend="simdx") == len(got)
    assert nx.is_strongly_connected(graph, backend="simdx") == nx.is_strongly_connected(graph)
    cycle = nx.cycle_graph(5, create_using=nx.DiGraph)
    assert nx.is_strongly_connected(cycle, backend="simdx")
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_strongly_connected(nx.DiGraph(), backend="simdx")


def test_bfs_edges_and_trees_match_networkx(graph):
    for source in list(graph)[:3]:
        for depth_limit in (None, 0, 1, 2):
            for reverse in (False, True):
                kwargs = {"reverse": reverse, "depth_limit": depth_limit}
                expected = list(nx.bfs_edges(graph, source, **kwargs))
                assert list(nx.bfs_edges(graph, source, backend="simdx", **kwargs)) == expected
                tree = nx.bfs_tree(graph, source, backend="simdx", **kwargs)
                assert list(tree.edges) == list(nx.bfs_tree(graph, source, **kwargs).edges)
    assert isinstance(dispatch.can_run("bfs_edges", (graph, list(graph)[0]), {"sort_neighbors": sorted}), str)
    with pytest.raises(nx.NetworkXError, match="is not in the"):
        list(nx.bfs_edges(graph, "missing", backend="simdx"))
