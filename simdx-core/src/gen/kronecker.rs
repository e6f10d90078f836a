//! Graph500 Kronecker and R-MAT edges: each edge picks one of the four quadrants of the adjacency
//! matrix with probabilities A, B, C, D = 1 - A - B - C, then a quadrant of that quadrant, and so on
//! for `scale` levels; each level fixes one bit of the source and one of the destination.
//!
//! Speed: a level compares one 32-bit random draw with the fixed-point thresholds A, A+B and A+B+C
//! (in units of 2^-32) and turns the three comparisons into the two bits without a branch, so one
//! 64-bit draw serves two levels. Kronecker (not R-MAT) then relabels the vertices by a seeded
//! random permutation of `0..2^scale`, as Graph500 does, so that vertex ids say nothing about degree.

use super::rng::{mix64, WyRand, STREAM_PERMUTATION};
use super::{fill_edges, WeightRange};
use crate::graph::builder::EdgeList;

/// The quadrant probabilities as cumulative fixed-point thresholds on a 32-bit draw `x`:
/// `x < a` picks A (top left), `x < ab` B (top right), `x < abc` C (bottom left), else D.
#[derive(Debug, Clone, Copy)]
struct Thresholds {
    a: u64,
    ab: u64,
    abc: u64,
}

impl Thresholds {
    fn new(a: f64, b: f64, c: f64) -> Self {
        let fixed = |p: f64| (p.clamp(0.0, 1.0) * 4_294_967_296.0).round() as u64;
        Thresholds { a: fixed(a), ab: fixed(a + b), abc: fixed(a + b + c) }
    }

    /// Appends one level's bits to `src` and `dst` from the 32-bit draw `x`: B and D set the
    /// destination bit, C and D the source bit.
    #[inline(always)]
    fn level(&self, x: u32, src: &mut u32, dst: &mut u32) {
        let x = u64::from(x);
        let ge_a = u32::from(x >= self.a);
        let ge_ab = u32::from(x >= self.ab);
        let ge_abc = u32::from(x >= self.abc);
        *src = (*src << 1) | ge_ab;
        *dst = (*dst << 1) | (ge_a ^ ge_ab ^ ge_abc);
    }

    /// One edge of a `2^scale`-vertex graph.
    #[inline(always)]
    fn edge(&self, rng: &mut WyRand, scale: u32) -> (u32, u32) {
        let (mut src, mut dst) = (0u32, 0u32);
        for _ in 0..scale / 2 {
            let r = rng.next_u64();
            self.level(r as u32, &mut src, &mut dst);
            self.level((r >> 32) as u32, &mut src, &mut dst);
        }
        if scale % 2 == 1 {
            self.level(rng.next_u64() as u32, &mut src, &mut dst);
        }
        (src, dst)
    }
}

/// A seeded bijection of `0..2^bits`: three rounds of (xor a key, multiply by an odd key, xor-shift
/// the high half down), all modulo `2^bits`. Each step is invertible on `bits`-bit numbers, so the
/// whole is a permutation; it is computed per vertex in a few nanoseconds, needs no table, and is the
/// same on any thread.
#[derive(Debug, Clone)]
pub(crate) struct LabelPermutation {
    mask: u64,
    shift: u32,
    xor: [u64; 4],
    mul: [u64; 3],
}

impl LabelPermutation {
    /// The permutation of `0..2^bits` (1 <= bits <= 32) for `seed`.
    pub(crate) fn new(bits: u32, seed: u64) -> Self {
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let mut rng = WyRand::new(mix64(seed ^ STREAM_PERMUTATION.wrapping_mul(0x9e37_79b9_7f4a_7c15)));
        let mut next = || rng.next_u64() & mask;
        let xor = [next(), next(), next(), next()];
        let mul = [next() | 1, next() | 1, next() | 1];
        LabelPermutation { mask, shift: bits.div_ceil(2).max(1), xor, mul }
    }

    /// The new label of `v`.
    #[inline(always)]
    pub(crate) fn apply(&self, v: u32) -> u32 {
        let mut x = u64::from(v);
        for round in 0..3 {
            x = ((x ^ self.xor[round]).wrapping_mul(self.mul[round])) & self.mask;
            x ^= x >> self.shift;
        }
        (x ^ self.xor[3]) as u32
    }
}

/// `edge_factor * 2^scale` R-MAT edges on `2^scale` vertices with quadrant probabilities `a, b, c`
/// (and `1 - a - b - c`), relabelled by a random permutation when `permute` (Graph500 Kronecker).
pub(crate) fn generate(
    scale: u32,
    edge_factor: u64,
    (a, b, c): (f64, f64, f64),
    permute: bool,
    seed: u64,
    weights: Option<WeightRange>,
) -> Result<EdgeList, String> {
    let t = Thresholds::new(a, b, c);
    let n = 1usize << scale;
    let count = edge_factor << scale;
    if permute {
        let p = LabelPermutation::new(scale, seed);
        fill_edges(n, count, seed, weights, |rng, _| {
            let (u, v) = t.edge(rng, scale);
            (p.apply(u), p.apply(v))
        })
    } else {
        fill_edges(n, count, seed, weights, |rng, _| t.edge(rng, scale))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_is_a_bijection() {
        for bits in 1..=16 {
            for seed in [0, 1, 12345] {
                let p = LabelPermutation::new(bits, seed);
                let mut seen = vec![false; 1 << bits];
                for v in 0..1u32 << bits {
                    let x = p.apply(v) as usize;
                    assert!(x < seen.len() && !seen[x], "bits {bits} seed {seed}: {v} -> {x}");
                    seen[x] = true;
                }
            }
        }
    }

    #[test]
    fn quadrant_frequencies_match_the_probabilities() {
        let t = Thresholds::new(0.57, 0.19, 0.19);
        let mut rng = WyRand::new(3);
        let mut counts = [0u32; 4];
        for _ in 0..200_000 {
            let (s, d) = t.edge(&mut rng, 1);
            counts[(s * 2 + d) as usize] += 1;
        }
        let expect = [0.57, 0.19, 0.19, 0.05];
        for (q, &c) in counts.iter().enumerate() {
            let f = f64::from(c) / 200_000.0;
            assert!((f - expect[q]).abs() < 0.005, "quadrant {q}: {f} vs {}", expect[q]);
        }
    }

    #[test]
    fn extreme_probabilities() {
        let mut rng = WyRand::new(5);
        // a = 1: always the top-left quadrant, so every edge is 0 -> 0.
        assert_eq!(Thresholds::new(1.0, 0.0, 0.0).edge(&mut rng, 31), (0, 0));
        // d = 1: always the bottom-right quadrant.
        assert_eq!(Thresholds::new(0.0, 0.0, 0.0).edge(&mut rng, 31), ((1 << 31) - 1, (1 << 31) - 1));
        // c = 1: source all ones, destination all zeros.
        assert_eq!(Thresholds::new(0.0, 0.0, 1.0).edge(&mut rng, 5), (31, 0));
    }
}
