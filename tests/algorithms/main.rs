//! What each algorithm computes, on both backends: every library algorithm and the label programs
//! against their serial oracles under the backend x policy matrix of `tests/common/policies.rs`, on
//! generated graphs and hand-made edge cases; triangles, Jaccard and strongly connected components
//! on the GPU against the CPU; and each algorithm's size. The GPU modules build with the `cuda`
//! feature; without a GPU their tests print that they were skipped, and with
//! `SIMDX_REQUIRE_GPU=1` they fail.

#[path = "../common/mod.rs"]
mod common;

mod algorithm_size;
mod bfs_sssp_pagerank_cpu;
mod bfs_sssp_pagerank_gpu;
mod bp_mlp_cpu;
mod bp_mlp_gpu;
mod intersect_gpu;
mod label_programs;
mod scc_gpu;
mod senders_cpu;
mod wcc_kcore_spmv_trees_cpu;
mod wcc_kcore_spmv_trees_gpu;
mod weight_ordered_sssp_gpu;
