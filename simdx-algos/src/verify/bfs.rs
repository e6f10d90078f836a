//! BFS oracle: a queue-based serial BFS, and a Graph500-style check of a level array.

use std::collections::VecDeque;

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

/// Checks `levels` Graph500-style — the source is at 0; along every arc `u -> v` with `u` reached,
/// `v` is reached and `level[v] <= level[u] + 1`; every other reached vertex has an in-neighbour one
/// level closer — and then against [`serial_bfs`] exactly (which also covers unreachable vertices).
pub fn bfs(graph: &Graph, source: VertexId, levels: &[u32]) -> Result<(), String> {
    bfs_from(graph, &[source], levels)
}

/// As [`bfs`], for levels from the nearest of several sources (each at level 0).
pub fn bfs_from(graph: &Graph, sources: &[VertexId], levels: &[u32]) -> Result<(), String> {
    let n = graph.num_vertices();
    if levels.len() != n {
        return Err(format!("{} levels for {n} vertices", levels.len()));
    }
    if let Some(&s) = sources.iter().find(|&&s| levels[s as usize] != 0) {
        return Err(format!("the source {s} has level {}, not 0", levels[s as usize]));
    }
    for u in 0..n as VertexId {
        let lu = levels[u as usize];
        if lu == UNREACHED {
            continue;
        }
        for &v in graph.out_neighbors(u) {
            let lv = levels[v as usize];
            if lv == UNREACHED || lv > lu + 1 {
                return Err(format!("arc {u} -> {v} goes from level {lu} to level {}", show(lv)));
            }
        }
        if lu != 0 && !graph.in_neighbors(u).iter().any(|&p| levels[p as usize].wrapping_add(1) == lu) {
            return Err(format!("vertex {u} at level {lu} has no in-neighbour at level {}", lu - 1));
        }
    }
    let expected = serial_bfs_from(graph, sources);
    match (0..n).find(|&v| expected[v] != levels[v]) {
        Some(v) => Err(format!("vertex {v} has level {}, the serial BFS says {}", show(levels[v]), show(expected[v]))),
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
