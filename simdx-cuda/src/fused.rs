//! The host side of push-pull kernel fusion: sizes the persistent grid from the occupancy API (blocks
//! per SM for the compiled kernel's registers and shared memory, times the SM count), launches it
//! cooperatively (so the driver refuses, never hangs, a grid that could not be co-resident), relaunches
//! the other direction's kernel when a push-pull run switches, and turns the device's per-iteration log
//! into [`IterationStats`].

use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use simdx_core::engine::{Direction, DirectionPolicy, FilterUsed, FusionPolicy, IterationStats, RunOptions, RunStats};

use crate::device_structs::step::COUNTERS;
use crate::device_structs::SxFused;
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::launch::{Kernels, BLOCK, GRID_BARRIER_WORDS};

/// Counter sets in rotation (`SX_RING` in kernels/fused.cu).
pub(crate) const RING: usize = 16;
/// How a fused kernel returned (`status` of `sx_fused`; `SX_STATUS_*` in kernels/fused.cu): a
/// direction switch, a big step for the host, a hand-over to asynchronous rounds.
pub(crate) const STATUS_SWITCH: u32 = 2;
pub(crate) const STATUS_HOST: u32 = 3;
pub(crate) const STATUS_ASYNC: u32 = 4;
/// Iterations whose statistics a fused run records (later ones still run, unrecorded).
const LOG_CAPACITY: u32 = 1 << 16;

/// A persistent kernel's launch shape, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FusedGrid {
    /// Blocks per SM the occupancy API allows.
    pub blocks_per_sm: u32,
    /// Blocks launched.
    pub blocks: u32,
    /// Registers per thread of the compiled kernel.
    pub registers: i32,
}

/// What a fused run needs from the engine's set-up.
pub(crate) struct FusedRun<'a> {
    pub kernels: &'a Kernels,
    pub lists: [&'a CudaSlice<u32>; 2],
    pub push_classes: &'a [CudaSlice<u32>],
    pub pull_classes: &'a [CudaSlice<u32>],
    pub pull_lens: [u32; 4],
    /// The pull's chunks of the CTA and grid classes, and how many.
    pub pull_chunks: (&'a CudaSlice<u64>, u32),
    pub tile_counts: &'a CudaSlice<u32>,
    /// Blocks to launch instead of the occupancy-derived grid (tests of the co-residency guard).
    pub blocks_override: Option<u32>,
    /// Whether pulls read every send slot without a stamp (`SX_SILENT_PULLS` in kernels/state.cu). A field
    /// read at run time, not the compile-time macro: a stamp known to be 0 when the fused kernel is
    /// compiled made NVRTC lay it out differently, and its all-active iterations ran slower
    /// (measurements: `docs/experiments/gpu-fusion.md`).
    pub silent_pulls: bool,
    /// Selective fusion hands a run still going after this many iterations over to asynchronous
    /// rounds (0: never; the program cannot run asynchronously, or the policy is not `Auto`).
    pub async_after: u32,
}

/// The largest cooperative grid for `kernel`: blocks per SM from the occupancy API times the SMs.
pub(crate) fn grid_for(gpu: &Gpu, kernel: &cudarc::driver::CudaFunction) -> Result<FusedGrid, CudaError> {
    let blocks_per_sm = kernel
        .occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0, None)
        .map_err(driver("asking the occupancy of a fused kernel"))?;
    let registers = kernel.num_regs().map_err(driver("reading a kernel's registers"))?;
    Ok(FusedGrid { blocks_per_sm, blocks: blocks_per_sm * gpu.sm_count, registers })
}

/// Where a run stands between launches, handed to a persistent kernel and back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LoopState {
    /// The current frontier's length (in `lists[0]`).
    pub len: u32,
    /// The current bucket.
    pub bucket: u32,
    /// Iterations run so far.
    pub iterations: u32,
    /// Whether vertices may wait in later buckets.
    pub pending_maybe: bool,
    /// Which list of waiting vertices is current.
    pub fcur: u32,
}

/// How a persistent kernel handed a run back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Handback {
    /// The run is over.
    Done,
    /// Selective fusion: the next step is big; the host runs it from this state.
    Host(LoopState),
    /// Selective fusion: many small steps have run; asynchronous rounds finish the run from this
    /// state's prepared frontier (in the first list).
    Async(LoopState),
}

