"""Belief propagation and the MLP forward pass against numpy oracles: a direct float64 loop over the
in-arcs per iteration (the definition of simdx-algos/src/verify/bp.rs) and a dense matrix product with
the sigmoid per layer (simdx-algos/src/verify/mlp.rs), and the refusals the CLI makes."""

import numpy as np
import pytest

import simdx
from conftest import BACKEND


def arcs(g):
    """Every arc ``src[i] -> dst[i]`` of ``g`` with its likelihood (the weight as float32, 1 if
    unweighted) as float64."""
    indptr, indices, weights = g.csr()
    src = np.repeat(np.arange(g.num_vertices), np.diff(indptr.astype(np.int64)))
    dst = indices.astype(np.int64)
    w = np.ones(len(dst)) if weights is None else np.asarray(weights).astype(np.float32).astype(np.float64)
    return src, dst, w


def oracle_bp(g, priors, iterations):
    """Beliefs after ``iterations`` iterations: ``y[v] = priors[v] * sum over in-arcs u -> v of
    w * b[u]``, then ``b = y / y.sum()`` (all 0 if the sum is 0)."""
    src, dst, w = arcs(g)
    priors = np.asarray(priors, dtype=np.float64)
    belief = priors.copy()
    for _ in range(max(iterations, 1)):
        y = priors * np.bincount(dst, weights=w * belief[src], minlength=g.num_vertices)
        total = y.sum()
        belief = y / total if total > 0 else np.zeros_like(y)
    return belief


def small_weighted_graph():
    """A directed graph of 7 vertices with real weights, every vertex with an in-arc."""
    src = [0, 0, 1, 2, 2, 3, 4, 5, 6, 6, 3, 1]
    dst = [1, 2, 2, 0, 3, 4, 5, 6, 0, 3, 1, 4]
    weights = [0.5, 1.25, 2.0, 0.75, 0.1, 3.0, 1.5, 0.2, 0.9, 1.1, 0.6, 2.5]
    return simdx.Graph.from_edges(src, dst, weights, directed=True)


@pytest.mark.parametrize("iterations", [1, 2, 3, 10])
def test_bp_matches_the_in_arc_loop(iterations):
    g = small_weighted_graph()
    priors = np.array([0.3, 0.1, 0.2, 0.05, 0.15, 0.1, 0.1])
    beliefs, stats = simdx.bp(g, priors, iterations=iterations, backend=BACKEND, return_stats=True)
    assert beliefs.dtype == np.float64 and beliefs.shape == (7,)
    np.testing.assert_allclose(beliefs, oracle_bp(g, priors, iterations), rtol=1e-12, atol=0)
    assert abs(beliefs.sum() - 1) < 1e-12
    assert stats["backend"] == BACKEND and stats["iterations"] >= iterations


def test_bp_priors_default_to_uniform():
    g = small_weighted_graph()
    uniform = np.full(7, 1 / 7)
    np.testing.assert_allclose(simdx.bp(g, backend=BACKEND), oracle_bp(g, uniform, 10), rtol=1e-12)
    # Unnormalised priors change nothing but a common factor: the same beliefs as their normalisation.
    np.testing.assert_allclose(simdx.bp(g, [2.0] * 7, backend=BACKEND), simdx.bp(g, backend=BACKEND), rtol=1e-12)


def test_bp_on_random_graphs_with_integer_weights(pair):
    _, g = pair
    priors = np.random.default_rng(3).random(g.num_vertices)
    for iterations in (1, 5):
        beliefs = simdx.bp(g, priors, iterations=iterations, backend=BACKEND)
        np.testing.assert_allclose(beliefs, oracle_bp(g, priors, iterations), rtol=1e-10, atol=1e-300)


def test_bp_vertices_without_in_arcs_end_at_zero():
    g = simdx.Graph.from_edges([0, 1, 2], [1, 2, 1], directed=True)  # vertex 0 has no in-arc
    beliefs = simdx.bp(g, [0.5, 0.25, 0.25], iterations=3, backend=BACKEND)
    assert beliefs[0] == 0
    np.testing.assert_allclose(beliefs, oracle_bp(g, [0.5, 0.25, 0.25], 3), rtol=1e-12)


