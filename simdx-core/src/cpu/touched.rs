//! [`Touched`]: one flag byte per vertex, "reached this iteration". A byte rather than a bit, so that a
//! task can set a vertex's flag with a plain store: no other vertex shares its memory, and no locked
//! instruction (which on x86 waits for every load in flight and keeps the loads after it from starting)
//! is needed where a vertex recorded twice is harmless. The flags are kept in 8-byte words, which the
//! clear and the scan read and write whole between steps, when no task sets a flag.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use rayon::prelude::*;

use super::bitmap::AtomicBitmap;
use crate::VertexId;

/// Words (of 8 flags) one task clears or scans at least.
const WORDS_PER_TASK: usize = 8 * 1024;
/// Flags of a list one task clears at least.
const CLEAR_IN_PARALLEL: usize = 4 * 1024;

/// One flag per vertex, set concurrently by the tasks of a step.
pub(crate) struct Touched {
    /// The flags, 8 to a word (vertex v: byte v % 8 of word v / 8 in memory order).
    words: Vec<AtomicU64>,
    /// The number of flags.
    n: usize,
}

impl Touched {
    /// `n` clear flags.
    pub(crate) fn new(n: usize) -> Self {
        Touched { words: (0..n.div_ceil(8)).into_par_iter().map(|_| AtomicU64::new(0)).collect(), n }
    }

    /// The flags one byte each, as a value to copy into a loop's locals: reached through `self`, the
    /// array's address is loaded again after every store.
    #[inline]
    pub(crate) fn flags(&self) -> Flags<'_> {
        // SAFETY: `words` holds at least `n` bytes, AtomicU8 has the size and alignment of u8, and the
        // bytes are only ever accessed atomically. The byte accesses during a step and the word
        // accesses of `clear_all` and `take_sorted_list` never race: those run between steps, after
        // every task of the step has joined (rayon's join orders the tasks' stores before them).
        Flags(unsafe { std::slice::from_raw_parts(self.words.as_ptr().cast::<AtomicU8>(), self.n) })
    }

    /// As [`Flags::insert`].
    #[inline]
    pub(crate) fn insert(&self, v: VertexId) -> bool {
        self.flags().insert(v)
    }

    /// As [`Flags::insert_plain`].
    #[inline]
    pub(crate) fn insert_plain(&self, v: VertexId) -> bool {
        self.flags().insert_plain(v)
    }

    /// As [`Flags::prefetch`].
    #[inline(always)]
    pub(crate) fn prefetch(&self, v: VertexId) {
        self.flags().prefetch(v);
    }

    /// Clears the flags of `list` (and maybe others): one by one when the list is short, otherwise
    /// every flag. Not while a step sets flags. The flags of a list are scattered, each store a
    /// likely cache miss: a list of [`CLEAR_IN_PARALLEL`] or more is cleared by all threads (a BFS
    /// level's scattered flags are too many for one; measurements: `docs/experiments/cpu-bfs.md`).
    pub(crate) fn clear_list(&self, list: &[VertexId]) {
        if list.len() * 8 > self.words.len() {
            self.clear_all();
        } else if list.len() >= CLEAR_IN_PARALLEL {
            let flags = self.flags();
            list.par_chunks(CLEAR_IN_PARALLEL).for_each(|part| part.iter().for_each(|&v| flags.clear(v)));
        } else {
            let flags = self.flags();
            list.iter().for_each(|&v| flags.clear(v));
        }
    }

    /// Clears every flag. Not while a step sets flags.
    pub(crate) fn clear_all(&self) {
        self.words.par_iter().with_min_len(WORDS_PER_TASK).for_each(|w| w.store(0, Ordering::Relaxed));
    }

    /// The vertices whose flags are set, in increasing order, found by a parallel scan of the words
    /// that clears them on the way. Not while a step sets flags.
    pub(crate) fn take_sorted_list(&self) -> Vec<VertexId> {
        let parts: Vec<Vec<VertexId>> = self
            .words
            .par_chunks(WORDS_PER_TASK)
            .enumerate()
            .map(|(chunk, words)| {
                let mut out = Vec::new();
                for (i, word) in words.iter().enumerate() {
                    let bits = word.load(Ordering::Relaxed);
                    if bits == 0 {
                        continue;
                    }
                    word.store(0, Ordering::Relaxed);
                    let first = ((chunk * WORDS_PER_TASK + i) * 8) as VertexId;
                    // Byte k of the word in memory order is vertex first + k: walk the set bytes
                    // lowest first (a generic `extend` over the filtered bytes grew the list one
                    // checked push at a time; measurements: docs/experiments/cpu-bfs.md).
                    let mut rest = u64::from_le_bytes(bits.to_ne_bytes());
                    out.reserve(8);
                    while rest != 0 {
                        let k = rest.trailing_zeros() / 8;
                        out.push(first + k);
                        rest &= !(0xFF << (8 * k));
                    }
                }
                out
            })
            .collect();
        super::record::concat(parts.iter().map(Vec::as_slice).collect())
    }

    /// Moves the set flags into `bits` (bit `v` for vertex `v`) and clears them, by a parallel scan
    /// of words, each task folding the vertices it moves into its own `T` from `init` with `visit`,
    /// a bitmap word at a time (its first vertex and its bits; in increasing order); returns the
    /// tasks' results. Not while a step sets flags. Eight flag words
    /// become one bitmap word: no list is made, and the flags of vertices just reached are read
    /// once, where they are turned into bits and tested.
    pub(crate) fn take_into<T: Send>(
        &self,
        bits: &AtomicBitmap,
        init: impl Fn() -> T + Sync,
        visit: impl Fn(&mut T, VertexId, u64) + Sync,
    ) -> Vec<T> {
        const _: () = assert!(WORDS_PER_TASK % 8 == 0, "a task's words make whole bitmap words");
        self.words
            .par_chunks(WORDS_PER_TASK)
            .enumerate()
            .map(|(chunk, words)| {
                let mut folded = init();
                for (group, eight) in words.chunks(8).enumerate() {
                    let mut set = 0u64;
                    for (k, word) in eight.iter().enumerate() {
                        let flags = word.load(Ordering::Relaxed);
                        if flags != 0 {
                            word.store(0, Ordering::Relaxed);
                            set |= byte_flags_to_bits(flags) << (8 * k);
                        }
                    }
                    if set == 0 {
                        continue;
                    }
                    let word = chunk * WORDS_PER_TASK / 8 + group;
                    bits.insert_word(word, set);
                    visit(&mut folded, (word * 64) as VertexId, set);
                }
                folded
            })
            .collect()
    }
}

