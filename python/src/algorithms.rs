//! The algorithms as Python functions of `simdx._native`: each takes a graph, its parameters, a
//! backend name and a dict of engine options, releases the GIL while it runs, and returns the values
//! as a numpy array and what the run did as a dict (`simdx/__init__.py` wraps them for users).

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use simdx::acc::{DeviceProgram, VertexData};
use simdx::algos::{Bfs, Bp, KCore, Mlp, MultiSourceBfs, MultiSourceSssp, PageRank, Ppr, Spmv, Sssp, Wcc, WideSssp};
use simdx::engine::{Direction, FilterUsed, Run, RunOptions, RunStats};
use simdx::intersect::{IntersectError, Intersections};
use simdx::multi_source::{MultiSourceError, MultiStats, Searches, Traversal};
use simdx::{Backend, Graph, Runner, VertexId};

use crate::errors::{simdx_error, value_error};
use crate::graph::{NativeGraph, Ran, Runners};
use crate::options::{backend, gpu_count, gpus_option, run_options};

const UNREACHED: u32 = u32::MAX;

/// The values of one run and its statistics, as Python objects.
type Output<'py> = (Bound<'py, PyAny>, Bound<'py, PyDict>);

/// Runs `program` on `graph` through `runners`, without the GIL; on several GPUs (`gpus=` among the
/// options) the graph is split over them.
fn run<P: DeviceProgram + Sync>(
    py: Python<'_>,
    (graph, runners): (&std::sync::Arc<Graph>, &Runners),
    program: &P,
    backend_name: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Run<P::Value>, Ran)> {
    let (backend, gpus, options) = program_options(backend_name, options)?;
    py.detach(|| runners.on(graph, backend, gpus, options, |runner| runner.run(program)))
}

/// A program's backend, GPUs (`gpus=`, checked against the backend) and run options.
fn program_options(backend_name: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<(Backend, usize, RunOptions)> {
    let backend = backend(backend_name)?;
    let (gpus, options) = gpus_option(options)?;
    Ok((backend, gpu_count(backend, gpus)?, run_options(options.as_ref())?))
}

/// Levels as Python sees them: `int64`, -1 where unreached.
fn levels_as_i64(levels: &[u32]) -> Vec<i64> {
    levels.iter().map(|&l| if l == UNREACHED { -1 } else { i64::from(l) }).collect()
}

/// Sources given as `int64` ids, checked against the graph.
fn sources(graph: &Graph, ids: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<VertexId>> {
    let n = graph.num_vertices();
    if ids.as_array().is_empty() {
        return Err(value_error("no source given"));
    }
    ids.as_array()
        .iter()
        .map(|&id| match u32::try_from(id) {
            Ok(v) if (v as usize) < n => Ok(v),
            _ => Err(value_error(format!("source {id} is not a vertex of this graph (it has {n} vertices)"))),
        })
        .collect()
}

/// Breadth-first levels from the nearest of `sources` (`int64`, -1 where unreached).
#[pyfunction]
#[pyo3(signature = (graph, sources, backend, options=None))]
pub fn bfs<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    sources: PyReadonlyArray1<'_, i64>,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    let ids = self::sources(graph.graph(), &sources)?;
    let (run, ran) = match ids.as_slice() {
        &[source] => self::run(py, graph.prepared(), &Bfs { source }, backend, options)?,
        _ => {
            let program = MultiSourceBfs { sources: VertexData::set(graph.graph().num_vertices(), &ids) };
            self::run(py, graph.prepared(), &program, backend, options)?
        }
    };
    let levels = levels_as_i64(&run.values);
    Ok((PyArray1::from_vec(py, levels).into_any(), stats(py, &run.stats, &ran)?))
}

/// The breadth-first tree from `source` (`Runner::bfs_tree`): each vertex's parent, an in-neighbour one
/// level closer (`int64`; the source its own, -1 where unreached), and its level.
#[pyfunction]
#[pyo3(signature = (graph, source, backend, options=None))]
pub fn bfs_parents<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    source: i64,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyDict>)> {
    let ids = self::sources(graph.graph(), &PyArray1::from_vec(py, vec![source]).readonly())?;
    let (backend, gpus, options) = program_options(backend, options)?;
    let (shared, runners) = graph.prepared();
    let ((run, parents), ran) =
        py.detach(|| runners.on(shared, backend, gpus, options, |runner| runner.bfs_tree(ids[0])))?;
    let (parents, levels) = (levels_as_i64(&parents), levels_as_i64(&run.values));
    let (parents, levels) = (PyArray1::from_vec(py, parents).into_any(), PyArray1::from_vec(py, levels).into_any());
    Ok((parents, levels, stats(py, &run.stats, &ran)?))
}

