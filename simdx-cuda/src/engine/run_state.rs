//! [`HostRun`]: a run on the GPU as the host drives it, the CUDA engine's counterpart of the CPU
//! engine's `Iterations`. It holds what the run works with (the compiled step kernels, the run state
//! `sx_state`, the workspace's buffers, the fused session) and where the run stands between steps (the
//! frontier's length, the bucket, the iterations), and has one method per phase: made before the clock
//! starts ([`HostRun::new`]), the initial values and the first frontier (here), the hand-overs of a
//! whole run or of a stretch of steps (module `handover`), the host's steps (module `steps`), and the
//! end of the run, which stops the clock and reads the result (here). `CudaEngine::run` is the driver.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaSlice, CudaStream};
use simdx_core::acc::device::{silent_pulls, DeviceProgram};
use simdx_core::acc::{Apply, CombineKind, CombineOp, Program};
use simdx_core::engine::{
    DirectionPolicy, FilterUsed, FusionPolicy, LabelPolicy, Run, RunOptions, RunStats, ASYNC_AFTER_ITERATIONS,
};

use super::kernels::{launch_step, Shapes, StepKernels, LIVE_STAMP, SCAN_ACTIVE};
use super::setup::{self, VertexArrays};
use super::share_steps::ShareLink;
use super::steps::List;
use super::weights::ProgramArcs;
use super::CudaEngine;
use crate::asynchronous::{QueueBuffers, CELLS_PER_VERTEX};
use crate::error::{driver, CudaError};
use crate::fused::{FusedRun, FusedSession};
use crate::graph::DeviceGraph;
use crate::launch::{Kernels, TILE};
use crate::workspace::{PullPlan, Workspace};

/// The options a run takes, as [`CudaEngine::run`] settles them before preparing it.
#[derive(Debug, Clone, Copy)]
pub(super) struct RunPlan {
    /// The engine's options with the direction policy for this program on the GPU, and `Async`
    /// fusion turned to `Auto` for a program that cannot run asynchronous rounds.
    pub(super) opts: RunOptions,
    /// Whether the run may go over to asynchronous rounds (from the start, or after many small steps).
    pub(super) asynchronous: bool,
    /// Where each vertex's sender is written (`sx_state`'s `senders` and `sender_words`; 0: nowhere).
    pub(super) senders: [u64; 2],
}

impl RunPlan {
    /// The plan of a run whose persistent kernels are not at hand (still compiling): every step on the
    /// host, one launch per phase.
    pub(super) fn on_the_host(self) -> RunPlan {
        RunPlan { opts: RunOptions { fusion: FusionPolicy::None, ..self.opts }, asynchronous: false, ..self }
    }

    /// The plan of a run that keeps senders (at `senders`): no linking (labels propagate, so that
    /// every update has a sender).
    pub(super) fn keeping_senders(self, senders: [u64; 2]) -> RunPlan {
        RunPlan { opts: RunOptions { labels: LabelPolicy::Propagate, ..self.opts }, senders, ..self }
    }
}

