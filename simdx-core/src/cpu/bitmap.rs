//! [`AtomicBitmap`]: one bit per vertex, set concurrently by many tasks; used for frontier membership
//! in pull mode.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::VertexId;

/// Words one task clears at least: 16K words (128 KiB) take a few microseconds to clear, less than
/// waking a worker thread costs, and a small delta-stepping step clears its bitmap every time
/// (measurements: `docs/experiments/cpu-bfs.md`).
const CLEAR_WORDS_PER_TASK: usize = 16 * 1024;

/// Words one task of a scan over the set bits reads (64K vertices).
const SCAN_WORDS_PER_TASK: usize = 1024;

/// List entries one task of [`AtomicBitmap::insert_all`] sets.
pub(crate) const INSERT_CHUNK: usize = 4096;

/// The indices of the bits set in `bits`, a word whose bit `k` is index `first + k`, lowest first.
#[inline]
pub(crate) fn set_bits(first: VertexId, mut bits: u64) -> impl Iterator<Item = VertexId> {
    std::iter::from_fn(move || {
        (bits != 0).then(|| {
            let k = bits.trailing_zeros();
            bits &= bits - 1;
            first + k
        })
    })
}

/// A fixed-size bitmap whose bits can be set from many threads at once.
pub(crate) struct AtomicBitmap {
    words: Vec<AtomicU64>,
}

impl AtomicBitmap {
    /// A bitmap of `bits` zero bits.
    pub(crate) fn new(bits: usize) -> Self {
        AtomicBitmap { words: (0..bits.div_ceil(64)).into_par_iter().map(|_| AtomicU64::new(0)).collect() }
    }

    /// Sets the bits of `list`, in parallel, with one atomic OR per run of list entries that fall in
    /// the same word rather than one per entry: a sorted frontier of millions of vertices costs a
    /// locked instruction per 64 vertices at most, not per vertex.
    pub(crate) fn insert_all(&self, list: &[VertexId]) {
        list.par_chunks(INSERT_CHUNK).for_each(|chunk| self.insert_chunk(chunk));
    }

    /// Sets the bits of `chunk` in this thread, as [`AtomicBitmap::insert_all`] does for each of its
    /// tasks: one atomic OR per run of entries in the same word.
    pub(crate) fn insert_chunk(&self, chunk: &[VertexId]) {
        let mut word = usize::MAX;
        let mut bits = 0u64;
        for &i in chunk {
            let w = i as usize / 64;
            if w != word {
                if bits != 0 {
                    self.words[word].fetch_or(bits, Ordering::Relaxed);
                }
                (word, bits) = (w, 0);
            }
            bits |= 1u64 << (i % 64);
        }
        if bits != 0 {
            self.words[word].fetch_or(bits, Ordering::Relaxed);
        }
    }

    /// Sets the bits `bits` of word `word` (bits `64 * word..64 * word + 64`), with one atomic OR.
    #[inline]
    pub(crate) fn insert_word(&self, word: usize, bits: u64) {
        self.words[word].fetch_or(bits, Ordering::Relaxed);
    }

    /// Whether no bit is set (for debug assertions: it reads every word).
    pub(crate) fn is_clear(&self) -> bool {
        self.words.iter().all(|w| w.load(Ordering::Relaxed) == 0)
    }

