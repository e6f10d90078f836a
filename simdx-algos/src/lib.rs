//! simdx-algos: the algorithm library, one file per algorithm, each running on every simdx backend;
//! [`verify`] holds independent serial oracles to check results against.
//!
//! * ACC [`Program`]s (`#[graph_kernel]`), run by an engine: [`Bfs`], [`BfsTree`] (with parents),
//!   [`MultiSourceBfs`], [`Sssp`],
//!   [`MultiSourceSssp`], [`WideSssp`], [`PageRank`], [`Ppr`], [`Wcc`], [`KCore`] (and
//!   [`core_numbers`], which runs it for increasing `k`), [`Spmv`], [`Bp`] and [`Mlp`].
//! * Search functions on the multi-source traversal ([`simdx_core::multi_source`], 64 searches per
//!   pass): [`levels_from_each`] (msbfs), [`closeness`](fn@closeness),
//!   [`eccentricity`](fn@eccentricity) and [`harmonic`](fn@harmonic), whose per-search sum is a
//!   search program ([`harmonic::Harmonic`], `#[search_kernel]`).
//! * [`betweenness`], on the dependency accumulation of [`simdx_core::dependencies`].
//! * Edge computations on sorted neighbour lists ([`simdx_core::intersect`], CPU):
//!   [`triangle_count`], [`triangles`](fn@triangles) and [`jaccard`](fn@jaccard).
//! * Strongly connected components, [`scc`](fn@scc) (Multistep, [`simdx_core::strong`]; CPU or GPU through [`scc_on`]).
//! * Louvain communities, [`louvain`](fn@louvain) ([`simdx_core::louvain`], CPU).
//!
//! ```
//! use simdx_algos::Bfs;
//! use simdx_core::engine::Engine;
//! use simdx_core::gen::GeneratorSpec;
//!
//! let graph = GeneratorSpec::parse("grid:8x8").unwrap().generate(1).unwrap();
//! let run = Engine::default().run(&Bfs { source: 0 }, &graph).unwrap();
//! assert_eq!(run.values[63], 14); // the far corner of an 8x8 grid
//! simdx_algos::verify::bfs(&graph, 0, &run.values).unwrap();
//! ```
//!
//! [`Program`]: simdx_core::acc::Program

pub mod bc;
pub mod bfs;
pub mod bfs_multi;
pub mod bfs_parents;
pub mod bfs_tree;
pub mod bp;
pub mod closeness;
pub mod eccentricity;
pub mod harmonic;
pub mod inputs;
pub mod jaccard;
pub mod kcore;
pub mod louvain;
pub mod mlp;
pub mod msbfs;
pub mod pagerank;
pub mod ppr;
pub mod scc;
pub mod spmv;
pub mod sssp;
pub mod sssp_multi;
pub mod sssp_wide;
pub mod triangles;
pub mod verify;
pub mod wcc;

pub use bc::betweenness;
pub use bfs::Bfs;
pub use bfs_multi::MultiSourceBfs;
pub use bfs_parents::parents_from_levels;
pub use bfs_tree::BfsTree;
pub use bp::Bp;
pub use closeness::closeness;
pub use eccentricity::eccentricity;
pub use harmonic::harmonic;
pub use jaccard::jaccard;
pub use kcore::{core_numbers, KCore};
pub use louvain::louvain;
pub use mlp::Mlp;
pub use msbfs::levels_from_each;
pub use pagerank::PageRank;
pub use ppr::Ppr;
pub use scc::{scc, scc_on};
pub use spmv::Spmv;
pub use sssp::Sssp;
pub use sssp_multi::MultiSourceSssp;
pub use sssp_wide::WideSssp;
pub use triangles::{triangle_count, triangles};
pub use wcc::Wcc;

use simdx_core::{Graph, Weights};

/// A bucket width for [`Sssp`] from the graph's weights (Meyer and Sanders): the largest weight over
/// the mean degree, at least 1. Unweighted graphs get 1, which makes delta-stepping a BFS.
pub fn meyer_sanders_delta(graph: &Graph) -> u32 {
    let (max_weight, mean_degree) = largest_weight_and_mean_degree(graph);
    (max_weight / mean_degree).clamp(1.0, u32::MAX as f64) as u32
}

/// The CPU's bucket width for [`Sssp`]: [`meyer_sanders_delta`], and on a graph of mean degree under
/// [`WIDE_BELOW_DEGREE`] (a grid, a mesh, a road network: few vertices a bucket, many buckets)
/// `WIDE_BELOW_DEGREE / mean degree` times that. Unweighted graphs of mean degree 4 or more get 1.
pub fn default_delta(graph: &Graph) -> u32 {
    let (max_weight, mean_degree) = largest_weight_and_mean_degree(graph);
    let widen = (WIDE_BELOW_DEGREE / mean_degree).max(1.0);
    (max_weight / mean_degree * widen).clamp(1.0, u32::MAX as f64) as u32
}