/// The device buffers of a run's fused launches, made once per run; it borrows none of the run's
/// buffers, whose addresses it keeps, so that the host's steps can use them in between.
pub(crate) struct FusedSession<'g> {
    gpu: &'g Gpu,
    blocks_override: Option<u32>,
    opts: RunOptions,
    kernels: Vec<cudarc::driver::CudaFunction>,
    grids: Vec<FusedGrid>,
    ring: CudaSlice<u64>,
    log: CudaSlice<u64>,
    log_capacity: u32,
    /// `sx_fused`, with the loop state to fill in per launch.
    control: SxFused,
    /// Selective fusion's hand-back threshold on a step's work (0: never hand back).
    pub host_above: u64,
    /// The last kernel launched and its grid.
    pub last: Option<(String, FusedGrid)>,
    _barrier: CudaSlice<u32>,
}

/// Selective fusion ([`FusionPolicy::Auto`]): a step runs in the persistent kernel while its work
/// ([`step_work`]) is at most this many arcs per thread of the kernel's grid; a bigger step fills the
/// GPU, and one launch per phase (more blocks, fewer registers) then runs it faster.
const SELECTIVE_EDGES_PER_THREAD: u64 = 32;

/// Selective fusion weighs each vertex of an `Every` program's step (applied and tested in a streaming
/// pass) as `2^-EVERY_VERTEX_SHIFT` arcs. The persistent kernel gets the resulting per-step term from
/// the host (`every_work` in `sx_fused`), so both sides weigh a step alike: were they to disagree, the
/// host would hand a step to the kernel and the kernel would hand it straight back. With a vertex
/// weighed as a whole arc, the grid's PageRank steps (a narrow band of moving ranks, but millions of
/// vertices) went to the host and ran slower than in the persistent kernel (measurements:
/// `docs/experiments/gpu-fusion.md`, "An `Every` program's vertices weigh an eighth of an arc").
const EVERY_VERTEX_SHIFT: u32 = 3;

/// A step's work as selective fusion weighs it against [`FusedSession::host_above`]: the frontier's
/// out-edges, plus a share of every vertex for programs that apply every vertex (`every`).
pub(crate) fn step_work(out_edges: u64, n: u32, every: bool) -> u64 {
    out_edges + u64::from(every_work(n, every))
}

/// Selective fusion keeps a push in the persistent kernel however big when its frontier averages
/// under this many out-arcs a vertex (a uniform graph's big steps: urand:22's average 31-33): the
/// persistent grid runs such a step as fast as a launch per phase, and keeping it saves the hand-back
/// and the relaunch, while pushes from hubs (kron:22: 84 to 2,563 arcs a vertex) run faster as
/// separate launches (a threshold of 512, which kept more of them fused, was slower; measurements:
/// `docs/experiments/gpu-fusion.md`, "Spread pushes stay fused", and `docs/experiments/gpu-traversal.md`,
/// "Degree classes"). The kernel gets it from the host (`spread_arcs` in `sx_fused`), so both sides
/// judge a step alike: were they to disagree, a step would go back and forth.
pub(crate) const SPREAD_ARCS_PER_VERTEX: u32 = 64;

/// Delta-stepping's settle step (the arcs each vertex of an exhausted bucket did not push within it,
/// kernels/state.cu) pulls, for aggregation programs under the automatic direction rule, when its
/// vertices' out-arcs exceed all arcs shifted right by this: the vertices not settled yet then read
/// their in-arcs instead, which after kron:22's bucket 0 (1.14M vertices, 111M of the 128M arcs) are far
/// fewer. The kernel gets it from the host (`settle_pull_shift` in `sx_fused`), so both sides decide
/// alike.
pub(crate) const SETTLE_PULL_SHIFT: u32 = 1;

/// Whether a push from `len` vertices with `out_edges` out-arcs stays in the persistent kernel however
/// big ([`SPREAD_ARCS_PER_VERTEX`]; the same test as `spread` in `kernels/fused.cu`).
pub(crate) fn spread_push(out_edges: u64, len: u32) -> bool {
    out_edges < u64::from(SPREAD_ARCS_PER_VERTEX) * u64::from(len)
}

/// What a step weighs beyond its out-edges: for `Every` programs, the apply and test of all `n`
/// vertices; nothing for others.
fn every_work(n: u32, every: bool) -> u32 {
    if every {
        n >> EVERY_VERTEX_SHIFT
    } else {
        0
    }
}

/// Selective fusion hands a run that could run asynchronously over to asynchronous rounds after
/// [`simdx_core::engine::ASYNC_AFTER_ITERATIONS`] synchronous iterations, or already after this many
/// when every frontier so far held fewer than `n >> ASYNC_EARLY_FRONTIER_SHIFT` vertices (a grid or a
/// road network from its first levels: BFS on the grid then runs as fast as in asynchronous rounds from
/// the start). A program with buckets also waits for bucket [`ASYNC_EARLY_BUCKET`]: delta-stepping's
/// first buckets are small on urand too, which is much slower in asynchronous rounds than synchronously
/// (measurements: `docs/experiments/gpu-async.md`, "A breadth-first search whose first levels all stay
/// small goes asynchronous at once").
pub const ASYNC_EARLY_ITERATIONS: u32 = 8;

