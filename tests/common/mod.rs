//! Helpers shared by the integration tests of the `simdx` crate: generated graphs, hand-made edge
//! lists, spread sources, the GPU (or a printed skip, or a failure when `SIMDX_REQUIRE_GPU=1`), and the
//! backend x policy matrix ([`policies`]) every suite runs its programs under. Each suite uses only
//! some of them.
#![allow(dead_code)]

use simdx::gen::GeneratorSpec;
use simdx::{EdgeList, EdgeWeights, Graph};

/// A generated graph, seed 7.
pub fn generated(spec: &str) -> Graph {
    GeneratorSpec::parse(spec).unwrap().generate(7).unwrap()
}

/// An edge list of `n` vertices with the arcs `pairs` and optional integer weights.
pub fn edges(n: usize, pairs: &[(u32, u32)], weights: Option<Vec<u32>>) -> EdgeList {
    EdgeList {
        num_vertices: n,
        src: pairs.iter().map(|p| p.0).collect(),
        dst: pairs.iter().map(|p| p.1).collect(),
        weights: weights.map(EdgeWeights::U32),
    }
}

/// The first, the middle and the last vertex of `g` (fewer on a graph of one or two vertices).
pub fn spread_sources(g: &Graph) -> Vec<u32> {
    let n = g.num_vertices() as u32;
    let mut s = vec![0, n / 2, n - 1];
    s.dedup();
    s
}

/// The GPU, or `None` after saying why the test is skipped; panics instead when SIMDX_REQUIRE_GPU=1.
/// Runs then wait for all of their kernels, so that each takes the path its test expects (an engine's
/// `with_deferred_compile(true)` still defers).
#[cfg(feature = "cuda")]
pub fn gpu() -> Option<simdx_cuda::Gpu> {
    simdx_cuda::defer_persistent_kernels(false);
    match simdx_cuda::available() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("SIMDX_REQUIRE_GPU").is_ok_and(|v| v == "1") => panic!("SIMDX_REQUIRE_GPU=1 but {e}"),
        Err(e) => {
            eprintln!("skipped: no usable GPU ({e})");
            None
        }
    }
}

/// The first two GPUs, or `None` after saying why the test is skipped (fewer than two GPUs); panics
/// instead when SIMDX_REQUIRE_GPUS=2 (the multi-GPU hosts' runs set it).
#[cfg(feature = "cuda")]
#[allow(dead_code)]
pub fn two_gpus() -> Option<Vec<simdx_cuda::Gpu>> {
    match simdx_cuda::open_gpus(2) {
        Ok(gpus) => Some(gpus),
        Err(e) if std::env::var("SIMDX_REQUIRE_GPUS").is_ok() => panic!("SIMDX_REQUIRE_GPUS is set but {e}"),
        Err(e) => {
            eprintln!("skipped: {e}");
            None
        }
    }
}
pub mod policies;
