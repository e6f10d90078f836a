//! `simdx._native`: the Rust side of the `simdx` Python package. It holds graphs (`Graph`), runs the
//! algorithms on the CUDA backend when a GPU is usable and on the CPU otherwise, and hands values
//! back as numpy arrays; the Python side (`simdx/__init__.py`) is the documented API.

mod algorithms;
mod errors;
mod graph;
mod options;

use pyo3::prelude::*;

/// How many CUDA devices this host has (0 without a driver): the most `gpus=` can ask for.
#[pyfunction]
fn gpu_count() -> usize {
    simdx::gpu_count()
}

/// Waits until no GPU kernel is compiling in the background (a program's first GPU run leaves its
/// fused kernels compiling for later runs), so that the kernel cache holds them for the next process;
/// registered to run when the interpreter exits.
#[pyfunction]
fn finish_gpu_compiles(py: Python<'_>) {
    py.detach(simdx::finish_gpu_compiles);
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<graph::NativeGraph>()?;
    m.add_function(wrap_pyfunction!(finish_gpu_compiles, m)?)?;
    m.add("SimdxError", m.py().get_type::<errors::SimdxError>())?;
    m.add("OPTIONS", options::OPTIONS)?;
    m.add("HAS_CUDA", cfg!(feature = "cuda"))?;
    m.add_function(wrap_pyfunction!(algorithms::bfs, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::sssp, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::pagerank, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::ppr, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::wcc, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::kcore, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::spmv, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::bp, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::mlp, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::levels_from_each, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::closeness, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::harmonic, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::eccentricity, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::betweenness, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::bfs_parents, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::triangle_count, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::triangles, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::jaccard, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::scc, m)?)?;
    m.add_function(wrap_pyfunction!(algorithms::louvain, m)?)?;
    m.add_function(wrap_pyfunction!(gpu_count, m)?)?;
    Ok(())
}
