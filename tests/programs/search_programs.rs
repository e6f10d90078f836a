//! Search programs (`#[search_kernel]`) that exercise every part of the abstraction — each accumulator
//! type and combine, per-vertex data of several types, the vertex view, a depth limit — and the oracle
//! that folds a program's own `discovered` over serial breadth-first searches, with the check that
//! runs them on a backend in every way.

use simdx::acc::{CombineOp, Vertex, VertexData};
use simdx::multi_source::{Orientation, Searches};
use simdx::search_program::{search, DeviceSearchProgram, SearchProgram, SearchValue};
use simdx::{search_kernel, Graph, VertexId};
use simdx_algos::verify::{serial_bfs, serial_bfs_to};

use crate::common::policies::traversals;

/// The sum of `weight` over the vertices within `hops` of the source, the source included.
pub struct WeightWithin {
    pub hops: u32,
    pub weight: VertexData<f64>,
}

#[search_kernel]
impl SearchProgram for WeightWithin {
    type Acc = f64;
    const OP: CombineOp = CombineOp::Sum;
    const IDENTITY: f64 = 0.0;

    fn discovered(&self, v: Vertex, _level: u32) -> f64 {
        self.weight[v.id]
    }

    fn max_level(&self) -> u32 {
        self.hops
    }
}

/// The level of the nearest marked vertex (`u32::MAX`: none reached).
pub struct NearestMarked {
    pub marked: VertexData<bool>,
}

#[search_kernel]
impl SearchProgram for NearestMarked {
    type Acc = u32;
    const OP: CombineOp = CombineOp::Min;
    const IDENTITY: u32 = u32::MAX;

    fn discovered(&self, v: Vertex, level: u32) -> u32 {
        if self.marked[v.id] {
            level
        } else {
            u32::MAX
        }
    }
}

/// The largest `out-degree - in-degree + level` among the vertices reached (signed, 64-bit).
pub struct DegreeSpread;

#[search_kernel]
impl SearchProgram for DegreeSpread {
    type Acc = i64;
    const OP: CombineOp = CombineOp::Max;
    const IDENTITY: i64 = i64::MIN;

    fn discovered(&self, v: Vertex, level: u32) -> i64 {
        v.out_degree as i64 - v.in_degree as i64 + level as i64
    }
}

/// Which ids modulo 64 a search reaches, as bits.
pub struct IdBits;

#[search_kernel]
impl SearchProgram for IdBits {
    type Acc = u64;
    const OP: CombineOp = CombineOp::Or;
    const IDENTITY: u64 = 0;

    fn discovered(&self, v: Vertex, _level: u32) -> u64 {
        1u64 << (v.id % 64)
    }
}

/// A wrapping signed sum of `bias[v] - 3 * level` (32-bit), within 3 levels.
pub struct BiasSum {
    pub bias: VertexData<i32>,
}

#[search_kernel]
impl SearchProgram for BiasSum {
    type Acc = i32;
    const OP: CombineOp = CombineOp::Sum;
    const IDENTITY: i32 = 0;

    fn discovered(&self, v: Vertex, level: u32) -> i32 {
        self.bias[v.id].wrapping_sub(3 * level as i32)
    }

    fn max_level(&self) -> u32 {
        3
    }
}

/// A single-precision sum of `1 / (level + 1)`.
pub struct DecaySum;

#[search_kernel]
impl SearchProgram for DecaySum {
    type Acc = f32;
    const OP: CombineOp = CombineOp::Sum;
    const IDENTITY: f32 = 0.0;

    fn discovered(&self, _v: Vertex, level: u32) -> f32 {
        1.0 / (level + 1) as f32
    }
}

/// Deterministic per-vertex data for the programs above, for a graph of `n` vertices.
pub fn weights(n: usize) -> VertexData<f64> {
    (0..n).map(|v| ((v * 7919) % 101) as f64 / 8.0).collect::<Vec<_>>().into()
}