/// Shortest-path distances from the nearest of `sources` (`float64`, `inf` where unreached), by
/// delta-stepping with bucket width `delta` (default from the weights, wider on a GPU: `Runner::sssp_delta`).
#[pyfunction]
#[pyo3(signature = (graph, sources, delta, backend, options=None))]
pub fn sssp<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    sources: PyReadonlyArray1<'_, i64>,
    delta: Option<u32>,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    let ids = self::sources(graph.graph(), &sources)?;
    if delta == Some(0) {
        return Err(value_error("delta must be at least 1"));
    }
    let n = graph.graph().num_vertices();
    let (host, runners) = graph.prepared();
    let (backend, gpus, options) = program_options(backend, options)?;
    // The width is the runner's (wider on a GPU) unless given; distances are u64 where a sum could
    // pass u32::MAX.
    let wide = !simdx::algos::sssp::fits_u32(host);
    let (distances, run_stats, ran) = py.detach(|| {
        runners
            .on(host, backend, gpus, options, |runner| {
                let delta = delta.unwrap_or_else(|| runner.sssp_delta(host));
                let unreached = |d: u64, max: u64| if d == max { f64::INFINITY } else { d as f64 };
                if wide {
                    let program = WideSssp { sources: VertexData::set(n, &ids), delta: u64::from(delta) };
                    return runner.run(&program).map(|run| {
                        (run.values.iter().map(|&d| unreached(d, u64::MAX)).collect::<Vec<f64>>(), run.stats)
                    });
                }
                let run = match ids.as_slice() {
                    &[source] => runner.run(&Sssp { source, delta }),
                    _ => runner.run(&MultiSourceSssp { sources: VertexData::set(n, &ids), delta }),
                }?;
                Ok((run.values.iter().map(|&d| unreached(u64::from(d), u64::from(UNREACHED))).collect(), run.stats))
            })
            .map(|((distances, stats), ran)| (distances, stats, ran))
    })?;
    Ok((PyArray1::from_vec(py, distances).into_any(), stats(py, &run_stats, &ran)?))
}

fn check_pagerank(damping: f64, tolerance: f64) -> PyResult<()> {
    if !(0.0..1.0).contains(&damping) {
        return Err(value_error(format!("damping {damping} is not within [0, 1)")));
    }
    if tolerance.is_nan() || tolerance < 0.0 {
        return Err(value_error(format!("tolerance {tolerance} is not a non-negative number")));
    }
    Ok(())
}

/// PageRank (`float64`, summing to 1) until the ranks change by less than `tolerance` (L1) or after
/// `max_iterations`.
#[pyfunction]
#[pyo3(signature = (graph, damping, tolerance, max_iterations, backend, options=None))]
pub fn pagerank<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    damping: f64,
    tolerance: f64,
    max_iterations: u32,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    check_pagerank(damping, tolerance)?;
    let program = PageRank { damping, tolerance, max_iterations };
    let (run, ran) = self::run(py, graph.prepared(), &program, backend, options)?;
    Ok((PyArray1::from_vec(py, run.values).into_any(), stats(py, &run.stats, &ran)?))
}

