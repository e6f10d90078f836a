//! Louvain's aggregation phase: the communities of a level, numbered densely, become the vertices
//! of the next level's graph; the arcs between two communities become one arc of their summed
//! weight, and the arcs inside a community (and its members' loops) its loop weight.

use rayon::prelude::*;

use super::level::LevelGraph;
use super::moving::{add, with_scratch, UNSET};
use crate::VertexId;

/// Numbers the communities of `community` `0..k` in order of their smallest member: returns each
/// vertex's new number and `k`.
pub(crate) fn renumber(community: &[u32]) -> (Vec<u32>, usize) {
    const NEW: u32 = u32::MAX;
    let mut number = vec![NEW; community.len()];
    let mut k = 0u32;
    let dense = community
        .iter()
        .map(|&c| {
            if number[c as usize] == NEW {
                number[c as usize] = k;
                k += 1;
            }
            number[c as usize]
        })
        .collect();
    (dense, k as usize)
}

/// The graph of the `k` communities `dense` (each vertex's community, numbered `0..k`) of `level`.
/// Each community's list is in the order its members (by id) first reach each neighbouring
/// community, and every sum is taken in that order, so the graph does not depend on the threads.
pub(crate) fn aggregate(level: &LevelGraph<'_>, dense: &[u32], k: usize) -> LevelGraph<'static> {
    // The members of each community, by id (a counting sort).
    let mut start = vec![0usize; k + 1];
    dense.iter().for_each(|&c| start[c as usize + 1] += 1);
    (0..k).for_each(|c| start[c + 1] += start[c]);
    let mut members = vec![0 as VertexId; dense.len()];
    let mut next = start.clone();
    for (v, &c) in dense.iter().enumerate() {
        members[next[c as usize]] = v as VertexId;
        next[c as usize] += 1;
    }
    let lists: Vec<(f64, Vec<(u32, f64)>)> = (0..k)
        .into_par_iter()
        .map(|c| {
            let mut inside = 0.0;
            with_scratch(k, |weights, touched| {
                for &v in &members[start[c]..start[c + 1]] {
                    inside += level.loops[v as usize];
                    level.for_each_arc(v, |u, w| {
                        let d = dense[u as usize];
                        if d as usize == c {
                            inside += w;
                        } else {
                            add(weights, touched, d, w);
                        }
                    });
                }
                let list = touched.iter().map(|&d| (d, std::mem::replace(&mut weights[d as usize], UNSET))).collect();
                touched.clear();
                (inside, list)
            })
        })
        .collect();
    let mut offsets = Vec::with_capacity(k + 1);
    offsets.push(0u64);
    for (_, list) in &lists {
        offsets.push(offsets.last().copied().unwrap_or(0) + list.len() as u64);
    }
    let targets = lists.par_iter().flat_map_iter(|(_, list)| list.iter().map(|&(d, _)| d)).collect();
    let weights = lists.par_iter().flat_map_iter(|(_, list)| list.iter().map(|&(_, w)| w)).collect();
    let loops = lists.iter().map(|&(inside, _)| inside).collect();
    LevelGraph::owned(offsets, targets, weights, loops)
}
