//! Each vertex's out-arcs in order of weight: the copy of the out-CSR's targets and weights that
//! delta-stepping reads when its program's update grows with the weight
//! ([`Program::UPDATE_GROWS_WITH_WEIGHT`](simdx_core::acc::Program::UPDATE_GROWS_WITH_WEIGHT)). A
//! push step within a bucket then relaxes a prefix of each source's arcs and the bucket's settle step
//! the rest (`sx_push_range` in `kernels/state.cu`). Made once per device graph, on first use, from
//! the arrays already on the device; the offsets are the graph's own.

use std::sync::OnceLock;

use cudarc::driver::CudaSlice;
use rayon::prelude::*;

use crate::error::{driver, CudaError};
use crate::graph::{DeviceGraph, WeightKind};

/// The weight-ordered out-arcs of a device graph.
pub(crate) struct SortedArcs {
    /// Targets, each vertex's in order of weight (ties by target).
    pub(crate) targets: CudaSlice<u32>,
    /// The graph's weights (u32, or f32 bits) in the same order.
    pub(crate) weights: CudaSlice<u32>,
    /// Integer weights converted to f32, for programs that read f32 weights, made on first use.
    pub(crate) weights_as_f32: OnceLock<CudaSlice<u32>>,
}

impl SortedArcs {
    /// Sorts `graph`'s out-arcs (which must have weights of `kind`, `weights` on the device) on the
    /// host and uploads the copy.
    pub(crate) fn build(
        graph: &DeviceGraph,
        kind: WeightKind,
        weights: &CudaSlice<u32>,
    ) -> Result<SortedArcs, CudaError> {
        let gpu = graph.gpu();
        gpu.check_free("the weight-ordered copy of the out-arcs", graph.num_arcs * 8)?;
        // On the host: targets and weights (4 bytes each an arc), the sort keys (8), a slice a vertex (16).
        let host = graph.num_arcs * 16 + u64::from(graph.num_vertices) * 24;
        simdx_core::memory::check(host, "sorting the out-arcs by weight").map_err(CudaError::TooLarge)?;
        let s = &gpu.stream;
        let offsets = s.clone_dtoh(&graph.out_offsets).map_err(driver("reading the graph's offsets"))?;
        let mut targets = s.clone_dtoh(&graph.out_targets).map_err(driver("reading the graph's targets"))?;
        let mut bits = s.clone_dtoh(weights).map_err(driver("reading the graph's weights"))?;
        sort_by_weight(&offsets, &mut targets, &mut bits, kind);
        Ok(SortedArcs {
            targets: s.clone_htod(&targets).map_err(driver("uploading the weight-ordered arcs"))?,
            weights: s.clone_htod(&bits).map_err(driver("uploading the weight-ordered arcs"))?,
            weights_as_f32: OnceLock::new(),
        })
    }
}

/// A weight's sort key: its value's order as a `u32` (f32 weights are finite and non-negative, whose
/// bits order as their values do once -0 is read as +0).
fn weight_key(bits: u32, kind: WeightKind) -> u32 {
    match kind {
        WeightKind::U32 => bits,
        WeightKind::F32 if bits == 0x8000_0000 => 0,
        WeightKind::F32 => bits,
    }
}

/// Sorts each vertex's arcs (`offsets[v]..offsets[v + 1]` of `targets` and `bits`) by weight, then
/// target, in parallel.
pub(crate) fn sort_by_weight(offsets: &[u64], targets: &mut [u32], bits: &mut [u32], kind: WeightKind) {
    let mut keys: Vec<u64> = bits
        .par_iter()
        .zip(targets.par_iter())
        .map(|(&w, &t)| (u64::from(weight_key(w, kind)) << 32) | u64::from(t))
        .collect();
    let mut lists: Vec<&mut [u64]> = Vec::with_capacity(offsets.len().saturating_sub(1));
    let mut rest = keys.as_mut_slice();
    for pair in offsets.windows(2) {
        let (list, tail) = rest.split_at_mut((pair[1] - pair[0]) as usize);
        lists.push(list);
        rest = tail;
    }
    lists.par_iter_mut().with_min_len(1024).for_each(|list| list.sort_unstable());
    drop(lists);
    // A key gives back both: the target, and the weight's bits (f32's -0 as +0, the same weight).
    targets.par_iter_mut().zip(bits.par_iter_mut()).zip(keys.par_iter()).for_each(|((t, w), &k)| {
        *t = k as u32;
        *w = (k >> 32) as u32;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_vertex_keeps_its_arcs_in_order_of_weight_then_target() {
        // Vertex 0: arcs to 5 (w 9), 1 (w 3), 7 (w 3); vertex 1: none; vertex 2: 4 (w 0), 2 (w 1).
        let offsets = [0u64, 3, 3, 5];
        let mut targets = [5u32, 1, 7, 4, 2];
        let mut bits = [9u32, 3, 3, 0, 1];
        sort_by_weight(&offsets, &mut targets, &mut bits, WeightKind::U32);
        assert_eq!(targets, [1, 7, 5, 4, 2]);
        assert_eq!(bits, [3, 3, 9, 0, 1]);
    }

    #[test]
    fn real_weights_sort_by_value_and_negative_zero_reads_as_zero() {
        let offsets = [0u64, 4];
        let w = |x: f32| x.to_bits();
        let mut targets = [0u32, 1, 2, 3];
        let mut bits = [w(2.5), w(-0.0), w(0.25), w(1e-3)];
        sort_by_weight(&offsets, &mut targets, &mut bits, WeightKind::F32);
        assert_eq!(targets, [1, 3, 2, 0]);
        assert_eq!(bits, [w(0.0), w(1e-3), w(0.25), w(2.5)]);
    }
}
