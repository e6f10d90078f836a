//! Independent serial oracles, written without the engine, and checks of a result against them:
//! BFS Graph500-style plus exact levels and SSSP exactly against Dijkstra (from one source or the
//! nearest of several), PageRank and personalized PageRank within an L1 tolerance of a serial power
//! iteration in `f64`; WCC exactly against union-find, k-core and core
//! numbers exactly against a serial peeling, SpMV within a relative tolerance of a direct `f64` loop;
//! belief propagation within a relative tolerance of a direct `f64` loop over in-edges, and the MLP
//! forward pass within a relative tolerance of a dense matrix product per layer in `f64`; the
//! multi-search applications (levels from each source, closeness, eccentricity) against one serial
//! search per source; triangles and Jaccard coefficients against hash-set look-ups; strongly connected
//! components exactly against Tarjan's algorithm; Louvain's labels by recomputing their modularity
//! and looking for communities that would gain by merging.

mod bfs;
mod bp;
mod kcore;
mod louvain;
mod mlp;
mod multi_search;
mod pagerank;
mod ppr;
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