/// See [`ASYNC_EARLY_ITERATIONS`]: a program with buckets hands over early only from this bucket on
/// (SSSP on grid:2048x2048 hands over at its 27th step rather than its 64th).
pub const ASYNC_EARLY_BUCKET: u32 = 4;

/// See [`ASYNC_EARLY_ITERATIONS`]: a frontier is small below `n / 4096` vertices.
pub const ASYNC_EARLY_FRONTIER_SHIFT: u32 = 12;

/// The kernels' names, by `which`.
const NAMES: [&str; 3] = ["sx_fused_push", "sx_fused_pull", "sx_fused_all"];

impl FusedRun<'_> {
    /// Allocates what the fused launches of one run share. Under selective fusion the hand-back
    /// threshold is `threshold`, or [`SELECTIVE_EDGES_PER_THREAD`] per thread of `sx_fused_all`'s grid.
    pub(crate) fn session<'g>(
        &self,
        gpu: &'g Gpu,
        opts: &RunOptions,
        num_vertices: u32,
        num_arcs: u64,
        every: bool,
        threshold: Option<u64>,
    ) -> Result<FusedSession<'g>, CudaError> {
        let stream = &gpu.stream;
        let kernels: Vec<_> = NAMES.iter().map(|n| self.kernels.get(n)).collect::<Result<_, _>>()?;
        let grids: Vec<FusedGrid> = kernels.iter().map(|k| grid_for(gpu, k)).collect::<Result<_, _>>()?;
        let host_above = match opts.fusion {
            FusionPolicy::Auto => threshold.unwrap_or_else(|| {
                u64::from(self.blocks_override.unwrap_or(grids[2].blocks))
                    * u64::from(BLOCK)
                    * SELECTIVE_EDGES_PER_THREAD
            }),
            _ => 0,
        };
        let log_capacity = opts.max_iterations.min(LOG_CAPACITY);
        let ring = stream.alloc_zeros::<u64>(RING * COUNTERS).map_err(driver("allocating counters"))?;
        let barrier = stream.alloc_zeros::<u32>(GRID_BARRIER_WORDS).map_err(driver("allocating the grid barrier"))?;
        let log = stream.alloc_zeros::<u64>(log_capacity as usize * 5 + 5).map_err(driver("allocating the log"))?;

        let buffers = [&ring, &log].map(|b| b.device_ptr(stream).0);
        let control =
            self.control(stream, opts, (num_vertices, num_arcs, every), host_above, log_capacity, &barrier, buffers);
        Ok(FusedSession {
            gpu,
            blocks_override: self.blocks_override,
            opts: *opts,
            kernels,
            grids,
            ring,
            log,
            log_capacity,
            control,
            host_above,
            last: None,
            _barrier: barrier,
        })
    }
}

impl FusedRun<'_> {
    /// The `sx_fused` of a run's launches (its loop state filled in per launch) for a graph of `n`
    /// vertices and `arcs` arcs (`every`: the program applies every vertex), with the device buffers
    /// `barrier` and `[ring, log]` (addresses) and the log's rows.
    #[allow(clippy::too_many_arguments)]
    fn control(
        &self,
        stream: &Arc<CudaStream>,
        opts: &RunOptions,
        (n, arcs, every): (u32, u64, bool),
        host_above: u64,
        log_capacity: u32,
        barrier: &CudaSlice<u32>,
        [ring, log]: [u64; 2],
    ) -> SxFused {
        let (direction_policy, threshold_arcs) = match opts.direction {
            DirectionPolicy::Push => (0u32, 0.0),
            DirectionPolicy::Pull => (1, 0.0),
            DirectionPolicy::Auto { threshold } => (2, threshold * arcs as f64),
        };
        let address = |c: &CudaSlice<u32>| c.device_ptr(stream).0;
        SxFused {
            lists: self.lists.map(address),
            push_classes: std::array::from_fn(|i| address(&self.push_classes[i])),
            pull_classes: std::array::from_fn(|i| address(&self.pull_classes[i])),
            pull_lens: self.pull_lens,
            tile_counts: address(self.tile_counts),
            barrier: address(barrier),
            ring,
            log,
            log_capacity,
            direction_policy,
            threshold_arcs,
            max_iterations: opts.max_iterations,
            pull_chunks: self.pull_chunks.0.device_ptr(stream).0,
            pull_chunk_count: self.pull_chunks.1,
            silent_pulls: u32::from(self.silent_pulls),
            host_above,
            async_after: if opts.fusion == FusionPolicy::Auto { self.async_after } else { 0 },
            async_early: ASYNC_EARLY_ITERATIONS,
            async_early_len: n >> ASYNC_EARLY_FRONTIER_SHIFT,
            every_work: every_work(n, every),
            spread_arcs: SPREAD_ARCS_PER_VERTEX,
            settle_pull_shift: SETTLE_PULL_SHIFT,
            async_early_bucket: ASYNC_EARLY_BUCKET,
            // The loop state (len, bucket, iterations, cur, pending_maybe, status, fcur) is set per launch.
            ..SxFused::default()
        }
    }
}

