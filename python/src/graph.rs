//! `simdx._native.Graph`: a graph held by Rust (built from numpy arrays, read from a file or
//! generated), and the runners that run programs on it, prepared once per backend and kept: on a
//! GPU the graph is uploaded by the first call that needs it, not by every call.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use simdx::engine::RunOptions;
use simdx::gen::GeneratorSpec;
use simdx::io::{read_labelled_graph, write_graph, Format, ReadOptions};
use simdx::{Backend, Duplicates, EdgeList, EdgeWeights, Graph, GraphBuilder, RunError, Runner, SelfLoops, Weights};

use crate::errors::{simdx_error, value_error};

/// A graph on the Rust side, with its prepared runners.
#[pyclass(frozen, module = "simdx._native", name = "Graph")]
pub struct NativeGraph {
    graph: Arc<Graph>,
    runners: Runners,
    /// The undirected form of a directed graph (for WCC and k-core), made when first needed.
    undirected: OnceLock<(Arc<Graph>, Runners)>,
}

/// The runners of one graph: one per backend (and per number of GPUs), made when first asked for.
#[derive(Default)]
pub struct Runners {
    cpu: Mutex<Option<Runner<'static>>>,
    /// CUDA runners by how many GPUs they hold (1: [`Backend::Cuda`], more: [`Backend::Gpus`]), or
    /// why they could not be made.
    cuda: Mutex<Vec<(usize, Result<Runner<'static>, String>)>>,
}

/// The backend a call ran on, and why `auto` ran on the CPU if it did.
pub struct Ran {
    pub backend: Backend,
    pub fallback: Option<String>,
}

impl Runners {
    /// Runs `job` on the runner for `backend` (made if needed) with `options`. `Auto` takes the GPU
    /// when it can be used and otherwise the CPU, saying why.
    pub fn with<T>(
        &self,
        graph: &Arc<Graph>,
        backend: Backend,
        options: RunOptions,
        job: impl FnOnce(&Runner<'static>) -> Result<T, RunError>,
    ) -> PyResult<(T, Ran)> {
        self.on(graph, backend, 1, options, job)
    }

    /// [`Runners::with`] on the first `gpus` GPUs when it runs on CUDA (`backend` is `Auto`, `Cpu` or
    /// `Cuda`; `Auto` on several GPUs still falls back to the CPU). Several GPUs split a many-search
    /// traversal's sources, and a program's run splits the graph over them. One runner is kept per
    /// number of GPUs.
    pub fn on<T>(
        &self,
        graph: &Arc<Graph>,
        backend: Backend,
        gpus: usize,
        options: RunOptions,
        job: impl FnOnce(&Runner<'static>) -> Result<T, RunError>,
    ) -> PyResult<(T, Ran)> {
        if backend != Backend::Cpu {
            let mut cuda = self.cuda.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let at = match cuda.iter().position(|(count, _)| *count == gpus) {
                Some(at) => at,
                None => {
                    let on = if gpus > 1 { Backend::Gpus(gpus) } else { Backend::Cuda };
                    cuda.push((gpus, Runner::shared(graph.clone(), on, options).map_err(|e| e.to_string())));
                    cuda.len() - 1
                }
            };
            match &mut cuda[at].1 {
                Ok(runner) => {
                    runner.set_options(options);
                    let value = job(runner).map_err(simdx_error)?;
                    return Ok((value, Ran { backend: runner.backend(), fallback: None }));
                }
                Err(why) if backend != Backend::Auto => return Err(simdx_error(why)),
                Err(why) => {
                    let fallback = Some(why.clone());
                    drop(cuda);
                    let value = self.on_cpu(graph, options, job)?;
                    return Ok((value, Ran { backend: Backend::Cpu, fallback }));
                }
            }
        }
        let value = self.on_cpu(graph, options, job)?;
        Ok((value, Ran { backend: Backend::Cpu, fallback: None }))
    }

    fn on_cpu<T>(
        &self,
        graph: &Arc<Graph>,
        options: RunOptions,
        job: impl FnOnce(&Runner<'static>) -> Result<T, RunError>,
    ) -> PyResult<T> {
        let mut cpu = self.cpu.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if cpu.is_none() {
            *cpu = Some(Runner::shared(graph.clone(), Backend::Cpu, options).map_err(simdx_error)?);
        }
        let runner = cpu.as_mut().expect("the CPU runner was just made");
        runner.set_options(options);
        job(runner).map_err(simdx_error)
    }
}

impl NativeGraph {
    fn new(graph: Graph) -> Self {
        NativeGraph { graph: Arc::new(graph), runners: Runners::default(), undirected: OnceLock::new() }
    }

    /// The graph itself.
    pub fn graph(&self) -> &Arc<Graph> {
        &self.graph
    }

    /// The graph and its runners.
    pub fn prepared(&self) -> (&Arc<Graph>, &Runners) {
        (&self.graph, &self.runners)
    }

    /// The graph as an undirected one (itself when it is undirected) and its runners.
    pub fn undirected(&self) -> (&Arc<Graph>, &Runners) {
        if !self.graph.is_directed() {
            return self.prepared();
        }
        let (graph, runners) = self
            .undirected
            .get_or_init(|| (Arc::new(simdx::algos::undirected(&self.graph).into_owned()), Runners::default()));
        (graph, runners)
    }
}

/// Vertex ids from a 1-D numpy array of `int64`, `int32`, `uint32` or `uint64` (read in place), each
/// checked against `n` vertices.
fn ids(name: &str, array: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<u32>> {
    fn read<T: numpy::Element + Copy + std::fmt::Display>(
        name: &str,
        array: &Bound<'_, PyArray1<T>>,
        n: usize,
        id: impl Fn(T) -> Option<u32>,
    ) -> PyResult<Vec<u32>> {
        let array = array.readonly();
        let view = array.as_array();
        view.iter()
            .enumerate()
            .map(|(i, &value)| match id(value) {
                Some(v) if (v as usize) < n => Ok(v),
                _ => Err(value_error(format!("{name}[{i}] = {value} is not a vertex id in [0, {n})"))),
            })
            .collect()
    }
    if let Ok(a) = array.cast::<PyArray1<i64>>() {
        return read(name, a, n, |x| u32::try_from(x).ok());
    }
    if let Ok(a) = array.cast::<PyArray1<i32>>() {
        return read(name, a, n, |x| u32::try_from(x).ok());
    }
    if let Ok(a) = array.cast::<PyArray1<u32>>() {
        return read(name, a, n, Some);
    }
    if let Ok(a) = array.cast::<PyArray1<u64>>() {
        return read(name, a, n, |x| u32::try_from(x).ok());
    }
    Err(value_error(format!("{name} must be a 1-D numpy array of int32, int64, uint32 or uint64 vertex ids")))
}

/// A builder with the given direction and self-loop and duplicate policies.
fn builder(directed: bool, keep_self_loops: bool, keep_duplicates: bool) -> GraphBuilder {
    GraphBuilder::new()
        .directed(directed)
        .self_loops(if keep_self_loops { SelfLoops::Keep } else { SelfLoops::Remove })
        .duplicates(if keep_duplicates { Duplicates::Keep } else { Duplicates::Remove })
}

fn check_vertex_count(num_vertices: usize) -> PyResult<()> {
    if num_vertices > simdx::MAX_VERTICES {
        return Err(value_error(format!("{num_vertices} vertices is more than simdx holds ({})", simdx::MAX_VERTICES)));
    }
    Ok(())
}

#[pymethods]
impl NativeGraph {
    /// A graph from edges `src[i] -> dst[i]` (numpy arrays of ids) with optional weights (`int64`:
    /// integer weights; `float64` or `float32`: real weights; non-negative).
    #[staticmethod]
    #[pyo3(signature = (src, dst, weights, num_vertices, directed, keep_self_loops, keep_duplicates))]
    #[allow(clippy::too_many_arguments)]
    fn from_edges(
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
        num_vertices: usize,
        directed: bool,
        keep_self_loops: bool,
        keep_duplicates: bool,
    ) -> PyResult<Self> {
        check_vertex_count(num_vertices)?;
        let (src, dst) = (ids("src", src, num_vertices)?, ids("dst", dst, num_vertices)?);
        if src.len() != dst.len() {
            return Err(value_error(format!("src has {} ids but dst has {}", src.len(), dst.len())));
        }
        let weights = weights.map(|w| edge_weights(w, src.len())).transpose()?;
        let edges = EdgeList { num_vertices, src, dst, weights };
        let builder = builder(directed, keep_self_loops, keep_duplicates);
        let graph = py.detach(|| builder.build(edges)).map_err(simdx_error)?;
        Ok(NativeGraph::new(graph))
    }

    /// A graph from a compressed sparse row matrix (scipy's `indptr`, `indices` and `data`): row `u`
    /// holds the arcs `u -> indices[indptr[u]..indptr[u + 1]]`.
    #[staticmethod]
    #[pyo3(signature = (indptr, indices, weights, directed, keep_self_loops, keep_duplicates))]
    fn from_csr(
        py: Python<'_>,
        indptr: &Bound<'_, PyAny>,
        indices: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
        directed: bool,
        keep_self_loops: bool,
        keep_duplicates: bool,
    ) -> PyResult<Self> {
        let rows = indptr.len()?.checked_sub(1).ok_or_else(|| value_error("indptr is empty"))?;
        check_vertex_count(rows)?;
        let arcs = indices.len()?;
        let offsets = ids("indptr", indptr, usize::MAX)
            .map_err(|_| value_error("indptr must be a 1-D numpy array of int32 or int64 offsets"))?;
        let dst = ids("indices", indices, rows)?;
        let mut src = Vec::with_capacity(arcs);
        for (u, pair) in offsets.windows(2).enumerate() {
            let (start, end) = (pair[0] as usize, pair[1] as usize);
            if start > end || end > arcs {
                return Err(value_error(format!(
                    "indptr[{u}..{}] = {start}..{end} is not a range within the {arcs} indices",
                    u + 2
                )));
            }
            src.resize(end, u as u32);
        }
        if src.len() != arcs {
            return Err(value_error(format!("indptr ends at {} but there are {arcs} indices", src.len())));
        }
        let weights = weights.map(|w| edge_weights(w, arcs)).transpose()?;
        let edges = EdgeList { num_vertices: rows, src, dst, weights };
        let builder = builder(directed, keep_self_loops, keep_duplicates);
        let graph = py.detach(|| builder.build(edges)).map_err(simdx_error)?;
        Ok(NativeGraph::new(graph))
    }

    /// Reads a graph file; returns the graph and, with `relabel`, each vertex's original id.
    #[staticmethod]
    #[pyo3(signature = (path, undirected, relabel, format))]
    fn read(
        py: Python<'_>,
        path: PathBuf,
        undirected: bool,
        relabel: bool,
        format: Option<&str>,
    ) -> PyResult<(Self, Option<Vec<String>>)> {
        let format = match format {
            None => None,
            Some(name) => Some(Format::from_name(name).ok_or_else(|| {
                value_error(format!("format {name:?} is not one of 'mtx', 'el', 'wel', 'gr', 'sxg'"))
            })?),
        };
        let options = ReadOptions { format, undirected, relabel, ..ReadOptions::default() };
        let (graph, labels) = py.detach(|| read_labelled_graph(&path, &options)).map_err(simdx_error)?;
        let labels = labels.map(|l| (0..l.len()).map(|v| l.get(v as u32).unwrap_or_default().to_string()).collect());
        Ok((NativeGraph::new(graph), labels))
    }

    /// A generated graph (`kron:20`, `urand:18:w`, `grid:100x100`, ...) for `seed`.
    #[staticmethod]
    fn generate(py: Python<'_>, spec: &str, seed: u64) -> PyResult<Self> {
        let spec = GeneratorSpec::parse(spec).map_err(simdx_error)?;
        let graph = py.detach(|| spec.generate(seed)).map_err(simdx_error)?;
        Ok(NativeGraph::new(graph))
    }

    /// Writes the graph to `path` in the format its extension names.
    fn write(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        py.detach(|| write_graph(&self.graph, &path, None)).map_err(simdx_error)
    }

    /// Number of vertices.
    #[getter]
    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    /// Number of edges (unordered pairs if undirected).
    #[getter]
    fn num_edges(&self) -> u64 {
        self.graph.num_edges()
    }

    /// Number of stored arcs (twice the edges if undirected).
    #[getter]
    fn num_arcs(&self) -> u64 {
        self.graph.num_arcs()
    }

    /// Whether the graph is directed.
    #[getter]
    fn directed(&self) -> bool {
        self.graph.is_directed()
    }

    /// `"int"`, `"float"` or `None`.
    #[getter]
    fn weights(&self) -> Option<&'static str> {
        match self.graph.out_csr().weights() {
            Some(Weights::U32(_)) => Some("int"),
            Some(Weights::F32(_)) => Some("float"),
            None => None,
        }
    }

    /// The out-CSR as numpy arrays: offsets (`uint64`, n + 1), targets (`uint32`) and weights
    /// (`uint32`, `float32` or `None`).
    fn csr<'py>(&self, py: Python<'py>) -> (Bound<'py, PyAny>, Bound<'py, PyAny>, Option<Bound<'py, PyAny>>) {
        let csr = self.graph.out_csr();
        let weights = csr.weights().map(|w| match w {
            Weights::U32(w) => PyArray1::from_slice(py, w).into_any(),
            Weights::F32(w) => PyArray1::from_slice(py, w).into_any(),
        });
        (
            PyArray1::from_slice(py, csr.offsets()).into_any(),
            PyArray1::from_slice(py, csr.targets()).into_any(),
            weights,
        )
    }
}

/// Edge weights from a numpy `int64` (integer weights) or `float64` (real weights) array of `len`.
fn edge_weights(array: &Bound<'_, PyAny>, len: usize) -> PyResult<EdgeWeights> {
    let wrong_length = |got: usize| value_error(format!("weights has {got} values but there are {len} edges"));
    if let Ok(ints) = array.cast::<PyArray1<i64>>() {
        let ints = ints.readonly();
        if ints.as_array().len() != len {
            return Err(wrong_length(ints.as_array().len()));
        }
        let ints = ints.as_array();
        let weights = ints.iter().enumerate().map(|(i, &w)| {
            u32::try_from(w)
                .map_err(|_| value_error(format!("weights[{i}] = {w} is not an integer weight in [0, 2^32)")))
        });
        return Ok(EdgeWeights::U32(weights.collect::<PyResult<_>>()?));
    }
    let reals: Vec<f64> = if let Ok(reals) = array.cast::<PyArray1<f32>>() {
        reals.readonly().as_array().iter().map(|&w| f64::from(w)).collect()
    } else {
        let reals = array
            .cast::<PyArray1<f64>>()
            .map_err(|_| value_error("weights must be an int64, float32 or float64 array"))?;
        reals.readonly().as_array().to_vec()
    };
    if reals.len() != len {
        return Err(wrong_length(reals.len()));
    }
    let weights = reals.iter().enumerate().map(|(i, &w)| {
        let w32 = w as f32;
        if w32.is_finite() && w32 >= 0.0 {
            Ok(w32)
        } else {
            Err(value_error(format!("weights[{i}] = {w} is not a finite, non-negative float32 weight")))
        }
    });
    Ok(EdgeWeights::F32(weights.collect::<PyResult<_>>()?))
}
