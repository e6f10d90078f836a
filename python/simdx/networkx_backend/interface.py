"""The object networkx loads for the ``simdx`` backend (the ``networkx.backends`` entry point): the
conversion hooks, ``can_run``/``should_run``, and the algorithms, each with networkx's signature."""

from __future__ import annotations

from . import centrality, cluster, community, components, dispatch, distance, graph, link_analysis, link_prediction, paths


class BackendInterface:
    """networkx's interface to simdx: ``nx.pagerank(G, backend="simdx")`` converts ``G`` with
    :meth:`convert_from_nx` (networkx caches the result on ``G``), asks :meth:`can_run`, and calls
    :attr:`pagerank` here."""

    convert_from_nx = staticmethod(graph.convert_from_nx)
    convert_to_nx = staticmethod(graph.convert_to_nx)
    can_run = staticmethod(dispatch.can_run)
    should_run = staticmethod(dispatch.should_run)

    pagerank = staticmethod(link_analysis.pagerank)
    single_source_shortest_path_length = staticmethod(paths.single_source_shortest_path_length)
    bfs_layers = staticmethod(paths.bfs_layers)
    single_source_dijkstra_path_length = staticmethod(paths.single_source_dijkstra_path_length)
    multi_source_dijkstra_path_length = staticmethod(paths.multi_source_dijkstra_path_length)
    connected_components = staticmethod(components.connected_components)
    number_connected_components = staticmethod(components.number_connected_components)
    is_connected = staticmethod(components.is_connected)
    node_connected_component = staticmethod(components.node_connected_component)
    weakly_connected_components = staticmethod(components.weakly_connected_components)
    core_number = staticmethod(components.core_number)
    k_core = staticmethod(components.k_core)
    betweenness_centrality = staticmethod(centrality.betweenness_centrality)
    closeness_centrality = staticmethod(centrality.closeness_centrality)
    harmonic_centrality = staticmethod(centrality.harmonic_centrality)
    eccentricity = staticmethod(distance.eccentricity)
    diameter = staticmethod(distance.diameter)
    bfs_edges = staticmethod(paths.bfs_edges)
    bfs_tree = staticmethod(paths.bfs_tree)
    triangles = staticmethod(cluster.triangles)
    transitivity = staticmethod(cluster.transitivity)
    clustering = staticmethod(cluster.clustering)
    average_clustering = staticmethod(cluster.average_clustering)
    jaccard_coefficient = staticmethod(link_prediction.jaccard_coefficient)
    strongly_connected_components = staticmethod(components.strongly_connected_components)
    number_strongly_connected_components = staticmethod(components.number_strongly_connected_components)
    is_strongly_connected = staticmethod(components.is_strongly_connected)
    louvain_communities = staticmethod(community.louvain_communities)


#: The entry point's object.
backend_interface = BackendInterface()

#: The functions the backend implements, by networkx name.
FUNCTIONS = sorted(dispatch.RULES)