impl FusedSession<'_> {
    /// Runs iterations from `from` in persistent kernels until the run ends or, under selective
    /// fusion, a step is big; appends their statistics.
    pub(crate) fn run(
        &mut self,
        state: &CudaSlice<u8>,
        from: LoopState,
        stats: &mut RunStats,
    ) -> Result<Handback, CudaError> {
        let (stream, opts) = (&self.gpu.stream, &self.opts);
        let start = SxFused {
            len: from.len,
            bucket: from.bucket,
            iterations: from.iterations,
            cur: 0,
            pending_maybe: u32::from(from.pending_maybe),
            status: 0,
            fcur: from.fcur,
            ..self.control
        };
        let mut control = stream.clone_htod(&[start]).map_err(driver("uploading the fused-kernel state"))?;

        // Push-pull starts with the direction the first iteration will take; a switch relaunches.
        let mut which = match opts.fusion {
            FusionPolicy::All | FusionPolicy::Auto => 2,
            _ if matches!(opts.direction, DirectionPolicy::Pull) => 1,
            _ => 0,
        };
        let mut launches = 0u32;
        let (back, status) = loop {
            let grid = self.grids[which];
            if grid.blocks == 0 {
                return Err(CudaError::Driver {
                    what: "sizing a fused kernel",
                    message: format!("{} cannot have one block of {BLOCK} threads resident per SM", NAMES[which]),
                });
            }
            let blocks = self.blocks_override.unwrap_or(grid.blocks);
            // Each launch starts its counter rotation at set 0: the sets must be clean again.
            stream.memset_zeros(&mut self.ring).map_err(driver("resetting counters"))?;
            let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
            let mut b = stream.launch_builder(&self.kernels[which]);
            b.arg(state).arg(&mut control);
            // SAFETY: the arguments are the kernel's (`sx_state*`, `sx_fused*`); every buffer the two
            // structs point to outlives the launch, which is synchronised below.
            unsafe { b.launch_cooperative(cfg) }.map_err(driver("launching a fused kernel cooperatively"))?;
            launches += 1;
            let mut back = [SxFused::default()];
            stream.memcpy_dtoh(&control, &mut back).map_err(driver("reading the fused-kernel state"))?;
            let [back] = back;
            if back.status != STATUS_SWITCH {
                break (back, back.status);
            }
            which = 1 - which;
            if launches > 2 * (back.iterations - from.iterations) + 4 {
                return Err(CudaError::Driver {
                    what: "running fused kernels",
                    message: "direction switches do not settle".into(),
                });
            }
        };
        let iterations = back.iterations;
        let logged = from.iterations.min(self.log_capacity) as usize..iterations.min(self.log_capacity) as usize;
        if !logged.is_empty() {
            let rows = stream
                .clone_dtoh(&self.log.slice(logged.start * 5..(logged.end + 1) * 5))
                .map_err(driver("reading the iteration log"))?;
            for k in 0..logged.len() {
                let row = &rows[k * 5..k * 5 + 5];
                let end = rows[(k + 1) * 5 + 4];
                stats.iterations.push(IterationStats {
                    direction: if row[0] & 0xff == 0 { Direction::Push } else { Direction::Pull },
                    filter: match row[0] >> 8 {
                        0 => FilterUsed::Online,
                        1 => FilterUsed::Ballot,
                        _ => FilterUsed::Every,
                    },
                    frontier: row[1],
                    edges: row[2],
                    bucket: row[3] as u32,
                    time: Duration::from_nanos(end.saturating_sub(row[4])),
                });
            }
        }
        let mut grid = self.grids[which];
        grid.blocks = self.blocks_override.unwrap_or(grid.blocks);
        self.last = Some((NAMES[which].to_string(), grid));
        let state = LoopState {
            len: back.len,
            bucket: back.bucket,
            iterations,
            pending_maybe: back.pending_maybe != 0,
            fcur: back.fcur,
        };
        Ok(match status {
            STATUS_HOST => Handback::Host(state),
            STATUS_ASYNC => Handback::Async(state),
            _ => Handback::Done,
        })
    }
}
