//! Whole-graph structure checks: that a [`Graph`] assembled from arrays someone else wrote (a `.sxg`
//! file) is one the builder could have made — no duplicate arcs unless the graph is a multigraph, an
//! edge count that agrees with the arcs, an undirected graph that is symmetric with the same weight
//! both ways, and a directed graph whose in-edges are exactly the transpose of its out-edges.
//!
//! The check is one parallel streaming pass over the arcs ([`Graph::check_structure`]). Sortedness,
//! bounds, duplicates and counts are checked exactly. Symmetry and transposition are checked by
//! comparing two sums, over arcs, of a keyed 64-bit hash of `(source, target, weight)`: once as stored
//! and once as the mirror or transposed side must store it. The sums are equal when the two multisets
//! of arcs are equal, and differ otherwise except with a probability of about 2^-64; the key is drawn
//! afresh in every process, so a file cannot be crafted offline to collide. Random reads into the other
//! side's lists (a binary search per arc) would make the check exact but take minutes on a large graph,
//! where the sums take a fraction of a second; after the sums disagree, per-vertex sums locate a vertex
//! with a wrong arc and only its arcs are searched, to name the arc in seconds (measurements:
//! BENCHMARKS.md, "Graph construction and I/O").

use std::hash::{BuildHasher, Hasher};

use rayon::prelude::*;

use super::csr::Csr;
use super::graph::Graph;
use super::weights::Weights;
use crate::VertexId;

/// What is structurally wrong with a graph; its message is one sentence fragment naming the vertices.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StructureError {
    /// A neighbour list names the same vertex twice in a graph that is not a multigraph.
    #[error(
        "the {side} list of vertex {vertex} holds {neighbour} more than once (duplicate arcs), but the graph is \
         not marked as a multigraph (one built keeping duplicate edges)"
    )]
    Duplicate {
        /// `"neighbour"`, `"out-edge"` or `"in-edge"`.
        side: &'static str,
        /// The vertex whose list repeats.
        vertex: VertexId,
        /// The neighbour it repeats.
        neighbour: VertexId,
    },
    /// An undirected graph's edge count differs from its arcs'.
    #[error(
        "the graph declares {declared} edges, but its arcs make {found} ({pairs} pairs u < v and {loops} self-loops)"
    )]
    EdgeCount {
        /// The count the graph (its file header) declares.
        declared: u64,
        /// The count its arcs make.
        found: u64,
        /// Arcs `u -> v` with `u < v`.
        pairs: u64,
        /// Self-loops.
        loops: u64,
    },
    /// An undirected graph lists an edge at one end a different number of times than at the other.
    #[error(
        "the undirected graph is not symmetric: vertex {u} lists {v} {here} time(s), but vertex {v} lists {u} \
         {there} time(s)"
    )]
    NotSymmetric {
        /// The vertex whose list is looked at.
        u: VertexId,
        /// Its neighbour.
        v: VertexId,
        /// How often `u` lists `v`.
        here: u64,
        /// How often `v` lists `u`.
        there: u64,
    },
    /// A directed graph's in-edges are not the transpose of its out-edges.
    #[error(
        "the in-edges are not the transpose of the out-edges: the out-edges hold {u} -> {v} {here} time(s), but \
         the in-edges of {v} list {u} {there} time(s)"
    )]
    NotTranspose {
        /// The arc's source.
        u: VertexId,
        /// The arc's target.
        v: VertexId,
        /// How often the out-edges of `u` list `v`.
        here: u64,
        /// How often the in-edges of `v` list `u`.
        there: u64,
    },
    /// An edge weighs differently in its two stored copies.
    #[error(
        "{} {u} {} {v} weighs {here} {} but {there} {}",
        if *.directed { "arc" } else { "edge" },
        if *.directed { "->" } else { "-" },
        if *.directed { "among the out-edges".to_string() } else { format!("in the list of {u}") },
        if *.directed { "among the in-edges".to_string() } else { format!("in the list of {v}") }
    )]
    Weight {
        /// Whether the two copies are an out-edge and an in-edge (else the two ends of an edge).
        directed: bool,
        /// The first endpoint.
        u: VertexId,
        /// The second endpoint.
        v: VertexId,
        /// The weight in the first copy (among the out-edges, or in the list of `u`).
        here: String,
        /// The weight in the second copy.
        there: String,
    },
    /// A neighbour list is unsorted or names a vertex that does not exist.
    #[error("invalid {side} CSR: {message}")]
    Lists {
        /// `"neighbour"`, `"out-edge"` or `"in-edge"`.
        side: &'static str,
        /// What the check of the neighbour lists found.
        message: String,
    },
    /// The hash sums disagree but no single arc could be named (not expected to happen).
    #[error("the {0} do not hold the same arcs, although no single arc could be named")]
    Unexplained(&'static str),
}

