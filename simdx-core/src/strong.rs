//! Strongly connected components of a directed graph, after Slota, Rajamanickam and Madduri's
//! Multistep method: each component is named by its smallest vertex id.
//!
//! 1. **Trim**: a vertex with no remaining in-arc or no remaining out-arc is a component of its own;
//!    placing it may leave its neighbours so, and they follow (a peeling that removes the graph's many
//!    small components, and any acyclic part whole, in time linear in its arcs).
//! 2. **Forward-backward** from a pivot (the remaining vertex of largest in-degree x out-degree): what
//!    both reaches and is reached from it is one component, usually the giant one.
//! 3. **Colouring** for the rest: every remaining vertex takes the smallest id that reaches it
//!    (labels pushed along out-arcs until nothing changes); a vertex whose colour is its own id is a
//!    root, and its component is what reaches it backwards within its colour. Found components leave,
//!    and the steps repeat on what remains.
//!
//! Every step is a parallel loop over vertices or a frontier (rayon); no step is serial in the size of
//! the graph. It is not a vertex program: it masks vertices between steps and runs searches from many
//! roots within colour classes, so it runs outside the engines. [`StrongComponents`] is what a backend
//! offers: this function on the CPU for a [`Graph`], the CUDA backend's kernels (the same three steps)
//! for a device graph; every backend gives the same labels, since each component's name is defined by
//! the graph alone.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use rayon::prelude::*;

use crate::{Graph, VertexId};

/// Not yet in a component.
const OPEN: u32 = u32::MAX;

/// How the components were found (for reports).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SccStats {
    /// Vertices placed by trimming.
    pub trimmed: u64,
    /// The size of the pivot's component.
    pub pivot_component: u64,
    /// Rounds of colouring (each: propagate, then search back from the roots).
    pub colour_rounds: u32,
}

/// Why a backend could not find the strongly connected components.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SccError {
    /// The backend running the computation failed (a GPU error, in one sentence).
    #[error("the strongly connected components failed on the device: {0}")]
    Device(String),
}

/// A backend of the strongly connected components of one graph: the CPU's is the [`Graph`] itself
/// ([`strongly_connected`]), the CUDA backend's a device graph. Every backend gives the same labels.
pub trait StrongComponents: Sync {
    /// Each vertex's strongly connected component, named by its smallest vertex id (on an undirected
    /// graph, its connected component), and how they were found.
    fn strong_components(&self) -> Result<(Vec<VertexId>, SccStats), SccError>;
}

impl StrongComponents for Graph {
    fn strong_components(&self) -> Result<(Vec<VertexId>, SccStats), SccError> {
        Ok(strongly_connected(self))
    }
}

/// Each vertex's strongly connected component, named by its smallest vertex id (on an undirected
/// graph, its connected component), and how they were found.
pub fn strongly_connected(graph: &Graph) -> (Vec<VertexId>, SccStats) {
    let n = graph.num_vertices();
    let component: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(OPEN)).collect();
    let mut stats = SccStats { trimmed: trim(graph, &component), ..SccStats::default() };
    if let Some(pivot) = pivot(graph, &component) {
        stats.pivot_component = forward_backward(graph, &component, pivot);
        stats.trimmed += trim(graph, &component);
    }
    let colour: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(OPEN)).collect();
    while (0..n).into_par_iter().any(|v| component[v].load(Ordering::Relaxed) == OPEN) {
        colour_round(graph, &component, &colour);
        stats.colour_rounds += 1;
    }
    (component.into_iter().map(AtomicU32::into_inner).collect(), stats)
}

/// Whether `v` is still without a component.
fn open(component: &[AtomicU32], v: VertexId) -> bool {
    component[v as usize].load(Ordering::Relaxed) == OPEN
}

/// Rounds of [`trim`] that look for lone vertices by scanning every open vertex's lists (each stops at
/// its first open neighbour) before it turns to peeling, which counts every list in full once but then
/// follows chains of lone vertices in time linear in their arcs.
const SCANNED_TRIM_ROUNDS: usize = 4;