/// Personalized PageRank jumping to `sources`, each alike (`float64`).
#[pyfunction]
#[pyo3(signature = (graph, sources, damping, tolerance, max_iterations, backend, options=None))]
#[allow(clippy::too_many_arguments)]
pub fn ppr<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    sources: PyReadonlyArray1<'_, i64>,
    damping: f64,
    tolerance: f64,
    max_iterations: u32,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    check_pagerank(damping, tolerance)?;
    let ids = self::sources(graph.graph(), &sources)?;
    let program = Ppr { damping, tolerance, max_iterations, ..Ppr::from_seeds(graph.graph().num_vertices(), &ids) };
    let (run, ran) = self::run(py, graph.prepared(), &program, backend, options)?;
    Ok((PyArray1::from_vec(py, run.values).into_any(), stats(py, &run.stats, &ran)?))
}

/// Weakly connected components: each vertex's component id, the smallest vertex id in it (`int64`).
#[pyfunction]
#[pyo3(signature = (graph, backend, options=None))]
pub fn wcc<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    let (run, ran) = self::run(py, graph.undirected(), &Wcc, backend, options)?;
    let labels: Vec<i64> = run.values.iter().map(|&c| i64::from(c)).collect();
    Ok((PyArray1::from_vec(py, labels).into_any(), stats(py, &run.stats, &ran)?))
}

/// With `k`: whether each vertex is in the k-core (`bool`); without: each vertex's core number
/// (`int64`), by `Runner::core_numbers` (on the CPU one parallel peeling, on GPUs one k-core run per
/// distinct core number, the statistics those of all runs).
#[pyfunction]
#[pyo3(signature = (graph, k, backend, options=None))]
pub fn kcore<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    k: Option<u32>,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    let (sym, runners) = graph.undirected();
    if let Some(k) = k {
        let (run, ran) = self::run(py, (sym, runners), &KCore { k }, backend, options)?;
        let inside: Vec<bool> = run.values.iter().map(|&d| d >= k).collect();
        return Ok((PyArray1::from_vec(py, inside).into_any(), stats(py, &run.stats, &ran)?));
    }
    let (backend, gpus, options) = program_options(backend, options)?;
    let decompose = |runner: &Runner<'static>| runner.core_numbers();
    let ((cores, total), ran) = py.detach(|| runners.on(sym, backend, gpus, options, decompose))?;
    let cores: Vec<i64> = cores.iter().map(|&c| i64::from(c)).collect();
    Ok((PyArray1::from_vec(py, cores).into_any(), stats(py, &total, &ran)?))
}

/// `y = A x`: `y[v]` = the sum over in-arcs `u -> v` of `w * x[u]` (scipy's `A.T @ x`; weight 1 on
/// unweighted arcs), in `float32`.
#[pyfunction]
#[pyo3(signature = (graph, x, backend, options=None))]
pub fn spmv<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    x: PyReadonlyArray1<'_, f64>,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    let x = f32_per_vertex("x", &x, graph.graph().num_vertices())?;
    let program = Spmv { x: x.into() };
    let (run, ran) = self::run(py, graph.prepared(), &program, backend, options)?;
    Ok((PyArray1::from_vec(py, run.values).into_any(), stats(py, &run.stats, &ran)?))
}

/// `values`, the argument `name`, checked to hold one value per vertex of an `n`-vertex graph.
fn per_vertex<'a>(name: &str, values: &'a PyReadonlyArray1<'_, f64>, n: usize) -> PyResult<&'a [f64]> {
    let values = values.as_slice().map_err(|_| value_error(format!("{name} must be a contiguous array")))?;
    if values.len() != n {
        return Err(value_error(format!("{name} has {} values but the graph has {n} vertices", values.len())));
    }
    Ok(values)
}

