//! The [`Program`] trait: an algorithm as Active, Compute and Combine functions over per-vertex
//! values, plus how values start, how a combined update becomes the new value, and when to stop.

use super::combine::{Combinable, CombineOp};
use super::value::{convert, Value, Wide};
use super::vertex_data::VertexArray;
use super::weight::EdgeWeight;
use crate::VertexId;

/// Whether every update matters (aggregation) or any one suffices (voting).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CombineKind {
    /// All updates are needed (SSSP, PageRank, k-core).
    Aggregate,
    /// Any single update gives the right answer (BFS, connected components): pull mode stops
    /// scanning a vertex's in-edges at the first update.
    Voting,
}

/// How the combined update of a vertex becomes its new value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Apply {
    /// The update is combined straight into the value (`value = combine(value, update)`), as in BFS
    /// and SSSP; [`Program::apply`] is not called.
    InPlace,
    /// Updates are combined apart, starting from [`Program::IDENTITY`], and each vertex that received
    /// one gets `value = apply(vertex, value, combined)` at the end of the iteration (k-core).
    Received,
    /// As `Received`, but every vertex is applied every iteration, with the identity if nothing
    /// arrived (PageRank, SpMV).
    Every,
}

/// What a program sees of a vertex in [`Program::init`] and [`Program::apply`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Vertex {
    /// Its id.
    pub id: VertexId,
    /// Its out-degree (saturating at `u32::MAX`).
    pub out_degree: u32,
    /// Its in-degree (saturating at `u32::MAX`).
    pub in_degree: u32,
    /// The number of vertices in the graph.
    pub num_vertices: u32,
}

/// What Compute sees of an edge `src -> dst`: `M` is the program's [`Program::Message`], `W` its
/// weight and `V` its [`Program::Value`] (the same as `M` unless given, so `Edge<u32, ()>` is an edge
/// of a program whose values and messages are both `u32`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Edge<M, W, V = M> {
    /// What the source sends: [`Program::source_value`] of its value as of the start of the iteration
    /// (or, for an [`Apply::InPlace`] min or max program, possibly a better value it reached since).
    pub src: M,
    /// The destination's current value.
    pub dst: V,
    /// The edge's weight.
    pub weight: W,
    /// The source's out-degree (saturating at `u32::MAX`).
    pub src_out_degree: u32,
}

/// An algorithm in the Active-Compute-Combine model.
///
/// Every vertex holds a [`Program::Value`]. Each iteration the engine:
/// 1. takes the **active** vertices — those for which [`Program::active`] says yes, comparing the
///    value now with the value the vertex had when it was last processed (its *seen* value, which
///    starts as [`Program::UNSEEN`]); a processed vertex's seen value becomes its value;
/// 2. runs [`Program::compute`] on their edges (out-edges in push mode, or the in-edges of every
///    vertex in pull mode, keeping only active sources) to produce updates;
/// 3. merges the updates reaching each vertex with [`Program::combine`] and turns them into the new
///    value as [`Program::APPLY`] says.
///
/// It stops when no vertex is active, when [`Program::done`] says so, or at the iteration cap.
/// The program contains no threads, atomics or kernels: the backend provides them.
///
/// # Example: breadth-first search
///
/// ```
/// use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
/// use simdx_core::engine::{Engine, RunOptions};
/// use simdx_core::{EdgeList, GraphBuilder};
///
/// /// Levels from a source vertex; `u32::MAX` marks unreachable vertices.
/// struct Bfs { source: u32 }
///
/// impl Program for Bfs {
///     type Value = u32;
///     type Message = u32;
///     type Weight = ();
///     const OP: CombineOp = CombineOp::Min;
///     const KIND: CombineKind = CombineKind::Voting;
///     const APPLY: Apply = Apply::InPlace;
///     const IDENTITY: u32 = u32::MAX;
///     const UNSEEN: u32 = u32::MAX;
///
///     fn init(&self, v: Vertex) -> u32 { if v.id == self.source { 0 } else { u32::MAX } }
///     fn active(&self, now: u32, seen: u32) -> bool { now != seen }
///     fn compute(&self, e: Edge<u32, ()>) -> u32 { e.src + 1 }
///     fn can_update(&self, value: u32) -> bool { value == u32::MAX }
/// }
///
/// let path = EdgeList { num_vertices: 4, src: vec![0, 1, 2], dst: vec![1, 2, 3], weights: None };
/// let graph = GraphBuilder::new().build(path).unwrap();
/// let run = Engine::new(RunOptions::default()).run(&Bfs { source: 0 }, &graph).unwrap();
/// assert_eq!(run.values, vec![0, 1, 2, 3]);
/// assert_eq!(run.stats.iterations.len(), 4);
/// ```
pub trait Program: Sync {
    /// The per-vertex value.
    type Value: Value + Combinable;
    /// What a source sends along its edges: what [`Program::source_value`] makes of its value, and
    /// what Compute reads as [`Edge::src`]. Usually the value type itself (`#[graph_kernel]` fills in
    /// `type Message = Value` when the impl leaves it out). A narrower type halves the bytes a pull
    /// gathers per edge: PageRank keeps `f64` ranks and sends `f32` changes, and Compute widens each
    /// one back, so updates are combined and applied in `f64`.
    type Message: Value;
    /// The edge weight Compute reads: `()`, `u32` or `f32`.
    type Weight: EdgeWeight;
    /// The combine operation.
    const OP: CombineOp;
    /// Aggregation or voting.
    const KIND: CombineKind;
    /// How combined updates become values.
    const APPLY: Apply;
    /// The identity of the combine (`u32::MAX` for min, `0` for sum, ...): what "no update" is.
    const IDENTITY: Self::Value;
    /// The seen value of a vertex that has never been processed.
    const UNSEEN: Self::Value;