impl Graph {
    /// Checks what [`Graph::from_csr`] cannot see from the counts alone, in one parallel pass over the
    /// arcs (see the [module docs](super::structure)): every neighbour list sorted and below the
    /// vertex count, and none repeating a target unless `multigraph`; an undirected graph's edge count
    /// is its arcs `u <= v` and it is symmetric, weights included; a directed graph's in-edges are the
    /// transpose of its out-edges, weights included. Only the offsets must be valid beforehand
    /// ([`Csr::check_offsets`]), as they are in every graph built by this crate.
    pub fn check_structure(&self, multigraph: bool) -> Result<(), StructureError> {
        let key = HashKey::random();
        if let Some(incoming) = &self.incoming {
            let (out, inc) =
                rayon::join(|| scan(&self.out, &key, Mode::Forward), || scan(incoming, &key, Mode::Reverse));
            check_lists(&self.out, &out, "out-edge", multigraph)?;
            check_lists(incoming, &inc, "in-edge", multigraph)?;
            if out.sum_a != inc.sum_b {
                return Err(find_mismatch(&self.out, incoming, false, &key)
                    .unwrap_or(StructureError::Unexplained("in-edges and out-edges")));
            }
            return Ok(());
        }
        let t = scan(&self.out, &key, Mode::Symmetric);
        check_lists(&self.out, &t, "neighbour", multigraph)?;
        if t.pairs + t.loops != self.num_edges {
            return Err(StructureError::EdgeCount {
                declared: self.num_edges,
                found: t.pairs + t.loops,
                pairs: t.pairs,
                loops: t.loops,
            });
        }
        if t.pairs != t.mirrored || t.sum_a != t.sum_b {
            return Err(find_mismatch(&self.out, &self.out, true, &key)
                .unwrap_or(StructureError::Unexplained("two ends of the undirected edges")));
        }
        Ok(())
    }

    /// Whether some neighbour list names the same vertex twice: a multigraph, built keeping duplicate
    /// edges. One parallel pass over the arcs.
    pub fn has_duplicate_arcs(&self) -> bool {
        let csr = &self.out;
        (0..csr.num_vertices() as VertexId)
            .into_par_iter()
            .with_min_len(1024)
            .any(|u| csr.neighbors(u).windows(2).any(|w| w[0] == w[1]))
    }
}

/// The errors a scan's counts reveal about one CSR's lists: unsorted or out of range (named by
/// [`Csr::explain_targets`]), or repeating a target in a graph that is not a multigraph. A list that
/// repeats a target costs a second look at every list, so a multigraph pays one more pass.
fn check_lists(csr: &Csr, tally: &Tally, side: &'static str, multigraph: bool) -> Result<(), StructureError> {
    if tally.suspects == 0 {
        return Ok(());
    }
    if let Err(message) = csr.explain_targets() {
        return Err(StructureError::Lists { side, message });
    }
    match multigraph {
        true => Ok(()),
        false => Err(first_duplicate(csr, side)),
    }
}

/// The per-process hash key.
#[derive(Clone, Copy)]
struct HashKey {
    /// XORed into the packed endpoints.
    pack: u64,
    /// Multiplies the weight bits before they are added in.
    weight: u64,
    /// The multiplier of the final 64 x 64 -> 128-bit product.
    product: u64,
}

impl HashKey {
    /// A key drawn from the standard library's per-process random state.
    fn random() -> HashKey {
        let state = std::collections::hash_map::RandomState::new();
        let draw = |salt: u64| {
            let mut h = state.build_hasher();
            h.write_u64(salt);
            h.finish()
        };
        // Odd multipliers with the high bit set: never zero, never small.
        HashKey { pack: draw(1), weight: draw(2) | 1 | (1 << 63), product: draw(3) | 1 | (1 << 63) }
    }

    /// The hash of the arc `a -> b` of weight bits `w`: the 128-bit product of the keyed arc with a
    /// keyed odd multiplier, folded (high half XOR low half) to 64 bits. The fold makes the sum over
    /// arcs non-linear in the arcs, so that no pattern of changed arcs keeps it equal for every key.
    #[inline(always)]
    fn arc(&self, a: VertexId, b: VertexId, w: u64) -> u64 {
        let x = (((u64::from(a) << 32) | u64::from(b)) ^ self.pack).wrapping_add(w.wrapping_mul(self.weight));
        let p = u128::from(x) * u128::from(self.product);
        (p as u64) ^ ((p >> 64) as u64)
    }
}