/// `values`, the argument `name`, as one finite `f32` per vertex of an `n`-vertex graph.
fn f32_per_vertex(name: &str, values: &PyReadonlyArray1<'_, f64>, n: usize) -> PyResult<Vec<f32>> {
    per_vertex(name, values, n)?
        .iter()
        .enumerate()
        .map(|(v, &value)| match value as f32 {
            x32 if x32.is_finite() => Ok(x32),
            _ => Err(value_error(format!("{name}[{v}] = {value} is not a finite float32 value"))),
        })
        .collect()
}

/// Belief propagation (the `Bp` program) for `iterations` BP iterations from `priors` (uniform,
/// `1 / n`, when `None`): each vertex's belief, `float64`, the beliefs summing to 1. Refuses what the
/// CLI refuses, as `ValueError`: priors that are negative, not finite, all 0 or not one per vertex,
/// and inputs whose beliefs would all be 0 (nothing to normalise).
#[pyfunction]
#[pyo3(signature = (graph, priors, iterations, backend, options=None))]
pub fn bp<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    priors: Option<PyReadonlyArray1<'_, f64>>,
    iterations: u32,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    if iterations == 0 {
        return Err(value_error("iterations must be at least 1 for bp"));
    }
    let g = graph.graph();
    let program = match &priors {
        Some(priors) => Bp { iterations, priors: per_vertex("priors", priors, g.num_vertices())?.to_vec().into() },
        None => Bp::uniform(g.num_vertices(), iterations),
    };
    simdx::algos::bp::check_inputs(g, program.priors.as_slice()).map_err(value_error)?;
    let (run, ran) = self::run(py, graph.prepared(), &program, backend, options)?;
    simdx::algos::bp::check_beliefs(&run.values).map_err(value_error)?;
    Ok((PyArray1::from_vec(py, run.values).into_any(), stats(py, &run.stats, &ran)?))
}

/// The forward pass of a layered network (the `Mlp` program): each neuron's activation, `float32`;
/// input neurons (no in-arcs) hold `input` (`((v mod 10) + 1) / 10` when `None`), every other
/// neuron `sigmoid(weighted sum + bias)`, its bias `biases[v]` when given, otherwise `bias`. Refuses,
/// as `ValueError`, a graph that is not a layered network and values that are not finite `float32`s
/// or not one per vertex.
#[pyfunction]
#[pyo3(signature = (graph, input, bias, biases, backend, options=None))]
pub fn mlp<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    input: Option<PyReadonlyArray1<'_, f64>>,
    bias: f64,
    biases: Option<PyReadonlyArray1<'_, f64>>,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    let g = graph.graph();
    let n = g.num_vertices();
    let bias = match &biases {
        Some(biases) => f32_per_vertex("bias", biases, n)?.into(),
        None => match bias as f32 {
            b if b.is_finite() => VertexData::filled(b, n),
            _ => return Err(value_error(format!("bias {bias} is not a finite float32 value"))),
        },
    };
    let input = match &input {
        Some(input) => f32_per_vertex("input", input, n)?.into(),
        None => Mlp::default_input(n, 0.0).input,
    };
    simdx::algos::mlp::check_network(g).map_err(value_error)?;
    let (run, ran) = self::run(py, graph.prepared(), &Mlp { input, bias }, backend, options)?;
    Ok((PyArray1::from_vec(py, run.values).into_any(), stats(py, &run.stats, &ran)?))
}

/// The levels from each of `sources`: an `int64` array of shape (vertices, sources), -1 where
/// unreached; 64 searches per pass over the graph, on `backend`.
#[pyfunction]
#[pyo3(signature = (graph, sources, group_by, backend, options=None, gpus=None))]
#[allow(clippy::too_many_arguments)]
pub fn levels_from_each<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    sources: PyReadonlyArray1<'_, i64>,
    group_by: bool,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
    gpus: Option<usize>,
) -> PyResult<Output<'py>> {
    let ids = self::sources(graph.graph(), &sources)?;
    let (levels, stats) =
        searching(py, graph, backend, gpus, options, group_by, |s, how| simdx::algos::levels_from_each(s, &ids, how))?;
    let array = PyArray1::from_vec(py, levels_as_i64(&levels)).reshape([graph.graph().num_vertices(), ids.len()])?;
    Ok((array.into_any(), stats))
}

