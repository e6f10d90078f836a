//! Brandes' dependency accumulation (unweighted shortest paths), the heavy part of betweenness
//! centrality: per source one breadth-first search that counts shortest paths (`sigma`), then one
//! sweep back from the farthest level that gives each vertex its dependency (`delta`: the sum over
//! targets of the share of shortest paths from the source through it). Sources run in parallel, each
//! thread with its own arrays and sums; unlike the bitwise multi-source traversal
//! ([`crate::multi_source`]), path counts differ per search, so searches are not packed into words.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::engine::{Direction, FilterUsed, IterationStats};
use crate::search_run::{check_sources, MultiSourceError, MultiStats};
use crate::{Graph, VertexId};

/// The sum over `sources` of each vertex's dependency on them, along out-arcs (a source's
/// dependency on itself is not counted; sources may repeat, each counting). Its statistics hold one
/// record: every source, and every arc its two passes scanned.
pub fn dependency_sums(graph: &Graph, sources: &[VertexId]) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
    let n = graph.num_vertices();
    check_sources(sources, n)?;
    let start = Instant::now();
    let (sums, arcs) = sources
        .par_iter()
        .fold(
            || (Search::new(n), vec![0.0; n], 0u64),
            |(mut search, mut sums, arcs), &s| {
                let scanned = search.run(graph, s, &mut sums);
                (search, sums, arcs + scanned)
            },
        )
        .map(|(_, sums, arcs)| (sums, arcs))
        .reduce(
            || (vec![0.0; n], 0),
            |(mut a, x), (b, y)| {
                a.iter_mut().zip(&b).for_each(|(s, t)| *s += t);
                (a, x + y)
            },
        );
    Ok((sums, sweep_stats(sources.len(), arcs, start.elapsed())))
}

/// The statistics of Brandes' sweeps from `sources` sources that scanned `arcs` arcs (both passes)
/// in `time`: one record, the sources as its frontier (both backends report them so).
pub fn sweep_stats(sources: usize, arcs: u64, time: Duration) -> MultiStats {
    let record = IterationStats {
        direction: Direction::Push,
        filter: FilterUsed::Every,
        frontier: sources as u64,
        edges: arcs,
        bucket: 0,
        time,
    };
    MultiStats { batches: sources as u32, levels: vec![record], time }
}

/// What a search keeps per vertex, together so that an arc's visit costs one cache miss.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// Level (`u32::MAX`: not reached).
    level: u32,
    /// Shortest paths from the source.
    sigma: f64,
    /// Dependency of the source on the vertex.
    delta: f64,
}

/// A slot of a vertex not reached.
const FRESH: Slot = Slot { level: u32::MAX, sigma: 0.0, delta: 0.0 };

/// One thread's arrays, reset after each search for the vertices it reached.
struct Search {
    slots: Vec<Slot>,
    /// The vertices reached, in the order reached.
    order: Vec<VertexId>,
}

impl Search {
    fn new(n: usize) -> Self {
        Search { slots: vec![FRESH; n], order: Vec::new() }
    }

    /// Adds source `s`'s dependencies to `sums`; returns the arcs its two passes scanned.
    fn run(&mut self, graph: &Graph, s: VertexId, sums: &mut [f64]) -> u64 {
        let Search { slots, order } = self;
        slots[s as usize] = Slot { level: 0, sigma: 1.0, delta: 0.0 };
        order.push(s);
        let mut next = 0;
        while next < order.len() {
            let v = order[next];
            next += 1;
            let Slot { level, sigma, .. } = slots[v as usize];
            for &w in graph.out_neighbors(v) {
                let slot = &mut slots[w as usize];
                if slot.level == u32::MAX {
                    slot.level = level + 1;
                    order.push(w);
                }
                if slot.level == level + 1 {
                    slot.sigma += sigma;
                }
            }
        }
        for &v in order.iter().rev() {
            let Slot { level, sigma, .. } = slots[v as usize];
            let mut dependency = 0.0;
            for &w in graph.out_neighbors(v) {
                let slot = &slots[w as usize];
                if slot.level == level + 1 {
                    dependency += sigma / slot.sigma * (1.0 + slot.delta);
                }
            }
            slots[v as usize].delta = dependency;
            if v != s {
                sums[v as usize] += dependency;
            }
        }
        let mut arcs = 0;
        for &v in order.iter() {
            slots[v as usize] = FRESH;
            arcs += 2 * graph.out_degree(v);
        }
        order.clear();
        arcs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EdgeList, GraphBuilder};

    #[test]
    fn the_middle_of_a_path_depends_on_its_ends() {
        // 0 - 1 - 2 - 3: from 0, vertex 1 carries the paths to 2 and 3, vertex 2 the one to 3.
        let path = EdgeList { num_vertices: 4, src: vec![0, 1, 2], dst: vec![1, 2, 3], weights: None };
        let graph = GraphBuilder::new().build(path).unwrap();
        assert_eq!(dependency_sums(&graph, &[0]).unwrap().0, vec![0.0, 2.0, 1.0, 0.0]);
        assert_eq!(dependency_sums(&graph, &[0, 1, 2, 3]).unwrap().0, vec![0.0, 4.0, 4.0, 0.0]);
        assert!(dependency_sums(&graph, &[9]).is_err());
    }
}