/// The eight flags of a word (bytes of 0 or 1, vertex `k` in byte `k` in memory order) as the low
/// eight bits, vertex `k` at bit `k`: a multiplication gathers byte `k`'s low bit at bit `56 + k`.
#[inline]
fn byte_flags_to_bits(flags: u64) -> u64 {
    let flags = u64::from_le_bytes(flags.to_ne_bytes());
    flags.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The "touched" flags, one byte a vertex ([`Touched::flags`]).
#[derive(Clone, Copy)]
pub(crate) struct Flags<'a>(&'a [AtomicU8]);

impl Flags<'_> {
    /// Sets `v`'s flag; returns whether it was clear before, for exactly one caller. A flag already
    /// set costs a plain load, not an atomic read-modify-write.
    #[inline]
    pub(crate) fn insert(self, v: VertexId) -> bool {
        let flag = &self.0[v as usize];
        flag.load(Ordering::Relaxed) == 0 && flag.swap(1, Ordering::Relaxed) == 0
    }

    /// Sets `v`'s flag with a plain load and store; returns whether it was clear. Callers that set the
    /// same flag at the same moment may both see it clear: only for a caller that is the one writer of
    /// `v` meanwhile, or one for which `v` recorded twice is harmless (in-place min and max programs,
    /// whose frontier may hold a vertex twice: its second push changes nothing).
    #[inline]
    pub(crate) fn insert_plain(self, v: VertexId) -> bool {
        let flag = &self.0[v as usize];
        if flag.load(Ordering::Relaxed) != 0 {
            return false;
        }
        flag.store(1, Ordering::Relaxed);
        true
    }

    /// Clears `v`'s flag.
    #[inline]
    fn clear(self, v: VertexId) {
        self.0[v as usize].store(0, Ordering::Relaxed);
    }

    /// Asks the CPU to bring `v`'s flag into cache.
    #[inline(always)]
    pub(crate) fn prefetch(self, v: VertexId) {
        super::prefetch::element(self.0, v as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_reports_the_first_setter_and_the_scan_takes_each_flag_once_in_order() {
        let touched = Touched::new(200_000);
        let list: Vec<VertexId> = (0..200_000).rev().filter(|v| v % 7 == 0).collect();
        for &v in &list {
            assert!(touched.insert(v));
            assert!(!touched.insert(v));
            assert!(!touched.insert_plain(v));
        }
        assert!(touched.insert_plain(3));
        let mut want: Vec<VertexId> = list.iter().copied().chain([3]).collect();
        want.sort_unstable();
        assert_eq!(touched.take_sorted_list(), want);
        assert!(touched.take_sorted_list().is_empty());
    }

    #[test]
    fn eight_flags_become_eight_bits_in_vertex_order() {
        for pattern in [0u8, 1, 0x80, 0xA5, 0x5A, 0xFF, 0x13] {
            let bytes: [u8; 8] = std::array::from_fn(|k| pattern >> k & 1);
            assert_eq!(byte_flags_to_bits(u64::from_ne_bytes(bytes)), u64::from(pattern), "{pattern:#x}");
        }
    }

    #[test]
    fn take_into_moves_each_flag_to_its_bit_and_visits_it_once() {
        let n = 200_003;
        let touched = Touched::new(n);
        let bits = AtomicBitmap::new(n);
        let list: Vec<VertexId> = (0..n as VertexId).filter(|v| v % 5 == 0 || v % 64 == 63 || *v == 200_002).collect();
        list.iter().rev().for_each(|&v| assert!(touched.insert_plain(v)));
        let parts = touched.take_into(&bits, Vec::new, |seen: &mut Vec<VertexId>, first, set| {
            seen.extend(crate::cpu::bitmap::set_bits(first, set))
        });
        assert_eq!(parts.concat(), list, "each vertex once, in order");
        assert_eq!(bits.take_sorted_list(), list);
        assert!(touched.take_sorted_list().is_empty(), "the flags are cleared");
    }

    #[test]
    fn clear_list_clears_short_and_long_lists() {
        let touched = Touched::new(10_000);
        for list in [vec![1, 5, 9_999], (0..10_000).step_by(2).collect::<Vec<VertexId>>()] {
            list.iter().for_each(|&v| assert!(touched.insert(v)));
            touched.clear_list(&list);
            assert!(touched.take_sorted_list().is_empty());
        }
    }
}