/// Every 17th vertex, marked.
pub fn marks(n: usize) -> VertexData<bool> {
    (0..n).map(|v| v % 17 == 5).collect::<Vec<_>>().into()
}

/// Biases that overflow an `i32` sum on large graphs (so that wrapping is tested).
pub fn biases(n: usize) -> VertexData<i32> {
    (0..n).map(|v| if v % 2 == 0 { i32::MAX - v as i32 } else { -(v as i32) * 1000 }).collect::<Vec<_>>().into()
}

/// The vertex view of `v`.
fn vertex(graph: &Graph, v: VertexId) -> Vertex {
    Vertex {
        id: v,
        out_degree: graph.out_neighbors(v).len() as u32,
        in_degree: graph.in_neighbors(v).len() as u32,
        num_vertices: graph.num_vertices() as u32,
    }
}

/// What each search from `sources` should accumulate: `program.discovered` folded with its `OP` over
/// the levels of a serial search (along `orientation`), within its `max_level`.
pub fn expected<P: SearchProgram>(
    graph: &Graph,
    program: &P,
    sources: &[VertexId],
    orientation: Orientation,
) -> Vec<P::Acc> {
    sources
        .iter()
        .map(|&s| {
            let levels = match orientation {
                Orientation::Out => serial_bfs(graph, s),
                Orientation::In => serial_bfs_to(graph, s),
            };
            let mut acc = P::IDENTITY;
            for (v, &level) in levels.iter().enumerate() {
                if level != u32::MAX && level <= program.max_level() {
                    acc = P::OP.apply(acc, program.discovered(vertex(graph, v as VertexId), level));
                }
            }
            acc
        })
        .collect()
}

/// Whether two accumulators agree: bit for bit, or, for floats (whose sums are added in different
/// orders), within a relative `1e-4` (`f32`) or `1e-9` (`f64`).
pub fn agree<A: SearchValue>(got: A, want: A) -> bool {
    let tolerance = match std::mem::size_of::<A>() {
        4 => 1e-4,
        _ => 1e-9,
    };
    let float = A::from_word(1).to_f64() < 1.0;
    got.to_word() == want.to_word()
        || float && (got.to_f64() - want.to_f64()).abs() <= tolerance * want.to_f64().abs().max(1.0)
}

/// 100 sources spread over the graph (repeats on small graphs): two batches.
pub fn sources(graph: &Graph) -> Vec<VertexId> {
    let n = graph.num_vertices() as u64;
    (0..100u64).map(|i| ((i * 2_654_435_761) % n) as VertexId).collect()
}

/// Runs `program` on `searches` in every way and checks each search's accumulator and summary.
pub fn check_program<P: DeviceSearchProgram>(
    name: &str,
    searches: &(impl Searches + ?Sized),
    graph: &Graph,
    program: &P,
) {
    let sources = sources(graph);
    for how in traversals() {
        let (found, _) = search(searches, program, &sources, how).unwrap();
        let want = expected(graph, program, &sources, how.orientation);
        for (i, (f, w)) in found.iter().zip(&want).enumerate() {
            let kind = std::any::type_name::<P>();
            assert!(agree(f.acc, *w), "{kind} on {name}, {how:?}, search {i} from {}: {} not {w}", sources[i], f.acc);
            assert_eq!(f.summary.source, sources[i]);
            assert!(f.summary.eccentricity <= program.max_level(), "{name}: searched past the last level");
        }
    }
}

/// [`check_program`] for each program of this module, on `searches` (a backend holding `graph`).
pub fn check_every_program(name: &str, searches: &(impl Searches + ?Sized), graph: &Graph) {
    let n = graph.num_vertices();
    check_program(name, searches, graph, &WeightWithin { hops: 2, weight: weights(n) });
    check_program(name, searches, graph, &NearestMarked { marked: marks(n) });
    check_program(name, searches, graph, &DegreeSpread);
    check_program(name, searches, graph, &IdBits);
    check_program(name, searches, graph, &BiasSum { bias: biases(n) });
    check_program(name, searches, graph, &DecaySum);
}
