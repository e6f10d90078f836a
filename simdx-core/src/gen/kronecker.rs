//! Graph500 Kronecker and R-MAT edges: each edge picks one of the four quadrants of the adjacency
//! matrix with probabilities A, B, C, D = 1 - A - B - C, then a quadrant of that quadrant, and so on
//! for `scale` levels; each level fixes one bit of the source and one of the destination.
//!
//! Speed: the levels are independent, so four of them at once are one draw from the 256 outcomes
//! of four levels (probability: the product of the four quadrant probabilities). That draw uses
//! Walker's alias method — 8 random bits pick a table entry, a 32-bit random fraction compared with
//! the entry's fixed-point threshold picks the entry or its alias — so one 64-bit random number and
//! one lookup in a 4 KiB table yield four source bits and four destination bits, without a branch.
//! The `scale mod 4` last levels use a smaller table the same way. Kronecker (not R-MAT) then
//! relabels the vertices by a seeded random permutation of `0..2^scale`, as Graph500 does, so that
//! vertex ids say nothing about degree.

use super::rng::{mix64, WyRand, STREAM_PERMUTATION};
use super::{fill_edges, WeightRange};
use crate::graph::builder::EdgeList;

/// Levels per table draw.
const LEVELS: u32 = 4;
/// Entries of a table (`4^LEVELS`; smaller tables use a prefix).
const ENTRIES: usize = 1 << (2 * LEVELS);

/// One alias-table entry: keep outcome `keep` when the 32-bit fraction is below `threshold`
/// (`2^32` = always), else take `alias`. Outcomes are stored as their bits: source bits `<< 8 |`
/// destination bits.
#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    threshold: u64,
    keep: u16,
    alias: u16,
}

/// An alias table over the `4^levels` outcomes of `levels` quadrant choices.
#[derive(Debug, Clone)]
struct AliasTable {
    levels: u32,
    entries: Box<[Entry; ENTRIES]>,
}

impl AliasTable {
    /// The table for `levels` (1..=4) levels with quadrant probabilities `p` = [A, B, C, D], by
    /// Vose's construction (deterministic: no randomness, fixed processing order).
    fn new(levels: u32, p: [f64; 4]) -> Self {
        let n = 1usize << (2 * levels);
        // Outcome o: quadrant q_j = (o >> 2(levels-1-j)) & 3 at level j (j = 0 is the top bit);
        // quadrant q sets the source bit to q >> 1 and the destination bit to q & 1.
        let bits = |o: usize| -> u16 {
            let (mut src, mut dst) = (0u16, 0u16);
            for j in (0..levels).rev() {
                let q = (o >> (2 * j)) & 3;
                src = (src << 1) | (q >> 1) as u16;
                dst = (dst << 1) | (q & 1) as u16;
            }
            (src << 8) | dst
        };
        let mut scaled: Vec<f64> =
            (0..n).map(|o| (0..levels).map(|j| p[(o >> (2 * j)) & 3]).product::<f64>() * n as f64).collect();
        let mut entries = Box::new([Entry::default(); ENTRIES]);
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&o| scaled[o] < 1.0);
        let fixed = |x: f64| (x.clamp(0.0, 1.0) * 4_294_967_296.0).round() as u64;
        while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
            small.pop();
            entries[s] = Entry { threshold: fixed(scaled[s]), keep: bits(s), alias: bits(l) };
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // What is left has probability 1 up to rounding.
        for o in small.into_iter().chain(large) {
            entries[o] = Entry { threshold: 1 << 32, keep: bits(o), alias: bits(o) };
        }
        AliasTable { levels, entries }
    }

    /// Appends this table's levels to `src` and `dst`, drawn with the 64 bits `r`.
    #[inline(always)]
    fn draw(&self, r: u64, src: &mut u32, dst: &mut u32) {
        let e = self.entries[(r >> (64 - 2 * self.levels)) as usize & (ENTRIES - 1)];
        let b = if u64::from(r as u32) < e.threshold { e.keep } else { e.alias };
        *src = (*src << self.levels) | u32::from(b >> 8);
        *dst = (*dst << self.levels) | u32::from(b & 0xff);
    }
}

