//! Core numbers on the CPU: the largest `k` whose k-core (the largest subgraph in which every vertex
//! has at least `k` arcs) holds each vertex, by parallel peeling in levels. Degrees count arcs as
//! stored, as the `KCore` program does (a kept self-loop once, kept duplicates each); a directed
//! graph's arcs are taken as they are, so give it in undirected form.
//!
//! Level `k` starts with every vertex still in whose degree is at most `k` (`k` jumps to the smallest
//! such degree when none is): they leave with core number `k`. Each leaving vertex takes one from the
//! degree of each neighbour still in, and a neighbour whose degree falls from `k + 1` to `k` (seen by
//! exactly one of the threads that take from it) leaves in the level's next round, until a round
//! frees no one. The vertices still in are then gathered for the next level. One level's work is
//! its leaving vertices' arcs plus one pass over the vertices still in, instead of a k-core run from
//! scratch per level.

use std::sync::atomic::{AtomicU32, Ordering};

use rayon::prelude::*;

use crate::{Graph, VertexId};

/// A vertex still in the core being peeled (no core number yet).
const IN: u32 = u32::MAX;

/// The core number of every vertex of `graph` (see the module's documentation).
pub fn core_numbers(graph: &Graph) -> Vec<u32> {
    let n = graph.num_vertices();
    let degree: Vec<AtomicU32> =
        (0..n as VertexId).into_par_iter().map(|v| AtomicU32::new(degree_of(graph, v))).collect();
    let core: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(IN)).collect();
    let mut still_in: Vec<VertexId> = (0..n as VertexId).collect();
    let mut k = 0u32;
    while let Some(least) = still_in.par_iter().map(|&v| degree[v as usize].load(Ordering::Relaxed)).min() {
        k = k.max(least);
        let mut leaving: Vec<VertexId> =
            still_in.par_iter().copied().filter(|&v| degree[v as usize].load(Ordering::Relaxed) <= k).collect();
        leaving.par_iter().for_each(|&v| core[v as usize].store(k, Ordering::Relaxed));
        while !leaving.is_empty() {
            leaving = leaving.par_iter().flat_map_iter(|&v| freed_by(graph, &degree, &core, v, k)).collect();
        }
        still_in = still_in.into_par_iter().filter(|&v| core[v as usize].load(Ordering::Relaxed) == IN).collect();
        match k.checked_add(1) {
            Some(next) => k = next,
            None => break,
        }
    }
    core.into_iter().map(AtomicU32::into_inner).collect()
}

/// `v`'s arcs, the degree peeling starts from (saturating: a vertex with more arcs than `u32` counts
/// is beyond any core number this returns).
fn degree_of(graph: &Graph, v: VertexId) -> u32 {
    u32::try_from(graph.out_degree(v)).unwrap_or(u32::MAX - 1)
}

/// The neighbours of the leaving `v` whose degree its leaving brings down to `k`: they leave too, at
/// level `k` (their core number is stored here).
fn freed_by<'a>(
    graph: &'a Graph,
    degree: &'a [AtomicU32],
    core: &'a [AtomicU32],
    v: VertexId,
    k: u32,
) -> impl Iterator<Item = VertexId> + 'a {
    graph.out_neighbors(v).iter().copied().filter(move |&u| {
        if core[u as usize].load(Ordering::Relaxed) != IN {
            return false;
        }
        let before = degree[u as usize].fetch_sub(1, Ordering::Relaxed);
        let freed = before == k + 1;
        if freed {
            core[u as usize].store(k, Ordering::Relaxed);
        }
        freed
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::GeneratorSpec;
    use crate::{EdgeList, GraphBuilder};

    /// Core numbers by the definition: for each `k`, peel one vertex of degree below `k` at a time
    /// until none is left; a vertex's core number is the largest `k` it survives.
    fn by_definition(graph: &Graph) -> Vec<u32> {
        let n = graph.num_vertices();
        let mut core = vec![0; n];
        for k in 1.. {
            let mut inside = vec![true; n];
            let mut degree: Vec<u64> = (0..n as VertexId).map(|v| graph.out_degree(v)).collect();
            let mut stack: Vec<VertexId> = (0..n as VertexId).filter(|&v| degree[v as usize] < k).collect();
            stack.iter().for_each(|&v| inside[v as usize] = false);
            while let Some(v) = stack.pop() {
                for &u in graph.out_neighbors(v) {
                    degree[u as usize] = degree[u as usize].saturating_sub(1);
                    if inside[u as usize] && degree[u as usize] < k {
                        inside[u as usize] = false;
                        stack.push(u);
                    }
                }
            }
            if !inside.contains(&true) {
                return core;
            }
            (0..n).filter(|&v| inside[v]).for_each(|v| core[v] = k as u32);
        }
        core
    }

    #[test]
    fn core_numbers_follow_the_definition() {
        for spec in ["kron:10", "urand:10:3", "grid:9x9", "rmat:9", "urand:8:1"] {
            let graph = GeneratorSpec::parse(spec).unwrap().generate(3).unwrap();
            assert_eq!(core_numbers(&graph), by_definition(&graph), "{spec}");
        }
    }

    #[test]
    fn self_loops_and_duplicates_count_as_arcs() {
        // A triangle whose first corner has a self-loop and a doubled arc to the second, plus a pendant.
        let (src, dst) = (vec![0, 0, 0, 1, 2, 0], vec![0, 1, 1, 2, 0, 3]);
        let edges = EdgeList { num_vertices: 4, src, dst, weights: None };
        let builder = GraphBuilder::new().self_loops(crate::SelfLoops::Keep).duplicates(crate::Duplicates::Keep);
        let graph = builder.build(edges).unwrap();
        assert_eq!(core_numbers(&graph), by_definition(&graph));
    }
}
