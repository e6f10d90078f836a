//! What a partitioned run's exchanges move, computed on the host alike by every share: the byte ranges
//! of each part's values and frontier-bitmap words, whether a step's changed values travel as
//! (vertex, value) pairs (and where each part's pairs go) or as the owned ranges whole, and the size
//! and place of each part's packet (a step's changes and frontier in one round, while they are few).

use std::ops::Range;

use simdx_core::partition::WORD_VERTICES;

/// Bytes of each part's values in the value array: part `p` owns `ranges[p]`, of `size`-byte values.
pub(crate) fn value_bytes(ranges: &[Range<u32>], size: usize) -> Vec<Range<usize>> {
    ranges.iter().map(|r| r.start as usize * size..r.end as usize * size).collect()
}

/// Bytes of each part's words in a bitmap of a bit per vertex (`u32` words). Part boundaries are
/// multiples of [`WORD_VERTICES`] but the last one, `n`: each part owns whole words.
pub(crate) fn word_bytes(ranges: &[Range<u32>]) -> Vec<Range<usize>> {
    ranges.iter().map(|r| (r.start / WORD_VERTICES) as usize * 4..r.end.div_ceil(WORD_VERTICES) as usize * 4).collect()
}

/// Where each part's changed values go as pairs: part `p`'s `counts[p]` pairs start at pair
/// `starts[p]`, after those of the parts before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PairPlan {
    pub(crate) starts: Vec<u64>,
    pub(crate) counts: Vec<u64>,
}

impl PairPlan {
    /// The plan for parts that changed `counts` values of `size` bytes in a graph of `n` vertices, or
    /// `None` when sending the owned values whole is cheaper: pairs (4 + `size` bytes each) only
    /// while they are under a quarter of the bytes of every value.
    pub(crate) fn for_counts(counts: &[u64], n: u32, size: u64) -> Option<PairPlan> {
        let total: u64 = counts.iter().sum();
        if total * (4 + size) * 4 > u64::from(n) * size {
            return None;
        }
        Some(Self::placed(counts))
    }

    /// The plan for parts that send `counts` pairs, however many.
    pub(crate) fn placed(counts: &[u64]) -> PairPlan {
        let starts = counts.iter().scan(0, |at, &c| Some(std::mem::replace(at, *at + c))).collect();
        PairPlan { starts, counts: counts.to_vec() }
    }

    /// All parts' pairs.
    pub(crate) fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Each part's bytes in an array of `width`-byte items, one per pair.
    pub(crate) fn bytes(&self, width: u64) -> Vec<Range<usize>> {
        self.starts.iter().zip(&self.counts).map(|(&s, &c)| (s * width) as usize..((s + c) * width) as usize).collect()
    }
}

/// The vertices a share's packet has room for in a graph of `n` vertices: `n / 64`, at least 64 and
/// at most 65536, a multiple of 64 (so that a packet's values start 8-byte aligned).
pub(crate) fn packet_capacity(n: u32) -> u32 {
    (n / 64).clamp(64, 1 << 16) / 64 * 64
}

/// The bytes of a packet of room for `capacity` vertices with `size`-byte values (kernels/shares.cu):
/// its head, `capacity` vertex ids, as many frontier ids and as many values, rounded up to 8 bytes.
pub(crate) fn packet_bytes(capacity: u32, size: usize) -> usize {
    let head = std::mem::size_of::<crate::device_structs::SxPacket>();
    (head + capacity as usize * (8 + size)).next_multiple_of(8)
}

/// Each part's packet in an array of `parts` packets of `bytes` bytes each.
pub(crate) fn packet_ranges(parts: usize, bytes: usize) -> Vec<Range<usize>> {
    (0..parts).map(|p| p * bytes..(p + 1) * bytes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_owns_whole_words_and_its_values() {
        let ranges = [0..64, 64..64, 64..100];
        assert_eq!(word_bytes(&ranges), vec![0..8, 8..8, 8..16]);
        assert_eq!(value_bytes(&ranges, 8), vec![0..512, 512..512, 512..800]);
    }

    #[test]
    fn pairs_follow_each_other_by_part_while_they_are_few() {
        let plan = PairPlan::for_counts(&[3, 0, 5], 1000, 4).expect("8 pairs of 8 bytes against 4000 bytes");
        assert_eq!(plan.starts, vec![0, 3, 3]);
        assert_eq!(plan.total(), 8);
        assert_eq!(plan.bytes(4), vec![0..12, 12..12, 12..32]);
        // 125 pairs of 8 bytes are a quarter of 1000 values of 4 bytes: still pairs; one more is not.
        assert!(PairPlan::for_counts(&[125], 1000, 4).is_some());
        assert!(PairPlan::for_counts(&[100, 26], 1000, 4).is_none());
        assert_eq!(PairPlan::placed(&[100, 26]).starts, vec![0, 100]);
    }

    #[test]
    fn packets_hold_a_sixty_fourth_of_the_vertices_and_lie_one_after_another() {
        assert_eq!(packet_capacity(1000), 64);
        assert_eq!(packet_capacity(1 << 20), 1 << 14);
        assert_eq!(packet_capacity((1 << 20) + 100 * 64), (1 << 14) + 64);
        assert_eq!(packet_capacity(1 << 26), 1 << 16);
        // A 16-byte head, then 64 ids, 64 frontier ids, 64 values of 4 or 8 bytes.
        assert_eq!(packet_bytes(64, 4), 16 + 64 * 12);
        assert_eq!(packet_bytes(64, 8), 16 + 64 * 16);
        assert_eq!(packet_ranges(3, 100), vec![0..100, 100..200, 200..300]);
    }
}