/// Places every open vertex without an open in- or out-neighbour (other than itself) in a component
/// of its own, and so on while that leaves others without one; returns how many it placed. A few
/// scanning rounds take what most graphs have; a graph that still yields lone vertices after them (a
/// long chain) is peeled.
fn trim(graph: &Graph, component: &[AtomicU32]) -> u64 {
    let n = graph.num_vertices() as VertexId;
    let linked = |v: VertexId, list: &[VertexId]| list.iter().any(|&u| u != v && open(component, u));
    let mut total = 0;
    for _ in 0..SCANNED_TRIM_ROUNDS {
        let lone: Vec<VertexId> = (0..n)
            .into_par_iter()
            .filter(|&v| open(component, v))
            .filter(|&v| !linked(v, graph.out_neighbors(v)) || !linked(v, graph.in_neighbors(v)))
            .collect();
        if lone.is_empty() {
            return total;
        }
        total += lone.len() as u64;
        lone.par_iter().for_each(|&v| component[v as usize].store(v, Ordering::Relaxed));
    }
    total + peel(graph, component)
}

/// The rest of [`trim`] as a peeling in O(n + m): each placed vertex takes one from its open
/// neighbours' counts of open in- and out-neighbours, and a count reaching 0 places its vertex.
fn peel(graph: &Graph, component: &[AtomicU32]) -> u64 {
    let n = graph.num_vertices() as VertexId;
    let open_others = |v: VertexId, list: &[VertexId]| {
        let count = list.iter().filter(|&&u| u != v && open(component, u)).count();
        AtomicU32::new(if open(component, v) { count as u32 } else { 0 })
    };
    let ins: Vec<AtomicU32> = (0..n).into_par_iter().map(|v| open_others(v, graph.in_neighbors(v))).collect();
    let outs: Vec<AtomicU32> = (0..n).into_par_iter().map(|v| open_others(v, graph.out_neighbors(v))).collect();
    let claim =
        |v: VertexId| component[v as usize].compare_exchange(OPEN, v, Ordering::Relaxed, Ordering::Relaxed).is_ok();
    let lone =
        |v: VertexId| ins[v as usize].load(Ordering::Relaxed) == 0 || outs[v as usize].load(Ordering::Relaxed) == 0;
    let mut frontier: Vec<VertexId> =
        (0..n).into_par_iter().filter(|&v| open(component, v) && lone(v) && claim(v)).collect();
    let mut total = 0;
    while !frontier.is_empty() {
        total += frontier.len() as u64;
        // A count reaching 0 makes its vertex lone; a vertex placed already (or before the counts were
        // taken) is not claimed again, whatever its count does.
        let last = |counts: &[AtomicU32], w: VertexId| counts[w as usize].fetch_sub(1, Ordering::Relaxed) == 1;
        let (ins, outs) = (&ins, &outs);
        frontier = frontier
            .par_iter()
            .with_max_len(64)
            .flat_map_iter(|&v| {
                let forward = graph.out_neighbors(v).iter().filter(move |&&w| w != v && last(ins, w));
                let backward = graph.in_neighbors(v).iter().filter(move |&&w| w != v && last(outs, w));
                forward.chain(backward).copied()
            })
            .filter(|&w| claim(w))
            .collect();
    }
    total
}

/// The open vertex of largest in-degree x out-degree, if any is open.
fn pivot(graph: &Graph, component: &[AtomicU32]) -> Option<VertexId> {
    (0..graph.num_vertices() as VertexId)
        .into_par_iter()
        .filter(|&v| open(component, v))
        .max_by_key(|&v| (graph.in_degree(v) * graph.out_degree(v), std::cmp::Reverse(v)))
}

/// Marks what `pivot` reaches and what reaches it among open vertices; the vertices marked both ways
/// form its component, named by their smallest id. Returns its size.
fn forward_backward(graph: &Graph, component: &[AtomicU32], pivot: VertexId) -> u64 {
    let n = graph.num_vertices();
    let forward: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    let backward: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    reach(&[pivot], |v| graph.out_neighbors(v), &forward, |_, u| open(component, u));
    let both = |_, u: VertexId| open(component, u) && forward[u as usize].load(Ordering::Relaxed);
    reach(&[pivot], |v| graph.in_neighbors(v), &backward, both);
    let members: Vec<VertexId> =
        (0..n as VertexId).into_par_iter().filter(|&v| backward[v as usize].load(Ordering::Relaxed)).collect();
    let name = members.par_iter().copied().min().unwrap_or(pivot);
    members.par_iter().for_each(|&v| component[v as usize].store(name, Ordering::Relaxed));
    members.len() as u64
}

