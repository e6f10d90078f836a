//! Edge computations over sorted neighbour lists: what triangle counting and Jaccard similarity share,
//! and what a user's own edge computation (common neighbours, overlap, Adamic-Adar's sets) builds on.
//! These are not vertex programs: each edge needs both of its ends' whole lists at once, so they run
//! as parallel loops over vertices and their lists rather than through the Active-Compute-Combine
//! engine.
//!
//! * [`common_count`] intersects two sorted lists: a merge, or a galloping search of the longer list
//!   when one is much shorter (a hub against a leaf).
//! * [`Oriented`] keeps each undirected edge once, pointing from the end of lower rank to the end of
//!   higher rank, rank being (degree, id): each triangle is then found exactly once, from its
//!   lowest-ranked vertex, and no vertex keeps more than about `sqrt(2m)` arcs, since every kept
//!   neighbour has at least its degree. Like GAP's `tc`, it renumbers the vertices by that rank, so
//!   that the lists most intersections read lie close together, and maps per-vertex results back.
//! * [`common_counts`] gives the common neighbours of given pairs, in parallel, and
//!   [`jaccard_coefficients`] their Jaccard similarity.
//! * [`Intersections`] is what a backend offers: triangles and Jaccard coefficients, by the functions
//!   above on the CPU for a [`Graph`], by the CUDA backend's kernels for a device graph. Algorithms
//!   written against it run on either, with the same results.

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use crate::{Graph, VertexId};

/// Why an edge computation cannot run on a graph.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IntersectError {
    /// Triangles and neighbour overlaps are defined here on undirected graphs.
    #[error("triangles and neighbour overlaps need an undirected graph, and this one is directed (a file can be read as undirected with --undirected)")]
    Directed,
    /// A pair names a vertex the graph does not have.
    #[error("pair ({u}, {v}) names a vertex outside the graph (it has {vertices} vertices)")]
    NoSuchVertex {
        /// The pair's first vertex.
        u: VertexId,
        /// The pair's second vertex.
        v: VertexId,
        /// Vertices of the graph.
        vertices: usize,
    },
    /// The backend running the computation failed (a GPU error, in one sentence).
    #[error("the edge computation failed on the device: {0}")]
    Device(String),
}

/// A backend of the edge computations: triangles and Jaccard coefficients of one graph. The CPU's is
/// the [`Graph`] itself; the CUDA backend's a device graph. Every backend gives the same results:
/// counts exactly, coefficients bit for bit (each is one correctly rounded division of two integers).
pub trait Intersections: Sync {
    /// The number of triangles (self-loops and repeated edges ignored); refuses a directed graph.
    fn triangle_count(&self) -> Result<u64, IntersectError>;

    /// The triangles each vertex is in (networkx's `triangles`); refuses a directed graph.
    fn triangles_per_vertex(&self) -> Result<Vec<u64>, IntersectError>;

    /// The Jaccard coefficient `|N(u) ∩ N(v)| / |N(u) ∪ N(v)|` of each pair over the graph's own
    /// neighbour lists (0 where both are empty); refuses a directed graph or a pair outside it.
    fn jaccard(&self, pairs: &[(VertexId, VertexId)]) -> Result<Vec<f64>, IntersectError>;
}

impl Intersections for Graph {
    fn triangle_count(&self) -> Result<u64, IntersectError> {
        Ok(Oriented::new(self)?.triangles())
    }

    fn triangles_per_vertex(&self) -> Result<Vec<u64>, IntersectError> {
        Ok(Oriented::new(self)?.triangles_per_vertex())
    }

    fn jaccard(&self, pairs: &[(VertexId, VertexId)]) -> Result<Vec<f64>, IntersectError> {
        jaccard_coefficients(self, pairs)
    }
}

/// The Jaccard coefficient of `common` shared neighbours among `union` distinct ones (0 for an
/// empty union): the one division every backend makes.
pub fn jaccard_ratio(common: u64, union: u64) -> f64 {
    match union {
        0 => 0.0,
        union => common as f64 / union as f64,
    }
}

/// The Jaccard coefficient of each pair over `graph`'s neighbour lists, in parallel (the CPU's
/// [`Intersections::jaccard`]).
pub fn jaccard_coefficients(graph: &Graph, pairs: &[(VertexId, VertexId)]) -> Result<Vec<f64>, IntersectError> {
    let common = common_counts(graph, pairs)?;
    let degree = |v| graph.out_degree(v);
    let ratio = |(&(u, v), c): (&(VertexId, VertexId), u64)| jaccard_ratio(c, degree(u) + degree(v) - c);
    Ok(pairs.par_iter().zip(common).map(ratio).collect())
}

/// When one list is this many times longer than the other, the shorter one's elements are looked up
/// in the longer by galloping instead of merging the two.
const GALLOP_RATIO: usize = 32;