/// Which arcs a scan hashes, and how.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Out-edges: the arc `u -> v` as `(u, v)` into `sum_a`.
    Forward,
    /// In-edges: `v` in the in-list of `u` is the arc `v -> u`, hashed as `(v, u)` into `sum_b`.
    Reverse,
    /// An undirected graph: `u -> v` with `u < v` as `(u, v)` into `sum_a`, with `u > v` as `(v, u)`
    /// into `sum_b`; self-loops are counted, not hashed.
    Symmetric,
}

/// What one scan of a CSR found.
#[derive(Default, Clone, Copy)]
struct Tally {
    sum_a: u64,
    sum_b: u64,
    /// Lists with a target not above the one before it (unsorted, or a duplicate), or one `>= n`.
    suspects: u64,
    /// Arcs `u -> v` with `u < v`.
    pairs: u64,
    /// Arcs `u -> v` with `u > v`.
    mirrored: u64,
    loops: u64,
}

impl Tally {
    fn merge(self, o: Tally) -> Tally {
        Tally {
            sum_a: self.sum_a.wrapping_add(o.sum_a),
            sum_b: self.sum_b.wrapping_add(o.sum_b),
            suspects: self.suspects + o.suspects,
            pairs: self.pairs + o.pairs,
            mirrored: self.mirrored + o.mirrored,
            loops: self.loops + o.loops,
        }
    }
}

/// A real weight as the bits the hash sees: its bits, with -0 as +0.
#[inline(always)]
fn f32_bits(x: f32) -> u64 {
    if x == 0.0 {
        0
    } else {
        u64::from(x.to_bits())
    }
}

/// Scans every neighbour list of `csr` in parallel.
fn scan(csr: &Csr, key: &HashKey, mode: Mode) -> Tally {
    match csr.weights() {
        None => scan_with(csr, key, mode, &Unweighted),
        Some(Weights::U32(w)) => scan_with(csr, key, mode, &&w[..]),
        Some(Weights::F32(w)) => scan_with(csr, key, mode, &&w[..]),
    }
}

/// The weights a scan reads beside the targets.
trait ArcWeights: Sync {
    /// The arcs `first..first + list.len()`: each target of `list` with its weight bits (0 without
    /// weights).
    fn arcs<'a>(&'a self, list: &'a [u32], first: usize) -> impl Iterator<Item = (VertexId, u64)> + 'a;
}

/// No weights: every arc hashes with weight bits 0.
struct Unweighted;

impl ArcWeights for Unweighted {
    #[inline(always)]
    fn arcs<'a>(&'a self, list: &'a [u32], _: usize) -> impl Iterator<Item = (VertexId, u64)> + 'a {
        list.iter().map(|&v| (v, 0))
    }
}

impl ArcWeights for &[u32] {
    #[inline(always)]
    fn arcs<'a>(&'a self, list: &'a [u32], first: usize) -> impl Iterator<Item = (VertexId, u64)> + 'a {
        list.iter().zip(&self[first..first + list.len()]).map(|(&v, &w)| (v, u64::from(w)))
    }
}

impl ArcWeights for &[f32] {
    #[inline(always)]
    fn arcs<'a>(&'a self, list: &'a [u32], first: usize) -> impl Iterator<Item = (VertexId, u64)> + 'a {
        list.iter().zip(&self[first..first + list.len()]).map(|(&v, &w)| (v, f32_bits(w)))
    }
}

