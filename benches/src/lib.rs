//! `simdx-benches`: simdx's CPU backend beside the `graph` crate (neo4j-labs), kept out of the published
//! crates so that `cargo test --workspace` never builds criterion or the `graph` crate. The benches are
//! `cpu.rs` (criterion) and `versus.rs` (the two alternated in one process): `cargo bench -p simdx-benches
//! --bench cpu|versus`. This library is what both need: the same graph for the `graph` crate, and the
//! source vertex.

use graph::prelude::{CsrLayout, DirectedCsrGraph, GraphBuilder as Baseline};
use simdx::Graph;

/// The same graph for the `graph` crate: every arc of `g`, as plain arcs and with `f32` weights (1
/// when `g` is unweighted).
pub fn baseline(g: &Graph) -> (DirectedCsrGraph<u32>, DirectedCsrGraph<u32, (), f32>) {
    let csr = g.out_csr();
    let arcs: Vec<(u32, u32, f32)> =
        csr.arcs().zip(0..).map(|((u, v), i)| (u, v, csr.weights().map_or(1.0, |w| w.get_f64(i) as f32))).collect();
    let plain = Baseline::new().csr_layout(CsrLayout::Sorted).edges(arcs.iter().map(|a| (a.0, a.1))).build();
    let weighted = Baseline::new().csr_layout(CsrLayout::Sorted).edges_with_values(arcs).build();
    (plain, weighted)
}

/// The source of SSSP and BFS: the vertex of highest out-degree.
pub fn source(g: &Graph) -> u32 {
    (0..g.num_vertices() as u32).max_by_key(|&v| g.out_degree(v)).unwrap_or(0)
}
