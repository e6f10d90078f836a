//! A random multi-layer perceptron as a layered directed graph: one vertex per neuron, numbered layer
//! by layer (layer 0, the inputs, first), and an edge from each neuron of layer `l` to each neuron of
//! layer `l + 1` that takes it as an input — all of layer `l` (fully connected), or `fan_in` distinct
//! ones drawn uniformly. Edge weights are `f32` uniform in `[0, 2 / k)` for a neuron with `k` inputs,
//! so a neuron's weighted sum is near the mean of its inputs (simdx graphs hold non-negative weights).
//!
//! Determinism: neuron `v` draws its inputs and their weights from its own generator, seeded by a
//! hash of `(seed, STREAM_EDGES, v)`, so the network does not depend on the thread count.

use rayon::prelude::*;

use super::rng::{WyRand, STREAM_EDGES};
use super::zeroed;
use crate::graph::builder::EdgeList;
use crate::graph::weights::EdgeWeights;

/// The number of inputs of each neuron of layer `layer + 1`: the width of layer `layer`, or `fan_in`
/// if that is smaller.
pub(crate) fn inputs(widths: &[u32], fan_in: Option<u32>, layer: usize) -> u32 {
    fan_in.map_or(widths[layer], |f| f.min(widths[layer]))
}

/// The number of edges of the network, or `None` if it overflows a `u64`.
pub(crate) fn num_edges(widths: &[u32], fan_in: Option<u32>) -> Option<u64> {
    (1..widths.len())
        .try_fold(0u64, |sum, l| sum.checked_add(u64::from(widths[l]) * u64::from(inputs(widths, fan_in, l - 1))))
}

/// The edges of the network with layer widths `widths` (each at least 1, their sum at most
/// `MAX_VERTICES`), in order of destination neuron, each neuron's inputs in increasing order.
pub(crate) fn generate(widths: &[u32], fan_in: Option<u32>, seed: u64) -> Result<EdgeList, String> {
    let n: usize = widths.iter().map(|&w| w as usize).sum();
    let m = num_edges(widths, fan_in)
        .and_then(|m| usize::try_from(m).ok())
        .ok_or_else(|| format!("the network {widths:?} has too many edges for this machine"))?;
    let mut src = zeroed::<u32>(m, "edge sources")?;
    let mut dst = zeroed::<u32>(m, "edge destinations")?;
    let mut weight = zeroed::<f32>(m, "edge weights")?;
    // `first`: the id of layer l's first neuron; `at`: the first edge into layer l + 1.
    let (mut first, mut at) = (0u32, 0usize);
    for l in 0..widths.len() - 1 {
        let k = inputs(widths, fan_in, l);
        let (len, next_first) = (widths[l + 1] as usize * k as usize, first + widths[l]);
        let scale = 2.0 / f64::from(k);
        let edges = src[at..at + len].par_chunks_mut(k as usize).zip(dst[at..at + len].par_chunks_mut(k as usize));
        edges.zip(weight[at..at + len].par_chunks_mut(k as usize)).enumerate().for_each(|(j, ((s, d), w))| {
            let neuron = next_first + j as u32;
            let mut rng = WyRand::for_chunk(seed, STREAM_EDGES, u64::from(neuron));
            choose(&mut rng, widths[l], s);
            for ((s, d), w) in s.iter_mut().zip(d.iter_mut()).zip(w.iter_mut()) {
                *s += first;
                *d = neuron;
                *w = (rng.next_f64() * scale) as f32;
            }
        });
        (first, at) = (next_first, at + len);
    }
    Ok(EdgeList { num_vertices: n, src, dst, weights: Some(EdgeWeights::F32(weight)) })
}

/// Fills `out` with distinct numbers from `0..n` in increasing order (`out.len() <= n`): all of them
/// when `out.len() == n`, otherwise a uniform sample by Floyd's algorithm.
fn choose(rng: &mut WyRand, n: u32, out: &mut [u32]) {
    let k = out.len() as u32;
    if k == n {
        out.iter_mut().zip(0..).for_each(|(x, i)| *x = i);
        return;
    }
    let mut chosen = std::collections::BTreeSet::new();
    for j in n - k..n {
        let t = rng.below(u64::from(j) + 1) as u32;
        if !chosen.insert(t) {
            chosen.insert(j);
        }
    }
    out.iter_mut().zip(chosen).for_each(|(x, c)| *x = c);
}
