//! [`Frontier`]: picks each iteration's active vertices from those reached, keeping priority
//! buckets (delta-stepping). Only active vertices of the current bucket run; the others wait in a
//! window of per-bucket lists (plus an overflow list for buckets beyond the window), so moving to the
//! next bucket costs the size of that bucket, not a sort of everything waiting.

use rayon::prelude::*;

use super::state::VertexState;
use crate::acc::Program;
use crate::VertexId;

/// Buckets kept as separate lists ahead of the window's base; later ones go to the overflow list.
const WINDOW: usize = 1024;
/// Lists shorter than this are classified on the calling thread.
const SEQUENTIAL: usize = 4096;

/// The active vertices of an iteration.
pub(crate) enum Active {
    /// Every vertex of the graph.
    All,
    /// These vertices, without duplicates.
    List(Vec<VertexId>),
}

impl Active {
    /// Whether no vertex is active (`n` vertices in the graph).
    pub(crate) fn is_empty(&self, n: usize) -> bool {
        match self {
            Active::All => n == 0,
            Active::List(list) => list.is_empty(),
        }
    }

    /// The number of active vertices.
    pub(crate) fn len(&self, n: usize) -> usize {
        match self {
            Active::All => n,
            Active::List(list) => list.len(),
        }
    }

    /// The active vertices as a list.
    pub(crate) fn into_list(self, n: usize) -> Vec<VertexId> {
        match self {
            Active::All => (0..n as VertexId).collect(),
            Active::List(list) => list,
        }
    }
}

/// The current bucket and the active vertices waiting for a later one.
pub(crate) struct Frontier {
    /// The bucket being processed.
    pub(crate) bucket: u32,
    /// The bucket of `slots[0]`.
    base: u32,
    /// `slots[i]`: vertices filed for bucket `base + i` (possibly stale or duplicated).
    slots: Vec<Vec<VertexId>>,
    /// The first slot that may be non-empty.
    cursor: usize,
    /// Vertices filed for buckets outside the window.
    overflow: Vec<VertexId>,
}

/// The reached vertices sorted into those that run now and those that wait, with their bucket.
#[derive(Default)]
struct Split {
    near: Vec<VertexId>,
    far: Vec<(VertexId, u32)>,
}

impl Split {
    fn merge(mut self, other: Split) -> Split {
        self.near.extend(other.near);
        self.far.extend(other.far);
        self
    }
}

impl Frontier {
    pub(crate) fn new() -> Self {
        Frontier { bucket: 0, base: 0, slots: Vec::new(), cursor: 0, overflow: Vec::new() }
    }

    /// The next frontier from the vertices `reached` in the last iteration (duplicate-free);
    /// `clear_touched` also clears their "touched" bits on the way.
    pub(crate) fn select<P: Program>(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
        reached: &[VertexId],
        clear_touched: bool,
    ) -> Active {
        let classify = classifier(program, state, self.bucket, clear_touched);
        let split = if reached.len() < SEQUENTIAL {
            reached.iter().fold(Split::default(), |split, &v| classify(split, v))
        } else {
            reached
                .par_iter()
                .with_min_len(SEQUENTIAL / 4)
                .fold(Split::default, |split, &v| classify(split, v))
                .reduce(Split::default, Split::merge)
        };
        self.finish(program, state, split)
    }

    /// The first frontier: every active vertex of the graph; [`Active::All`] if that is every vertex.
    pub(crate) fn select_all<P: Program>(&mut self, program: &P, state: &VertexState<'_, P>) -> Active {
        let n = state.len();
        let classify = classifier(program, state, self.bucket, false);
        let split = (0..n as VertexId)
            .into_par_iter()
            .with_min_len(SEQUENTIAL)
            .fold(Split::default, classify)
            .reduce(Split::default, Split::merge);
        if n > 0 && split.near.len() == n {
            return Active::All;
        }
        self.finish(program, state, split)
    }

    /// Files the vertices that wait; the near ones run, or else the next bucket's.
    fn finish<P: Program>(&mut self, program: &P, state: &VertexState<'_, P>, split: Split) -> Active {
        for (v, bucket) in split.far {
            self.file(v, bucket);
        }
        if !split.near.is_empty() {
            return Active::List(split.near);
        }
        Active::List(self.advance(program, state))
    }

    /// Files `v` to wait for `bucket`.
    fn file(&mut self, v: VertexId, bucket: u32) {
        match bucket.checked_sub(self.base).map(|i| i as usize).filter(|&i| i < WINDOW) {
            Some(i) => {
                if self.slots.is_empty() {
                    self.slots.resize_with(WINDOW, Vec::new);
                }
                self.slots[i].push(v);
            }
            None => self.overflow.push(v),
        }
    }

    /// The current bucket is exhausted: moves to the lowest bucket with an active vertex waiting and
    /// returns those vertices (sorted, duplicate-free); empty when nothing waits.
    fn advance<P: Program>(&mut self, program: &P, state: &VertexState<'_, P>) -> Vec<VertexId> {
        loop {
            while self.cursor < self.slots.len() {
                let i = self.cursor;
                if self.slots[i].is_empty() {
                    self.cursor += 1;
                    continue;
                }
                let bucket = self.base + i as u32;
                let waiting = std::mem::take(&mut self.slots[i]);
                let near = self.take(program, state, waiting, bucket);
                if !near.is_empty() {
                    self.bucket = bucket;
                    return near;
                }
            }
            if !self.rebase(program, state) {
                return Vec::new();
            }
        }
    }

    /// The active vertices of `waiting` that belong to `bucket` or an earlier one, sorted and
    /// duplicate-free; those whose bucket grew are filed again.
    fn take<P: Program>(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
        mut waiting: Vec<VertexId>,
        bucket: u32,
    ) -> Vec<VertexId> {
        waiting.retain(|&v| state.is_active(program, v));
        if waiting.len() < SEQUENTIAL {
            waiting.sort_unstable();
        } else {
            waiting.par_sort_unstable();
        }
        waiting.dedup();
        let mut near = Vec::with_capacity(waiting.len());
        for v in waiting {
            let b = state.bucket(program, v);
            if b <= bucket {
                near.push(v);
            } else {
                self.file(v, b);
            }
        }
        near
    }

    /// Moves the window to the lowest bucket among the active overflow vertices and files them;
    /// false when none is active.
    fn rebase<P: Program>(&mut self, program: &P, state: &VertexState<'_, P>) -> bool {
        let mut waiting = std::mem::take(&mut self.overflow);
        waiting.retain(|&v| state.is_active(program, v));
        let Some(lowest) = waiting.iter().map(|&v| state.bucket(program, v)).min() else {
            return false;
        };
        self.base = lowest;
        self.cursor = 0;
        for v in waiting {
            let bucket = state.bucket(program, v);
            self.file(v, bucket);
        }
        true
    }
}

/// Sorts a reached vertex into `split`: nothing if inactive, near if its bucket is at most `current`,
/// far otherwise; `clear_touched` also clears its "touched" bit.
fn classifier<'a, P: Program>(
    program: &'a P,
    state: &'a VertexState<'_, P>,
    current: u32,
    clear_touched: bool,
) -> impl Fn(Split, VertexId) -> Split + Sync + Send + 'a {
    move |mut split, v| {
        if clear_touched {
            state.touched.remove(v);
        }
        if state.is_active(program, v) {
            let bucket = state.bucket(program, v);
            if bucket <= current {
                split.near.push(v);
            } else {
                split.far.push((v, bucket));
            }
        }
        split
    }
}
