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
mod steps;
mod weights;

use std::time::Instant;

use simdx_core::acc::device::{device_unit, DeviceProgram};
use simdx_core::engine::{policy, Direction, FusionPolicy, Run, RunOptions};

use self::handover::Flow;
use self::run_state::{HostRun, RunPlan};
use self::steps::Bucket;
use crate::asynchronous::runs_asynchronously;
use crate::device_structs::{self, step::EDGES};
use crate::error::CudaError;
use crate::graph::DeviceGraph;
use crate::launch::{Kernels, GRID_BARRIER};
use crate::workspace::Workspace;

/// The step kernels (one launch per phase), one file per phase, in the order they are compiled: after
/// the prelude and the program's device code, before the grid barrier and the fused kernels.
pub(crate) const PHASES: [(&str, &str); 12] = [
    ("state.cu", include_str!("../kernels/state.cu")),
    ("online_filter.cu", include_str!("../kernels/online_filter.cu")),
    ("prepare.cu", include_str!("../kernels/prepare.cu")),
    ("push.cu", include_str!("../kernels/push.cu")),
    ("pull.cu", include_str!("../kernels/pull.cu")),
    ("tiles.cu", include_str!("../kernels/tiles.cu")),
    ("chunks.cu", include_str!("../kernels/chunks.cu")),
    ("apply.cu", include_str!("../kernels/apply.cu")),
    ("select.cu", include_str!("../kernels/select.cu")),
    ("buckets.cu", include_str!("../kernels/buckets.cu")),
    ("scan.cu", include_str!("../kernels/scan.cu")),
    ("link.cu", include_str!("../kernels/link.cu")),
];
/// The fused (persistent) kernels, compiled after [`PHASES`] and [`GRID_BARRIER`].
const FUSED_KERNELS: &str = include_str!("../kernels/fused.cu");
/// The asynchronous rounds' kernel, compiled last.
const ASYNC_KERNEL: &str = include_str!("../kernels/async.cu");

/// Runs programs on the GPU.
#[derive(Debug, Clone, Default)]
pub struct CudaEngine {
    options: RunOptions,
    blocks_override: Option<u32>,
    /// Selective fusion's hand-back threshold on a frontier's out-edges, instead of the default.
    fusion_threshold: Option<u64>,
    /// Cells of the asynchronous rounds' queue, instead of the default.
    queue_cells: Option<u32>,
    last_grid: std::sync::Arc<std::sync::Mutex<Option<(String, crate::FusedGrid)>>>,
}

/// The groups of the engine's kernels, each compiled as a unit of its own (the whole source with
/// `SX_KERNELS_<GROUP>` defined, which keeps that group's kernels: the `#ifdef`s of kernels/*.cu), all
/// units at once: the step kernels but pushes and pulls, the pushes, the pulls, linking, each fused
/// kernel, the asynchronous rounds. A cold cache then costs about the slowest unit, not their sum.
pub const KERNEL_GROUPS: [&str; 8] =
    ["PREPARE", "PUSH", "PULL", "LINK", "FUSED_PUSH", "FUSED_PULL", "FUSED_ALL", "ASYNC"];

/// The full source of program `P` with every group of kernels: prelude, program, the host-device
/// structs and counter slots generated from their Rust declarations (`device_structs::engine_header`),
/// the kernel files (with `#line` directives, so that compiler messages name the kernel files rather
/// than the program's source), and the checks of the constants both sides keep
/// (`device_structs::engine_footer`).
pub fn kernel_source<P: DeviceProgram>() -> String {
    unit_source::<P>(&KERNEL_GROUPS)
}

/// The units [`CudaEngine`] compiles for program `P`: one per group of [`KERNEL_GROUPS`].
pub fn kernel_units<P: DeviceProgram>() -> Vec<String> {
    KERNEL_GROUPS.iter().map(|group| unit_source::<P>(&[group])).collect()
}