/// Closeness centrality (networkx's) of `vertices` (all when `None`), `float64`, on `backend`.
#[pyfunction]
#[pyo3(signature = (graph, vertices, group_by, backend, options=None, gpus=None))]
#[allow(clippy::too_many_arguments)]
pub fn closeness<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    vertices: Option<PyReadonlyArray1<'_, i64>>,
    group_by: bool,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
    gpus: Option<usize>,
) -> PyResult<Output<'py>> {
    let measure: Centrality = |s, ids, how| simdx::algos::closeness(s, ids, how);
    centrality(py, graph, vertices, group_by, backend, options, gpus, measure)
}

/// Harmonic centrality (networkx's) of `vertices` (all when `None`), `float64`, on `backend`.
#[pyfunction]
#[pyo3(signature = (graph, vertices, group_by, backend, options=None, gpus=None))]
#[allow(clippy::too_many_arguments)]
pub fn harmonic<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    vertices: Option<PyReadonlyArray1<'_, i64>>,
    group_by: bool,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
    gpus: Option<usize>,
) -> PyResult<Output<'py>> {
    let measure: Centrality = |s, ids, how| simdx::algos::harmonic(s, ids, how);
    centrality(py, graph, vertices, group_by, backend, options, gpus, measure)
}

/// A centrality of the multi-search applications: one `f64` per vertex asked for.
type Centrality = fn(&dyn Searches, &[VertexId], Traversal) -> Result<(Vec<f64>, MultiStats), MultiSourceError>;

/// `measure` of `vertices` (all when `None`) on `backend`, as a `float64` array.
#[allow(clippy::too_many_arguments)]
fn centrality<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    vertices: Option<PyReadonlyArray1<'_, i64>>,
    group_by: bool,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
    gpus: Option<usize>,
    measure: Centrality,
) -> PyResult<Output<'py>> {
    let ids = chosen(graph.graph(), vertices)?;
    let (values, stats) = searching(py, graph, backend, gpus, options, group_by, |s, how| measure(s, &ids, how))?;
    Ok((PyArray1::from_vec(py, values).into_any(), stats))
}

/// Eccentricity of `vertices` (all when `None`) within what each reaches, `int64`, on `backend`.
#[pyfunction]
#[pyo3(signature = (graph, vertices, group_by, backend, options=None, gpus=None))]
#[allow(clippy::too_many_arguments)]
pub fn eccentricity<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    vertices: Option<PyReadonlyArray1<'_, i64>>,
    group_by: bool,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
    gpus: Option<usize>,
) -> PyResult<Output<'py>> {
    let ids = chosen(graph.graph(), vertices)?;
    let (values, stats) =
        searching(py, graph, backend, gpus, options, group_by, |s, how| simdx::algos::eccentricity(s, &ids, how))?;
    let values: Vec<i64> = values.iter().map(|&e| i64::from(e)).collect();
    Ok((PyArray1::from_vec(py, values).into_any(), stats))
}