/// The samplers for one scale: a 4-level table used `scale / 4` times and a table for the rest.
#[derive(Debug, Clone)]
struct Sampler {
    full: AliasTable,
    rest: Option<AliasTable>,
    groups: u32,
}

impl Sampler {
    fn new(scale: u32, a: f64, b: f64, c: f64) -> Self {
        let p = [a, b, c, (1.0 - a - b - c).max(0.0)];
        let rest = (scale % LEVELS != 0).then(|| AliasTable::new(scale % LEVELS, p));
        Sampler { full: AliasTable::new(LEVELS, p), rest, groups: scale / LEVELS }
    }

    /// One edge of a `2^scale`-vertex graph.
    #[inline(always)]
    fn edge(&self, rng: &mut WyRand) -> (u32, u32) {
        let (mut src, mut dst) = (0u32, 0u32);
        for _ in 0..self.groups {
            self.full.draw(rng.next_u64(), &mut src, &mut dst);
        }
        if let Some(rest) = &self.rest {
            rest.draw(rng.next_u64(), &mut src, &mut dst);
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
    let sampler = Sampler::new(scale, a, b, c);
    let n = 1usize << scale;
    let count = edge_factor << scale;
    if permute {
        let p = LabelPermutation::new(scale, seed);
        fill_edges(n, count, seed, weights, |rng, _| {
            let (u, v) = sampler.edge(rng);
            (p.apply(u), p.apply(v))
        })
    } else {
        fill_edges(n, count, seed, weights, |rng, _| sampler.edge(rng))
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

    /// Frequencies of the top level's quadrant and of the all-A outcome over many edges.
    fn frequencies(scale: u32, (a, b, c): (f64, f64, f64)) -> ([f64; 4], f64) {
        let sampler = Sampler::new(scale, a, b, c);
        let mut rng = WyRand::new(3);
        let (mut top, mut zero) = ([0u32; 4], 0u32);
        let draws = 400_000;
        for _ in 0..draws {
            let (s, d) = sampler.edge(&mut rng);
            top[((s >> (scale - 1)) * 2 + (d >> (scale - 1))) as usize] += 1;
            zero += u32::from(s == 0 && d == 0);
        }
        (top.map(|t| f64::from(t) / f64::from(draws)), f64::from(zero) / f64::from(draws))
    }

    #[test]
    fn quadrant_frequencies_match_the_probabilities() {
        let expect = [0.57, 0.19, 0.19, 0.05];
        for scale in [1, 2, 3, 4, 5, 8, 11] {
            let (top, zero) = frequencies(scale, (0.57, 0.19, 0.19));
            for q in 0..4 {
                assert!((top[q] - expect[q]).abs() < 0.004, "scale {scale} quadrant {q}: {} vs {}", top[q], expect[q]);
            }
            let all_a = 0.57f64.powi(scale as i32);
            assert!((zero - all_a).abs() < 0.004 + all_a * 0.02, "scale {scale}: P(0 -> 0) {zero} vs {all_a}");
        }
        let (top, _) = frequencies(6, (0.1, 0.2, 0.3));
        for (q, p) in [0.1, 0.2, 0.3, 0.4].into_iter().enumerate() {
            assert!((top[q] - p).abs() < 0.004, "quadrant {q}: {} vs {p}", top[q]);
        }
    }

    #[test]
    fn extreme_probabilities() {
        let mut rng = WyRand::new(5);
        for _ in 0..100 {
            // a = 1: always the top-left quadrant, so every edge is 0 -> 0.
            assert_eq!(Sampler::new(31, 1.0, 0.0, 0.0).edge(&mut rng), (0, 0));
            // d = 1: always the bottom-right quadrant.
            assert_eq!(Sampler::new(31, 0.0, 0.0, 0.0).edge(&mut rng), ((1 << 31) - 1, (1 << 31) - 1));
            // c = 1: source all ones, destination all zeros; b = 1 the reverse.
            assert_eq!(Sampler::new(5, 0.0, 0.0, 1.0).edge(&mut rng), (31, 0));
            assert_eq!(Sampler::new(6, 0.0, 1.0, 0.0).edge(&mut rng), (0, 63));
        }
    }
}
