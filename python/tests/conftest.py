"""Shared fixtures of the simdx Python tests: small random graphs, as networkx graphs and as simdx
graphs made from them, and the backend the tests run on (the CPU unless SIMDX_PYTHON_BACKEND says)."""

import os

import networkx as nx
import pytest

import simdx

#: The backend every algorithm test runs on: "cpu" by default; "cuda" on a GPU machine.
BACKEND = os.environ.get("SIMDX_PYTHON_BACKEND", "cpu")


def random_graph(n, p, seed, directed=False, weights=False):
    """A G(n, p) graph with integer weights 1..20 on its edges if asked."""
    graph = nx.gnp_random_graph(n, p, seed=seed, directed=directed)
    if weights:
        for i, (u, v) in enumerate(graph.edges()):
            graph[u][v]["weight"] = 1 + (i * 7919 + seed) % 20
    return graph


@pytest.fixture(params=[(False, 0), (True, 1), (False, 2)], ids=["undirected", "directed", "sparse"])
def pair(request):
    """A networkx graph (weighted) and the simdx graph made from it."""
    directed, seed = request.param
    p = 0.01 if seed == 2 else 0.05
    graph = random_graph(200, p, seed, directed=directed, weights=True)
    return graph, simdx.Graph.from_networkx(graph)