/// Runs a multi-search application `job` on `backend_name` (the graph's multi-source traversal there,
/// on `gpus` GPUs when given), without the GIL; its values and statistics.
#[allow(clippy::too_many_arguments)]
fn searching<'py, T: Send>(
    py: Python<'py>,
    graph: &NativeGraph,
    backend_name: &str,
    gpus: Option<usize>,
    options: Option<&Bound<'py, PyDict>>,
    group_by: bool,
    job: impl FnOnce(&dyn Searches, Traversal) -> Result<(T, MultiStats), MultiSourceError> + Send,
) -> PyResult<(T, Bound<'py, PyDict>)> {
    let (backend, options) = (backend(backend_name)?, run_options(options)?);
    let gpus = gpu_count(backend, gpus)?;
    let how = Traversal { direction: options.direction, group_by, ..Traversal::default() };
    let (g, runners) = graph.prepared();
    let (result, ran) =
        py.detach(|| runners.on(g, backend, gpus, options, |runner| Ok(job(runner.searches(), how))))?;
    let (values, stats) = result.map_err(simdx_error)?;
    Ok((values, multi_stats(py, g, stats, &ran)?))
}

/// Betweenness centrality from `sources` (all when `None`: exact), scaled as networkx's
/// `betweenness_centrality` (by n / len(sources) for a sample), `float64`, on `backend`.
#[pyfunction]
#[pyo3(signature = (graph, sources, normalized, backend, options=None, gpus=None))]
#[allow(clippy::too_many_arguments)]
pub fn betweenness<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    sources: Option<PyReadonlyArray1<'_, i64>>,
    normalized: bool,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
    gpus: Option<usize>,
) -> PyResult<Output<'py>> {
    let ids = chosen(graph.graph(), sources)?;
    let (values, stats) =
        searching(py, graph, backend, gpus, options, false, |s, _| simdx::algos::betweenness(s, &ids, normalized))?;
    Ok((PyArray1::from_vec(py, values).into_any(), stats))
}

/// An edge computation's refusal as Python sees it: a directed graph or a pair outside the graph is
/// a `ValueError`, a device failure a `SimdxError`.
fn intersect_error(what: &str, error: IntersectError) -> PyErr {
    match error {
        IntersectError::Directed => value_error(format!(
            "{what} needs an undirected graph, and this one is directed (make it with directed=False, or read \
             a file with undirected=True)"
        )),
        IntersectError::Device(_) => simdx_error(error),
        other => value_error(other.to_string()),
    }
}

/// Runs an edge computation `job` on `backend_name` (the graph's runner there), without the GIL; its
/// result and what the run did (backend, fallback, time_s).
fn intersecting<'py, T: Send>(
    py: Python<'py>,
    graph: &NativeGraph,
    backend_name: &str,
    options: Option<&Bound<'py, PyDict>>,
    what: &str,
    job: impl FnOnce(&dyn Intersections) -> Result<T, IntersectError> + Send,
) -> PyResult<(T, Bound<'py, PyDict>)> {
    let (backend, options) = (backend(backend_name)?, run_options(options)?);
    let (g, runners) = graph.prepared();
    let ((result, time), ran) = py.detach(|| {
        runners.with(g, backend, options, |runner| {
            let start = std::time::Instant::now();
            let result = job(runner.intersections());
            Ok((result, start.elapsed()))
        })
    })?;
    let values = result.map_err(|e| intersect_error(what, e))?;
    let run = RunStats { time, graph_edges: g.num_edges(), ..RunStats::default() };
    Ok((values, stats(py, &run, &ran)?))
}

/// The number of triangles of an undirected graph, on `backend`.
#[pyfunction]
#[pyo3(signature = (graph, backend, options=None))]
pub fn triangle_count<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(u64, Bound<'py, PyDict>)> {
    intersecting(py, graph, backend, options, "triangle_count", simdx::algos::triangle_count)
}

/// The number of triangles each vertex of an undirected graph is in (`uint64`), on `backend`.
#[pyfunction]
#[pyo3(signature = (graph, backend, options=None))]
pub fn triangles<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    let (counts, stats) = intersecting(py, graph, backend, options, "triangles", simdx::algos::triangles)?;
    Ok((PyArray1::from_vec(py, counts).into_any(), stats))
}

/// Jaccard's pairs (`int64`, (k, 2)) and coefficients (`float64`), as Python objects.
type PairsAndValues<'py> = (Bound<'py, PyAny>, Bound<'py, PyAny>);

