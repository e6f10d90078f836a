//! [`Frontier`]: picks each iteration's active vertices from those reached, keeping priority
//! buckets (delta-stepping). Only active vertices of the current bucket run; the others wait in a
//! window of per-bucket lists (plus an overflow list for buckets beyond the window), so moving to the
//! next bucket costs the size of that bucket, not a sort of everything waiting. The lists are kept
//! as the tasks that filed them made them, moved rather than copied; fused rounds (module `fused`)
//! take a bucket's lists as they are, while single steps deduplicate them first. Where buckets are
//! too small to keep the worker threads busy (a grid's wavefront), a move takes several at once
//! ([`Frontier::adapt_span`]), as a wider bucket would.

use rayon::prelude::*;

use super::state::VertexState;
use crate::acc::ProgramHints;
use crate::VertexId;

/// Buckets kept as separate lists ahead of the window's base; later ones go to the overflow list.
const WINDOW: usize = 1024;
/// Lists shorter than this are classified on the calling thread.
const SEQUENTIAL: usize = 4096;
/// Buckets relaxed together whose rounds relaxed fewer edges than this per worker thread were too few
/// to keep the threads busy: the next move to a later bucket takes twice as many buckets at once (a
/// wider bucket, as delta-stepping with a larger width); more than [`SPAN_RANGE`] times this takes half
/// as many. A sparse graph's buckets (the grid's) are too small to keep 16 threads busy one at a time;
/// the buckets of urand and kron relax millions of edges and stay best one at a time (measurements:
/// `docs/experiments/cpu-sssp.md`).
const SPAN_EDGES_PER_THREAD: u64 = 4 * 1024;
/// See [`SPAN_EDGES_PER_THREAD`].
const SPAN_RANGE: u64 = 4;
/// The most buckets one move takes.
const MAX_SPAN: u32 = (WINDOW / 4) as u32;

/// The active vertices of an iteration.
pub(crate) enum Active {
    /// Every vertex of the graph.
    All,
    /// This many vertices, with this many out-edges in all, as the last dense step of an
    /// [`Apply::Every`] program found them (it flagged which ones).
    ///
    /// [`Apply::Every`]: crate::acc::Apply::Every
    Senders(usize, u64),
    /// These vertices, without duplicates.
    List(Vec<VertexId>),
    /// The vertices of these lists, possibly stale or repeated: a fused round's frontier (module
    /// `fused`), which checks each vertex as it takes it.
    Lists(Vec<Vec<VertexId>>),
    /// This many vertices, with this many out-edges in all, marked in the run's membership bitmap by
    /// the pull that reached them (not yet prepared; see `handed::Handed`).
    Marked(usize, u64),
}

impl Active {
    /// Whether no vertex is active (`n` vertices in the graph).
    pub(crate) fn is_empty(&self, n: usize) -> bool {
        match self {
            Active::All => n == 0,
            Active::Senders(count, _) => *count == 0,
            Active::List(list) => list.is_empty(),
            Active::Lists(lists) => lists.iter().all(Vec::is_empty),
            Active::Marked(count, _) => *count == 0,
        }
    }

    /// The number of active vertices.
    pub(crate) fn len(&self, n: usize) -> usize {
        match self {
            Active::All => n,
            Active::Senders(count, _) => *count,
            Active::List(list) => list.len(),
            Active::Lists(lists) => lists.iter().map(Vec::len).sum(),
            Active::Marked(count, _) => *count,
        }
    }
}

/// The current bucket and the active vertices waiting for a later one.
pub(crate) struct Frontier {
    /// The bucket being processed.
    pub(crate) bucket: u32,
    /// The bucket of `slots[0]`.
    base: u32,
    /// `slots[i]`: vertices filed for bucket `base + i` (possibly stale or duplicated), in the lists
    /// of the tasks that filed them (moved here, not copied).
    slots: Vec<Vec<Vec<VertexId>>>,
    /// The first slot that may be non-empty.
    cursor: usize,
    /// Vertices filed for buckets outside the window.
    overflow: Vec<VertexId>,
    /// Buckets the next move takes at once (see [`Frontier::adapt_span`]).
    span: u32,
}

impl Frontier {
    pub(crate) fn new() -> Self {
        Frontier { bucket: 0, base: 0, slots: Vec::new(), cursor: 0, overflow: Vec::new(), span: 1 }
    }

