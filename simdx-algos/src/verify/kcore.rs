//! k-core oracle: core numbers by Batagelj and Zaversnik's bucket peeling (repeatedly remove a vertex
//! of smallest remaining degree, in time linear in the arcs), a k-core by peeling every vertex of
//! degree below `k`, and exact checks of a k-core and of core numbers.

use std::collections::VecDeque;

use simdx_core::{Graph, VertexId};

/// Each vertex's neighbours as k-core counts them: for an undirected graph its arcs as stored (a kept
/// self-loop once, kept duplicates each); for a directed graph its neighbours in the underlying
/// simple undirected graph (out- and in-neighbours, once each, itself excluded).
enum Neighbours<'g> {
    /// An undirected graph's arcs.
    Arcs(&'g Graph),
    /// A directed graph's merged neighbours, as offsets into one array.
    Merged { offsets: Vec<usize>, targets: Vec<VertexId> },
}

impl<'g> Neighbours<'g> {
    fn of_graph(graph: &'g Graph) -> Self {
        if !graph.is_directed() {
            return Neighbours::Arcs(graph);
        }
        let (mut offsets, mut targets) = (vec![0], Vec::new());
        for v in 0..graph.num_vertices() as VertexId {
            let mut all: Vec<VertexId> =
                graph.out_neighbors(v).iter().chain(graph.in_neighbors(v)).copied().filter(|&u| u != v).collect();
            all.sort_unstable();
            all.dedup();
            targets.extend(all);
            offsets.push(targets.len());
        }
        Neighbours::Merged { offsets, targets }
    }

    fn of(&self, v: VertexId) -> &[VertexId] {
        match self {
            Neighbours::Arcs(graph) => graph.out_neighbors(v),
            Neighbours::Merged { offsets, targets } => &targets[offsets[v as usize]..offsets[v as usize + 1]],
        }
    }

    fn count(&self) -> usize {
        match self {
            Neighbours::Arcs(graph) => graph.num_vertices(),
            Neighbours::Merged { offsets, .. } => offsets.len() - 1,
        }
    }
}

/// The core number of every vertex: remove a vertex of smallest remaining degree until none is left;
/// a vertex's core number is its remaining degree when it goes. The vertices stay sorted by remaining
/// degree in one array, with where each degree's bucket starts; a removal moves each remaining
/// neighbour of higher degree to the front of its bucket and shifts that bucket's start past it.
pub fn serial_core_numbers(graph: &Graph) -> Vec<u32> {
    let adjacency = Neighbours::of_graph(graph);
    let n = adjacency.count();
    let mut degree: Vec<usize> = (0..n as VertexId).map(|v| adjacency.of(v).len()).collect();
    let most = degree.iter().copied().max().unwrap_or(0);
    let mut start = vec![0usize; most + 2];
    degree.iter().for_each(|&d| start[d + 1] += 1);
    (1..start.len()).for_each(|d| start[d] += start[d - 1]);
    let (mut order, mut at) = (vec![0 as VertexId; n], vec![0usize; n]);
    let mut next = start.clone();
    for v in 0..n {
        (order[next[degree[v]]], at[v]) = (v as VertexId, next[degree[v]]);
        next[degree[v]] += 1;
    }
    for i in 0..n {
        let v = order[i] as usize;
        for &u in adjacency.of(v as VertexId) {
            let u = u as usize;
            if degree[u] > degree[v] {
                let (du, first) = (degree[u], start[degree[u]]);
                let w = order[first] as usize;
                order.swap(at[u], first);
                (at[w], at[u]) = (at[u], first);
                start[du] += 1;
                degree[u] -= 1;
            }
        }
    }
    degree.into_iter().map(|d| d as u32).collect()
}

/// Which vertices are in the k-core: peel every vertex of degree below `k`, and every vertex whose
/// degree falls below `k` as its neighbours go, until none is left to peel.
fn in_k_core(adjacency: &Neighbours<'_>, k: u32) -> Vec<bool> {
    let n = adjacency.count();
    let mut degree: Vec<u32> = (0..n as VertexId).map(|v| adjacency.of(v).len() as u32).collect();
    let mut inside = vec![true; n];
    let mut peel: VecDeque<VertexId> = (0..n as VertexId).filter(|&v| degree[v as usize] < k).collect();
    peel.iter().for_each(|&v| inside[v as usize] = false);
    while let Some(v) = peel.pop_front() {
        for &u in adjacency.of(v) {
            let u = u as usize;
            degree[u] = degree[u].saturating_sub(1);
            if inside[u] && degree[u] < k {
                inside[u] = false;
                peel.push_back(u as VertexId);
            }
        }
    }
    inside
}

/// Checks a [`crate::KCore`] result exactly: a vertex is in the k-core (value `>= k`) exactly when
/// peeling every vertex of degree below `k` leaves it, and then its value is its degree within the
/// k-core; the value of a vertex outside is below `k`.
pub fn kcore(graph: &Graph, k: u32, values: &[u32]) -> Result<(), String> {
    let adjacency = Neighbours::of_graph(graph);
    let n = adjacency.count();
    if values.len() != n {
        return Err(format!("{} values for {n} vertices", values.len()));
    }
    let inside = in_k_core(&adjacency, k);
    for (v, &value) in values.iter().enumerate() {
        if inside[v] {
            let degree = adjacency.of(v as VertexId).iter().filter(|&&u| inside[u as usize]).count() as u32;
            if value != degree {
                return Err(format!("vertex {v} is in the {k}-core with degree {degree} there, but has value {value}"));
            }
        } else if value >= k {
            return Err(format!("vertex {v} has value {value} >= {k}, but it is not in the {k}-core"));
        }
    }
    Ok(())
}

/// Checks core numbers exactly against [`serial_core_numbers`].
pub fn core_decomposition(graph: &Graph, cores: &[u32]) -> Result<(), String> {
    let n = graph.num_vertices();
    if cores.len() != n {
        return Err(format!("{} core numbers for {n} vertices", cores.len()));
    }
    let expected = serial_core_numbers(graph);
    match (0..n).find(|&v| expected[v] != cores[v]) {
        Some(v) => Err(format!("vertex {v} has core number {}, the serial peeling says {}", cores[v], expected[v])),
        None => Ok(()),
    }
}