/// [`scan`] with the weights `weights`, in parallel over the vertices.
fn scan_with(csr: &Csr, key: &HashKey, mode: Mode, weights: &impl ArcWeights) -> Tally {
    let n = csr.num_vertices();
    let (offsets, targets) = (csr.offsets(), csr.targets());
    // A copy the loops keep in registers.
    let key = *key;
    (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .fold(Tally::default, |mut t, u| {
            let (start, end) = (offsets[u] as usize, offsets[u + 1] as usize);
            let list = &targets[start..end];
            let arcs = weights.arcs(list, start);
            match mode {
                Mode::Forward => scan_list::<FORWARD>(&mut t, list, arcs, u as VertexId, n, &key),
                Mode::Reverse => scan_list::<REVERSE>(&mut t, list, arcs, u as VertexId, n, &key),
                Mode::Symmetric => scan_list::<SYMMETRIC>(&mut t, list, arcs, u as VertexId, n, &key),
            }
            t
        })
        .reduce(Tally::default, Tally::merge)
}

/// [`Mode`]s as constants, so that each gets its own loop.
const FORWARD: u8 = 0;
const REVERSE: u8 = 1;
const SYMMETRIC: u8 = 2;

/// Adds the list `list` of vertex `u` (with its weights, `arcs`) to `t`. One scalar loop per list:
/// the hash's 128-bit products keep it from being vectorised, and a loop with a single exit costs one
/// mispredicted branch per list, where vectorised loops with their prologues cost several (most lists
/// are short).
#[inline(always)]
fn scan_list<const MODE: u8>(
    t: &mut Tally,
    list: &[u32],
    arcs: impl Iterator<Item = (VertexId, u64)>,
    u: VertexId,
    n: usize,
    key: &HashKey,
) {
    let (Some(&head), Some(&last)) = (list.first(), list.last()) else { return };
    // Targets not above the one before them: out of order, or repeated. The head meets itself once.
    let (mut prev, mut not_above) = (head, 0u64);
    let (mut sum_a, mut sum_b, mut below, mut loops) = (0u64, 0u64, 0u64, 0u64);
    for (v, w) in arcs {
        not_above += u64::from(v <= prev);
        prev = v;
        if MODE == FORWARD {
            sum_a = sum_a.wrapping_add(key.arc(u, v, w));
        } else if MODE == REVERSE {
            sum_b = sum_b.wrapping_add(key.arc(v, u, w));
        } else if v > u {
            // Sorted lists switch sides once: these branches are predicted.
            sum_a = sum_a.wrapping_add(key.arc(u, v, w));
        } else if v < u {
            sum_b = sum_b.wrapping_add(key.arc(v, u, w));
            below += 1;
        } else {
            loops += 1;
        }
    }
    t.suspects += u64::from(not_above > 1 || last as usize >= n);
    t.sum_a = t.sum_a.wrapping_add(sum_a);
    t.sum_b = t.sum_b.wrapping_add(sum_b);
    t.mirrored += below;
    t.loops += loops;
    t.pairs += list.len() as u64 - below - loops;
}

/// The first repeated neighbour of `csr`, in vertex order.
fn first_duplicate(csr: &Csr, side: &'static str) -> StructureError {
    let found = (0..csr.num_vertices() as VertexId).into_par_iter().find_map_first(|u| {
        let list = csr.neighbors(u);
        list.windows(2).find(|w| w[0] == w[1]).map(|w| (u, w[0]))
    });
    match found {
        Some((vertex, neighbour)) => StructureError::Duplicate { side, vertex, neighbour },
        None => StructureError::Unexplained("neighbour lists"),
    }
}

/// The weight bits of arcs `range` of `csr`, sorted (empty without weights).
fn run_weights(csr: &Csr, range: std::ops::Range<usize>) -> Vec<u64> {
    let mut ws: Vec<u64> = match csr.weights() {
        None => Vec::new(),
        Some(_) => range.map(|i| weight_bits(csr, i)).collect(),
    };
    ws.sort_unstable();
    ws
}

/// The weight bits of arc `i` of `csr` (0 without weights).
fn weight_bits(csr: &Csr, i: usize) -> u64 {
    match csr.weights() {
        None => 0,
        Some(Weights::U32(w)) => u64::from(w[i]),
        Some(Weights::F32(w)) => f32_bits(w[i]),
    }
}

/// Weight bits as the weight they stand for.
fn show_weight(csr: &Csr, bits: u64) -> String {
    match csr.weights() {
        Some(Weights::F32(_)) => f32::from_bits(bits as u32).to_string(),
        _ => bits.to_string(),
    }
}

/// An arc whose counterpart in `other` is missing, repeated a different number of times, or weighs
/// differently: the mirror `v -> u` in `out` itself when `symmetric`, the entry `u` in the in-list of
/// `v` otherwise. `None` when there is none, which with equal arc counts means the two sides hold the
/// same arcs. Binary searches for every arc would take minutes on a large graph (measurements:
/// BENCHMARKS.md, "Graph construction and I/O"); instead [`first_unbalanced`] finds, in two passes, a
/// vertex where the hash sums disagree, and only the arcs at that vertex are searched.
fn find_mismatch(out: &Csr, other: &Csr, symmetric: bool, key: &HashKey) -> Option<StructureError> {
    let z = first_unbalanced(out, other, symmetric, key)?;
    // An arc of z's own list without its counterpart ...
    let range = out.range(z);
    let list = out.neighbors(z);
    let mut i = 0;
    while i < list.len() {
        let v = list[i];
        let j = i + list[i..].partition_point(|&t| t == v);
        if !(symmetric && z == v) {
            if let Some(e) = compare_run(out, other, symmetric, false, z, v, range.start + i..range.start + j) {
                return Some(e);
            }
        }
        i = j;
    }
    // ... or an arc elsewhere that names z: an undirected list, or an in-list, holding z.
    let holder = if symmetric { out } else { other };
    (0..holder.num_vertices() as VertexId).into_par_iter().with_min_len(1024).find_map_first(|x| {
        let list = holder.neighbors(x);
        let lo = list.partition_point(|&t| t < z);
        let hi = lo + list[lo..].partition_point(|&t| t == z);
        let start = holder.range(x).start;
        match (lo < hi, symmetric) {
            (false, _) => None,
            (true, true) => compare_run(out, out, true, false, x, z, start + lo..start + hi),
            (true, false) => compare_run(other, out, false, true, x, z, start + lo..start + hi),
        }
    })
}

/// The first vertex at which the arcs and their counterparts do not balance: every arc adds its hash
/// to a sum at its ends (an undirected arc `u -> v` with `u < v` adds, its mirror subtracts, at both
/// ends; a directed out-arc adds and its in-arc subtracts at the source), and a vertex whose sum is
/// not 0 has a wrong arc. Sums over blocks of vertices first, then over the vertices of the first
/// unbalanced block, so that at most 2^20 sums are held.
fn first_unbalanced(out: &Csr, other: &Csr, symmetric: bool, key: &HashKey) -> Option<VertexId> {
    let n = out.num_vertices();
    let shift = (usize::BITS - (n >> 20).leading_zeros()) as usize;
    let block = balance(out, other, symmetric, key, 0..n, shift)?;
    let lo = block << shift;
    let within = balance(out, other, symmetric, key, lo..n.min(lo + (1 << shift)), 0)?;
    Some((lo + within) as VertexId)
}

/// The index of the first non-zero sum of [`first_unbalanced`] over the vertices `range`, grouped by
/// `shift` bits.
fn balance(
    out: &Csr,
    other: &Csr,
    symmetric: bool,
    key: &HashKey,
    range: std::ops::Range<usize>,
    shift: usize,
) -> Option<usize> {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    let sums: Vec<AtomicU64> = (0..((range.end - range.start) >> shift) + 1).map(|_| AtomicU64::new(0)).collect();
    let add = |x: VertexId, h: u64| {
        if range.contains(&(x as usize)) {
            sums[(x as usize - range.start) >> shift].fetch_add(h, Relaxed);
        }
    };
    let each_arc = |csr: &Csr, f: &(dyn Fn(VertexId, VertexId, u64) + Sync)| {
        (0..csr.num_vertices()).into_par_iter().with_min_len(1024).for_each(|x| {
            for i in csr.range(x as VertexId) {
                f(x as VertexId, csr.targets()[i], weight_bits(csr, i));
            }
        })
    };
    if symmetric {
        each_arc(out, &|x, y, w| {
            let h = key.arc(x.min(y), x.max(y), w);
            let h = if x < y { h } else { h.wrapping_neg() };
            if x != y {
                add(x, h);
                add(y, h);
            }
        });
    } else {
        each_arc(out, &|u, v, w| add(u, key.arc(u, v, w)));
        each_arc(other, &|v, u, w| add(u, key.arc(u, v, w).wrapping_neg()));
    }
    sums.iter().position(|s| s.load(Relaxed) != 0)
}

/// Compares the run `here` of arcs `u -> v` in `out` with the entries `u` in `other`'s list of `v`.
/// `reversed`: `out` is the in-edges and `other` the out-edges, so the arc is `v -> u`.
fn compare_run(
    out: &Csr,
    other: &Csr,
    symmetric: bool,
    reversed: bool,
    u: VertexId,
    v: VertexId,
    here: std::ops::Range<usize>,
) -> Option<StructureError> {
    let partner = other.neighbors(v);
    let lo = partner.partition_point(|&t| t < u);
    let hi = lo + partner[lo..].partition_point(|&t| t == u);
    let (mut count_here, mut count_there) = (here.len() as u64, (hi - lo) as u64);
    let (source, target) = if reversed { (v, u) } else { (u, v) };
    if reversed {
        std::mem::swap(&mut count_here, &mut count_there);
    }
    if count_here != count_there {
        return Some(if symmetric {
            StructureError::NotSymmetric { u, v, here: count_here, there: count_there }
        } else {
            StructureError::NotTranspose { u: source, v: target, here: count_here, there: count_there }
        });
    }
    out.weights()?;
    let start = other.range(v).start;
    let (a, b) = (run_weights(out, here), run_weights(other, start + lo..start + hi));
    let (x, y) = a.into_iter().zip(b).find(|(x, y)| x != y)?;
    let (x, y) = if reversed { (y, x) } else { (x, y) };
    let (here, there) = (show_weight(out, x), show_weight(out, y));
    Some(StructureError::Weight { directed: !symmetric, u: source, v: target, here, there })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::builder::{Duplicates, EdgeList, GraphBuilder};
    use crate::graph::weights::EdgeWeights;

    fn graph(directed: bool, pairs: &[(u32, u32)], weights: Option<Vec<u32>>, dups: Duplicates) -> Graph {
        let edges = EdgeList {
            num_vertices: 6,
            src: pairs.iter().map(|p| p.0).collect(),
            dst: pairs.iter().map(|p| p.1).collect(),
            weights: weights.map(EdgeWeights::U32),
        };
        GraphBuilder::new().directed(directed).duplicates(dups).build(edges).unwrap()
    }

    const PAIRS: [(u32, u32); 6] = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (0, 5)];

    #[test]
    fn built_graphs_pass() {
        for directed in [false, true] {
            let w = Some(vec![3, 1, 4, 1, 5, 9]);
            graph(directed, &PAIRS, w.clone(), Duplicates::Remove).check_structure(false).unwrap();
            graph(directed, &PAIRS, None, Duplicates::Remove).check_structure(false).unwrap();
            let mut pairs = PAIRS.to_vec();
            pairs.push((0, 1));
            let g = graph(directed, &pairs, Some(vec![3, 1, 4, 1, 5, 9, 2]), Duplicates::Keep);
            g.check_structure(true).unwrap();
            assert!(matches!(g.check_structure(false), Err(StructureError::Duplicate { vertex: 0, neighbour: 1, .. })));
        }
    }

    /// The same graph with one out-arc's target or weight changed.
    fn edited(directed: bool, edit: impl Fn(&mut Vec<u32>, &mut Vec<u32>)) -> Graph {
        let g = graph(directed, &PAIRS, Some(vec![3, 1, 4, 1, 5, 9]), Duplicates::Remove);
        let out = g.out_csr();
        let mut targets = out.targets().to_vec();
        let mut weights = match out.weights() {
            Some(Weights::U32(w)) => w.to_vec(),
            _ => unreachable!(),
        };
        edit(&mut targets, &mut weights);
        let csr =
            Csr::from_parts(out.offsets().to_vec().into(), targets.into(), Some(Weights::U32(weights.into()))).unwrap();
        Graph::from_csr(directed, g.num_edges(), csr, g.incoming.clone()).unwrap()
    }

    #[test]
    fn asymmetry_transposition_and_weights_are_named() {
        // Vertex 3's list is [4]; make it [5].
        let g = edited(false, |t, _| t[7] = 5);
        assert_eq!(g.out_neighbors(3), &[5]);
        let e = g.check_structure(false).unwrap_err();
        assert!(matches!(e, StructureError::NotSymmetric { u: 3, v: 5, here: 1, there: 0 }), "{e}");
        let g = edited(false, |_, w| w[0] = 77);
        let e = g.check_structure(false).unwrap_err().to_string();
        assert!(e.contains("edge 0 - 1 weighs 77"), "{e}");
        let g = edited(true, |t, _| t[0] = 3);
        let e = g.check_structure(false).unwrap_err();
        assert!(matches!(e, StructureError::NotTranspose { .. }), "{e}");
        let g = edited(true, |_, w| w[1] = 8);
        let e = g.check_structure(false).unwrap_err().to_string();
        assert!(e.contains("among the out-edges"), "{e}");
    }

    #[test]
    fn edge_counts_are_checked() {
        let g = graph(false, &PAIRS, None, Duplicates::Remove);
        let bad = Graph::from_csr(false, 7, g.out.clone(), None).unwrap();
        assert!(matches!(bad.check_structure(false), Err(StructureError::EdgeCount { declared: 7, found: 6, .. })));
    }
}
