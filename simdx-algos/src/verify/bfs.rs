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

fn show(level: u32) -> String {
    if level == UNREACHED {
        "unreached".into()
    } else {
        level.to_string()
    }
}

/// Checks a BFS parent tree from `source` by Graph500's rules, with `levels` from
/// [`serial_bfs`]: the source is its own parent; every reached vertex other than the source has a
/// parent `p` with an arc `p -> v` and `level[p] + 1 == level[v]` (so the tree has no cycle and its
/// depths are the levels); every unreached vertex has no parent (`u32::MAX`), so all and only the
/// reachable vertices are in the tree; along every arc the levels of reached ends differ by at most
/// one (which [`serial_bfs`]'s levels hold by construction).
pub fn bfs_tree(graph: &Graph, source: VertexId, parents: &[u32]) -> Result<(), String> {
    let n = graph.num_vertices();
    if parents.len() != n {
        return Err(format!("{} parents for {n} vertices", parents.len()));
    }
    let levels = serial_bfs(graph, source);
    if parents[source as usize] != source {
        return Err(format!("the source {source} has parent {}, not itself", parents[source as usize]));
    }
    for v in (0..n as VertexId).filter(|&v| v != source) {
        let (p, level) = (parents[v as usize], levels[v as usize]);
        match (level, p) {
            (UNREACHED, UNREACHED) => {}
            (UNREACHED, p) => return Err(format!("vertex {v} is unreachable but has parent {p}")),
            (_, UNREACHED) => return Err(format!("vertex {v} is reachable (level {level}) but has no parent")),
            (_, p) if p as usize >= n || graph.out_neighbors(p).binary_search(&v).is_err() => {
                return Err(format!("vertex {v}'s parent {p} has no arc to it"))
            }
            (_, p) if levels[p as usize] + 1 != level => {
                return Err(format!("vertex {v} (level {level}) has parent {p} at level {}", levels[p as usize]))
            }
            _ => {}
        }
    }
    Ok(())
}