/// A run of program `P` on the GPU, between its preparation and its result.
pub(super) struct HostRun<'a, P: DeviceProgram> {
    pub(super) program: &'a P,
    pub(super) graph: &'a DeviceGraph,
    /// The engine, for its test settings (`blocks_override`) and where it keeps the last fused grid.
    pub(super) engine: &'a CudaEngine,
    pub(super) opts: RunOptions,
    pub(super) stream: Arc<CudaStream>,
    pub(super) kernels: Kernels,
    pub(super) f: StepKernels,
    pub(super) shapes: Shapes,
    /// The run state `sx_state` (`SxState` and the program's parameters) that every kernel takes first.
    pub(super) state: CudaSlice<u8>,
    /// The program's per-vertex arrays the state points to, kept as long as it.
    pub(super) _arrays: VertexArrays,

    // The workspace's buffers the host's steps use.
    pub(super) now: &'a CudaSlice<u8>,
    pub(super) far_len: &'a mut CudaSlice<u64>,
    pub(super) frontier: &'a mut CudaSlice<u32>,
    pub(super) next: &'a mut CudaSlice<u32>,
    pub(super) push_classes: &'a [CudaSlice<u32>],
    pub(super) pull_classes: &'a [CudaSlice<u32>],
    pub(super) tile_counts: &'a CudaSlice<u32>,
    pub(super) counters: &'a mut CudaSlice<u64>,
    /// A bit per vertex: the pulls' active sources, and a partitioned run's frontier exchange.
    pub(super) frontier_bits: &'a mut CudaSlice<u32>,
    pub(super) plan: &'a PullPlan,
    /// The work queue, when the run may go asynchronous.
    pub(super) queue: Option<&'a QueueBuffers>,
    /// The persistent kernels' session (fusion other than `None` and `Async`).
    pub(super) session: Option<FusedSession<'a>>,
    /// Selective fusion hands a step to the persistent kernel while its work stays under
    /// `host_above`, and the kernel hands it back when it grows past it.
    pub(super) host_above: u64,

    // Facts fixed for the run.
    pub(super) n: u32,
    /// Tiles of the ballot filter's scan.
    pub(super) tiles: u32,
    pub(super) every: bool,
    pub(super) in_place: bool,
    pub(super) aggregate: bool,
    /// Pulls read every send slot without a stamp (`SX_SILENT_PULLS` in kernels/state.cu).
    pub(super) silent_pulls: bool,
    /// Once every vertex has been in a frontier, every value is one its vertex really had, and an
    /// in-place min or max program without a `source_value` may pull from every source, reading
    /// its live value (`LIVE_STAMP`): one outside the frontier offers a value its neighbours have
    /// already combined, a newer one is never worse, and skipping the stamp test saves a random
    /// read per in-arc (WCC's pulls after the first).
    pub(super) min_or_max: bool,
    /// The online filter's capacity, fixed for the run ([`setup::filter_capacity`]).
    pub(super) capacity: u32,
    /// The arcs the direction rule compares a frontier's out-edges with: the graph's, or for a share
    /// of a partitioned run the whole graph's.
    pub(super) arcs_total: u64,
    /// A share of a partitioned run: how it meets the other shares (module `share_steps`).
    pub(super) share: Option<ShareLink<'a>>,

    // Where the run stands.
    /// The current frontier's length (in `frontier`).
    pub(super) len: u32,
    pub(super) bucket: u32,
    /// Which of the two lists of waiting vertices is current.
    pub(super) fcur: u32,
    pub(super) iterations: u32,
    /// Whether vertices may wait in later buckets.
    pub(super) pending_maybe: bool,
    /// Whether every vertex has been in a frontier (see `min_or_max`).
    pub(super) all_sent: bool,
    /// The counters of a select that also prepared the next frontier (its snapshot), if it did.
    pub(super) prepared: Option<Vec<u64>>,
    /// A settle step's list length on each share, in a run of owned sources (`settle_over_shares`).
    pub(super) settle_counts: Vec<u64>,
    pub(super) stats: RunStats,
    /// When the engine was entered (before compiling), when the clock started, and the set-up's time
    /// (init, first frontier) within the clock.
    pub(super) entered: Instant,
    pub(super) start: Instant,
    pub(super) set_up: Duration,
    /// Work launched on the run's final values before the clock stops ([`CudaEngine::run_finishing`]).
    pub(super) finishing: Option<Finishing<'a>>,
}

/// Work a caller launches on a run's final values (the workspace's `now`) on the run's stream, timed
/// with the run, told how the run ended: what [`CudaEngine::run_with_parents`] finds the parents with,
/// and [`CudaEngine::run_bfs_with_senders`] the senders that asynchronous rounds did not record.
pub(crate) type Finishing<'a> = &'a dyn Fn(&CudaSlice<u8>, Ended) -> Result<(), CudaError>;

/// How a run ended, as its finishing kernels see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    /// Every step was level-synchronous.
    Synchronously,
    /// Asynchronous rounds ran (they come last).
    Asynchronously,
}

