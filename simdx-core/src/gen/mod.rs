//! Graph generators, deterministic for a given seed whatever the number of threads: Graph500
//! Kronecker, R-MAT, uniform random, a weighted 2-D grid and a random multi-layer perceptron.
//! [`GeneratorSpec`] parses the short specs the CLI accepts wherever a graph file is expected
//! (`kron:20`, `kron:20:d`, `urand:20`, `grid:1024x1024`, `mlp:784,256,10`, ...).
//!
//! | spec | graph |
//! |---|---|
//! | `kron:S[:F][:d]` | Graph500 Kronecker: `F * 2^S` edges (F = 16 by default) on `2^S` vertices, A,B,C = .57,.19,.19, vertex labels permuted |
//! | `rmat:S[:F[:A:B:C]][:d]` | R-MAT: the same recursive quadrant choice with settable A,B,C (default .57,.19,.19), labels not permuted |
//! | `urand:S[:F][:d]` | uniform random: `F * 2^S` edges with both endpoints uniform in `0..2^S` |
//! | `grid:WxH` | a `W x H` 4-neighbour grid, vertex `y * W + x`, every edge weighted uniformly in `[1, 255]` |
//! | `mlp:W0,W1,...[:K]` | a random multi-layer perceptron: layers of `W0, W1, ...` neurons (inputs first, ids layer by layer), an arc from each neuron to each neuron of the next layer (or to `K` random inputs per neuron), `f32` weights uniform in `[0, 2 / inputs)`; directed |
//!
//! `kron`, `rmat` and `urand` take a trailing `:w` for integer weights uniform in `[1, 255]` or
//! `:w=LO-HI` for another range, and `:d` for a directed graph (`kron:22:d`, `rmat:16:d:w`; the flags
//! in either order): each generated edge `(u, v)` becomes the one arc `u -> v` of an out- and in-CSR
//! instead of being symmetrised, from the same edge stream, so `kron:16:d` is `kron:16` before
//! symmetrisation. `grid:WxH:w=LO-HI` sets the grid's range. Generated graphs are undirected unless
//! `:d` is given or they are `mlp` networks (always directed); self-loops and duplicate edges (arcs,
//! when directed) are removed, a duplicate keeping its smallest weight. The full grammar is on
//! [`GeneratorSpec::parse`].
//!
//! Determinism: edges are produced in chunks of [`rng::CHUNK`], chunk `k` drawing from its own
//! generator seeded by a hash of `(seed, stream, k)` (see [`rng`]); the same spec and seed give the
//! same graph, bit for bit, on any number of threads. Weights come from a stream of their own, so
//! `kron:20:w` has exactly the edges of `kron:20`; directedness only changes how the edges are built
//! into a graph, so `kron:20:d` draws them too.
//!
//! ```
//! use simdx_core::gen::{GeneratorSpec, DEFAULT_SEED};
//! let spec = GeneratorSpec::parse("grid:4x3").unwrap();
//! let g = spec.generate(DEFAULT_SEED).unwrap();
//! assert_eq!((g.num_vertices(), g.num_edges()), (12, 17));
//! ```

pub(crate) mod grid;
pub(crate) mod kronecker;
pub(crate) mod mlp;
pub mod rng;
mod spec;
pub(crate) mod uniform;

pub use spec::{is_spec, GeneratorSpec, WeightRange, DEFAULT_SEED};

use rayon::prelude::*;

use crate::graph::builder::EdgeList;
use crate::graph::weights::EdgeWeights;
use rng::{WyRand, CHUNK, STREAM_EDGES, STREAM_WEIGHTS};

/// A vector of `len` default values, allocated fallibly (an impossible size is an error, not an
/// abort) and filled in parallel, so that its pages are touched by all threads.
pub(crate) fn zeroed<T: Copy + Default + Send + Sync>(len: usize, what: &str) -> Result<Vec<T>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        let mib = (len as u128 * std::mem::size_of::<T>() as u128) >> 20;
        format!("cannot allocate {mib} MiB of memory for {len} {what}")
    })?;
    v.par_extend((0..len).into_par_iter().map(|_| T::default()));
    Ok(v)
}

/// Generates `count` edges on `num_vertices` vertices: edge `i` is `edge(rng, i)`, where `rng` is the
/// generator of the chunk holding `i` (edges of a chunk are drawn in order). With `weights`, every
/// edge also gets an integer weight uniform in the range, from the weight stream.
pub(crate) fn fill_edges<F>(
    num_vertices: usize,
    count: u64,
    seed: u64,
    weights: Option<WeightRange>,
    edge: F,
) -> Result<EdgeList, String>
where
    F: Fn(&mut WyRand, u64) -> (u32, u32) + Sync,
{
    let m = usize::try_from(count).map_err(|_| format!("{count} edges do not fit this machine's address space"))?;
    let mut src = zeroed::<u32>(m, "edge sources")?;
    let mut dst = zeroed::<u32>(m, "edge destinations")?;
    src.par_chunks_mut(CHUNK).zip(dst.par_chunks_mut(CHUNK)).enumerate().for_each(|(k, (s, d))| {
        let mut rng = WyRand::for_chunk(seed, STREAM_EDGES, k as u64);
        let base = (k * CHUNK) as u64;
        for (i, (s, d)) in s.iter_mut().zip(d.iter_mut()).enumerate() {
            let (u, v) = edge(&mut rng, base + i as u64);
            *s = u;
            *d = v;
        }
    });
    let weights = match weights {
        None => None,
        Some(range) => Some(EdgeWeights::U32(random_weights(m, seed, range)?)),
    };
    Ok(EdgeList { num_vertices, src, dst, weights })
}

/// `len` integer weights uniform in `range`, chunk `k` drawn from the weight stream's generator `k`.
fn random_weights(len: usize, seed: u64, range: WeightRange) -> Result<Vec<u32>, String> {
    let mut w = zeroed::<u32>(len, "edge weights")?;
    let span = u64::from(range.hi) - u64::from(range.lo) + 1;
    w.par_chunks_mut(CHUNK).enumerate().for_each(|(k, chunk)| {
        let mut rng = WyRand::for_chunk(seed, STREAM_WEIGHTS, k as u64);
        for x in chunk {
            // lo + below(span) <= hi, so the sum fits a u32.
            *x = range.lo + rng.below(span) as u32;
        }
    });
    Ok(w)
}
