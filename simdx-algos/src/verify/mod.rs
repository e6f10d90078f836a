//! Oracles written without the engine, and checks of a result against them. The checks of the
//! algorithms that big graphs run are exact and parallel, so that a graph of a billion edges is
//! checked in seconds on a multicore host: BFS levels and SSSP distances by rules that only the true
//! ones satisfy (Graph500's for BFS; SSSP falls back to Dijkstra when a weight is 0), PageRank and
//! personalized PageRank within an L1 allowance of their fixed point, bounded by steps of the power
//! iteration from the ranks, WCC exactly against a parallel union-find, BFS parent trees by
//! Graph500's rules (their depths checked as levels). k-core and core numbers are checked exactly
//! against linear-time serial peelings; SpMV within a relative tolerance of a direct `f64` loop;
//! belief propagation within a relative tolerance of a direct `f64` loop over in-edges, and the MLP
//! forward pass within a relative tolerance of a dense matrix product per layer in `f64`; the
//! multi-search applications (levels from each source, closeness, eccentricity) against one serial
//! search per source, the sources in parallel; triangles and Jaccard coefficients against hash-set
//! look-ups; strongly connected components exactly against Tarjan's algorithm; Louvain's labels by
//! recomputing their modularity and looking for communities that would gain by merging. The serial
//! oracles themselves (a queue BFS, Dijkstra, the power iteration) stay for tests that compare with
//! them.

mod bfs;
mod bp;
mod fixed_point;
mod kcore;
mod louvain;
mod mlp;
mod multi_search;
mod pagerank;
mod ppr;
#[cfg(test)]
mod rejections;
mod scc;
mod spmv;
mod sssp;
mod triangles;
mod wcc;

pub use bfs::{bfs, bfs_from, bfs_tree, serial_bfs, serial_bfs_from, serial_bfs_to};
pub use bp::{bp, serial_bp};
pub use kcore::{core_decomposition, kcore, serial_core_numbers};
pub use louvain::{louvain, modularity};
pub use mlp::{mlp, mlp_layers, serial_mlp};
pub use multi_search::{betweenness, closeness, eccentricity, harmonic, levels_from_each};
pub use pagerank::{pagerank, serial_pagerank};
pub use ppr::{ppr, serial_ppr};
pub use scc::{scc, tarjan_components};
pub use spmv::{serial_spmv, spmv};
pub use sssp::{dijkstra, dijkstra_from, sssp, sssp_from, Distance};
pub use triangles::{jaccard, serial_triangles, triangle_count, triangles};
pub use wcc::{union_find_components, wcc};
