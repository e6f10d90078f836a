//! Label shortcuts (pointer jumping) for programs whose values name vertices
//! ([`Program::VALUES_ARE_LABELS`]: WCC): after a step, each vertex it reached follows its chain of
//! labels (`label = combine(label, label[label])`) to the end, so that a label crosses many hops per
//! step instead of one. Runs between steps, when no update is in flight: the only concurrent writers
//! are other followers, which store with the program's own combine, so a label only improves.

use rayon::prelude::*;

use super::state::VertexState;
use crate::acc::program::labelled_vertex;
use crate::acc::{AtomicCell, ProgramHints};
use crate::VertexId;

/// Vertices a task follows at a time.
const CHUNK: usize = 4096;

/// Follows the labels of every vertex of `lists` (which may repeat vertices).
pub(crate) fn follow_lists<P: ProgramHints>(state: &VertexState<'_, P>, lists: &[Vec<VertexId>]) {
    lists.par_iter().for_each(|list| follow(state, list));
}

/// Follows the labels of every vertex of `list`.
pub(crate) fn follow<P: ProgramHints>(state: &VertexState<'_, P>, list: &[VertexId]) {
    list.par_chunks(CHUNK).for_each(|chunk| {
        for &v in chunk {
            follow_one(state, v);
        }
    });
}

/// Follows `v`'s chain of labels while it improves and stores the end. The chain strictly improves
/// under a `Min` or `Max` combine, so it ends.
#[inline]
fn follow_one<P: ProgramHints>(state: &VertexState<'_, P>, v: VertexId) {
    let n = state.len();
    let start = state.now[v as usize].load();
    let mut label = start;
    while let Some(named) = labelled_vertex(label, n) {
        let better = P::OP.apply(label, state.now[named].load());
        if better == label {
            break;
        }
        label = better;
    }
    if label != start {
        state.now[v as usize].combine(P::OP, label, |a, b| P::OP.apply(a, b));
    }
}