impl<'a, P: DeviceProgram> HostRun<'a, P> {
    /// Prepares a run of `program` on `graph` in workspace `ws`, all before the clock starts: the work
    /// queue, the run state and the program's arrays, the step kernels, the pull plan, the fused
    /// session. Waits for the device and starts the clock.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        engine: &'a CudaEngine,
        program: &'a P,
        graph: &'a DeviceGraph,
        ws: &'a mut Workspace,
        RunPlan { opts, asynchronous, senders }: RunPlan,
        kernels: Kernels,
        entered: Instant,
        share: Option<ShareLink<'a>>,
    ) -> Result<Self, CudaError> {
        let gpu = &graph.gpu;
        let stream = gpu.stream.clone();
        let n = graph.num_vertices;
        let in_place = P::APPLY == Apply::InPlace;
        let every = P::APPLY == Apply::Every;
        let tiles = n.div_ceil(TILE).max(1);
        let sends = P::FEATURES.source_value;
        let silent_pulls = sends && silent_pulls::<P>();
        let cells =
            engine.queue_cells.unwrap_or((u64::from(n) * CELLS_PER_VERTEX).min(u64::from(u32::MAX)) as u32).max(1);
        setup::prepare_queue(&mut ws.queue, gpu, n, cells, asynchronous)?;
        stream.memset_zeros(&mut ws.counters).map_err(driver("resetting counters"))?;
        let arcs = ProgramArcs::of::<P>(graph)?;
        let given = share.as_ref().map(|link| setup::ShareState {
            degrees: link.degrees,
            owned: link.owned(),
            listed: if link.from_owned { link.owned() } else { 0..n },
        });
        let mut state = setup::run_state(&stream, n, &arcs, ws, (!in_place, sends), opts.classes, given);
        [state.senders, state.sender_words] = senders;
        let (state, arrays) = setup::upload_state(program, &stream, &state)?;
        let shapes = Shapes { sms: gpu.sm_count };
        let f = StepKernels::load(&kernels)?;
        setup::plan_pull(ws, &stream, &f, shapes, &state, arcs.in_offsets, n, opts.classes)?;
        let Workspace {
            now,
            far_len,
            frontier,
            next,
            push_classes,
            pull_classes,
            pull_plan,
            tile_counts,
            counters,
            queue,
            frontier_bits,
            ..
        } = ws;
        let (push_classes, pull_classes, tile_counts) = (&**push_classes, &**pull_classes, &*tile_counts);
        let plan = pull_plan.as_ref().expect("just made");
        let fused_run = FusedRun {
            kernels: &kernels,
            lists: [&*frontier, &*next],
            push_classes,
            pull_classes,
            pull_lens: plan.lens,
            pull_chunks: (&plan.chunks, plan.chunk_count),
            tile_counts,
            blocks_override: engine.blocks_override,
            silent_pulls,
            async_after: if asynchronous { ASYNC_AFTER_ITERATIONS } else { 0 },
        };
        // Made before the clock starts, as the run's other buffers are.
        // Under selective fusion a voting program keeps even its big steps in the persistent kernel: they
        // are pulls that stop at the first parent or pushes without atomics, which the kernel's grid runs
        // as fast as separate launches, so handing them back only adds launches and host round trips
        // (measurements: docs/experiments/gpu-fusion.md, "Voting programs stay in the persistent kernel").
        let threshold = engine.fusion_threshold.or((P::KIND == CombineKind::Voting).then_some(u64::MAX));
        let session = match opts.fusion {
            FusionPolicy::None | FusionPolicy::Async => None,
            _ => Some(fused_run.session(gpu, &opts, n, graph.num_arcs, every, threshold)?),
        };
        let host_above = session.as_ref().map_or(0, |s| s.host_above);
        // The uploads and allocations above are asynchronous: they finish before the clock starts, so
        // that no mode's timing carries another's preparation.
        stream.synchronize().map_err(driver("preparing the run"))?;
        Ok(HostRun {
            program,
            graph,
            engine,
            opts,
            stream,
            kernels,
            f,
            shapes,
            state,
            _arrays: arrays,
            now,
            far_len,
            frontier,
            next,
            push_classes,
            pull_classes,
            tile_counts,
            counters,
            frontier_bits,
            plan,
            queue: queue.as_ref().filter(|_| asynchronous),
            session,
            host_above,
            n,
            tiles,
            every,
            in_place,
            aggregate: P::KIND == CombineKind::Aggregate,
            silent_pulls,
            min_or_max: in_place && matches!(P::OP, CombineOp::Min | CombineOp::Max) && !sends,
            capacity: setup::filter_capacity(every, &opts, n),
            arcs_total: share.as_ref().map_or(graph.num_arcs, |link| link.arcs),
            share,
            len: 0,
            bucket: 0,
            fcur: 0,
            iterations: 0,
            pending_maybe: true,
            all_sent: false,
            prepared: None,
            settle_counts: Vec::new(),
            stats: RunStats { graph_edges: graph.num_edges, ..RunStats::default() },
            entered,
            start: Instant::now(),
            set_up: Duration::ZERO,
            finishing: None,
        })
    }

    /// The initial values (`sx_init`), the run's first launch.
    pub(super) fn init(&mut self) -> Result<(), CudaError> {
        launch_step!(self.stream, self.f.init, self.shapes.per_thread(self.n), &self.state);
        Ok(())
    }

    /// The first frontier, by a ballot scan of the initial values, with the online filter's capacity
    /// set for the run; ends the set-up's time.
    pub(super) fn first_frontier(&mut self) -> Result<(), CudaError> {
        setup::set_capacity(&self.stream, &mut self.state, self.capacity)?;
        self.len = self.scan(SCAN_ACTIVE, self.bucket, List::Frontier)?;
        self.set_up = self.start.elapsed();
        Ok(())
    }

    /// Whether pull steps may happen (the direction policy is not push).
    pub(super) fn pull_possible(&self) -> bool {
        !matches!(self.opts.direction, DirectionPolicy::Push)
    }

    /// The stamp by which pull steps find their active sources after `iterations` (0: every vertex is
    /// one, or every vertex that is not holds the silent message: SX_SILENT_PULLS in kernels/state.cu;
    /// [`LIVE_STAMP`]: every source, read live, see `min_or_max`).
    pub(super) fn pull_stamp(&self, iterations: u32, all_active: bool) -> u32 {
        if self.min_or_max && self.all_sent {
            LIVE_STAMP
        } else if self.pull_possible() && !all_active && !self.silent_pulls {
            iterations + 1
        } else {
            0
        }
    }

    /// Waits for the device and stops the clock: the run ends with the result on the device (as SIMD-X
    /// and Gunrock time it); the copy to the host is not part of it.
    pub(super) fn stop_clock(&mut self) -> Result<(), CudaError> {
        if let Some(finishing) = self.finishing {
            let asynchronous = self.stats.iterations.iter().any(|i| i.filter == FilterUsed::Queue);
            finishing(self.now, if asynchronous { Ended::Asynchronously } else { Ended::Synchronously })?;
        }
        self.stream.synchronize().map_err(driver("finishing the run"))?;
        self.stats.time = self.start.elapsed();
        profile(self.entered, self.start, self.set_up, self.stats.time);
        Ok(())
    }

    /// The end of the host's loop: stops the clock and keeps the last fused grid, then the result.
    pub(super) fn finish(self) -> Result<Run<P::Value>, CudaError> {
        self.finish_reading(ReadBack::New)
    }

    /// As [`HostRun::finish`], the values going where `read` says: a partitioned run's shares end
    /// with the same values, so one share reads them back and the others return their statistics and
    /// no values; a caller that runs many times may keep one vector for them.
    pub(super) fn finish_reading(mut self, read: ReadBack<'_, P::Value>) -> Result<Run<P::Value>, CudaError> {
        self.stop_clock()?;
        // After the clock: dropping the fused session frees its device buffers, which waits for the device.
        if let Ok(mut last) = self.engine.last_grid.lock() {
            *last = self.session.take().and_then(|s| s.last);
        }
        match read {
            ReadBack::New => self.result(),
            ReadBack::Into(values) => {
                read_values::<P>(&self.stream, self.now, self.n as usize, values)?;
                Ok(Run { values: Vec::new(), stats: self.stats })
            }
            ReadBack::Skip => Ok(Run { values: Vec::new(), stats: self.stats }),
        }
    }

    /// The values read back from the device (the first `n` values of `now`, which holds room for 8
    /// bytes a vertex), with the run's statistics. They are copied straight into the values' vector
    /// (zeroed pages, touched once by the copy): at kron:26, 268 MB that a byte buffer and a
    /// conversion would touch twice.
    pub(super) fn result(self) -> Result<Run<P::Value>, CudaError> {
        let mut values = Vec::new();
        read_values::<P>(&self.stream, self.now, self.n as usize, &mut values)?;
        Ok(Run { values, stats: self.stats })
    }
}

