//! Chunks taken from a shared counter by the worker threads (OpenMP's dynamic schedule), in
//! increasing order or spread apart. In increasing order, at any moment the threads work on
//! neighbouring chunks near the front. rayon's splitting instead starts each thread far into the
//! range; a pass whose chunks lean on the chunks before them having run (a flatten, whose trees
//! point at lower vertices: on a grid, a column's chain of parents) then makes every thread's first
//! chunk walk the chains that the threads before it have not shortened yet.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

/// Runs `body` on every chunk of `0..chunks`, each once, taken in increasing order by the pool's
/// threads; returns the sum of what the calls return.
pub(crate) fn sum_in_order(chunks: usize, body: impl Fn(usize) -> u64 + Sync) -> u64 {
    sum_claimed(chunks, |k| k, body)
}

/// A stride between the chunks taken one after the other by [`sum_spread`]: prime, so that it walks
/// every chunk of any count it does not divide.
const SPREAD: usize = 7919;

/// As [`sum_in_order`], but the chunks taken one after the other lie [`SPREAD`] chunks apart, so that
/// threads working at the same time write far from each other (the grid's first linking round: a
/// vertex hooks under the one above it, in the chunk another thread would be writing).
pub(crate) fn sum_spread(chunks: usize, body: impl Fn(usize) -> u64 + Sync) -> u64 {
    if chunks % SPREAD == 0 {
        return sum_in_order(chunks, body);
    }
    sum_claimed(chunks, |k| k * SPREAD % chunks, body)
}

/// Runs `body` on chunk `order(k)` for the k-th claim, k in `0..chunks`.
fn sum_claimed(chunks: usize, order: impl Fn(usize) -> usize + Sync, body: impl Fn(usize) -> u64 + Sync) -> u64 {
    let next = AtomicUsize::new(0);
    let workers = rayon::current_num_threads().min(chunks);
    if workers <= 1 {
        return (0..chunks).map(|k| body(order(k))).sum();
    }
    (0..workers)
        .into_par_iter()
        .with_max_len(1)
        .map(|_| {
            let mut sum = 0;
            loop {
                let claim = next.fetch_add(1, Ordering::Relaxed);
                if claim >= chunks {
                    return sum;
                }
                sum += body(order(claim));
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn every_chunk_runs_once_and_the_sums_add_up() {
        let spread = |chunks, body: &(dyn Fn(usize) -> u64 + Sync)| sum_spread(chunks, body);
        let in_order = |chunks, body: &(dyn Fn(usize) -> u64 + Sync)| sum_in_order(chunks, body);
        for (name, schedule) in
            [("in order", &in_order as &dyn Fn(usize, &(dyn Fn(usize) -> u64 + Sync)) -> u64), ("spread", &spread)]
        {
            for chunks in [0, 1, 2, 7, 1000, SPREAD, 2 * SPREAD + 1] {
                let runs: Vec<AtomicU64> = (0..chunks).map(|_| AtomicU64::new(0)).collect();
                let sum = schedule(chunks, &|c| {
                    runs[c].fetch_add(1, Ordering::Relaxed);
                    c as u64
                });
                assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 1), "{name}, {chunks} chunks");
                assert_eq!(sum, (0..chunks as u64).sum::<u64>(), "{name}, {chunks} chunks");
            }
        }
    }
}
