//! Where the host hands the run to other kernels, as [`HostRun`]'s methods: linking the classes of a
//! program whose values are labels (module `link`), asynchronous rounds from the start (module
//! `asynchronous`), the persistent kernels of full or push-pull fusion from the first step, and under
//! selective fusion a stretch of small steps to the persistent kernel (module `fused`), which hands
//! the run back, ends it, or hands it on to asynchronous rounds.

use simdx_core::acc::device::{label_program, DeviceProgram};
use simdx_core::engine::{Direction, FusionPolicy, IterationStats, LabelPolicy, Run};

use super::run_state::HostRun;
use super::steps::Step;
use crate::asynchronous::AsyncRounds;
use crate::device_structs::step::OUT_EDGES;
use crate::error::CudaError;
use crate::fused::{Handback, LoopState};
use crate::link::Linking;

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
    /// Whether the run links classes instead of propagating labels: a program whose values are labels,
    /// under [`LabelPolicy::Link`], without an iteration cap.
    pub(super) fn links(&self) -> bool {
        label_program::<P>() && self.opts.labels == LabelPolicy::Link && self.opts.max_iterations == u32::MAX
    }

    /// Links the classes (module `link`) and returns its records; `None`, having changed nothing, when
    /// some vertex does not start as its own label (the run then propagates).
    pub(super) fn link(&mut self) -> Result<Option<Vec<IterationStats>>, CudaError> {
        let linking = Linking {
            kernels: &self.kernels,
            stream: &self.stream,
            state: &self.state,
            counters: &mut *self.counters,
            scratch: &*self.next,
            n: self.n,
            directed: self.graph.incoming.is_some(),
            sm_count: self.shapes.sms,
        };
        linking.run()
    }

    /// The end of a linked run, with linking's `records`.
    pub(super) fn linked(mut self, records: Vec<IterationStats>) -> Result<Run<P::Value>, CudaError> {
        self.stats.iterations = records;
        self.stop_clock()?;
        self.result()
    }

    /// Whether the run is asynchronous rounds from the start (fusion `Async` for a program that can).
    pub(super) fn starts_asynchronously(&self) -> bool {
        self.queue.is_some() && self.opts.fusion == FusionPolicy::Async
    }

    /// Asynchronous rounds from the start to the end of the run: every initially active vertex goes
    /// into the work queue; nothing is handed over.
    pub(super) fn asynchronous_to_end(mut self) -> Result<Run<P::Value>, CudaError> {
        let rounds = AsyncRounds {
            gpu: &self.graph.gpu,
            kernels: &self.kernels,
            state: &self.state,
            queue: self.queue.expect("asynchronous rounds come with their queue"),
            list: &*self.frontier,
            len: 0,
            bucket: 0,
            blocks_override: self.engine.blocks_override,
        };
        let (records, grid) = rounds.run()?;
        self.stats.iterations.extend(records);
        self.stop_clock()?;
        if let Ok(mut last) = self.engine.last_grid.lock() {
            *last = Some(("sx_async".to_string(), grid));
        }
        self.result()
    }

    /// Whether the persistent kernels run the whole run (fusion `all` or `push-pull`).
    pub(super) fn fused_throughout(&self) -> bool {
        self.session.is_some() && matches!(self.opts.fusion, FusionPolicy::All | FusionPolicy::PushPull)
    }

    /// The persistent kernels from the first frontier to the end of the run.
    pub(super) fn fused_to_end(mut self) -> Result<Run<P::Value>, CudaError> {
        let session = self.session.as_mut().expect("checked by fused_throughout");
        let from = LoopState { len: self.len, bucket: 0, iterations: 0, pending_maybe: true, fcur: self.fcur };
        session.run(&self.state, from, &mut self.stats)?;
        if let Ok(mut last) = self.engine.last_grid.lock() {
            *last = session.last.take();
        }
        self.stop_clock()?;
        self.result()
    }

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