/// How many elements two sorted lists (ascending, without repeats) have in common.
pub fn common_count(a: &[VertexId], b: &[VertexId]) -> u64 {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() || short[short.len() - 1] < long[0] || long[long.len() - 1] < short[0] {
        return 0;
    }
    if long.len() / short.len() >= GALLOP_RATIO {
        return gallop_count(short, long);
    }
    let (mut i, mut j, mut count) = (0, 0, 0);
    while i < short.len() && j < long.len() {
        let (x, y) = (short[i], long[j]);
        count += u64::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    count
}

/// [`common_count`] by looking each of `short` up in `long`, from where the last look-up ended.
fn gallop_count(short: &[VertexId], mut long: &[VertexId]) -> u64 {
    let mut count = 0;
    for &x in short {
        let mut step = 1;
        while step < long.len() && long[step] < x {
            step *= 2;
        }
        let window = &long[..long.len().min(step + 1)];
        match window.binary_search(&x) {
            Ok(at) => {
                count += 1;
                long = &long[at + 1..];
            }
            Err(at) => long = &long[at..],
        }
        if long.is_empty() {
            break;
        }
    }
    count
}

/// Each undirected edge once, from its end of lower (degree, id) rank to its end of higher rank;
/// self-loops and repeated arcs left out. Vertices are renumbered by rank (vertex `r` here is the
/// graph's `r`-th vertex in (degree, id) order), so that the lists of the well-connected vertices,
/// which most intersections read, lie together at the end, and a vertex's kept neighbours all have
/// larger numbers than it. Lists are sorted by rank.
pub struct Oriented {
    offsets: Vec<u64>,
    targets: Vec<VertexId>,
    vertex_of: Vec<VertexId>,
}

impl Oriented {
    /// Orients `graph`'s edges, or refuses a directed graph.
    pub fn new(graph: &Graph) -> Result<Oriented, IntersectError> {
        if graph.is_directed() {
            return Err(IntersectError::Directed);
        }
        let csr = graph.out_csr();
        let n = graph.num_vertices();
        let mut order: Vec<(u64, VertexId)> = (0..n as VertexId).into_par_iter().map(|v| (csr.degree(v), v)).collect();
        order.par_sort_unstable();
        let vertex_of: Vec<VertexId> = order.into_par_iter().map(|(_, v)| v).collect();
        let mut rank_of = vec![0 as VertexId; n];
        for (r, &v) in vertex_of.iter().enumerate() {
            rank_of[v as usize] = r as VertexId;
        }
        let rank_of = rank_of.as_slice();
        let higher = |u: VertexId| {
            let (list, me) = (csr.neighbors(u), rank_of[u as usize]);
            let first = list.iter().enumerate();
            let kept = first.filter(move |&(i, &v)| rank_of[v as usize] > me && (i == 0 || list[i - 1] != v));
            kept.map(|(_, &v)| rank_of[v as usize])
        };
        let by_vertex: Vec<u64> = (0..n as VertexId).into_par_iter().map(|u| higher(u).count() as u64).collect();
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        offsets.extend(vertex_of.iter().scan(0, |sum, &v| {
            *sum += by_vertex[v as usize];
            Some(*sum)
        }));
        let mut targets = vec![0; offsets[n] as usize];
        let mut rest = targets.as_mut_slice();
        let mut lists = Vec::with_capacity(n);
        for &v in &vertex_of {
            let (list, tail) = rest.split_at_mut(by_vertex[v as usize] as usize);
            lists.push(list);
            rest = tail;
        }
        lists.into_par_iter().with_max_len(256).zip(vertex_of.par_iter()).for_each(|(list, &u)| {
            list.iter_mut().zip(higher(u)).for_each(|(slot, v)| *slot = v);
            list.sort_unstable();
        });
        Ok(Oriented { offsets, targets, vertex_of })
    }

    /// Vertices.
    pub fn num_vertices(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The graph's vertex that has rank `r` (is numbered `r` here).
    pub fn vertex_of(&self, r: VertexId) -> VertexId {
        self.vertex_of[r as usize]
    }

    /// The higher-ranked neighbours of the vertex of rank `r`, as ranks, ascending.
    pub fn higher(&self, r: VertexId) -> &[VertexId] {
        &self.targets[self.offsets[r as usize] as usize..self.offsets[r as usize + 1] as usize]
    }

    /// Calls `found(u, v, common)` for every kept arc `u -> v` (as ranks) with the count of the
    /// vertices `w` that close a triangle `u < v < w` in rank, in parallel over `u`; sums what it
    /// returns.
    pub fn sum_over_arcs(&self, found: impl Fn(VertexId, VertexId, u64) -> u64 + Sync) -> u64 {
        (0..self.num_vertices() as VertexId)
            .into_par_iter()
            .with_max_len(64)
            .map(|u| {
                let mine = self.higher(u);
                // Ranks in `mine` up to `v` cannot be in `v`'s list: only those after it are merged.
                let arcs = mine.iter().enumerate();
                arcs.map(|(i, &v)| found(u, v, common_count(&mine[i + 1..], self.higher(v)))).sum::<u64>()
            })
            .sum()
    }

    /// The number of triangles.
    pub fn triangles(&self) -> u64 {
        self.sum_over_arcs(|_, _, common| common)
    }

    /// The triangles each vertex is in (networkx's `triangles`), by the graph's own vertex ids.
    pub fn triangles_per_vertex(&self) -> Vec<u64> {
        let counts: Vec<AtomicU64> = (0..self.num_vertices()).map(|_| AtomicU64::new(0)).collect();
        let add = |v: VertexId, k: u64| {
            counts[v as usize].fetch_add(k, Ordering::Relaxed);
        };
        self.sum_over_arcs(|u, v, common| {
            if common > 0 {
                add(u, common);
                add(v, common);
                for_each_common(self.higher(u), self.higher(v), |w| add(w, 1));
            }
            0
        });
        let mut by_vertex = vec![0; self.num_vertices()];
        for (r, count) in counts.into_iter().enumerate() {
            by_vertex[self.vertex_of[r] as usize] = count.into_inner();
        }
        by_vertex
    }
}

/// Calls `each` with every element two sorted lists have in common, in order.
pub fn for_each_common(a: &[VertexId], b: &[VertexId], mut each: impl FnMut(VertexId)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                each(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
}

/// The common neighbours of each pair (in the graph's own lists, a self-loop counting its vertex as
/// its own neighbour), in parallel; refuses a directed graph or a pair outside it.
pub fn common_counts(graph: &Graph, pairs: &[(VertexId, VertexId)]) -> Result<Vec<u64>, IntersectError> {
    if graph.is_directed() {
        return Err(IntersectError::Directed);
    }
    let n = graph.num_vertices();
    if let Some(&(u, v)) = pairs.iter().find(|&&(u, v)| u as usize >= n || v as usize >= n) {
        return Err(IntersectError::NoSuchVertex { u, v, vertices: n });
    }
    let lists = |u| graph.out_neighbors(u);
    Ok(pairs.par_iter().with_max_len(256).map(|&(u, v)| common_count(lists(u), lists(v))).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GraphBuilder;

    fn naive_common(a: &[u32], b: &[u32]) -> u64 {
        a.iter().filter(|x| b.contains(x)).count() as u64
    }

    #[test]
    fn merging_and_galloping_count_what_a_naive_count_finds() {
        let long: Vec<u32> = (0..5000).map(|i| i * 3).collect();
        let cases: Vec<(Vec<u32>, Vec<u32>)> = vec![
            (vec![], vec![1, 2]),
            (vec![1, 2, 3], vec![2, 3, 4]),
            (vec![0, 9, 14_997, 14_998, 20_000], long.clone()),
            ((0..100).map(|i| i * 7).collect(), long.clone()),
            (long.clone(), long.clone()),
            (vec![5], vec![5]),
        ];
        for (a, b) in cases {
            let want = naive_common(&a, &b);
            assert_eq!(common_count(&a, &b), want);
            assert_eq!(common_count(&b, &a), want);
            let mut listed = 0;
            for_each_common(&a, &b, |w| {
                assert!(a.contains(&w) && b.contains(&w));
                listed += 1;
            });
            assert_eq!(listed, want);
        }
    }

    fn list(n: usize, edges: &[(u32, u32)]) -> crate::EdgeList {
        let (src, dst) = edges.iter().copied().unzip();
        crate::EdgeList { num_vertices: n, src, dst, weights: None }
    }

    fn graph(n: usize, edges: &[(u32, u32)]) -> Graph {
        GraphBuilder::new().build(list(n, edges)).unwrap()
    }

    #[test]
    fn a_clique_of_four_has_four_triangles_and_each_vertex_three() {
        let k4 = graph(5, &[(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3, 4)]);
        let oriented = Oriented::new(&k4).unwrap();
        assert_eq!(oriented.triangles(), 4);
        assert_eq!(oriented.triangles_per_vertex(), vec![3, 3, 3, 3, 0]);
        let total: usize = (0..5).map(|u| oriented.higher(u).len()).sum();
        assert_eq!(total, 7, "each edge kept once");
    }

    #[test]
    fn directed_graphs_and_pairs_outside_are_refused() {
        let directed = GraphBuilder::new().directed(true).build(list(3, &[(0, 1), (1, 2)])).unwrap();
        assert_eq!(Oriented::new(&directed).err(), Some(IntersectError::Directed));
        let path = graph(3, &[(0, 1), (1, 2)]);
        assert_eq!(common_counts(&path, &[(0, 2)]).unwrap(), vec![1]);
        assert!(matches!(common_counts(&path, &[(0, 3)]), Err(IntersectError::NoSuchVertex { .. })));
    }
}
