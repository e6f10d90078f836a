//! Runs that also keep each vertex's *sender*: the vertex whose update set its final value (for BFS,
//! its parent in the search tree). The engine writes it where the update lands (kernels/push.cu,
//! pull.cu, chunks.cu, async.cu: `sx_sent_by`, `sx_sent_min`; compiled in only for such runs, as
//! SX_SENDERS) into arrays no step reads, so that a run keeps its values' width (BFS levels stay 32
//! bits) and pays one store per update that lands. Level-synchronous steps store the sender (every
//! update a vertex gets in one step is alike, so any is right); asynchronous rounds, which can lower a
//! value twice at once, keep in a second array a word with the value above the sender, the least one
//! by an atomic, so that the sender is the one of the value that stood. Asynchronous rounds come last
//! in a run, so their word, where there is one, is the sender. Hence voting min programs of `u32`
//! values that apply in place only. A breadth-first search can do without the words: its rounds store
//! nothing, and a pass after the run names the senders they left out by the levels.

use cudarc::driver::{CudaSlice, DevicePtr};
use simdx_core::acc::device::DeviceProgram;
use simdx_core::acc::{Apply, CombineKind, CombineOp};
use simdx_core::engine::Run;
use simdx_core::VertexId;

use crate::engine::{Ended, SenderPlan, SenderStores};
use crate::error::{driver, CudaError};
use crate::graph::DeviceGraph;
use crate::tree::TreePass;
use crate::CudaEngine;

/// The sender of a vertex no update reached (its initial value stood).
pub const NO_SENDER: u32 = u32::MAX;

impl CudaEngine {
    /// Runs `program` on `graph` as [`CudaEngine::run`] does, and returns beside the run each vertex's
    /// sender: the vertex whose update set its value, [`NO_SENDER`] where none did. `program` must
    /// vote, combine by min and apply in place ([`CudaError::SendersNeedVoting`] otherwise); its run
    /// propagates labels rather than linking them.
    pub fn run_with_senders<P: DeviceProgram<Value = u32>>(
        &self,
        program: &P,
        graph: &DeviceGraph,
    ) -> Result<(Run<u32>, Vec<u32>), CudaError> {
        check_voting::<P>()?;
        let stream = &graph.gpu.stream;
        let n = graph.num_vertices.max(1) as usize;
        graph.gpu.check_free("the senders", n as u64 * 12)?;
        let what = "allocating the senders";
        let senders = stream.clone_htod(&vec![NO_SENDER; n]).map_err(driver(what))?;
        let words = stream.clone_htod(&vec![u64::MAX; n]).map_err(driver(what))?;
        let at = [senders.device_ptr(stream).0, words.device_ptr(stream).0];
        let plan = SenderPlan { at, stores: SenderStores::Everywhere };
        let run = self.run_planned(program, graph, None, Some(plan))?;
        let senders = stream.clone_dtoh(&senders).map_err(driver("reading the senders"))?;
        let words = stream.clone_dtoh(&words).map_err(driver("reading the senders"))?;
        let n = graph.num_vertices as usize;
        Ok((run, senders.iter().zip(&words).take(n).map(|(&s, &w)| sender_of(s, w)).collect()))
    }

    /// [`CudaEngine::run_with_senders`] for a breadth-first search from `source` (`levels`: a program
    /// whose values are levels, `u32::MAX` where unreached, simdx-algos' `Bfs`), whose asynchronous
    /// rounds record no senders: where they ran, each vertex they reached gets, before the clock stops,
    /// the first of its in-neighbours one level closer (kernels/tree.cu, mending), a vertex whose update
    /// would have set its level. The source's sender is itself when the pass ran, else [`NO_SENDER`].
    /// What it saves: an 8-byte atomic per improvement of the rounds, which a grid's long search pays
    /// for most of its vertices (docs/experiments/bfs-parents.md).
    pub fn run_bfs_with_senders<P: DeviceProgram<Value = u32>>(
        &self,
        levels: &P,
        graph: &DeviceGraph,
        source: VertexId,
    ) -> Result<(Run<u32>, Vec<u32>), CudaError> {
        check_voting::<P>()?;
        let stream = &graph.gpu.stream;
        let n = graph.num_vertices.max(1) as usize;
        graph.gpu.check_free("the senders", n as u64 * 4)?;
        let senders = stream.clone_htod(&vec![NO_SENDER; n]).map_err(driver("allocating the senders"))?;
        let pass = TreePass::new(graph, &senders, source, true)?;
        let mend = |values: &CudaSlice<u8>, ended: Ended| match ended {
            Ended::Asynchronously => pass.launch(values),
            Ended::Synchronously => Ok(()),
        };
        let plan = SenderPlan { at: [senders.device_ptr(stream).0, 0], stores: SenderStores::Synchronous };
        let run = self.run_planned(levels, graph, Some(&mend), Some(plan))?;
        let mut senders = stream.clone_dtoh(&senders).map_err(driver("reading the senders"))?;
        senders.truncate(graph.num_vertices as usize);
        Ok((run, senders))
    }
}

/// [`CudaError::SendersNeedVoting`] unless `P` votes, combines by min and applies in place.
fn check_voting<P: DeviceProgram>() -> Result<(), CudaError> {
    match P::KIND == CombineKind::Voting && P::APPLY == Apply::InPlace && P::OP == CombineOp::Min {
        true => Ok(()),
        false => Err(CudaError::SendersNeedVoting),
    }
}

/// A vertex's sender from its level-synchronous one and its word from asynchronous rounds (`u64::MAX`:
/// none), which came later.
fn sender_of(synchronous: u32, word: u64) -> u32 {
    if word == u64::MAX {
        synchronous
    } else {
        word as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_asynchronous_sender_word_overrides_the_synchronous_sender() {
        assert_eq!(sender_of(NO_SENDER, u64::MAX), NO_SENDER);
        assert_eq!(sender_of(9, u64::MAX), 9);
        assert_eq!(sender_of(9, (3u64 << 32) | 17), 17);
        assert_eq!(sender_of(NO_SENDER, 5), 5, "value 0, sender 5");
    }
}
