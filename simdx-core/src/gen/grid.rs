//! A `W x H` 4-neighbour grid with random integer weights: a high-diameter, road-network-like graph.
//! Vertex `(x, y)` has id `y * W + x`; edge `i` is the `i`-th horizontal edge `(y*W+x, y*W+x+1)`
//! (row by row) for `i < H * (W - 1)`, then the vertical edges `(y*W+x, (y+1)*W+x)` row by row, so
//! the grid has `2WH - W - H` edges.

use super::{fill_edges, WeightRange};
use crate::graph::builder::EdgeList;

/// Number of edges of a `width x height` grid.
pub(crate) fn num_edges(width: u64, height: u64) -> u64 {
    height * (width - 1) + width * (height - 1)
}

/// The edges of a `width x height` grid (both at least 1, `width * height <= MAX_VERTICES`), each
/// with a weight uniform in `weights`.
pub(crate) fn generate(width: u32, height: u32, seed: u64, weights: WeightRange) -> Result<EdgeList, String> {
    let (w, h) = (u64::from(width), u64::from(height));
    let horizontal = h * (w - 1);
    let n = usize::try_from(w * h).map_err(|_| format!("{w} x {h} vertices do not fit this machine"))?;
    fill_edges(n, num_edges(w, h), seed, Some(weights), |_, i| {
        // Ids fit a u32 because w * h <= MAX_VERTICES.
        if i < horizontal {
            let (y, x) = (i / (w - 1), i % (w - 1));
            let v = y * w + x;
            (v as u32, (v + 1) as u32)
        } else {
            let v = i - horizontal;
            (v as u32, (v + w) as u32)
        }
    })
}