/// The Jaccard coefficients of `pairs` (an `int64` array of shape (k, 2); every edge `u < v` when
/// `None`) on an undirected graph, on `backend`: the pairs (`int64`, (k, 2)), the coefficients
/// (`float64`) and what the run did.
#[pyfunction]
#[pyo3(signature = (graph, pairs, backend, options=None))]
pub fn jaccard<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    pairs: Option<PyReadonlyArray2<'_, i64>>,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(PairsAndValues<'py>, Bound<'py, PyDict>)> {
    let g = graph.graph();
    if g.is_directed() {
        return Err(intersect_error("jaccard", IntersectError::Directed));
    }
    let n = g.num_vertices();
    let pairs: Vec<(VertexId, VertexId)> = match pairs {
        None => py.detach(|| simdx::algos::jaccard::edge_pairs(g)),
        Some(array) => {
            let view = array.as_array();
            if view.ncols() != 2 {
                return Err(value_error(format!("pairs must have shape (k, 2), not {:?}", view.shape())));
            }
            let id = |i: usize, x: i64| match u32::try_from(x) {
                Ok(v) if (v as usize) < n => Ok(v),
                _ => Err(value_error(format!("pairs[{i}] names {x}, not a vertex id in [0, {n})"))),
            };
            view.rows()
                .into_iter()
                .enumerate()
                .map(|(i, row)| Ok((id(i, row[0])?, id(i, row[1])?)))
                .collect::<PyResult<_>>()?
        }
    };
    let (values, stats) = intersecting(py, graph, backend, options, "jaccard", |on| simdx::algos::jaccard(on, &pairs))?;
    let flat: Vec<i64> = pairs.iter().flat_map(|&(u, v)| [i64::from(u), i64::from(v)]).collect();
    let pairs = PyArray1::from_vec(py, flat).reshape([pairs.len(), 2])?;
    Ok(((pairs.into_any(), PyArray1::from_vec(py, values).into_any()), stats))
}

/// Strongly connected components on `backend`: each vertex's component, the smallest vertex id in it
/// (`int64`), and how they were found; on an undirected graph, its connected components.
#[pyfunction]
#[pyo3(signature = (graph, backend, options=None))]
pub fn scc<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    backend: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Output<'py>> {
    let (backend, options) = (self::backend(backend)?, run_options(options)?);
    let (g, runners) = graph.prepared();
    let ((result, time), ran) = py.detach(|| {
        runners.with(g, backend, options, |runner| {
            let start = std::time::Instant::now();
            let result = simdx::algos::scc_on(runner.strong_components());
            Ok((result, start.elapsed()))
        })
    })?;
    let (components, found) = result.map_err(simdx_error)?;
    let components: Vec<i64> = components.iter().map(|&c| i64::from(c)).collect();
    let run = RunStats { time, graph_edges: g.num_edges(), ..RunStats::default() };
    let dict = stats(py, &run, &ran)?;
    dict.set_item("trimmed", found.trimmed)?;
    dict.set_item("pivot_component", found.pivot_component)?;
    dict.set_item("colour_rounds", found.colour_rounds)?;
    Ok((PyArray1::from_vec(py, components).into_any(), dict))
}