    /// The value of `v` before the first iteration.
    fn init(&self, v: Vertex) -> Self::Value;

    /// Whether a vertex whose value is `now`, and was `seen` when last processed, is active.
    fn active(&self, now: Self::Value, seen: Self::Value) -> bool;

    /// The update an edge sends to its destination.
    fn compute(&self, edge: Edge<Self::Message, Self::Weight, Self::Value>) -> Self::Value;

    /// What an active source `v` holding `value` sends along its edges this iteration: Compute sees
    /// it as [`Edge::src`]. `sent` is the value `v` held when it was last processed (what it sent
    /// then; [`Program::UNSEEN`] before its first time), so a program can send a change rather than a
    /// value (PageRank sends `(rank - sent) / out_degree`, and its receivers add it up). Called once
    /// per source per iteration (possibly more, so it must depend on its arguments only), which also
    /// hoists per-source work out of the per-edge Compute. Defaults to the value itself, converted to
    /// the message type as `as` would.
    fn source_value(&self, v: Vertex, value: Self::Value, sent: Self::Value) -> Self::Message {
        let _ = (v, sent);
        convert(value)
    }

    /// Merges two updates. Defaults to [`Program::OP`]; a [`CombineOp::Custom`] program overrides it.
    fn combine(&self, a: Self::Value, b: Self::Value) -> Self::Value {
        Self::OP.apply(a, b)
    }

    /// The new value of `v` from its old value and its combined update (not called for
    /// [`Apply::InPlace`]). `global` is the sum of [`Program::global`] over the iteration's active
    /// vertices, taken at its start.
    fn apply(&self, v: Vertex, old: Self::Value, combined: Self::Value, global: f64) -> Self::Value {
        let _ = (v, global);
        self.combine(old, combined)
    }

    /// Whether [`Program::global`] is used: the engine then sums it over the iteration's active
    /// vertices.
    const USES_GLOBAL: bool = false;

    /// A message that contributes nothing, if there is one: Compute maps it to [`Program::IDENTITY`]
    /// on every edge, whatever the edge's weight and destination (PageRank's `0.0` change). Pulls of
    /// aggregation programs then let the vertices that do not send hold it instead of testing every
    /// source: the CPU's dense step, and on a GPU the pulls of [`Apply::Every`] programs. Debug
    /// builds check the promise on the CPU on every arc they skip this way.
    const SILENT: Option<Self::Message> = None;

    /// Whether `apply(v, old, IDENTITY, 0.0) == old` for every vertex `v` and value `old`: a vertex
    /// that received nothing keeps its value while the [`Program::global`] sum is 0 (PageRank's apply
    /// adds what arrived). An [`Apply::Every`] program that says so has a push or sparse pull step
    /// apply only the vertices an update reached, as [`Apply::Received`] does, whenever that sum is 0,
    /// instead of every vertex (on a graph with no dangling vertex, PageRank's pushes then cost what
    /// they move). The CPU backend uses it; debug builds check the promise on a few vertices each
    /// time they rely on it. `#[graph_kernel]` sets it when the impl has no `apply`, or its `apply`
    /// reduces to `old` when the update is a literal-0 identity and the sum is 0 (PageRank's does).
    const IDENTITY_KEEPS_VALUE: bool = false;

    /// Whether [`Program::source_value`] ignores its `sent` argument, as the default (which sends the
    /// value itself) does. The CPU engine then does not keep, for programs that push their live value
    /// (in-place min and max: SSSP, BFS, WCC), the value each vertex held when it last sent: that
    /// saves a load and a store per pushed vertex; and its fused rounds claim a vertex with a plain
    /// store instead of a locked instruction (measurements: `docs/experiments/cpu-sssp.md`).
    /// `#[graph_kernel]` sets it when
    /// the impl has no `source_value`, or its `sent` parameter is `_` or never named in the body; a
    /// hand-written impl may set it under the same condition.
    const SOURCE_IGNORES_SENT: bool = false;

