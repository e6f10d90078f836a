//! A next frontier handed on as a bitmap rather than a list ([`Handed`]), for voting programs that push
//! their live value, with no global sum, whose message depends on the value alone (BFS): what the next
//! step needs of a vertex is then its bit and its value. A pull marks the vertices it reaches in the
//! next bitmap block by block; a push's "touched" flags are moved there after the step. Either way each
//! vertex is tested ([`Tally::add`]) while it is in cache: whether it is active and within the current
//! bucket, its out-edges, and what it sends.

use super::state::VertexState;
use super::uniform::Uniform;
use crate::acc::{AtomicCell, ProgramHints};
use crate::VertexId;

/// The next frontier as a step handed it on: the vertices it reached, marked in a bitmap rather than
/// listed, each active and within the current bucket, none prepared yet.
pub(crate) struct Handed<M> {
    /// How many.
    pub(crate) count: usize,
    /// Their out-edges.
    pub(crate) out_edges: u64,
    /// Whether they all send one message ([`Program::source_value`]), and which.
    pub(crate) uniform: Uniform<M>,
}

/// What a task found of the vertices it handed on, merged over the tasks of a step.
pub(crate) struct Tally<M> {
    handed: Handed<M>,
    /// Whether each is active and within the bucket (else the step lists them as usual).
    fits: bool,
}

impl<M: PartialEq + Copy> Tally<M> {
    /// Nothing found yet.
    pub(crate) fn new() -> Self {
        Tally { handed: Handed { count: 0, out_edges: 0, uniform: Uniform::Empty }, fits: true }
    }

    /// Counts `vertices` (reached this step) and tests each against `bucket`. The sums are kept in
    /// locals: through `&mut self` they would be stored every vertex (measurements:
    /// `docs/experiments/cpu-bfs.md`).
    #[inline]
    pub(crate) fn add<P: ProgramHints<Message = M>>(
        &mut self,
        program: &P,
        state: &VertexState<'_, P>,
        vertices: impl Iterator<Item = VertexId>,
        bucket: u32,
    ) {
        let Handed { mut count, mut out_edges, mut uniform } = self.handed;
        let mut fits = self.fits;
        for v in vertices {
            let new = state.now[v as usize].load();
            fits &= program.active(new, state.seen[v as usize].load()) && program.bucket(new) <= bucket;
            count += 1;
            out_edges += state.graph.out_degree(v);
            uniform = uniform.merge(Uniform::One(program.source_value(state.vertex(v), new, new)));
        }
        *self = Tally { handed: Handed { count, out_edges, uniform }, fits };
    }

    /// What both found.
    pub(crate) fn merge(self, other: Self) -> Self {
        Tally {
            handed: Handed {
                count: self.handed.count + other.handed.count,
                out_edges: self.handed.out_edges + other.handed.out_edges,
                uniform: self.handed.uniform.merge(other.handed.uniform),
            },
            fits: self.fits && other.fits,
        }
    }

    /// The frontier to hand on, if every vertex fits and there is one.
    pub(crate) fn handed(self) -> Option<Handed<M>> {
        (self.fits && self.handed.count > 0).then_some(self.handed)
    }
}