/// Louvain communities of an undirected graph at `resolution`, the vertex orders shuffled from
/// `seed`: each vertex's community (`int64`, numbered in the order of the communities' smallest
/// vertices) and what the run did: the modularity, the number of communities and each level's
/// vertices, sweeps, moves and communities (CPU).
#[pyfunction]
#[pyo3(signature = (graph, resolution, threshold, max_level, seed))]
pub fn louvain<'py>(
    py: Python<'py>,
    graph: &NativeGraph,
    resolution: f64,
    threshold: f64,
    max_level: Option<u32>,
    seed: u64,
) -> PyResult<Output<'py>> {
    use simdx::algos::louvain::{LouvainError, LouvainOptions};
    let g = graph.graph();
    let options = LouvainOptions { resolution, threshold, max_level, seed };
    let (found, time) = py.detach(|| {
        let start = std::time::Instant::now();
        (simdx::algos::louvain(g, &options), start.elapsed())
    });
    let found = found.map_err(|e| match e {
        LouvainError::Directed => value_error(
            "louvain needs an undirected graph, and this one is directed (make it with directed=False, or read a \
             file with undirected=True)",
        ),
        other => value_error(other.to_string()),
    })?;
    let dict = PyDict::new(py);
    dict.set_item("backend", Backend::Cpu.name())?;
    dict.set_item("time_s", time.as_secs_f64())?;
    dict.set_item("modularity", found.modularity)?;
    dict.set_item("communities", found.count)?;
    let levels = PyList::empty(py);
    for level in &found.levels {
        let row = PyDict::new(py);
        row.set_item("vertices", level.vertices)?;
        row.set_item("sweeps", level.sweeps)?;
        row.set_item("moves", level.moves)?;
        row.set_item("communities", level.communities)?;
        row.set_item("modularity", level.modularity)?;
        levels.append(row)?;
    }
    dict.set_item("levels", levels)?;
    let labels: Vec<i64> = found.labels.iter().map(|&c| i64::from(c)).collect();
    Ok((PyArray1::from_vec(py, labels).into_any(), dict))
}

/// The vertices given (checked), or every vertex.
fn chosen(graph: &Graph, vertices: Option<PyReadonlyArray1<'_, i64>>) -> PyResult<Vec<VertexId>> {
    match vertices {
        Some(v) => sources(graph, &v),
        None => Ok((0..graph.num_vertices() as VertexId).collect()),
    }
}

/// The statistics of a multi-source traversal, as [`stats`] gives them.
fn multi_stats<'py>(py: Python<'py>, graph: &Graph, stats: MultiStats, ran: &Ran) -> PyResult<Bound<'py, PyDict>> {
    let run =
        RunStats { iterations: stats.levels, time: stats.time, graph_edges: graph.num_edges(), ..RunStats::default() };
    let dict = self::stats(py, &run, ran)?;
    dict.set_item("batches", stats.batches)?;
    Ok(dict)
}

/// What a run did, as a dict: backend, fallback (why `auto` ran on the CPU, or `None`), iterations,
/// time_s, edges_touched, graph_edges, and the per-iteration trace.
fn stats<'py>(py: Python<'py>, stats: &RunStats, ran: &Ran) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("backend", ran.backend.name())?;
    dict.set_item("fallback", ran.fallback.as_deref())?;
    let gpus = match ran.backend {
        Backend::Gpus(n) => n,
        Backend::Cuda => 1,
        Backend::Auto | Backend::Cpu => 0,
    };
    dict.set_item("gpus", gpus)?;
    dict.set_item("iterations", stats.iterations.len())?;
    dict.set_item("time_s", stats.time.as_secs_f64())?;
    dict.set_item("edges_touched", stats.edges_touched())?;
    dict.set_item("graph_edges", stats.graph_edges)?;
    let trace = PyList::empty(py);
    for it in &stats.iterations {
        let row = PyDict::new(py);
        row.set_item("direction", if it.direction == Direction::Push { "push" } else { "pull" })?;
        let filter = match it.filter {
            FilterUsed::Online => "online",
            FilterUsed::Ballot => "ballot",
            FilterUsed::Every => "every",
            FilterUsed::Queue => "queue",
        };
        row.set_item("filter", filter)?;
        row.set_item("frontier", it.frontier)?;
        row.set_item("edges", it.edges)?;
        row.set_item("bucket", it.bucket)?;
        row.set_item("time_s", it.time.as_secs_f64())?;
        trace.append(row)?;
    }
    dict.set_item("trace", trace)?;
    Ok(dict)
}