    /// Whether the values are class labels: each value names a vertex (an integer vertex id) of the
    /// vertex's own class, classes are what arcs join, and the result is each class's best vertex under
    /// [`Program::OP`] (`Min`: the smallest id). Connected components are the example. A program that
    /// says so promises that [`Program::compute`] passes the source's label on or sends nothing
    /// ([`Program::IDENTITY`]), and that which of the two it does depends on the arc (its weight),
    /// not on the labels, alike for both arcs of an undirected edge.
    ///
    /// The engines then, by default ([`LabelPolicy::Link`](crate::engine::LabelPolicy::Link)), link
    /// classes (union-find, Afforest's order: a few sampled arcs per vertex, then the other arcs of the
    /// vertices outside the largest class) instead of propagating step by step: a few passes whatever
    /// the graph's diameter. On a directed graph an arc joins both its ends' classes (weak
    /// connectivity). When they propagate (the policy says so, an iteration cap is set, or some
    /// vertex does not start as its own label), each reached vertex follows its chain of labels
    /// (`label = combine(label, label[label])`) to its end after every step. Values that are not
    /// vertex ids (negative or too large, e.g. an "unreached" maximum) are never followed. Ignored
    /// unless the combine is `Min` or `Max` of an integer value, applied [`Apply::InPlace`].
    const VALUES_ARE_LABELS: bool = false;

    /// Whether, for a given source value, [`Program::compute`]'s update never falls as the arc's weight
    /// grows, whatever the destination holds (SSSP's `src + weight`). With [`Program::bucket`], an
    /// in-place apply and a `compute` that does not read [`Edge::dst`], the CUDA engine then keeps each
    /// vertex's out-arcs in order of weight (a copy of them, made once per device graph) and relaxes
    /// the arcs of delta-stepping as Meyer and Sanders do: within a bucket, a vertex pushes only the
    /// prefix of its arcs whose updates stay in the bucket, and once the bucket is exhausted each of
    /// its vertices relaxes the rest once, from its final value (a pull by the vertices not settled
    /// yet when the bucket's vertices hold most arcs). Under the automatic direction rule its steps
    /// within a bucket only push. The CUDA engine checks the promise before a run on sampled values
    /// ([`crate::engine::promise::check_update_grows_with_weight`]) and refuses a program whose update
    /// falls as the weight grows; the CPU engine does not read it.
    const UPDATE_GROWS_WITH_WEIGHT: bool = false;

    /// An active vertex's share of a sum handed to [`Program::apply`]: summed each iteration over the
    /// vertices processed in it (the active ones; every vertex while all are active), from the value
    /// each holds and the value it held when last processed (`sent`, as in
    /// [`Program::source_value`]). PageRank sums the change of the rank held by dangling vertices.
    /// Only called when [`Program::USES_GLOBAL`] is true.
    fn global(&self, v: Vertex, value: Self::Value, sent: Self::Value) -> f64 {
        let _ = (v, value, sent);
        0.0
    }

    /// Whether a vertex holding `value` can still be changed by an update; pull mode skips vertices
    /// that cannot (BFS: already visited). Defaults to yes.
    fn can_update(&self, value: Self::Value) -> bool {
        let _ = value;
        true
    }

    /// Priority bucket of an active vertex: the engine processes only the active vertices of the
    /// lowest non-empty bucket each iteration and defers the rest (delta-stepping). Defaults to 0.
    fn bucket(&self, value: Self::Value) -> u32 {
        let _ = value;
        0
    }

    /// The program's per-vertex arrays ([`VertexData`](super::VertexData) fields that its kernel code
    /// reads): the engines check that each holds one value per vertex before a run, and the CUDA
    /// engine uploads them. `#[graph_kernel]` fills this in; a hand-written impl that reads such a
    /// field lists it here, or gets a panic instead of an error when its length is wrong.
    fn vertex_arrays(&self) -> Vec<VertexArray<'_>> {
        Vec::new()
    }

    /// Whether to stop after `iterations` iterations, given `change`, the sum over applied vertices of
    /// `|new - old|` in the last iteration (0 for [`Apply::InPlace`]). Defaults to never.
    fn done(&self, iterations: u32, change: f64) -> bool {
        let _ = (iterations, change);
        false
    }
}

/// Whether the engines shortcut `P`'s labels (see [`Program::VALUES_ARE_LABELS`]): it says so, its
/// combine is `Min` or `Max`, its values are integers, and it applies updates in place.
pub(crate) fn shortcuts_labels<P: Program>() -> bool {
    P::VALUES_ARE_LABELS
        && matches!(P::OP, CombineOp::Min | CombineOp::Max)
        && P::APPLY == Apply::InPlace
        && !matches!(P::IDENTITY.widen(), Wide::Float(_))
}

/// The vertex a label names, if it is a vertex id of a graph of `n` vertices.
#[inline]
pub(crate) fn labelled_vertex<V: Value>(label: V, n: usize) -> Option<usize> {
    let id = match label.widen() {
        Wide::Unsigned(x) => usize::try_from(x).ok()?,
        Wide::Signed(x) => usize::try_from(x).ok()?,
        Wide::Float(_) => return None,
    };
    (id < n).then_some(id)
}
