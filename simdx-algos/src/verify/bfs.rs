//! BFS oracle: a queue-based serial BFS, an exact parallel check of a level array by Graph500's rules
//! (plus one), and a check of a parent tree.

use std::collections::VecDeque;

use rayon::prelude::*;

use simdx_core::{Graph, VertexId};

use crate::bfs::UNREACHED;

/// Levels from `source` by a textbook queue BFS over out-edges.
pub fn serial_bfs(graph: &Graph, source: VertexId) -> Vec<u32> {
    serial_bfs_from(graph, &[source])
}

/// Levels from the nearest of `sources` (each at level 0) by a queue BFS over out-edges.
pub fn serial_bfs_from(graph: &Graph, sources: &[VertexId]) -> Vec<u32> {
    queue_bfs(graph, sources, Graph::out_neighbors)
}

/// Levels *to* `target` (distances along in-arcs) by a queue BFS over in-edges.
pub fn serial_bfs_to(graph: &Graph, target: VertexId) -> Vec<u32> {
    queue_bfs(graph, &[target], Graph::in_neighbors)
}

/// A textbook queue BFS from `sources` following `next`.
fn queue_bfs<'g>(
    graph: &'g Graph,
    sources: &[VertexId],
    next: impl Fn(&'g Graph, VertexId) -> &'g [VertexId],
) -> Vec<u32> {
    let mut level = vec![UNREACHED; graph.num_vertices()];
    let mut queue = VecDeque::new();
    for &s in sources {
        if level[s as usize] != 0 {
            level[s as usize] = 0;
            queue.push_back(s);
        }
    }
    while let Some(u) = queue.pop_front() {
        for &v in next(graph, u) {
            if level[v as usize] == UNREACHED {
                level[v as usize] = level[u as usize] + 1;
                queue.push_back(v);
            }
        }
    }
    level
}

/// Checks `levels` from `source` exactly, in parallel: see [`bfs_from`].
pub fn bfs(graph: &Graph, source: VertexId, levels: &[u32]) -> Result<(), String> {
    bfs_from(graph, &[source], levels)
}

