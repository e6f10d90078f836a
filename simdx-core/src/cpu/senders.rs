//! [`Senders`]: each vertex's *sender* kept by a CPU run that asks for it
//! ([`Engine::run_with_senders`](crate::engine::Engine::run_with_senders)): the vertex whose update
//! set the vertex's final value (for BFS, its parent in the search tree), written where the update
//! lands into arrays no step reads, so that the run keeps its values' width.
//!
//! Steps whose stores cannot race with a store of another value (a pull, where one task finishes each
//! vertex; a push whose stores all carry one value, as a BFS level step's do) store the sender beside
//! the value: any sender of the value that stood is right. Where stores of differing values can race,
//! the sender goes into a word with the value above it: fused rounds store the word whole beside the
//! value and mend, once the round is over, each vertex whose word a racing store left with another
//! value than the one that stands (their repair logs who sent each improvement); push steps that log
//! their stores, and the atomic push that repairs a step whose values turned out to differ, keep the
//! least word by an atomic (steps a BFS never takes). A word's value is then never below the vertex's
//! final value, and where it equals it, the word's sender is right; a vertex whose word holds a greater
//! value (or none) got its value from a store of the first kind, whose sender is the one stored.
//!
//! A breadth-first search can do without the fused rounds' words ([`RoundSenders::ByLevels`]): its
//! rounds store the sender plainly and log none, and a pass before the run's clock stops gives each
//! reached vertex whose sender is not one level closer the first in-neighbour that is.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use crate::{Graph, VertexId};

/// The sender of a vertex no update reached (its initial value stood).
pub const NO_SENDER: u32 = u32::MAX;

/// A word no update wrote: above every (value, sender) word.
const NO_WORD: u64 = u64::MAX;

/// How the fused rounds of a run that keeps senders keep theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RoundSenders {
    /// (value, sender) words stored whole and mended by the round's repair: any voting min program.
    Words,
    /// The sender stored plainly, mended after the run by [`Senders::mend_by_levels`]: a breadth-first
    /// search, whose values are levels.
    ByLevels,
}

/// The senders of a run's vertices (see the module documentation).
pub(crate) struct Senders {
    /// The sender stored beside the value by steps whose stores cannot race with another value's.
    stored: Vec<AtomicU32>,
    /// (value << 32 | sender), from steps whose stores can race.
    words: Vec<AtomicU64>,
    /// How fused rounds keep theirs.
    rounds: RoundSenders,
    /// Whether a round of concurrent workers stored senders plainly ([`RoundSenders::ByLevels`]).
    raced: AtomicBool,
}

impl Senders {
    /// No sender yet for any of `n` vertices (made with the run's other arrays, before its clock
    /// starts), fused rounds keeping theirs as `rounds` says.
    pub(crate) fn new(n: usize, rounds: RoundSenders) -> Self {
        Senders {
            stored: (0..n).into_par_iter().map(|_| AtomicU32::new(NO_SENDER)).collect(),
            words: (0..n).into_par_iter().map(|_| AtomicU64::new(NO_WORD)).collect(),
            rounds,
            raced: AtomicBool::new(false),
        }
    }

    /// Whether fused rounds store (value, sender) words and log their senders for the repair.
    pub(crate) fn words_in_rounds(&self) -> bool {
        self.rounds == RoundSenders::Words
    }

    /// A fused round starts: where rounds store no senders ([`RoundSenders::ByLevels`]), the pass
    /// after the run names them.
    pub(crate) fn round_runs(&self) {
        if !self.words_in_rounds() {
            self.raced.store(true, Ordering::Relaxed);
        }
    }

    /// After a breadth-first search whose rounds stored senders plainly: each reached vertex (`level`
    /// not 0 nor `u32::MAX`) whose stored sender is not one level closer gets the first in-neighbour
    /// in `graph` that is. Nothing when no round raced.
    pub(crate) fn mend_by_levels(&self, graph: &Graph, level: impl Fn(VertexId) -> u32 + Sync) {
        if !self.raced.load(Ordering::Relaxed) {
            return;
        }
        let incoming = graph.in_csr();
        (0..self.stored.len() as VertexId).into_par_iter().with_min_len(4096).for_each(|v| {
            let l = level(v);
            if l == 0 || l == u32::MAX {
                return;
            }
            let sender = self.stored[v as usize].load(Ordering::Relaxed);
            if sender != NO_SENDER && level(sender).wrapping_add(1) == l {
                return;
            }
            let closer = incoming.neighbors(v).iter().copied().find(|&u| level(u).wrapping_add(1) == l);
            self.stored[v as usize].store(closer.unwrap_or(NO_SENDER), Ordering::Relaxed);
        });
    }