    /// Sets how many buckets the next move takes from the `edges` that the rounds of the buckets just
    /// finished relaxed: twice as many when they were too few for the worker threads, half as many
    /// when they were many more (see [`SPAN_EDGES_PER_THREAD`]).
    pub(crate) fn adapt_span(&mut self, edges: u64) {
        if edges < span_edges_bound() / SPAN_RANGE {
            self.span = (self.span * 2).min(MAX_SPAN);
        } else if edges > span_edges_bound() {
            self.span = (self.span / 2).max(1);
        }
    }

    /// The next frontier from the vertices `reached` in the last iteration (duplicate-free);
    /// `clear_touched` also clears their "touched" flags on the way.
    pub(crate) fn select<P: ProgramHints>(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
        reached: Vec<VertexId>,
        clear_touched: bool,
    ) -> Active {
        Active::List(self.select_list(program, state, reached, clear_touched))
    }

    /// [`Frontier::select`]'s list.
    fn select_list<P: ProgramHints>(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
        reached: Vec<VertexId>,
        clear_touched: bool,
    ) -> Vec<VertexId> {
        if clear_touched {
            state.touched.clear_list(&reached);
        }
        let bucket_if_active = |v: VertexId| state.is_active(program, v).then(|| state.bucket(program, v));
        let near = self.sort_in(reached, self.bucket, bucket_if_active);
        if !near.is_empty() {
            return near;
        }
        self.advance(program, state)
    }

    /// The next frontier from active vertices already sorted by bucket (their window must start at
    /// this window's base).
    pub(crate) fn select_filed<P: ProgramHints>(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
        filed: Vec<Filed>,
    ) -> Active {
        let near = self.absorb(filed).concat();
        if !near.is_empty() {
            return Active::List(near);
        }
        Active::List(self.advance(program, state))
    }

    /// The first frontier: every active vertex of the graph; [`Active::All`] if that is every vertex.
    pub(crate) fn select_all<P: ProgramHints>(&mut self, program: &P, state: &VertexState<'_, P>) -> Active {
        // Asked first without a list: PageRank's million active vertices would otherwise be listed
        // (and the list grown and copied) only to be dropped. Where not every vertex is active, the
        // test stops at the first that is not.
        let n = state.len();
        let all = (0..n as VertexId)
            .into_par_iter()
            .with_min_len(SEQUENTIAL)
            .all(|v| state.is_active(program, v) && state.bucket(program, v) <= self.bucket);
        if n > 0 && all {
            return Active::All;
        }
        self.select(program, state, active_vertices(program, state), false)
    }

    /// As [`Frontier::select_all`], always as a list.
    pub(crate) fn active_list<P: ProgramHints>(&mut self, program: &P, state: &VertexState<'_, P>) -> Vec<VertexId> {
        let active = active_vertices(program, state);
        self.select_list(program, state, active, false)
    }

    /// Sorts `vertices` by `bucket_of` (`None`: drop the vertex): those of bucket `current` or an
    /// earlier one are returned, the others filed to wait. A long list whose vertices all stay is
    /// returned as it is (BFS's every level: no copy into new pages); otherwise it is sorted in
    /// parallel chunks into chunk-local lists, which are then appended slot by slot.
    fn sort_in(
        &mut self,
        vertices: Vec<VertexId>,
        current: u32,
        bucket_of: impl Fn(VertexId) -> Option<u32> + Sync,
    ) -> Vec<VertexId> {
        if vertices.len() < SEQUENTIAL {
            let mut near = Vec::new();
            for &v in &vertices {
                match bucket_of(v) {
                    Some(b) if b <= current => near.push(v),
                    Some(b) => self.file(v, b),
                    None => {}
                }
            }
            return near;
        }
        if vertices.par_iter().all(|&v| matches!(bucket_of(v), Some(b) if b <= current)) {
            return vertices;
        }
        let base = self.base;
        let chunks: Vec<Filed> = vertices
            .par_chunks(SEQUENTIAL)
            .map(|chunk| {
                let mut filed = Filed::default();
                for &v in chunk {
                    match bucket_of(v) {
                        Some(b) if b <= current => filed.near.push(v),
                        Some(b) => filed.file(base, v, b),
                        None => {}
                    }
                }
                filed
            })
            .collect();
        let near = self.absorb(chunks);
        super::record::concat(near.iter().map(Vec::as_slice).collect())
    }

