//! [`VertexState`]: the per-vertex arrays of a CPU run — current value, seen value, combine
//! accumulator and the "touched this iteration" bitmap — and the [`Vertex`] view of a vertex.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::senders::{RoundSenders, Senders};
use super::touched::Touched;
use crate::acc::program::{labelled_vertex, shortcuts_labels};
use crate::acc::{convert, Apply, AtomicCell, CombineOp, ProgramHints, Value, Vertex};
use crate::{Graph, VertexId};

/// Everything a CPU run keeps per vertex.
pub(crate) struct VertexState<'g, P: ProgramHints> {
    pub(crate) graph: &'g Graph,
    /// The out-CSR's offsets, for degrees read in the per-edge loops.
    out_offsets: &'g [u64],
    /// The in-CSR's offsets.
    in_offsets: &'g [u64],
    /// Current values.
    pub(crate) now: Vec<<P::Value as Value>::Cell>,
    /// The value each vertex had when it was last processed.
    pub(crate) seen: Vec<<P::Value as Value>::Cell>,
    /// What each frontier vertex sends this iteration ([`Program::source_value`]), filled by the
    /// snapshot; empty where [`VertexState::SENDS_FROM_SEEN`].
    send: Vec<<P::Message as Value>::Cell>,
    /// For programs that push their live value and need what they last sent
    /// ([`VertexState::KEEPS_BEFORE`]; empty otherwise): the seen value each snapshot replaced (or
    /// [`VertexState::keep_seen`] kept), which a live push hands to [`Program::source_value`].
    before: Vec<<P::Value as Value>::Cell>,
    /// Combined updates not yet applied (empty for [`Apply::InPlace`]).
    pub(crate) acc: Vec<<P::Value as Value>::Cell>,
    /// Vertices changed (in place) or reached by an update in the current iteration.
    pub(crate) touched: Touched,
    /// Whether every vertex starts as its own label, so that a run can link instead of propagating
    /// (see `cpu::link`); found while the values are made, and only for programs whose labels the
    /// engine shortcuts ([`shortcuts_labels`]), false for the others.
    pub(crate) starts_as_singletons: bool,
    /// Each vertex's sender, where the run keeps them (module `senders`).
    pub(crate) senders: Option<Senders>,
}

impl<'g, P: ProgramHints> VertexState<'g, P> {
    /// Initial state: `init` values, every vertex unseen, empty accumulators.
    pub(crate) fn new(program: &P, graph: &'g Graph) -> Self {
        let n = graph.num_vertices();
        let singletons = AtomicBool::new(shortcuts_labels::<P>());
        let now = (0..n as VertexId)
            .into_par_iter()
            .map(|v| {
                let value = program.init(vertex_of(graph, v));
                // Read first: once one thread has cleared it, the others only share the line.
                if shortcuts_labels::<P>()
                    && singletons.load(Ordering::Relaxed)
                    && labelled_vertex(value, n) != Some(v as usize)
                {
                    singletons.store(false, Ordering::Relaxed);
                }
                AtomicCell::new(value)
            })
            .collect();
        let seen = (0..n).into_par_iter().map(|_| AtomicCell::new(P::UNSEEN)).collect();
        let send_len = if Self::SENDS_FROM_SEEN { 0 } else { n };
        let send = (0..send_len).into_par_iter().map(|_| AtomicCell::new(convert(P::UNSEEN))).collect();
        let before_len = if Self::KEEPS_BEFORE { n } else { 0 };
        let before = (0..before_len).into_par_iter().map(|_| AtomicCell::new(P::UNSEEN)).collect();
        let acc = match P::APPLY {
            Apply::InPlace => Vec::new(),
            Apply::Received | Apply::Every => (0..n).into_par_iter().map(|_| AtomicCell::new(P::IDENTITY)).collect(),
        };
        VertexState {
            graph,
            out_offsets: graph.out_csr().offsets(),
            in_offsets: graph.in_csr().offsets(),
            now,
            seen,
            send,
            before,
            acc,
            touched: Touched::new(n),
            starts_as_singletons: singletons.into_inner(),
            senders: None,
        }
    }

    /// As [`VertexState::new`], keeping each vertex's sender ([`Senders`]), fused rounds as `rounds` says.
    pub(crate) fn with_senders(program: &P, graph: &'g Graph, rounds: RoundSenders) -> Self {
        VertexState { senders: Some(Senders::new(graph.num_vertices(), rounds)), ..Self::new(program, graph) }
    }