/// Where a run's values go when it ends ([`HostRun::finish_reading`]).
pub(crate) enum ReadBack<'v, V> {
    /// Into a new vector, the run's `values`.
    New,
    /// Into the caller's vector, which keeps its host pages from one run to the next (the run's
    /// `values` stay empty): on the multi-GPU hosts a first touch of fresh pages costs ~3 s per 8 GiB.
    Into(&'v mut Vec<V>),
    /// Nowhere: another share's result holds them.
    Skip,
}

/// The first `n` values of the device's value bytes `now`, into `values` (made `n` zeroed values
/// first when it holds another number, so that a reused vector keeps its pages).
fn read_values<P: Program>(
    stream: &Arc<CudaStream>,
    now: &CudaSlice<u8>,
    n: usize,
    values: &mut Vec<P::Value>,
) -> Result<(), CudaError> {
    if values.len() != n {
        // SAFETY: a value is a plain scalar (`DeviceScalar`), for which all-zero bytes are a value.
        let zero: P::Value = unsafe { std::mem::zeroed() };
        *values = vec![zero; n];
    }
    let len = n * std::mem::size_of::<P::Value>();
    if len == 0 {
        return Ok(());
    }
    // SAFETY: the vector holds `n` initialised plain scalars, `len` bytes without padding, which the
    // copy overwrites with the device's bytes of as many values, each a valid value of the type.
    let bytes = unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr() as *mut u8, len) };
    stream.memcpy_dtoh(&now.slice(..len), bytes).map_err(driver("reading the result"))?;
    Ok(())
}

/// With `SIMDX_PROFILE=1`, prints where a run's time went: preparation before the clock starts
/// (module lookup, buffers, state upload), set-up (init, pull classes, first frontier), iterations.
fn profile(entered: Instant, start: Instant, set_up: Duration, total: Duration) {
    if crate::profiling() {
        eprintln!(
            "simdx profile: prepare {:.3} ms (untimed), set-up {:.3} ms, iterations {:.3} ms",
            (start - entered).as_secs_f64() * 1e3,
            set_up.as_secs_f64() * 1e3,
            (total - set_up).as_secs_f64() * 1e3
        );
    }
}
