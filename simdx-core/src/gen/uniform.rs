//! Uniform random graphs (Erdős–Rényi-like, the GAP `-u` generator): `edge_factor * 2^scale` edges
//! whose endpoints are both uniform in `0..2^scale`; one 64-bit draw gives both endpoints.

use super::{fill_edges, WeightRange};
use crate::graph::builder::EdgeList;

/// `edge_factor * 2^scale` uniform random edges on `2^scale` vertices (`1 <= scale <= 31`).
pub(crate) fn generate(
    scale: u32,
    edge_factor: u64,
    seed: u64,
    weights: Option<WeightRange>,
) -> Result<EdgeList, String> {
    let n = 1usize << scale;
    fill_edges(n, edge_factor << scale, seed, weights, |rng, _| {
        let r = rng.next_u64();
        // The top `scale` bits of each 32-bit half.
        (((r >> 32) as u32) >> (32 - scale), (r as u32) >> (32 - scale))
    })
}