/// The source of program `P` with the kernels of `groups`.
fn unit_source<P: DeviceProgram>(groups: &[&str]) -> String {
    let files = [("device_structs.rs (generated)", device_structs::engine_header())]
        .into_iter()
        .chain(PHASES.iter().copied())
        .chain([
            ("barrier.cu", GRID_BARRIER),
            ("fused.cu", FUSED_KERNELS),
            ("async.cu", ASYNC_KERNEL),
            ("device_structs.rs (generated)", device_structs::engine_footer()),
        ]);
    let mut source: String = groups.iter().map(|group| format!("#define SX_KERNELS_{group} 1\n")).collect();
    source.push_str(&device_unit::<P>());
    for (name, text) in files {
        let dir = if name.ends_with(".cu") { "kernels/" } else { "" };
        source.push_str(&format!("\n#line 1 \"simdx-cuda/src/{dir}{name}\"\n{text}"));
    }
    source
}

/// Program `P`'s kernels on `gpu`: its units compiled (or taken from a cache) and loaded.
fn program_kernels<P: DeviceProgram>(gpu: &crate::Gpu) -> Result<Kernels, CudaError> {
    let units = kernel_units::<P>();
    let sources: Vec<&str> = units.iter().map(String::as_str).collect();
    let (modules, _) = gpu.compile_all(&sources)?;
    Ok(Kernels::split(modules))
}

impl CudaEngine {
    /// An engine with `options`.
    pub fn new(options: RunOptions) -> Self {
        CudaEngine {
            options,
            blocks_override: None,
            fusion_threshold: None,
            queue_cells: None,
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

    /// The fused kernel the last run launched, with its grid and registers (`None` after a run
    /// without fusion).
    pub fn last_fused_kernel(&self) -> Option<(String, crate::FusedGrid)> {
        self.last_grid.lock().ok().and_then(|g| g.clone())
    }

    /// The grid a fused kernel of program `P` gets on `graph`'s GPU: occupancy, blocks, registers.
    pub fn fused_grid<P: DeviceProgram>(&self, graph: &DeviceGraph) -> Result<crate::FusedGrid, CudaError> {
        let kernels = program_kernels::<P>(&graph.gpu)?;
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
        let plan = self.plan_for::<P>()?;
        simdx_core::engine::promise::check_update_grows_with_weight(program)?;
        let entered = Instant::now();
        let kernels = program_kernels::<P>(&graph.gpu)?;
        simdx_core::acc::check_lengths(program, graph.num_vertices as usize)?;
        // The run's arrays live with the device graph and are reused by every run on it (each run
        // re-initialises what it reads); only the first run on a graph allocates.
        let mut slot = graph.workspace.lock().map_err(|_| CudaError::Driver {
            what: "reusing the run's buffers",
            message: "an earlier run on this graph panicked".into(),
        })?;
        if slot.is_none() {
            *slot = Some(Workspace::new(&graph.gpu, graph.num_vertices)?);
        }
        let ws = slot.as_mut().expect("just made");
        let mut run = HostRun::new(self, program, graph, ws, plan, kernels, entered)?;
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
        loop {
            let owed = match run.change_bucket()? {
                Bucket::Stale => continue,
                Bucket::Owed(owed) => owed,
            };
            if run.ended(owed) {
                break;
            }
            let step = run.prepare(owed)?;
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
        Ok(RunPlan { opts, asynchronous })
    }
}

#[cfg(test)]
mod tests {
    use super::{ASYNC_KERNEL, FUSED_KERNELS, KERNEL_GROUPS, PHASES};

    /// Every kernel of the engine's files sits in the `#ifdef` of one group of [`KERNEL_GROUPS`], so
    /// that exactly one unit compiles it, and every group has a kernel.
    #[test]
    fn every_kernel_is_in_exactly_one_group() {
        let files = PHASES.iter().map(|(_, text)| *text).chain([FUSED_KERNELS, ASYNC_KERNEL]);
        let mut per_group = vec![0; KERNEL_GROUPS.len()];
        for text in files {
            let mut open: Option<usize> = None;
            for line in text.lines() {
                if let Some(group) = line.strip_prefix("#ifdef SX_KERNELS_") {
                    let index = KERNEL_GROUPS.iter().position(|g| *g == group.trim());
                    assert!(index.is_some(), "unknown kernel group in `{line}`");
                    open = index;
                } else if line.starts_with("#endif") {
                    open = None;
                } else if line.contains("__global__") {
                    let group = open.unwrap_or_else(|| panic!("a kernel outside every group: `{line}`"));
                    per_group[group] += 1;
                }
            }
        }
        for (group, count) in KERNEL_GROUPS.iter().zip(per_group) {
            assert!(count > 0, "group {group} has no kernel");
        }
    }
}
