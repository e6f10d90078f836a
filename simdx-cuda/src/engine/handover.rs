//! Where the host hands the run to other kernels, as [`HostRun`]'s methods: under selective fusion a
//! stretch of small steps to the persistent kernel (module `fused`), which hands the run back, ends
//! it, or hands it on to asynchronous rounds.

use simdx_core::acc::device::DeviceProgram;
use simdx_core::engine::Direction;

use super::kernels::OUT_EDGES;
use super::run_state::HostRun;
use super::steps::Step;
use crate::asynchronous::AsyncRounds;
use crate::error::CudaError;
use crate::fused::{Handback, LoopState};

/// What the host loop does after offering a step to the persistent kernel.
pub(super) enum Flow {
    /// The host runs the step.
    Host,
    /// The persistent kernel ran steps up to a big one, which the host runs from the top of its loop.
    Again,
    /// The run is over.
    Done,
}

impl<P: DeviceProgram> HostRun<'_, P> {
    /// Selective fusion: a small step (or a push whose sources have few arcs each, or a settle step's
    /// pull) goes to the persistent kernel, which prepares the frontier again, to the same result, and
    /// takes over until a step is big or the run ends.
    pub(super) fn hand_over(&mut self, step: &Step) -> Result<Flow, CudaError> {
        let out_edges = step.counters[OUT_EDGES];
        let work = crate::fused::step_work(out_edges, self.n, self.every);
        // A settle step's pull stays in the persistent kernel too, as its `spread` says.
        let spread = !self.every
            && ((step.direction == Direction::Push && crate::fused::spread_push(out_edges, step.sources))
                || (step.settle() && step.direction == Direction::Pull));
        let host_above = self.host_above;
        let Some(session) = self.session.as_mut().filter(|_| host_above > 0 && (work <= host_above || spread)) else {
            return Ok(Flow::Host);
        };
        let from = LoopState {
            len: self.len,
            bucket: self.bucket,
            iterations: self.iterations,
            pending_maybe: self.pending_maybe,
            fcur: self.fcur,
        };
        match session.run(&self.state, from, &mut self.stats)? {
            Handback::Done => Ok(Flow::Done),
            Handback::Host(back) => {
                LoopState {
                    len: self.len,
                    bucket: self.bucket,
                    iterations: self.iterations,
                    pending_maybe: self.pending_maybe,
                    fcur: self.fcur,
                } = back;
                Ok(Flow::Again)
            }
            Handback::Async(back) => {
                // Asynchronous rounds finish the run from the prepared frontier.
                let rounds = AsyncRounds {
                    gpu: &self.graph.gpu,
                    kernels: &self.kernels,
                    state: &self.state,
                    queue: self.queue.expect("a hand-over to asynchronous rounds comes with their queue"),
                    list: &*self.frontier,
                    len: back.len,
                    bucket: back.bucket,
                    blocks_override: self.engine.blocks_override,
                };
                self.stats.iterations.extend(rounds.run()?.0);
                Ok(Flow::Done)
            }
        }
    }
}
