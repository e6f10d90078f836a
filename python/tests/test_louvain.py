"""``simdx.louvain`` and the networkx backend's ``louvain_communities`` against networkx's
``louvain_communities``: on the karate club (weighted and not), a grid and Kronecker graphs, simdx's
communities score a modularity (networkx's ``modularity``) of at least the best of networkx's over
three seeds less 0.01."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse

import simdx
from simdx.networkx_backend import dispatch

pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs:UserWarning")


def kron(spec):
    """A generated graph as simdx and as networkx (numbered nodes, isolated ones included)."""
    g = simdx.generate(spec, seed=5)
    return nx.from_scipy_sparse_array(scipy.sparse.csr_matrix(g.to_scipy())), g


def cases():
    karate = nx.karate_club_graph()
    grid = nx.convert_node_labels_to_integers(nx.grid_2d_graph(24, 24))
    return {
        "karate-weighted": (karate, "weight"),
        "karate": (karate, None),
        "grid": (grid, None),
        "kron:10": (kron("kron:10")[0], None),
        "kron:12": (kron("kron:12")[0], None),
    }


def groups(labels):
    """The communities of ``labels`` as sets of vertex numbers."""
    found = {}
    for v, c in enumerate(labels.tolist()):
        found.setdefault(c, set()).add(v)
    return list(found.values())


def best_networkx(G, weight):
    """The best modularity of networkx's Louvain over seeds 0, 1 and 2."""
    runs = (nx.community.louvain_communities(G, weight=weight, seed=s) for s in range(3))
    return max(nx.community.modularity(G, c, weight=weight) for c in runs)


@pytest.mark.parametrize("name", sorted(cases()))
def test_modularity_is_at_least_networkx_less_a_hundredth(name):
    G, weight = cases()[name]
    g = simdx.Graph.from_networkx(G, weight=weight)
    labels, stats = simdx.louvain(g, seed=1, return_stats=True)
    assert labels.dtype == np.int64 and len(labels) == len(G)
    q = nx.community.modularity(G, groups(labels), weight=weight)
    assert stats["modularity"] == pytest.approx(q, abs=1e-9)
    assert stats["communities"] == labels.max() + 1
    assert q >= best_networkx(G, weight) - 0.01, name
    # Numbered by smallest vertex: each community's first vertex comes after the previous ones'.
    firsts = [min(c) for c in sorted(groups(labels), key=min)]
    assert [labels[v] for v in firsts] == list(range(len(firsts)))


def test_seed_resolution_and_refusals():
    G, g = kron("kron:11")
    one = simdx.louvain(g, seed=4)
    assert (one == simdx.louvain(g, seed=4)).all()
    assert (one != simdx.louvain(g, seed=5)).any()
    assert (simdx.louvain(g) == simdx.louvain(g, seed=0)).all()
    coarse, fine = simdx.louvain(g, 0.5).max(), simdx.louvain(g, 2.0).max()
    assert coarse < one.max() < fine
    _, stats = simdx.louvain(g, max_level=1, return_stats=True)
    assert len(stats["levels"]) == 1
    with pytest.raises(ValueError, match="undirected"):
        simdx.louvain(simdx.generate("kron:6:d"))
    with pytest.raises(ValueError, match="resolution"):
        simdx.louvain(g, -1.0)
    with pytest.raises(ValueError, match="max_level"):
        simdx.louvain(g, max_level=0)


@pytest.mark.parametrize("name", ["karate-weighted", "grid", "kron:12"])
def test_the_backend_returns_sets_of_nodes_as_good_as_networkx(name):
    G, weight = cases()[name]
    got = nx.community.louvain_communities(G, weight=weight or "weight", seed=2, backend="simdx")
    assert sorted(v for c in got for v in c) == sorted(G)
    assert [min(c) for c in got] == sorted(min(c) for c in got)
    assert got == nx.community.louvain_communities(G, weight=weight or "weight", seed=2, backend="simdx")
    q = nx.community.modularity(G, got, weight=weight or "weight")
    assert q >= best_networkx(G, weight or "weight") - 0.01
    strings = nx.relabel_nodes(nx.karate_club_graph(), str)
    named = nx.community.louvain_communities(strings, seed=2, backend="simdx")
    assert sorted(v for c in named for v in c) == sorted(strings)


def test_the_backend_refuses_what_simdx_does_not_compute():
    G = nx.karate_club_graph()
    assert dispatch.can_run("louvain_communities", (G,), {}) is True
    assert isinstance(dispatch.can_run("louvain_communities", (G.to_directed(),), {}), str)
    assert isinstance(dispatch.can_run("louvain_communities", (G,), {"resolution": -1}), str)
    assert isinstance(dispatch.can_run("louvain_communities", (G,), {"threshold": float("nan")}), str)
    with pytest.raises(ValueError, match="max_level"):
        nx.community.louvain_communities(G, max_level=0, backend="simdx")
