//! [`CudaEngine`]: runs any [`DeviceProgram`] on a [`DeviceGraph`], one kernel launch per step (fusion
//! mode `none`), with the same iteration semantics as the CPU backend: snapshot of the frontier's
//! values, optional global sum, push or pull by the direction policy, online or ballot filter per the
//! filter policy, apply, priority buckets, and the program's stopping test.
//!
//! [`CudaEngine::run`] is the driver, in the CPU engine's shape: a run state ([`run_state::HostRun`])
//! made before the clock starts (module `setup`), its hand-overs of a whole run to other kernels
//! (module `handover`), then a short loop over its steps (module `steps`), one method per phase.
//! Module `kernels` holds the step kernels' launch shapes and counter slots; module `weights` the
//! arcs and weights a program reads.

mod handover;
pub(crate) mod kernels;
mod run_state;
mod setup;
mod share_packets;
mod share_sources;
mod share_steps;
mod steps;
mod units;
mod weights;

pub(crate) use run_state::{Ended, Finishing, ReadBack};
pub(crate) use share_steps::{PairBuffers, ShareLink};
pub(crate) use units::SenderStores;
#[cfg(test)]
pub(crate) use units::PHASES;

pub use units::{kernel_source, kernel_units, KERNEL_GROUPS, STEP_GROUPS};

use std::time::Instant;

use simdx_core::acc::device::DeviceProgram;
use simdx_core::engine::{policy, Direction, FusionPolicy, Run, RunOptions};

use self::handover::Flow;
use self::run_state::{HostRun, RunPlan};
use self::units::{kernel_units_for, program_kernels};
use crate::asynchronous::runs_asynchronously;
use crate::device_structs::step::EDGES;
use crate::error::CudaError;
use crate::graph::DeviceGraph;

/// Where a run that keeps senders writes them, and which of its steps do.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SenderPlan {
    /// The device addresses of `sx_state`'s `senders` and `sender_words` (0 for words that no step
    /// writes: [`SenderStores::Synchronous`]).
    pub(crate) at: [u64; 2],
    pub(crate) stores: SenderStores,
}

/// Runs programs on the GPU.
#[derive(Debug, Clone, Default)]
pub struct CudaEngine {
    options: RunOptions,
    blocks_override: Option<u32>,
    /// Selective fusion's hand-back threshold on a frontier's out-edges, instead of the default.
    fusion_threshold: Option<u64>,
    /// Cells of the asynchronous rounds' queue, instead of the default.
    queue_cells: Option<u32>,
    /// Whether a run under selective fusion may start before its persistent kernels are compiled,
    /// instead of the process's setting.
    defer_compile: Option<bool>,
    last_grid: std::sync::Arc<std::sync::Mutex<Option<(String, crate::FusedGrid)>>>,
}

impl CudaEngine {
    /// An engine with `options`.
    pub fn new(options: RunOptions) -> Self {
        CudaEngine {
            options,
            blocks_override: None,
            fusion_threshold: None,
            queue_cells: None,
            defer_compile: None,
            last_grid: Default::default(),
        }
    }

    /// Launches fused kernels with `blocks` blocks instead of the largest co-resident grid. A grid that
    /// cannot be co-resident is refused by the driver (an error, never a hang); for tests.
    pub fn with_fused_blocks(mut self, blocks: u32) -> Self {
        self.blocks_override = Some(blocks);
        self
    }

    /// Under selective fusion ([`FusionPolicy::Auto`]), runs a step in the persistent kernel when its
    /// frontier has at most `edges` out-edges, instead of a few per thread of the kernel's grid; for
    /// tests (a small threshold makes small graphs hand steps back and forth) and measurements.
    pub fn with_fusion_threshold(mut self, edges: u64) -> Self {
        self.fusion_threshold = Some(edges);
        self
    }

    /// Gives asynchronous rounds ([`FusionPolicy::Async`]) a work queue of `cells` cells instead of two
    /// per vertex. Vertices that do not fit wait for the next epoch (the queue starts again at its first
    /// cell once the others are done); for tests of that, and measurements.
    pub fn with_queue_cells(mut self, cells: u32) -> Self {
        self.queue_cells = Some(cells);
        self
    }

    /// Lets a run under selective fusion start before its program's persistent kernels are compiled
    /// (they then compile in the background, and the run takes every step on the host), or makes it
    /// wait for them, whatever [`crate::defer_persistent_kernels`] says for the process.
    pub fn with_deferred_compile(mut self, on: bool) -> Self {
        self.defer_compile = Some(on);
        self
    }

    /// The fused kernel the last run launched, with its grid and registers (`None` after a run
    /// without fusion).
    pub fn last_fused_kernel(&self) -> Option<(String, crate::FusedGrid)> {
        self.last_grid.lock().ok().and_then(|g| g.clone())
    }