    /// The bits, as a value to copy into a loop's locals: reached through `&self`, the words' address
    /// and length are loaded again for every bit tested (the bottom-up scan of a BFS).
    #[inline]
    pub(crate) fn bits(&self) -> Bits<'_> {
        Bits(&self.words)
    }

    /// Clears bit `i`.
    #[inline]
    pub(crate) fn remove(&self, i: VertexId) {
        self.words[i as usize / 64].fetch_and(!(1u64 << (i % 64)), Ordering::Relaxed);
    }

    /// Clears the bits of `list` (and maybe others): one by one when the list is short, otherwise by
    /// clearing every word, which costs plain stores instead of a locked instruction per bit.
    pub(crate) fn clear_list(&self, list: &[VertexId]) {
        if list.len() * 16 > self.words.len() {
            self.clear_all();
        } else {
            list.iter().for_each(|&v| self.remove(v));
        }
    }

    /// Clears every bit.
    pub(crate) fn clear_all(&self) {
        self.words.par_iter().with_min_len(CLEAR_WORDS_PER_TASK).for_each(|w| w.store(0, Ordering::Relaxed));
    }

    /// Calls `f` with every set bit's index, in parallel. Not while bits are set or cleared.
    pub(crate) fn for_each_set(&self, f: impl Fn(VertexId) + Sync) {
        self.words.par_chunks(SCAN_WORDS_PER_TASK).enumerate().for_each(|(chunk, words)| {
            for (i, word) in words.iter().enumerate() {
                let mut bits = word.load(Ordering::Relaxed);
                let first = ((chunk * SCAN_WORDS_PER_TASK + i) * 64) as VertexId;
                while bits != 0 {
                    f(first + bits.trailing_zeros());
                    bits &= bits - 1;
                }
            }
        });
    }

    /// The set bits' indices in increasing order, found by a parallel scan that clears them. Not
    /// while bits are set or cleared.
    pub(crate) fn take_sorted_list(&self) -> Vec<VertexId> {
        let parts: Vec<Vec<VertexId>> = self
            .words
            .par_chunks(SCAN_WORDS_PER_TASK)
            .enumerate()
            .map(|(chunk, words)| {
                let mut out = Vec::new();
                for (i, word) in words.iter().enumerate() {
                    let bits = word.load(Ordering::Relaxed);
                    if bits == 0 {
                        continue;
                    }
                    word.store(0, Ordering::Relaxed);
                    let first = ((chunk * SCAN_WORDS_PER_TASK + i) * 64) as VertexId;
                    out.reserve(bits.count_ones() as usize);
                    out.extend(set_bits(first, bits));
                }
                out
            })
            .collect();
        super::record::concat(parts.iter().map(Vec::as_slice).collect())
    }
}

/// An [`AtomicBitmap`]'s bits, to read ([`AtomicBitmap::bits`]).
#[derive(Clone, Copy)]
pub(crate) struct Bits<'a>(&'a [AtomicU64]);

impl Bits<'_> {
    /// Whether bit `i` is set.
    #[inline]
    pub(crate) fn contains(self, i: VertexId) -> bool {
        self.0[i as usize / 64].load(Ordering::Relaxed) & (1u64 << (i % 64)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_all_sets_exactly_the_listed_bits_in_any_order() {
        let bitmap = AtomicBitmap::new(10_000);
        let mut list: Vec<VertexId> = (0..10_000).filter(|v| v % 3 == 0 || v % 64 == 63).collect();
        list.reverse();
        list.extend([5, 5, 9_999]);
        bitmap.insert_all(&list);
        for v in 0..10_000 {
            assert_eq!(bitmap.bits().contains(v), v % 3 == 0 || v % 64 == 63 || v == 5 || v == 9_999, "bit {v}");
        }
    }

    #[test]
    fn the_set_bits_are_visited_once_each_and_taken_in_order() {
        let n = 200_000;
        let bitmap = AtomicBitmap::new(n);
        let want: Vec<VertexId> = (0..n as VertexId).filter(|v| v % 5 == 0 || v % 64 == 63).collect();
        bitmap.insert_all(&want);
        let seen: Vec<std::sync::atomic::AtomicU8> = (0..n).map(|_| Default::default()).collect();
        bitmap.for_each_set(|v| {
            seen[v as usize].fetch_add(1, Ordering::Relaxed);
        });
        for (v, count) in seen.iter().enumerate() {
            assert_eq!(count.load(Ordering::Relaxed), u8::from(want.binary_search(&(v as VertexId)).is_ok()), "{v}");
        }
        assert_eq!(bitmap.take_sorted_list(), want);
        assert!(bitmap.take_sorted_list().is_empty(), "taking clears");
    }
}