    /// About what [`VertexState::new`] allocates for `n` vertices, and the engine's per-vertex buffers
    /// besides (frontier lists, bitmaps and the pull step's slots: a few words a vertex).
    pub(crate) fn bytes(n: usize) -> u64 {
        let value = std::mem::size_of::<<P::Value as Value>::Cell>();
        let message = if Self::SENDS_FROM_SEEN { 0 } else { std::mem::size_of::<<P::Message as Value>::Cell>() };
        let before = if Self::KEEPS_BEFORE { value } else { 0 };
        let acc = if P::APPLY == Apply::InPlace { 0 } else { value };
        let buffers = 4 * std::mem::size_of::<VertexId>();
        (n as u64).saturating_mul((2 * value + message + before + acc + buffers) as u64)
    }

    /// Whether push steps send each source's live value rather than its snapshot: in-place min and
    /// max programs, for which a newer value is never worse (fewer repeated relaxations within a
    /// delta-stepping bucket); the source then becomes active again only if it improves after the read.
    pub(crate) const PUSHES_LIVE: bool =
        matches!(P::APPLY, Apply::InPlace) && matches!(P::OP, CombineOp::Min | CombineOp::Max);

    /// Whether a live push needs the value each source held when it last sent (`before`): unless
    /// [`Program::source_value`] ignores it ([`ProgramHints::SOURCE_IGNORES_SENT`]).
    const KEEPS_BEFORE: bool = Self::PUSHES_LIVE && !P::SOURCE_IGNORES_SENT;

    /// Whether what a frontier vertex sends is computed from its seen value when read rather than
    /// kept in `send`: when [`Program::source_value`] ignores what was sent before
    /// ([`ProgramHints::SOURCE_IGNORES_SENT`]), the snapshot's value is all it needs, and the seen value
    /// holds it until the vertex is prepared again (steps do not change the seen values of their
    /// sources, and a live push reads no snapshot). The snapshot then stores one value a vertex
    /// instead of two: BFS's pulls from millions of vertices prepare them at memory bandwidth.
    const SENDS_FROM_SEEN: bool = P::SOURCE_IGNORES_SENT;

    /// Snapshot of frontier vertex `u` at the start of an iteration: its seen value becomes its value,
    /// and what it sends is prepared. Returns its share of [`Program::global`] (0 unless used) and
    /// what it sends.
    #[inline]
    pub(crate) fn prepare(&self, program: &P, u: VertexId) -> (f64, P::Message) {
        let i = u as usize;
        let (now, sent) = (self.now[i].load(), self.seen[i].load());
        self.seen[i].store(now);
        let vertex = self.vertex(u);
        let message = program.source_value(vertex, now, sent);
        if !Self::SENDS_FROM_SEEN {
            self.send[i].store(message);
        }
        if Self::KEEPS_BEFORE {
            self.before[i].store(sent);
        }
        let global = if P::USES_GLOBAL { program.global(vertex, now, sent) } else { 0.0 };
        (global, message)
    }

    /// The part of [`VertexState::prepare`] that a push of live values needs
    /// ([`VertexState::PUSHES_LIVE`]): `u`'s seen value is kept for [`VertexState::pushed_by`],
    /// which reads the live value and records it as seen itself (nothing to keep unless
    /// [`VertexState::KEEPS_BEFORE`]). Preparing `u` fully afterwards (for a pull) keeps the same value.
    #[inline]
    pub(crate) fn keep_seen(&self, u: VertexId) {
        debug_assert!(Self::PUSHES_LIVE);
        if Self::KEEPS_BEFORE {
            self.before[u as usize].store(self.seen[u as usize].load());
        }
    }

    /// Prefetches what [`VertexState::keep_seen`] and the out-degree of `u` read.
    #[inline(always)]
    pub(crate) fn prefetch(&self, u: VertexId) {
        super::prefetch::element(self.out_offsets, u as usize);
        if Self::KEEPS_BEFORE {
            super::prefetch::element(&self.seen, u as usize);
        }
    }

    /// Prefetches what a push reads of destination `v`: its value and its touched flag.
    #[inline(always)]
    pub(crate) fn prefetch_destination(&self, v: VertexId) {
        super::prefetch::element(&self.now, v as usize);
        self.touched.prefetch(v);
    }