/// A level-synchronous parallel search from `roots` along `next`, marking in `seen` every vertex it
/// enters; it goes from `v` to `u` only if `admit(v, u)` says so (the roots are entered as given).
fn reach<'g>(
    roots: &[VertexId],
    next: impl Fn(VertexId) -> &'g [VertexId] + Sync,
    seen: &[AtomicBool],
    admit: impl Fn(VertexId, VertexId) -> bool + Sync,
) {
    roots.iter().for_each(|&r| seen[r as usize].store(true, Ordering::Relaxed));
    let mut frontier = roots.to_vec();
    while !frontier.is_empty() {
        frontier = frontier
            .par_iter()
            .with_max_len(64)
            .flat_map_iter(|&v| next(v).iter().map(move |&u| (v, u)))
            .filter(|&(v, u)| admit(v, u) && !seen[u as usize].swap(true, Ordering::Relaxed))
            .map(|(_, u)| u)
            .collect();
    }
}

/// One colouring round over the open vertices: colours (the smallest id that reaches each vertex)
/// pushed along out-arcs until they settle, then each root's component found backwards within its
/// colour.
fn colour_round(graph: &Graph, component: &[AtomicU32], colour: &[AtomicU32]) {
    let n = graph.num_vertices() as VertexId;
    let mut frontier: Vec<VertexId> = (0..n).into_par_iter().filter(|&v| open(component, v)).collect();
    frontier.par_iter().for_each(|&v| colour[v as usize].store(v, Ordering::Relaxed));
    while !frontier.is_empty() {
        frontier = frontier
            .par_iter()
            .with_max_len(64)
            .flat_map_iter(|&v| {
                let c = colour[v as usize].load(Ordering::Relaxed);
                graph
                    .out_neighbors(v)
                    .iter()
                    .copied()
                    .filter(move |&u| open(component, u) && colour[u as usize].fetch_min(c, Ordering::Relaxed) > c)
            })
            .collect();
        frontier.par_sort_unstable();
        frontier.dedup();
    }
    let roots: Vec<VertexId> = (0..n)
        .into_par_iter()
        .filter(|&v| open(component, v) && colour[v as usize].load(Ordering::Relaxed) == v)
        .collect();
    let seen: Vec<AtomicBool> = (0..n).map(|_| AtomicBool::new(false)).collect();
    let colour_of = |v: VertexId| colour[v as usize].load(Ordering::Relaxed);
    // One search from all roots at once finds each root's component: it only enters vertices of the
    // colour of the vertex it comes from, and colour classes do not mix.
    let within_colour = |v: VertexId, u: VertexId| open(component, u) && colour_of(u) == colour_of(v);
    reach(&roots, |v| graph.in_neighbors(v), &seen, within_colour);
    (0..n).into_par_iter().filter(|&v| seen[v as usize].load(Ordering::Relaxed)).for_each(|v| {
        component[v as usize].store(colour_of(v), Ordering::Relaxed);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EdgeList, GraphBuilder};

    fn directed(n: usize, arcs: &[(u32, u32)]) -> Graph {
        let (src, dst) = arcs.iter().copied().unzip();
        GraphBuilder::new().directed(true).build(EdgeList { num_vertices: n, src, dst, weights: None }).unwrap()
    }

    #[test]
    fn cycles_chains_and_lone_vertices_get_their_smallest_ids() {
        // 0 -> 1 -> 2 -> 0 (a cycle), 2 -> 3 -> 4 -> 3 (a 2-cycle after a bridge), 5 alone, 6 -> 6.
        let g = directed(7, &[(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 3), (6, 6)]);
        let (components, _) = strongly_connected(&g);
        assert_eq!(components, vec![0, 0, 0, 3, 3, 5, 6]);
    }

    #[test]
    fn a_long_chain_into_a_cycle_is_peeled() {
        // 0 -> 1 -> ... -> 999 and 999 -> 990: the chain 0..989 is trimmed (past the scanning rounds,
        // by peeling), 990..999 is one component.
        let mut arcs: Vec<(u32, u32)> = (0..999).map(|v| (v, v + 1)).collect();
        arcs.push((999, 990));
        let (components, stats) = strongly_connected(&directed(1000, &arcs));
        let want: Vec<u32> = (0..1000).map(|v| v.min(990)).collect();
        assert_eq!(components, want);
        assert_eq!(stats.trimmed, 990);
    }

    #[test]
    fn colouring_finds_components_the_pivot_misses() {
        // Two cycles joined one way (7 -> 4), and a chain into them: the pivot takes one cycle, the
        // colouring the other; the chain is trimmed.
        let arcs = [(4, 5), (5, 6), (6, 4), (7, 8), (8, 9), (9, 7), (7, 4), (0, 1), (1, 2), (2, 7), (3, 3)];
        let (components, stats) = strongly_connected(&directed(10, &arcs));
        assert_eq!(components, vec![0, 1, 2, 3, 4, 4, 4, 7, 7, 7]);
        assert!(stats.trimmed >= 4);
    }
}
