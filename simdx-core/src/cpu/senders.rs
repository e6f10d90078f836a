//! [`Senders`]: each vertex's *sender* kept by a CPU run that asks for it
//! ([`Engine::run_with_senders`](crate::engine::Engine::run_with_senders)): the vertex whose update
//! set the vertex's final value (for BFS, its parent in the search tree), written where the update
//! lands into arrays no step reads, so that the run keeps its values' width.
//!
//! Steps whose stores cannot race with a store of another value (a pull, where one task finishes each
//! vertex; a push whose stores all carry one value, as a BFS level step's do) store the sender beside
//! the value: any sender of the value that stood is right. Where stores of differing values can race
//! (fused rounds, push steps that log their stores, and the atomic push that repairs a step whose
//! values turned out to differ), the sender goes into a word with the value above it, kept least by an
//! atomic: its value is never below the vertex's final value, and where it equals it, the word's
//! sender is right. A vertex whose word's value is above its final value got that value from a store
//! of the first kind, whose sender is then the one stored.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::OnceLock;

use rayon::prelude::*;

use crate::VertexId;

/// The sender of a vertex no update reached (its initial value stood).
pub const NO_SENDER: u32 = u32::MAX;

/// A word no update wrote: above every (value, sender) word.
const NO_WORD: u64 = u64::MAX;

/// The senders of a run's vertices (see the module documentation).
pub(crate) struct Senders {
    /// The sender stored beside the value by steps whose stores cannot race with another value's.
    stored: Vec<AtomicU32>,
    /// (value << 32 | sender), least per vertex, from steps whose stores can race; made when the
    /// first such step begins.
    least: OnceLock<Vec<AtomicU64>>,
}

impl Senders {
    /// No sender yet for any of `n` vertices.
    pub(crate) fn new(n: usize) -> Self {
        Senders { stored: (0..n).into_par_iter().map(|_| AtomicU32::new(NO_SENDER)).collect(), least: OnceLock::new() }
    }

    /// Bytes a run keeping the senders of `n` vertices adds (the words counted too).
    pub(crate) fn bytes(n: usize) -> u64 {
        n as u64 * 12
    }

    /// Makes the words, before a step whose stores can race (so that no worker makes them).
    pub(crate) fn make_words(&self) {
        self.words();
    }

    fn words(&self) -> &[AtomicU64] {
        self.least.get_or_init(|| (0..self.stored.len()).into_par_iter().map(|_| AtomicU64::new(NO_WORD)).collect())
    }

    /// `from` sent `v` the value it now holds, in a step whose stores cannot race with another value's.
    #[inline]
    pub(crate) fn store(&self, v: VertexId, from: VertexId) {
        self.stored[v as usize].store(from, Ordering::Relaxed);
    }

    /// `from` sent `v` `value`, in a step whose stores can race: kept if the least value so far.
    #[inline]
    pub(crate) fn keep_least(&self, v: VertexId, value: u32, from: VertexId) {
        let word = (u64::from(value) << 32) | u64::from(from);
        let words = self.words();
        // Test first: most vertices get one word, and an atomic that changes nothing still locks.
        if word < words[v as usize].load(Ordering::Relaxed) {
            words[v as usize].fetch_min(word, Ordering::Relaxed);
        }
    }

    /// Each vertex's sender, given the run's final `values`.
    pub(crate) fn finish(self, values: &[u32]) -> Vec<u32> {
        match self.least.into_inner() {
            None => self.stored.into_iter().map(AtomicU32::into_inner).collect(),
            Some(words) => self
                .stored
                .into_par_iter()
                .zip(words.into_par_iter())
                .zip(values.par_iter())
                .map(|((stored, word), &value)| sender_of(stored.into_inner(), word.into_inner(), value))
                .collect(),
        }
    }
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
    fn racing_words_keep_the_least_value_and_its_sender() {
        let senders = Senders::new(4);
        senders.make_words();
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