    /// What frontier vertex `u` sends this iteration (after [`VertexState::prepare`]).
    #[inline]
    pub(crate) fn sent_by(&self, program: &P, u: VertexId) -> P::Message {
        if Self::SENDS_FROM_SEEN {
            let seen = self.seen[u as usize].load();
            program.source_value(self.vertex(u), seen, seen)
        } else {
            self.send[u as usize].load()
        }
    }

    /// What frontier vertex `u` pushes: as [`VertexState::sent_by`], but a program that pushes its
    /// live value reads it now and records it as seen.
    #[inline]
    pub(crate) fn pushed_by(&self, program: &P, u: VertexId) -> P::Message {
        let i = u as usize;
        if Self::PUSHES_LIVE {
            let live = self.now[i].load();
            self.seen[i].store(live);
            // `source_value` ignores `sent` unless `before` is kept: any value will do.
            let sent = if Self::KEEPS_BEFORE { self.before[i].load() } else { live };
            program.source_value(self.vertex(u), live, sent)
        } else {
            self.sent_by(program, u)
        }
    }

    /// Number of vertices.
    pub(crate) fn len(&self) -> usize {
        self.now.len()
    }

    /// What the program sees of vertex `v`. Like [`VertexState::out_degree`], it cannot panic, so the
    /// loads of the fields a program ignores are dropped.
    #[inline]
    pub(crate) fn vertex(&self, v: VertexId) -> Vertex {
        Vertex {
            id: v,
            out_degree: degree_in(self.out_offsets, v),
            in_degree: degree_in(self.in_offsets, v),
            num_vertices: self.now.len() as u32,
        }
    }

    /// Out-degree of `v`, saturating at `u32::MAX`. It cannot panic (an id out of range reads 0), so
    /// the compiler drops the two loads when Compute does not use the degree.
    #[inline]
    pub(crate) fn out_degree(&self, v: VertexId) -> u32 {
        degree_in(self.out_offsets, v)
    }

    /// Whether `v` is active now.
    #[inline]
    pub(crate) fn is_active(&self, program: &P, v: VertexId) -> bool {
        program.active(self.now[v as usize].load(), self.seen[v as usize].load())
    }

    /// The priority bucket of `v` now.
    #[inline]
    pub(crate) fn bucket(&self, program: &P, v: VertexId) -> u32 {
        program.bucket(self.now[v as usize].load())
    }

    /// The final values.
    pub(crate) fn into_values(self) -> Vec<P::Value> {
        self.into_values_and_senders().0
    }

    /// The final values, and the senders where the run kept them.
    pub(crate) fn into_values_and_senders(self) -> (Vec<P::Value>, Option<Senders>) {
        (self.now.par_iter().map(AtomicCell::load).collect(), self.senders)
    }

    /// `from` sent `v` the value it now holds, in a step whose stores cannot race with another
    /// value's (see [`Senders`]); nothing unless the run keeps senders.
    #[inline]
    pub(crate) fn sent(&self, v: VertexId, from: VertexId) {
        if let Some(senders) = &self.senders {
            senders.store(v, from);
        }
    }

    /// `from` sent `v` `value`, in a step whose stores can race with another value's (see
    /// [`Senders`]); nothing unless the run keeps senders.
    #[inline]
    pub(crate) fn sent_racing(&self, v: VertexId, value: P::Value, from: VertexId) {
        if let Some(senders) = &self.senders {
            senders.keep_least(v, convert(value), from);
        }
    }
}

/// The degree of `v` by a CSR's `offsets`, saturating at `u32::MAX`; 0 for an id out of range.
#[inline]
fn degree_in(offsets: &[u64], v: VertexId) -> u32 {
    let at = |i: usize| offsets.get(i).copied().unwrap_or(0);
    saturate(at(v as usize + 1).wrapping_sub(at(v as usize)))
}

/// Degrees as `u32`, saturating.
#[inline]
fn saturate(d: u64) -> u32 {
    u32::try_from(d).unwrap_or(u32::MAX)
}

/// The [`Vertex`] view of `v` in `graph`. It cannot panic, so the compiler drops the degree loads of
/// an `init` that ignores them.
#[inline]
pub(crate) fn vertex_of(graph: &Graph, v: VertexId) -> Vertex {
    Vertex {
        id: v,
        out_degree: degree_in(graph.out_csr().offsets(), v),
        in_degree: degree_in(graph.in_csr().offsets(), v),
        num_vertices: graph.num_vertices() as u32,
    }
}