    /// The grid a fused kernel of program `P` gets on `graph`'s GPU: occupancy, blocks, registers.
    pub fn fused_grid<P: DeviceProgram>(&self, graph: &DeviceGraph) -> Result<crate::FusedGrid, CudaError> {
        let (kernels, _) = program_kernels(&kernel_units::<P>(), &graph.gpu, FusionPolicy::All, false)?;
        let name = match self.options.fusion {
            FusionPolicy::All | FusionPolicy::None | FusionPolicy::Auto => "sx_fused_all",
            FusionPolicy::PushPull => "sx_fused_push",
            FusionPolicy::Async if runs_asynchronously::<P>(&self.options) => "sx_async",
            FusionPolicy::Async => "sx_fused_all",
        };
        crate::fused::grid_for(&graph.gpu, &kernels.get(name)?)
    }

    /// The options runs use.
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// Runs `program` on `graph`.
    pub fn run<P: DeviceProgram>(&self, program: &P, graph: &DeviceGraph) -> Result<Run<P::Value>, CudaError> {
        self.run_finishing(program, graph, None)
    }

    /// As [`CudaEngine::run`], with `finishing` launched on the run's final values before the clock
    /// stops.
    pub(crate) fn run_finishing<P: DeviceProgram>(
        &self,
        program: &P,
        graph: &DeviceGraph,
        finishing: Option<Finishing<'_>>,
    ) -> Result<Run<P::Value>, CudaError> {
        self.run_planned(program, graph, finishing, None)
    }

    /// As [`CudaEngine::run_finishing`], writing each vertex's sender where `senders` says (see
    /// [`CudaEngine::run_with_senders`]).
    pub(crate) fn run_planned<P: DeviceProgram>(
        &self,
        program: &P,
        graph: &DeviceGraph,
        finishing: Option<Finishing<'_>>,
        senders: Option<SenderPlan>,
    ) -> Result<Run<P::Value>, CudaError> {
        let plan = self.plan_for::<P>()?;
        let plan = match senders {
            Some(senders) => plan.keeping_senders(senders.at),
            None => plan,
        };
        simdx_core::engine::promise::check_update_grows_with_weight(program)?;
        let entered = Instant::now();
        let units = kernel_units_for::<P>(senders.map_or(SenderStores::Off, |s| s.stores));
        let (kernels, persistent) = program_kernels(&units, &graph.gpu, plan.opts.fusion, self.defers_compile())?;
        let plan = if persistent { plan } else { plan.on_the_host() };
        simdx_core::acc::check_lengths(program, graph.num_vertices as usize)?;
        let mut slot = graph.run_workspace()?;
        let ws = slot.as_mut().expect("made by run_workspace");
        let mut run = HostRun::new(self, program, graph, ws, plan, kernels, entered, None)?;
        run.finishing = finishing;
        run.init()?;
        if run.links() {
            if let Some(records) = run.link()? {
                return run.linked(records);
            }
        }
        if run.starts_asynchronously() {
            return run.asynchronous_to_end();
        }
        run.first_frontier()?;
        if run.fused_throughout() {
            return run.fused_to_end();
        }
        while let Some(sources) = run.next_step()? {
            let step = run.prepare(sources)?;
            match run.hand_over(&step)? {
                Flow::Host => {}
                Flow::Again => continue,
                Flow::Done => break,
            }
            match step.direction {
                Direction::Push => run.push(&step)?,
                Direction::Pull => run.pull(&step)?,
            }
            let counters = run.relaxed(&step)?;
            let (reached, filter) = run.filter(&counters)?;
            let change = run.apply(reached, &step)?;
            if run.record(&step, filter, counters[EDGES], change) {
                break;
            }
            run.select(reached)?;
        }
        run.finish()
    }

    /// Whether a run under selective fusion may start before its persistent kernels are compiled.
    fn defers_compile(&self) -> bool {
        self.defer_compile.unwrap_or_else(crate::compile::deferring)
    }

    /// The options a run of `P` takes: the engine's, validated, with the direction policy for `P` on
    /// the GPU; asynchronous rounds from the start (`Async`) or after many small steps (`Auto`), where
    /// `P` can run them; a program that cannot runs as under `Auto`.
    fn plan_for<P: DeviceProgram>(&self) -> Result<RunPlan, CudaError> {
        policy::validate(&self.options)?;
        let direction = policy::direction_for::<P>(self.options.direction, &policy::GPU);
        let mut opts = RunOptions { direction, ..self.options };
        let asynchronous = runs_asynchronously::<P>(&opts);
        if opts.fusion == FusionPolicy::Async && !asynchronous {
            opts.fusion = FusionPolicy::Auto;
        }
        let asynchronous = asynchronous && matches!(opts.fusion, FusionPolicy::Auto | FusionPolicy::Async);
        Ok(RunPlan { opts, asynchronous, senders: [0; 2] })
    }
}