    /// Bytes a run keeping the senders of `n` vertices adds.
    pub(crate) fn bytes(n: usize) -> u64 {
        n as u64 * 12
    }

    /// `from` sent `v` the value it now holds, in a step whose stores cannot race with another value's.
    #[inline]
    pub(crate) fn store(&self, v: VertexId, from: VertexId) {
        self.stored[v as usize].store(from, Ordering::Relaxed);
    }

    /// `from` sent `v` `value`, in a step whose stores can race: kept if the least value so far.
    #[inline]
    pub(crate) fn keep_least(&self, v: VertexId, value: u32, from: VertexId) {
        let (word, words) = (word(value, from), &self.words);
        // Test first: most vertices get one word, and an atomic that changes nothing still locks.
        if word < words[v as usize].load(Ordering::Relaxed) {
            words[v as usize].fetch_min(word, Ordering::Relaxed);
        }
    }

    /// `from` sent `v` `value` in a fused round: the word is stored whole, without an atomic (a locked
    /// instruction per improvement cost the grid's search a third); a racing store may overwrite it
    /// with another value's, which [`Senders::mend`] corrects once the round is over.
    #[inline]
    pub(crate) fn store_word(&self, v: VertexId, value: u32, from: VertexId) {
        self.words[v as usize].store(word(value, from), Ordering::Relaxed);
    }

    /// After a fused round: `v` holds `value`, which `from` sent it; a word of another value is
    /// replaced (the least of those mended at once is kept).
    #[inline]
    pub(crate) fn mend(&self, v: VertexId, value: u32, from: VertexId) {
        let words = &self.words;
        if (words[v as usize].load(Ordering::Relaxed) >> 32) as u32 != value {
            words[v as usize].fetch_min(word(value, from), Ordering::Relaxed);
        }
    }

    /// Each vertex's sender, given the run's final `values`.
    pub(crate) fn finish(self, values: &[u32]) -> Vec<u32> {
        self.stored
            .into_par_iter()
            .zip(self.words.into_par_iter())
            .zip(values.par_iter())
            .map(|((stored, word), &value)| sender_of(stored.into_inner(), word.into_inner(), value))
            .collect()
    }
}

/// The word of `value` sent by `from`: ordered by value, then by sender.
fn word(value: u32, from: VertexId) -> u64 {
    (u64::from(value) << 32) | u64::from(from)
}

/// A vertex's sender from the one stored and its least word, given its final value.
fn sender_of(stored: u32, word: u64, value: u32) -> u32 {
    if word != NO_WORD && (word >> 32) as u32 == value {
        word as u32
    } else {
        stored
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_of_the_final_value_names_the_sender_and_any_other_leaves_the_stored_one() {
        assert_eq!(sender_of(NO_SENDER, NO_WORD, u32::MAX), NO_SENDER);
        assert_eq!(sender_of(9, NO_WORD, 3), 9);
        assert_eq!(sender_of(9, (3 << 32) | 17, 3), 17);
        assert_eq!(sender_of(9, (4 << 32) | 17, 3), 9, "a word above the final value: a stored one set it");
        assert_eq!(sender_of(NO_SENDER, 5, 0), 5, "value 0, sender 5");
    }

    #[test]
    fn a_word_a_racing_store_overwrote_is_mended_to_the_value_that_stands() {
        let senders = Senders::new(2, RoundSenders::Words);
        senders.store_word(0, 5, 11);
        senders.store_word(0, 7, 12);
        senders.store_word(1, 4, 13);
        senders.mend(0, 5, 11);
        senders.mend(1, 4, 14);
        assert_eq!(senders.finish(&[5, 4]), vec![11, 13], "a word of the value that stands is kept");
    }

    #[test]
    fn racing_words_keep_the_least_value_and_its_sender() {
        let senders = Senders::new(4, RoundSenders::Words);
        (0..1000u32).into_par_iter().for_each(|k| senders.keep_least(2, 10 + k % 7, k));
        senders.store(1, 8);
        let values = [u32::MAX, 5, 10, u32::MAX];
        let got = senders.finish(&values);
        assert_eq!(got[0], NO_SENDER);
        assert_eq!(got[1], 8);
        assert_eq!(got[2] % 7, 0, "a sender of value 10");
        assert_eq!(got[2], 0, "the least word: value 10, then the least sender");
    }
}
