//! The online filter's per-task bins: while Compute runs, each rayon task records the vertices it
//! changed first into its own bounded bin; a full bin raises the overflow flag instead of growing.

use std::sync::atomic::{AtomicBool, Ordering};

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
}

impl Bin {
    /// Merges two bins (rayon reduce), keeping task order.
    pub(crate) fn merge(mut self, other: Bin) -> Bin {
        if self.vertices.is_empty() {
            self.vertices = other.vertices;
        } else {
            self.vertices.extend(other.vertices);
        }
        self.edges += other.edges;
        self.hubs.extend(other.hubs);
        self
    }
}
