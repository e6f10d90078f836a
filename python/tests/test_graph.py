"""Making simdx graphs in Python (arrays, files, generators) and the errors users see."""

import numpy as np
import pytest

import simdx
from conftest import BACKEND


def test_from_edges_takes_any_integer_dtype_and_counts_edges():
    for dtype in (np.int32, np.int64, np.uint32, np.uint64, np.int16):
        g = simdx.Graph.from_edges(np.array([0, 1, 2, 2], dtype=dtype), np.array([1, 2, 0, 0], dtype=dtype))
        assert (g.num_vertices, g.num_edges, g.num_arcs, g.directed) == (3, 3, 6, False)
    g = simdx.Graph.from_edges([0, 1, 2, 2], [1, 2, 0, 0], directed=True, num_vertices=5, keep_duplicates=True)
    assert (g.num_vertices, g.num_edges, g.directed) == (5, 4, True)
    assert g.out_degrees().tolist() == [1, 1, 2, 0, 0]
    assert "directed, 5 vertices, 4 edges" in repr(g)


def test_weights_keep_their_kind():
    g = simdx.Graph.from_edges([0, 1], [1, 2], [3, 4])
    assert g.weights == "int"
    assert simdx.sssp(g, 0, backend=BACKEND).tolist() == [0.0, 3.0, 7.0]
    g = simdx.Graph.from_edges([0, 1], [1, 2], np.array([0.5, 1.5], dtype=np.float32))
    assert g.weights == "float"
    assert g.csr()[2].dtype == np.float32


def test_generated_graphs_are_deterministic():
    a, b = simdx.generate("kron:10", seed=3), simdx.generate("kron:10", seed=3)
    assert a.csr()[1].tolist() == b.csr()[1].tolist()
    assert simdx.generate("kron:10", seed=4).csr()[1].tolist() != a.csr()[1].tolist()


def test_files_round_trip_and_relabel(tmp_path):
    g = simdx.generate("grid:6x6")
    for name in ("g.mtx", "g.sxg", "g.wel"):
        g.write(tmp_path / name)
        back = simdx.read(tmp_path / name, undirected=True)
        assert back.num_edges == g.num_edges
    path = tmp_path / "ids.el"
    path.write_text("alice bob\nbob 4294967294\n")
    labelled = simdx.read(path, relabel=True, undirected=True)
    assert labelled.labels == ["alice", "bob", "4294967294"]
    assert labelled.to_dict(simdx.bfs(labelled, "alice", backend=BACKEND)) == {"alice": 0, "bob": 1, "4294967294": 2}
    assert simdx.bfs(labelled, 4294967294, backend=BACKEND).tolist() == [2, 1, 0]


def test_errors_are_python_exceptions_with_one_sentence():
    g = simdx.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(ValueError, match=r"source 7 is not a vertex of this graph \(it has 3 vertices\)"):
        simdx.bfs(g, 7, backend=BACKEND)
    with pytest.raises(ValueError, match="src\\[1\\] = -4 is not a vertex id"):
        simdx.Graph.from_edges([0, -4], [1, 2], num_vertices=3)
    with pytest.raises(ValueError, match="weights\\[0\\] = -1"):
        simdx.Graph.from_edges([0], [1], [-1])
    with pytest.raises(TypeError, match="unknown option 'speed'"):
        simdx.bfs(g, 0, backend=BACKEND, speed=3)
    with pytest.raises(ValueError, match="filter 'fast' is not one of"):
        simdx.bfs(g, 0, backend=BACKEND, filter="fast")
    with pytest.raises(ValueError, match="backend 'tpu'"):
        simdx.bfs(g, 0, backend="tpu")
    with pytest.raises(ValueError, match="x has 2 values but the graph has 3 vertices"):
        simdx.spmv(g, [1.0, 2.0], backend=BACKEND)
    with pytest.raises(ValueError, match="damping 1.5"):
        simdx.pagerank(g, damping=1.5, backend=BACKEND)
    with pytest.raises(TypeError, match="exactly one of source and sources"):
        simdx.bfs(g, backend=BACKEND)
    with pytest.raises(KeyError, match="no vertex called 'zed'"):
        simdx.bfs(simdx.Graph.from_networkx(__import__("networkx").path_graph(["a", "b"])), "zed")


def test_file_errors_name_the_file(tmp_path):
    with pytest.raises(simdx.SimdxError, match="missing.mtx"):
        simdx.read(tmp_path / "missing.mtx")
    bad = tmp_path / "bad.el"
    bad.write_text("0 1\n1 x\n")
    with pytest.raises(simdx.SimdxError, match=r"bad.el:2: expected a vertex id"):
        simdx.read(bad)
    with pytest.raises(simdx.SimdxError, match="kron"):
        simdx.generate("kron:99")


def test_cuda_backend_runs_or_says_why():
    g = simdx.generate("grid:8x8")
    try:
        levels = simdx.bfs(g, 0, backend="cuda")
    except simdx.SimdxError as error:
        assert "CUDA" in str(error) or "GPU" in str(error)
        if BACKEND == "cuda":
            raise
    else:
        assert levels[63] == 14