    /// Files the lists of `filed` for later buckets (their window must start at this window's base)
    /// and returns their `near` lists.
    pub(crate) fn absorb(&mut self, filed: Vec<Filed>) -> Vec<Vec<VertexId>> {
        // The lists of team threads come first, at their thread's index (empty where that thread
        // filed none), so that the next round hands each thread its own list first.
        let threads = filed.iter().filter(|f| f.thread != usize::MAX && !f.near.is_empty()).map(|f| f.thread + 1).max();
        let mut near: Vec<Vec<VertexId>> = Vec::with_capacity(filed.len().max(threads.unwrap_or(0)));
        near.resize_with(threads.unwrap_or(0), Vec::new);
        for filed in filed {
            self.overflow.extend_from_slice(&filed.overflow);
            if !filed.slots.is_empty() && self.slots.is_empty() {
                self.slots.resize_with(WINDOW, Vec::new);
            }
            for (j, list) in filed.slots.into_iter().enumerate().filter(|(_, list)| !list.is_empty()) {
                let i = filed.first + j;
                self.slots[i].push(list);
                self.cursor = self.cursor.min(i);
            }
            match filed.thread {
                t if t < near.len() && near[t].is_empty() => near[t] = filed.near,
                _ if !filed.near.is_empty() => near.push(filed.near),
                _ => {}
            }
        }
        if near.iter().all(Vec::is_empty) {
            near.clear();
        }
        near
    }

    /// The bucket at which the window of waiting lists starts.
    pub(crate) fn base(&self) -> u32 {
        self.base
    }

    /// Files `v` to wait for `bucket`.
    fn file(&mut self, v: VertexId, bucket: u32) {
        match window_slot(self.base, bucket) {
            Some(i) => {
                if self.slots.is_empty() {
                    self.slots.resize_with(WINDOW, Vec::new);
                }
                match self.slots[i].last_mut() {
                    Some(list) => list.push(v),
                    None => self.slots[i].push(vec![v]),
                }
                self.cursor = self.cursor.min(i);
            }
            None => self.overflow.push(v),
        }
    }

    /// The current bucket is exhausted: moves to the lowest bucket with an active vertex waiting (and
    /// the span's later ones) and returns those vertices (duplicate-free); empty when nothing waits.
    pub(crate) fn advance<P: ProgramHints>(&mut self, program: &P, state: &VertexState<'_, P>) -> Vec<VertexId> {
        while let Some((bucket, waiting)) = self.take_lowest(program, state) {
            let near = self.take(program, state, waiting, bucket);
            if !near.is_empty() {
                self.bucket = bucket;
                return near;
            }
        }
        Vec::new()
    }

    /// As [`Frontier::advance`], for fused rounds (module `fused`): the lists waiting for the lowest
    /// bucket that has any (and the span's later ones), as they are (possibly stale or duplicated: a
    /// fused round checks each vertex itself); empty when nothing waits.
    pub(crate) fn advance_lists<P: ProgramHints>(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
    ) -> Vec<Vec<VertexId>> {
        match self.take_lowest(program, state) {
            Some((bucket, lists)) => {
                self.bucket = bucket;
                lists
            }
            None => Vec::new(),
        }
    }

    /// Takes the lists of the lowest bucket that has any and of the span's later buckets within the
    /// window, moving the window over the overflow list when it is empty; returns the last bucket
    /// taken (the new current one: vertices improved up to it run in its rounds) and the lists, or
    /// `None` when nothing waits.
    fn take_lowest<P: ProgramHints>(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
    ) -> Option<(u32, Vec<Vec<VertexId>>)> {
        loop {
            while self.cursor < self.slots.len() {
                let i = self.cursor;
                if self.slots[i].is_empty() {
                    self.cursor += 1;
                    continue;
                }
                // Up to `span` buckets, but no further once the vertices waiting promise more work
                // than the span's upper bound (a power-law or random graph's first buckets are tiny
                // and widen the span, after which its big buckets must still be taken one at a time).
                let limit = (i + self.span as usize).min(self.slots.len());
                let enough = span_edges_bound() / mean_degree(state).max(1);
                let (mut lists, mut waiting, mut end) = (Vec::new(), 0u64, i);
                while end < limit && (end == i || waiting <= enough) {
                    waiting += self.slots[end].iter().map(|list| list.len() as u64).sum::<u64>();
                    lists.append(&mut self.slots[end]);
                    end += 1;
                }
                self.cursor = end;
                return Some((self.base + end as u32 - 1, lists));
            }
            if !self.rebase(program, state) {
                return None;
            }
        }
    }

