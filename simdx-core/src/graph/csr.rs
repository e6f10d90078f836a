//! [`Csr`]: compressed sparse rows — for every vertex, its sorted neighbour list (and the weights of
//! those arcs) as one slice of a flat target array, delimited by `u64` offsets.

use super::array::Array;
use super::weights::Weights;
use crate::VertexId;

/// One direction of adjacency: `targets[offsets[v]..offsets[v + 1]]` are the neighbours of `v`,
/// sorted ascending; `weights`, when present, are parallel to `targets`.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    pub(crate) offsets: Array<u64>,
    pub(crate) targets: Array<u32>,
    pub(crate) weights: Option<Weights>,
    /// The largest degree, found once when the CSR is made (a pass over the offsets costs milliseconds
    /// per million vertices where memory is slow, too much to repeat per run).
    max_degree: u64,
}

impl Csr {
    /// Assembles a CSR from its arrays, checking every invariant: `offsets` has `n + 1` entries,
    /// starts at 0, never decreases and ends at `targets.len()`; every target is `< n`; every
    /// neighbour list is sorted; weights (if any) match the targets in length.
    pub fn from_parts(offsets: Array<u64>, targets: Array<u32>, weights: Option<Weights>) -> Result<Self, String> {
        let csr = Csr::new(offsets, targets, weights);
        csr.check()?;
        Ok(csr)
    }

    /// A CSR from arrays already known to hold the invariants of [`Csr::from_parts`] (a panic
    /// otherwise, not an error).
    pub(crate) fn new(offsets: Array<u64>, targets: Array<u32>, weights: Option<Weights>) -> Self {
        use rayon::prelude::*;
        let max_degree = offsets.par_windows(2).with_min_len(1 << 16).map(|w| w[1].saturating_sub(w[0])).max();
        Csr { offsets, targets, weights, max_degree: max_degree.unwrap_or(0) }
    }

    /// Checks the invariants listed at [`Csr::from_parts`], in parallel: first the offsets
    /// ([`Csr::check_offsets`]), then the targets.
    pub fn check(&self) -> Result<(), String> {
        self.check_offsets()?;
        self.check_targets()
    }

    /// Checks the offsets alone, in `O(n)`: `n + 1` entries, the first 0, never decreasing, the last
    /// equal to the number of targets (and of weights). After it, every neighbour list is a valid
    /// slice of the targets.
    pub fn check_offsets(&self) -> Result<(), String> {
        use rayon::prelude::*;
        let offsets = &self.offsets[..];
        if offsets.is_empty() {
            return Err("the offset array is empty (it needs one entry more than there are vertices)".into());
        }
        let n = offsets.len() - 1;
        if n > crate::MAX_VERTICES {
            return Err(format!("{n} vertices exceed the limit of {} (vertex ids are u32)", crate::MAX_VERTICES));
        }
        if offsets[0] != 0 {
            return Err(format!("the first offset is {}, not 0", offsets[0]));
        }
        if offsets[n] != self.targets.len() as u64 {
            return Err(format!("the last offset is {}, but there are {} targets", offsets[n], self.targets.len()));
        }
        if let Some(w) = &self.weights {
            if w.len() != self.targets.len() {
                return Err(format!("{} weights for {} targets", w.len(), self.targets.len()));
            }
        }
        // A reduction, not `position_first`: that costs over ten times as much per offset
        // (measurements: BENCHMARKS.md, "Graph construction and I/O").
        let decreasing =
            offsets.par_windows(2).with_min_len(1 << 16).map(|w| w[0] > w[1]).reduce(|| false, |a, b| a | b);
        match decreasing.then(|| offsets.windows(2).position(|w| w[0] > w[1])).flatten() {
            Some(v) => Err(format!("offsets decrease at vertex {v}")),
            None => Ok(()),
        }
    }

    /// Checks, after [`Csr::check_offsets`], that every neighbour list is sorted and below `n`: a
    /// branch-free count per list in parallel, and only when it finds something a search for the
    /// first offending vertex.
    pub(crate) fn check_targets(&self) -> Result<(), String> {
        use rayon::prelude::*;
        let n = self.num_vertices();
        let bad = (0..n as VertexId).into_par_iter().with_min_len(1024).any(|v| {
            let list = self.neighbors(v);
            let down = list.iter().zip(list.get(1..).unwrap_or_default()).filter(|(a, b)| b < a).count();
            down > 0 || list.last().is_some_and(|&t| t as usize >= n)
        });
        if bad {
            return self.explain_targets();
        }
        Ok(())
    }

    /// The first vertex (in order) whose neighbour list is unsorted or names a vertex `>= n`, as an
    /// error; `Ok` when there is none. Needs valid offsets ([`Csr::check_offsets`]).
    pub(crate) fn explain_targets(&self) -> Result<(), String> {
        use rayon::prelude::*;
        let n = self.num_vertices();
        let found = (0..n as VertexId).into_par_iter().with_min_len(1024).find_map_first(|v| {
            let list = self.neighbors(v);
            list.iter().enumerate().find_map(|(i, &t)| {
                if t as usize >= n {
                    Some(format!("vertex {v} has neighbour {t}, but there are only {n} vertices"))
                } else if i > 0 && list[i - 1] > t {
                    Some(format!("the neighbour list of vertex {v} is not sorted"))
                } else {
                    None
                }
            })
        });
        found.map_or(Ok(()), Err)
    }

    /// Number of vertices.
    #[inline]
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Number of arcs (stored neighbour entries).
    #[inline]
    pub fn num_arcs(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The largest degree in this direction (0 without vertices).
    #[inline]
    pub fn max_degree(&self) -> u64 {
        self.max_degree
    }

    /// Degree of `v` in this direction.
    #[inline]
    pub fn degree(&self, v: VertexId) -> u64 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    /// Arc index range of `v`'s neighbour list.
    #[inline]
    pub fn range(&self, v: VertexId) -> std::ops::Range<usize> {
        self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize
    }

    /// The sorted neighbours of `v`.
    #[inline]
    pub fn neighbors(&self, v: VertexId) -> &[VertexId] {
        &self.targets[self.range(v)]
    }

    /// The offset array (`num_vertices + 1` entries).
    #[inline]
    pub fn offsets(&self) -> &[u64] {
        &self.offsets
    }

    /// The flat target array.
    #[inline]
    pub fn targets(&self) -> &[VertexId] {
        &self.targets
    }

    /// The per-arc weights, if the graph is weighted.
    #[inline]
    pub fn weights(&self) -> Option<&Weights> {
        self.weights.as_ref()
    }

    /// Every arc `(source, target)` in order of source, then target.
    pub fn arcs(&self) -> impl Iterator<Item = (VertexId, VertexId)> + '_ {
        (0..self.num_vertices() as VertexId).flat_map(move |v| self.neighbors(v).iter().map(move |&t| (v, t)))
    }

    /// Heap bytes held by this CSR (mapped arrays count 0).
    pub fn heap_bytes(&self) -> usize {
        self.offsets.heap_bytes() + self.targets.heap_bytes() + self.weights.as_ref().map_or(0, Weights::heap_bytes)
    }

    /// Bytes of the arrays whether on the heap or mapped from a file.
    pub fn data_bytes(&self) -> usize {
        self.offsets.len() * 8 + self.targets.len() * 4 + self.weights.as_ref().map_or(0, |w| w.len() * 4)
    }
}
