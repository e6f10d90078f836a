//! The pseudo-random numbers behind the generators: [`mix64`] (the SplitMix64 finaliser) derives an
//! independent seed for every chunk of edges from `(seed, stream, chunk)`, and [`WyRand`] — a tiny,
//! fast generator with 64 bits of state — draws the numbers inside one chunk.
//!
//! Determinism: generators cut their output into fixed chunks of [`CHUNK`] items and seed chunk `k`
//! of stream `s` with [`chunk_seed`]`(seed, s, k)`; a chunk is then filled serially. Which thread fills
//! which chunk does not matter, so the output is bit-identical for every rayon thread count.
//!
//! These generators are for building test graphs and picking random sources, not for cryptography.

/// Items (edges, weights) per independently seeded chunk.
pub const CHUNK: usize = 1 << 16;

/// Stream of the edge endpoints.
pub const STREAM_EDGES: u64 = 1;
/// Stream of the edge weights, separate so that a weighted graph has the same edges as the
/// unweighted one of the same seed.
pub const STREAM_WEIGHTS: u64 = 2;
/// Stream of the Kronecker vertex permutation's keys.
pub const STREAM_PERMUTATION: u64 = 3;

/// The SplitMix64 finaliser: a bijective mixing of 64 bits in which every input bit affects every
/// output bit.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of chunk `chunk` of stream `stream` under the user's `seed`: a hash of the three, so that
/// nearby seeds, streams and chunks give unrelated sequences.
#[inline]
pub fn chunk_seed(seed: u64, stream: u64, chunk: u64) -> u64 {
    const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
    let s = mix64(seed.wrapping_add(GAMMA));
    let s = mix64(s ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03).wrapping_add(GAMMA));
    mix64(s ^ chunk.wrapping_mul(0xabc9_8388_fb8f_ac03).wrapping_add(GAMMA))
}

/// wyrand (Wang Yi's generator): a Weyl sequence passed through a 64x64 -> 128-bit multiply-fold.
/// Period 2^64, passes BigCrush and PractRand, about one nanosecond per number.
#[derive(Debug, Clone)]
pub struct WyRand {
    state: u64,
}

impl WyRand {
    /// A generator started from `seed` (any value, zero included).
    pub fn new(seed: u64) -> Self {
        WyRand { state: seed }
    }

    /// The generator for chunk `chunk` of `stream` under `seed` (see [`chunk_seed`]).
    pub fn for_chunk(seed: u64, stream: u64, chunk: u64) -> Self {
        WyRand::new(chunk_seed(seed, stream, chunk))
    }

    /// The next 64 random bits.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0xa076_1d64_78bd_642f);
        let t = u128::from(self.state) * u128::from(self.state ^ 0xe703_7ed1_a0b4_28db);
        ((t >> 64) as u64) ^ (t as u64)
    }

    /// A number uniform in `0..span` (`span` up to 2^32; `0` only for `span == 0`), by the
    /// multiply-high method: the bias is below `span / 2^64`, far too small to matter here.
    #[inline(always)]
    pub fn below(&mut self, span: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(span)) >> 64) as u64
    }

    /// A float uniform in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_seeds_differ() {
        let mut seen = std::collections::HashSet::new();
        for seed in 0..4 {
            for stream in 0..4 {
                for chunk in 0..64 {
                    assert!(seen.insert(chunk_seed(seed, stream, chunk)));
                }
            }
        }
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut rng = WyRand::new(7);
        let mut hits = [0u32; 10];
        for _ in 0..100_000 {
            let x = rng.below(10);
            assert!(x < 10);
            hits[x as usize] += 1;
        }
        assert!(hits.iter().all(|&h| (9_000..11_000).contains(&h)), "{hits:?}");
        assert_eq!(rng.below(1), 0);
    }

    #[test]
    fn bits_are_balanced() {
        let mut rng = WyRand::new(0);
        let mut ones = [0u32; 64];
        for _ in 0..20_000 {
            let x = rng.next_u64();
            for (b, count) in ones.iter_mut().enumerate() {
                *count += ((x >> b) & 1) as u32;
            }
        }
        assert!(ones.iter().all(|&c| (9_500..10_500).contains(&c)), "{ones:?}");
        let f = rng.next_f64();
        assert!((0.0..1.0).contains(&f));
    }
}