/// The largest edge weight (1 for an unweighted graph) and the mean out-degree (at least 1).
fn largest_weight_and_mean_degree(graph: &Graph) -> (f64, f64) {
    use rayon::prelude::*;
    let max_weight = match graph.out_csr().weights() {
        Some(Weights::U32(w)) => w.par_iter().copied().max().unwrap_or(1) as f64,
        Some(Weights::F32(w)) => w.par_iter().copied().reduce(|| 1.0, f32::max) as f64,
        None => 1.0,
    };
    (max_weight, (graph.num_arcs() as f64 / graph.num_vertices().max(1) as f64).max(1.0))
}

/// See [`default_delta`]. On a sparse graph each bucket holds few vertices, so a wider bucket saves the
/// many small per-bucket lists of each worker; on graphs of degree 16 (kron, urand) four times as wide
/// was slower. A GPU keeps [`meyer_sanders_delta`] times its own factor.
/// The measurements: `docs/experiments/cpu-sssp.md`, "SSSP's default width is wider on sparse graphs".
pub const WIDE_BELOW_DEGREE: f64 = 16.0;

/// `graph` as an undirected graph: itself if it is undirected, otherwise its underlying simple
/// undirected graph (an edge `{u, v}` wherever an arc `u -> v` or `v -> u` exists; no self-loops, no
/// duplicates, no weights). [`Wcc`] and [`KCore`] need it for directed graphs: labels and degree
/// decrements travel along arcs, so on a directed graph they would only go forwards.
pub fn undirected(graph: &Graph) -> std::borrow::Cow<'_, Graph> {
    if !graph.is_directed() {
        return std::borrow::Cow::Borrowed(graph);
    }
    let (src, dst) = graph.edges().map(|(u, v, _)| (u, v)).unzip();
    let edges = simdx_core::EdgeList { num_vertices: graph.num_vertices(), src, dst, weights: None };
    let built = simdx_core::GraphBuilder::new().build(edges);
    std::borrow::Cow::Owned(built.expect("the arcs of a valid graph form a valid undirected graph"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::gen::{GeneratorSpec, DEFAULT_SEED};

    /// The default width of the generated graph `spec`, its largest weight and its mean degree.
    fn delta_of(spec: &str) -> (u32, f64, f64) {
        let g = GeneratorSpec::parse(spec).unwrap().generate(DEFAULT_SEED).unwrap();
        let max_weight = match g.out_csr().weights() {
            Some(Weights::U32(w)) => w.iter().copied().max().unwrap(),
            _ => 1,
        };
        (default_delta(&g), max_weight as f64, g.num_arcs() as f64 / g.num_vertices() as f64)
    }

    #[test]
    fn the_programs_that_promise_their_update_grows_with_the_weight_keep_it() {
        use simdx_core::acc::VertexData;
        use simdx_core::engine::promise::check_update_grows_with_weight as check;
        check(&Sssp { source: 0, delta: 8 }).unwrap();
        check(&WideSssp { sources: VertexData::set(4, &[1]), delta: 8 }).unwrap();
        check(&MultiSourceSssp { sources: VertexData::set(4, &[1, 2]), delta: 8 }).unwrap();
    }

    #[test]
    fn the_width_is_the_largest_weight_over_the_degree_and_wider_on_sparse_graphs() {
        // Degree 16 and more: the Meyer-Sanders width.
        let (delta, max_weight, mean_degree) = delta_of("urand:12:w");
        assert!(mean_degree >= WIDE_BELOW_DEGREE);
        assert_eq!(delta, (max_weight / mean_degree) as u32);
        let g = GeneratorSpec::parse("urand:12:w").unwrap().generate(DEFAULT_SEED).unwrap();
        assert_eq!(meyer_sanders_delta(&g), delta);
        // A grid (degree just under 4): over four times as wide.
        let (delta, max_weight, mean_degree) = delta_of("grid:64x64:w");
        assert!(mean_degree < 4.0);
        assert_eq!(delta, (max_weight / mean_degree * (WIDE_BELOW_DEGREE / mean_degree)) as u32);
        assert!(f64::from(delta) > 4.0 * max_weight / mean_degree);
        let g = GeneratorSpec::parse("grid:64x64:w").unwrap().generate(DEFAULT_SEED).unwrap();
        assert_eq!(meyer_sanders_delta(&g), (max_weight / mean_degree) as u32);
        // Unweighted: 1.
        assert_eq!(delta_of("urand:10").0, 1);
    }
}
