//! The online filter's per-task bins: while Compute runs, each rayon task records the vertices it
//! changed first into its own bounded bin; a full bin raises the overflow flag instead of growing.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::run::options::FilterPolicy;
use crate::VertexId;

/// The bin limits of one step, shared by its tasks.
pub(crate) struct BinPolicy {
    /// Most vertices one bin may hold (0: record nothing, the ballot filter will scan).
    limit: usize,
    overflow: AtomicBool,
}

impl BinPolicy {
    /// Limits for `policy` with bins of `capacity` vertices.
    pub(crate) fn new(policy: FilterPolicy, capacity: usize) -> Self {
        let limit = match policy {
            FilterPolicy::Online => usize::MAX,
            FilterPolicy::Ballot => 0,
            FilterPolicy::Jit => capacity,
        };
        BinPolicy { limit, overflow: AtomicBool::new(false) }
    }

    /// Records `v` in `bin`, or flags overflow if the bin is full.
    #[inline]
    pub(crate) fn record(&self, bin: &mut Bin, v: VertexId) {
        if bin.vertices.len() < self.limit {
            bin.vertices.push(v);
        } else if self.limit > 0 {
            self.overflow.store(true, Ordering::Relaxed);
        }
    }

    /// Most vertices one bin may hold.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Flags overflow: a task had more vertices to record than its bin could hold (nothing for the
    /// ballot policy, which records nothing).
    #[inline]
    pub(crate) fn overflow(&self) {
        if self.limit > 0 {
            self.overflow.store(true, Ordering::Relaxed);
        }
    }

    /// Whether any bin overflowed (or nothing was recorded at all, for the ballot policy): the
    /// bins are then incomplete and the status must be scanned.
    pub(crate) fn needs_ballot(&self) -> bool {
        self.limit == 0 || self.overflow.load(Ordering::Relaxed)
    }
}

/// One task's bin plus its count of edges touched and, in push mode, the hubs it left for the
/// split pass.
#[derive(Default)]
pub(crate) struct Bin {
    pub(crate) vertices: Vec<VertexId>,
    pub(crate) edges: u64,
    pub(crate) hubs: Vec<VertexId>,
    /// Whether the step recorded its vertices without setting their "touched" flags (a pull whose
    /// bins cannot overflow: each vertex is finished by one task, once), so there are none to clear.
    pub(crate) unflagged: bool,
}

impl Bin {
    /// The bins of parallel tasks, in task order, as one: each recorded vertex is copied once (see
    /// [`concat`]).
    pub(crate) fn gather(bins: Vec<Bin>) -> Bin {
        let edges = bins.iter().map(|b| b.edges).sum();
        let hubs = bins.iter().flat_map(|b| b.hubs.iter().copied()).collect();
        let vertices = concat(bins.iter().map(|b| b.vertices.as_slice()).collect());
        Bin { vertices, edges, hubs, unflagged: bins.iter().all(|b| b.unflagged) }
    }

    /// Appends `other`'s vertices and hubs to this bin's, and adds its edges.
    pub(crate) fn merge(mut self, other: Bin) -> Bin {
        if self.vertices.is_empty() {
            self.vertices = other.vertices;
        } else {
            self.vertices.extend(other.vertices);
        }
        self.edges += other.edges;
        self.hubs.extend(other.hubs);
        self.unflagged &= other.unflagged;
        self
    }
}

/// The lists one after another in one new vector, copied in parallel, each element once. (A rayon
/// reduce that extends as it merges copies every element once per level of its tree, each time into a
/// larger new vector whose pages the process touches for the first time.)
pub(crate) fn concat(lists: Vec<&[VertexId]>) -> Vec<VertexId> {
    let total = lists.iter().map(|l| l.len()).sum();
    let mut out = filled(total, 0);
    let mut rest = out.as_mut_slice();
    let mut parts = Vec::with_capacity(lists.len());
    for list in lists {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(list.len());
        parts.push((head, list));
        rest = tail;
    }
    parts.into_par_iter().with_min_len(4).for_each(|(to, from)| to.copy_from_slice(from));
    out
}

/// `len` copies of `value`, written by all threads. A large vector filled by one thread costs that
/// thread a page fault per 4 KiB page where its memory was returned to the system or never touched,
/// and the step waits for that thread; filled in parallel the faults are shared (measurements:
/// `docs/experiments/cpu-bfs.md`). A short vector (most frontiers of a high-diameter graph) is filled
/// in place, without waking the other threads.
pub(crate) fn filled<T: Copy + Send + Sync>(len: usize, value: T) -> Vec<T> {
    if len < FILL_IN_PARALLEL {
        return vec![value; len];
    }
    (0..len).into_par_iter().map(|_| value).collect()
}

/// The length from which [`filled`] fills in parallel (256 KiB of vertex ids).
const FILL_IN_PARALLEL: usize = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gather_keeps_task_order_and_sums() {
        let bin = |vertices: Vec<VertexId>, edges, hubs: Vec<VertexId>| Bin { vertices, edges, hubs, unflagged: false };
        let bins = vec![bin(vec![4, 1], 3, vec![]), bin(vec![], 1, vec![9]), bin(vec![7], 5, vec![2, 8])];
        let all = Bin::gather(bins);
        assert_eq!((all.vertices, all.edges, all.hubs), (vec![4, 1, 7], 9, vec![9, 2, 8]));
        assert!(concat(Vec::new()).is_empty());
    }
}