    /// The active vertices of `waiting` that belong to `bucket` or an earlier one, duplicate-free;
    /// those whose bucket grew are filed again. Duplicates are dropped through the "touched" flags,
    /// which are clear between iterations and cleared again before returning.
    fn take<P: ProgramHints>(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
        waiting: Vec<Vec<VertexId>>,
        bucket: u32,
    ) -> Vec<VertexId> {
        let first_active = |&v: &VertexId| state.is_active(program, v) && state.touched.insert(v);
        let unique: Vec<VertexId> = if waiting.iter().map(Vec::len).sum::<usize>() < SEQUENTIAL {
            waiting.iter().flatten().copied().filter(first_active).collect()
        } else {
            waiting
                .par_iter()
                .flat_map(|list| list.par_iter().with_min_len(SEQUENTIAL / 4))
                .copied()
                .filter(first_active)
                .collect()
        };
        state.touched.clear_list(&unique);
        self.sort_in(unique, bucket, |v| Some(state.bucket(program, v)))
    }

    /// Moves the window to the lowest bucket among the active overflow vertices and files them;
    /// false when none is active.
    fn rebase<P: ProgramHints>(&mut self, program: &P, state: &VertexState<'_, P>) -> bool {
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

/// The edges a span's rounds may relax before the span halves: [`SPAN_RANGE`] times
/// [`SPAN_EDGES_PER_THREAD`] per worker thread.
fn span_edges_bound() -> u64 {
    SPAN_RANGE * SPAN_EDGES_PER_THREAD * rayon::current_num_threads() as u64
}

/// The graph's mean out-degree, rounded down.
fn mean_degree<P: ProgramHints>(state: &VertexState<'_, P>) -> u64 {
    state.graph.num_arcs() / (state.len() as u64).max(1)
}

/// The window slot of `bucket` when the window starts at bucket `base`; `None` outside it.
fn window_slot(base: u32, bucket: u32) -> Option<usize> {
    bucket.checked_sub(base).map(|i| i as usize).filter(|&i| i < WINDOW)
}

/// Vertices sorted by bucket by one task (a chunk of [`Frontier::sort_in`], a worker of a fused
/// round): those of the current bucket or an earlier one, and those filed for later buckets.
pub(crate) struct Filed {
    pub(crate) near: Vec<VertexId>,
    /// The team thread that filed `near` ([`usize::MAX`]: none in particular): a fused round gives
    /// that thread the list first (see [`Frontier::absorb`]).
    pub(crate) thread: usize,
    /// `slots[j]`: the vertices this task filed in window slot `first + j`. Only the slots from the
    /// lowest one used to the highest are made: a task files into a few buckets after the current
    /// one, and the window has [`WINDOW`].
    slots: Vec<Vec<VertexId>>,
    first: usize,
    overflow: Vec<VertexId>,
}

impl Default for Filed {
    fn default() -> Self {
        Filed { near: Vec::new(), thread: usize::MAX, slots: Vec::new(), first: 0, overflow: Vec::new() }
    }
}

impl Filed {
    /// Files `v` for `bucket` in a window starting at `base`.
    #[inline]
    pub(crate) fn file(&mut self, base: u32, v: VertexId, bucket: u32) {
        match window_slot(base, bucket) {
            Some(i) => {
                if self.slots.is_empty() {
                    self.first = i;
                } else if i < self.first {
                    self.slots.splice(0..0, (i..self.first).map(|_| Vec::new()));
                    self.first = i;
                }
                let j = i - self.first;
                if j >= self.slots.len() {
                    self.slots.resize_with(j + 1, Vec::new);
                }
                self.slots[j].push(v);
            }
            None => self.overflow.push(v),
        }
    }

    /// The window slots filed into, with their vertices.
    #[cfg(test)]
    pub(crate) fn filed_slots(&self) -> impl Iterator<Item = (usize, &Vec<VertexId>)> {
        self.slots.iter().enumerate().map(|(j, list)| (self.first + j, list)).filter(|(_, list)| !list.is_empty())
    }
}

/// Every active vertex of the graph, in increasing order.
fn active_vertices<P: ProgramHints>(program: &P, state: &VertexState<'_, P>) -> Vec<VertexId> {
    (0..state.len() as VertexId)
        .into_par_iter()
        .with_min_len(SEQUENTIAL)
        .filter(|&v| state.is_active(program, v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absorbed_near_lists_sit_at_the_index_of_the_thread_that_filed_them() {
        let filed = |thread, near: Vec<VertexId>| Filed { near, thread, ..Filed::default() };
        let mut frontier = Frontier::new();
        let near = frontier.absorb(vec![
            filed(2, vec![5, 6]),
            filed(usize::MAX, vec![7]),
            filed(0, vec![]),
            filed(2, vec![8]),
        ]);
        assert_eq!(near, vec![vec![], vec![], vec![5, 6], vec![7], vec![8]]);
        assert!(frontier.absorb(vec![filed(1, vec![]), filed(usize::MAX, vec![])]).is_empty());
    }
}