/// Checks levels from the nearest of several sources (each at level 0) exactly, by rules checked in
/// parallel that only the true levels satisfy: Graph500's — along every arc `u -> v` with `u` reached,
/// `v` is reached and `level[v] <= level[u] + 1`; every reached vertex other than a source has an
/// in-neighbour one level closer — and every source is at level 0 and no other vertex is. The arc
/// rule makes every level at most the vertex's distance (by induction along a shortest path) and
/// reaches every reachable vertex; the in-neighbour rule walks from each reached vertex down to level
/// 0, a source, along a path as long as its level, so no level is below the distance and nothing
/// unreachable is reached.
pub fn bfs_from(graph: &Graph, sources: &[VertexId], levels: &[u32]) -> Result<(), String> {
    let n = graph.num_vertices();
    if levels.len() != n {
        return Err(format!("{} levels for {n} vertices", levels.len()));
    }
    no_stranger(sources, n)?;
    if let Some(&s) = sources.iter().find(|&&s| levels[s as usize] != 0) {
        return Err(format!("the source {s} has level {}, not 0", show(levels[s as usize])));
    }
    let mut is_source = vec![false; n];
    sources.iter().for_each(|&s| is_source[s as usize] = true);
    match (0..n as VertexId).into_par_iter().find_map_first(|u| broken_rule(graph, &is_source, levels, u)) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

/// The first BFS rule of [`bfs_from`] that vertex `u` and its out-arcs break, if any.
fn broken_rule(graph: &Graph, is_source: &[bool], levels: &[u32], u: VertexId) -> Option<String> {
    let lu = levels[u as usize];
    if lu == UNREACHED {
        return None;
    }
    if lu == 0 && !is_source[u as usize] {
        return Some(format!("vertex {u} is at level 0 but is not a source"));
    }
    for &v in graph.out_neighbors(u) {
        let lv = levels[v as usize];
        if lv == UNREACHED || lv > lu + 1 {
            return Some(format!("arc {u} -> {v} goes from level {lu} to level {}", show(lv)));
        }
    }
    if lu != 0 && !graph.in_neighbors(u).iter().any(|&p| levels[p as usize].wrapping_add(1) == lu) {
        return Some(format!("vertex {u} at level {lu} has no in-neighbour at level {}", lu - 1));
    }
    None
}

/// `Err` naming the first of `sources` that is not a vertex of an `n`-vertex graph.
pub(super) fn no_stranger(sources: &[VertexId], n: usize) -> Result<(), String> {
    match sources.iter().find(|&&s| s as usize >= n) {
        Some(s) => Err(format!("the source {s} is not a vertex of a graph of {n}")),
        None => Ok(()),
    }
}

fn show(level: u32) -> String {
    if level == UNREACHED {
        "unreached".into()
    } else {
        level.to_string()
    }
}

/// Checks a BFS parent tree from `source` by Graph500's rules, in parallel: the source is its own
/// parent; every other vertex with a parent `p` (not `u32::MAX`) has an arc `p -> v` from a vertex
/// with a parent itself; following parents leads every such vertex to the source (no cycle); and
/// the tree's depths are the BFS levels, checked exactly by [`bfs`] (with `u32::MAX`, unreached,
/// for the vertices without a parent): so all and only the reachable vertices are in the tree, each
/// parent is one level closer, and along every arc the levels differ by at most one.
pub fn bfs_tree(graph: &Graph, source: VertexId, parents: &[u32]) -> Result<(), String> {
    let n = graph.num_vertices();
    if parents.len() != n {
        return Err(format!("{} parents for {n} vertices", parents.len()));
    }
    no_stranger(&[source], n)?;
    if parents[source as usize] != source {
        return Err(format!("the source {source} has parent {}, not itself", parents[source as usize]));
    }
    let no_arc = (0..n as VertexId).into_par_iter().find_map_first(|v| {
        let p = parents[v as usize];
        if v == source || p == UNREACHED {
            return None;
        }
        if p as usize >= n || parents[p as usize] == UNREACHED {
            return Some(format!("vertex {v}'s parent {p} is not in the tree"));
        }
        graph.out_neighbors(p).binary_search(&v).is_err().then(|| format!("vertex {v}'s parent {p} has no arc to it"))
    });
    if let Some(why) = no_arc {
        return Err(why);
    }
    let depths = tree_depths(source, parents)?;
    bfs(graph, source, &depths).map_err(|why| format!("the tree's depths are not the BFS levels: {why}"))
}

/// Each vertex's depth in the tree of `parents` (`u32::MAX` where it has no parent), by pointer
/// jumping: each round every vertex's pointer moves to its pointer's pointer, adding that one's
/// distance, so after `r` rounds it has climbed `2^r` parents or reached the source. A pointer that
/// has not reached the source after as many rounds as `n` has bits goes round a cycle.
fn tree_depths(source: VertexId, parents: &[u32]) -> Result<Vec<u32>, String> {
    let n = parents.len();
    let start = |v: usize| match parents[v] {
        _ if v == source as usize => (0, source),
        UNREACHED => (UNREACHED, source),
        p => (1, p),
    };
    let (mut depth, mut up): (Vec<u32>, Vec<u32>) = (0..n).into_par_iter().map(start).unzip();
    for _ in 0..=usize::BITS - n.leading_zeros() {
        if up.par_iter().all(|&u| u == source) {
            return Ok(depth);
        }
        (depth, up) = (0..n)
            .into_par_iter()
            .map(|v| match depth[v] {
                UNREACHED => (UNREACHED, source),
                // Capped below `UNREACHED`: a cycle's depths double each round.
                d => (d.saturating_add(depth[up[v] as usize]).min(UNREACHED - 1), up[up[v] as usize]),
            })
            .unzip();
    }
    match up.par_iter().position_first(|&u| u != source) {
        Some(v) => Err(format!("following parents from vertex {v} never reaches the source {source}")),
        None => Ok(depth),
    }
}