def test_bp_refusals():
    g = small_weighted_graph()
    good = np.full(7, 0.1)
    for priors, words in (
        ([0.1] * 6, "priors has 6 values but the graph has 7 vertices"),
        ([-0.1] + [0.1] * 6, "the prior of vertex 0 is -0.1"),
        ([0.1, np.nan] + [0.1] * 5, "the prior of vertex 1 is NaN"),
        ([0.1] * 6 + [np.inf], "the prior of vertex 6 is inf"),
        ([0.0] * 7, "every prior is 0"),
        (np.ones((7, 1)), "one-dimensional"),
    ):
        with pytest.raises(ValueError, match=words):
            simdx.bp(g, priors, backend=BACKEND)
    with pytest.raises(ValueError, match="iterations = 0 is not at least 1"):
        simdx.bp(g, good, iterations=0, backend=BACKEND)
    with pytest.raises(TypeError, match="iterations must be an integer"):
        simdx.bp(g, good, iterations=2.5, backend=BACKEND)
    # No belief flows along any arc: nothing to normalise.
    edgeless = simdx.Graph.from_edges([], [], directed=True, num_vertices=4)
    with pytest.raises(ValueError, match="the beliefs sum to 0"):
        simdx.bp(edgeless, backend=BACKEND)
    # Only vertex 0 has a positive prior, and it has no in-arc.
    chain = simdx.Graph.from_edges([0, 1], [1, 2], directed=True)
    with pytest.raises(ValueError, match="nothing to normalise"):
        simdx.bp(chain, [1.0, 0.0, 0.0], backend=BACKEND)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def oracle_mlp(g, widths, input, bias):
    """The forward pass layer by layer (the generator numbers neurons layer by layer, inputs first):
    ``x' = sigmoid(W.T @ x + bias)`` with ``W`` the dense weights from one layer to the next, float64."""
    dense = g.to_scipy().toarray().astype(np.float64)
    starts = np.concatenate([[0], np.cumsum(widths)])
    values = np.full(g.num_vertices, np.nan)
    values[: widths[0]] = np.asarray(input, dtype=np.float32)[: widths[0]]
    for layer in range(1, len(widths)):
        before = slice(starts[layer - 1], starts[layer])
        now = slice(starts[layer], starts[layer + 1])
        values[now] = sigmoid(dense[before, now].T @ values[before] + np.asarray(bias, dtype=np.float32)[now])
    return values


@pytest.mark.parametrize("spec", ["mlp:8,6,3", "mlp:20,12,7,4", "mlp:30,16,5:4"])
def test_mlp_matches_dense_layers(spec):
    widths = [int(w) for w in spec.split(":")[1].split(",")]
    g = simdx.generate(spec, seed=5)
    n = g.num_vertices
    assert n == sum(widths)
    default = ((np.arange(n) % 10) + 1) / 10
    values, stats = simdx.mlp(g, backend=BACKEND, return_stats=True)
    assert values.dtype == np.float32 and values.shape == (n,)
    assert stats["backend"] == BACKEND
    expected = oracle_mlp(g, widths, default, np.zeros(n))
    np.testing.assert_array_equal(values[: widths[0]], expected[: widths[0]].astype(np.float32))
    np.testing.assert_allclose(values, expected, rtol=1e-5)

    rng = np.random.default_rng(11)
    x = rng.normal(size=n)
    biases = rng.normal(size=n)
    values = simdx.mlp(g, x, biases, backend=BACKEND)
    np.testing.assert_allclose(values, oracle_mlp(g, widths, x, biases), rtol=1e-5)
    values = simdx.mlp(g, x, -0.5, backend=BACKEND)
    np.testing.assert_allclose(values, oracle_mlp(g, widths, x, np.full(n, -0.5)), rtol=1e-5)
    assert simdx.mlp(g, x, np.float32(-0.5), backend=BACKEND).tolist() == values.tolist()


def test_mlp_refusals():
    g = simdx.generate("mlp:4,3,2")
    n = g.num_vertices
    for kwargs, words in (
        ({"input": np.ones(n - 1)}, "input has 8 values but the graph has 9 vertices"),
        ({"input": [1.0, np.nan] + [0.0] * (n - 2)}, r"input\[1\] = NaN is not a finite float32 value"),
        ({"input": [1e39] + [0.0] * (n - 1)}, r"input\[0\] = 10+ is not a finite float32 value"),
        ({"input": np.ones((n, 2))}, "input must be one-dimensional"),
        ({"bias": np.ones(n + 1)}, "bias has 10 values but the graph has 9 vertices"),
        ({"bias": [0.0] * (n - 1) + [np.inf]}, r"bias\[8\] = inf is not a finite float32 value"),
        ({"bias": np.nan}, "bias NaN is not a finite float32 value"),
    ):
        with pytest.raises(ValueError, match=words):
            simdx.mlp(g, backend=BACKEND, **kwargs)
    undirected = simdx.Graph.from_edges([0, 1], [1, 2])
    with pytest.raises(ValueError, match="this graph is undirected"):
        simdx.mlp(undirected, backend=BACKEND)
    # 0 -> 2 puts 2 in layer 1 beside 1, so 1 -> 2 stays within a layer.
    skipping = simdx.Graph.from_edges([0, 1, 0], [1, 2, 2], directed=True)
    with pytest.raises(ValueError, match="not a layered network: edge 1 -> 2 goes from layer 1 to layer 1"):
        simdx.mlp(skipping, backend=BACKEND)
    cycle = simdx.Graph.from_edges([0, 1, 2, 3], [1, 2, 3, 2], directed=True)  # 3 -> 2 goes back
    with pytest.raises(ValueError, match="not a layered network"):
        simdx.mlp(cycle, backend=BACKEND)
    unreached = simdx.Graph.from_edges([0, 2, 3], [1, 3, 2], directed=True)  # 2 <-> 3: no input reaches
    with pytest.raises(ValueError, match="vertex 2 is not reached from any input"):
        simdx.mlp(unreached, backend=BACKEND)
