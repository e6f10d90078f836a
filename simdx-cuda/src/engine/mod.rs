//! [`CudaEngine`]: runs any [`DeviceProgram`] on a [`DeviceGraph`], one kernel launch per step (fusion
//! mode `none`), with the same iteration semantics as the CPU backend: snapshot of the frontier's
//! values, optional global sum, push or pull by the direction policy, online or ballot filter per the
//! filter policy, apply, priority buckets, and the program's stopping test.

use std::any::TypeId;
use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use simdx_core::acc::device::{device_unit, label_program, silent_pulls, DeviceProgram};
use simdx_core::acc::{Apply, CombineKind, CombineOp, Program};
use simdx_core::engine::{
    policy, Direction, DirectionPolicy, FilterPolicy, FilterUsed, FusionPolicy, IterationStats, LabelPolicy, Run,
    RunOptions, RunStats, ASYNC_AFTER_ITERATIONS,
};

use crate::asynchronous::{runs_asynchronously, AsyncRounds, QueueBuffers, CELLS_PER_VERTEX};
use crate::error::{driver, CudaError};
use crate::fused::{FusedRun, Handback, LoopState};
use crate::graph::{DeviceGraph, WeightKind};
use crate::launch::{Kernels, BLOCK, COUNTERS, GRID_BARRIER, ILP, TILE};
use crate::link::Linking;
use crate::sorted_arcs::SortedArcs;
use crate::workspace::{PullPlan, Workspace, PULL_CHUNK};

/// The step kernels (one launch per phase), one file per phase, in the order they are compiled: after
/// the prelude and the program's device code, before the grid barrier and the fused kernels.
const PHASES: [(&str, &str); 12] = [
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
/// The pull stamp "every source, read live" (`SX_LIVE` in kernels/state.cu).
const LIVE_STAMP: u32 = u32::MAX;
/// Counter slots, as in kernels/state.cu.
const NEXT_LEN: usize = 0;
const OVERFLOW: usize = 1;
const PENDING: usize = 2;
const EDGES: usize = 4;
const OUT_EDGES: usize = 5;
const GLOBAL: usize = 6;
const CHANGE: usize = 7;
const CLASS_LEN: usize = 8;
/// `far_len`'s slot that counts delta-stepping's settle list (`SX_SETTLE_LEN` in kernels/state.cu).
const SETTLE_LEN: usize = 4;
/// Which arcs a push step relaxes (`SX_ARCS_WITHIN`, `SX_ARCS_BEYOND` in kernels/state.cu): under
/// delta-stepping's deferral, those whose update lands in the current bucket or below, or the others
/// (the settle step); every arc for other programs.
const ARCS_WITHIN: u32 = 1;
const ARCS_BEYOND: u32 = 2;
/// Blocks that share one vertex of the grid class.
const GRID_SPLIT: u32 = 64;

/// Vertices per tile of the thread class's push (as `sx_push_tile_vertices` in kernels/tiles.cu): 256,
/// halved down to 32 while the worklist of `len` would make fewer than `blocks` tiles, so that a small
/// frontier spreads over the GPU with several threads a vertex.
fn push_tile_vertices(len: u32, blocks: u32) -> u32 {
    let mut per_tile = BLOCK;
    while per_tile > 32 && len.div_ceil(per_tile) < blocks {
        per_tile /= 2;
    }
    per_tile
}

/// The weights a program reads on the device: out-arcs, in-arcs (`None`: uniform), uniform weight bits.
type ProgramWeights<'g> = (Option<&'g CudaSlice<u32>>, Option<&'g CudaSlice<u32>>, u32);

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

/// The full source compiled for program `P`: prelude, program, the kernel files (with `#line`
/// directives, so that compiler messages name the kernel files rather than the program's source).
pub fn kernel_source<P: DeviceProgram>() -> String {
    let files = PHASES.iter().copied().chain([
        ("barrier.cu", GRID_BARRIER),
        ("fused.cu", FUSED_KERNELS),
        ("async.cu", ASYNC_KERNEL),
    ]);
    let mut source = device_unit::<P>();
    for (name, text) in files {
        source.push_str(&format!("\n#line 1 \"simdx-cuda/src/kernels/{name}\"\n{text}"));
    }
    source
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
        let (module, _) = graph.gpu.compile(&kernel_source::<P>())?;
        let kernels = Kernels { module };
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
        policy::validate(&self.options)?;
        let direction = policy::direction_for::<P>(self.options.direction, &policy::GPU);
        let mut opts = RunOptions { direction, ..self.options };
        // Asynchronous rounds: from the start (`Async`), or after many small steps (`Auto`); a program
        // that cannot run them runs as under `Auto`.
        let asynchronous = runs_asynchronously::<P>(&opts);
        if opts.fusion == FusionPolicy::Async && !asynchronous {
            opts.fusion = FusionPolicy::Auto;
        }
        let asynchronous = asynchronous && matches!(opts.fusion, FusionPolicy::Auto | FusionPolicy::Async);
        let opts = &opts;
        let gpu = &graph.gpu;
        let stream = gpu.stream.clone();
        let entered = Instant::now();
        let (module, _) = gpu.compile(&kernel_source::<P>())?;
        let k = Kernels { module };
        let n = graph.num_vertices;
        let in_place = P::APPLY == Apply::InPlace;
        let every = P::APPLY == Apply::Every;
        let tiles = n.div_ceil(TILE).max(1);
        simdx_core::acc::check_lengths(program, n as usize)?;
        // The run's arrays live with the device graph and are reused by every run on it (each run
        // re-initialises what it reads); only the first run on a graph allocates.
        let mut slot = graph.workspace.lock().map_err(|_| CudaError::Driver {
            what: "reusing the run's buffers",
            message: "an earlier run on this graph panicked".into(),
        })?;
        if slot.is_none() {
            *slot = Some(Workspace::new(gpu, n)?);
        }
        let ws = slot.as_mut().expect("just made");
        let sends = P::device_code().contains("#define SIMDX_HAS_SOURCE_VALUE 1");
        let silent_pulls = sends && silent_pulls::<P>();
        let Workspace {
            now,
            seen,
            acc,
            send,
            touched,
            in_frontier,
            pending,
            far,
            far_len,
            sent,
            prepared,
            frontier_bits,
            settle,
            settle_mark,
            frontier,
            next,
            push_classes,
            pull_classes,
            pull_plan,
            tile_counts,
            counters,
            queue,
        } = ws;
        let cells =
            self.queue_cells.unwrap_or((u64::from(n) * CELLS_PER_VERTEX).min(u64::from(u32::MAX)) as u32).max(1);
        if asynchronous && queue.as_ref().map(QueueBuffers::capacity) != Some(cells) {
            *queue = None; // freed before the new one is allocated
            *queue = Some(QueueBuffers::new(gpu, n, cells)?);
        }
        let queue = match queue {
            Some(q) if asynchronous => {
                q.reset(&stream)?;
                Some(&*q)
            }
            _ => None,
        };
        let acc = (!in_place).then_some(&*acc);
        let send = sends.then_some(&*send);
        let (in_frontier, pending, tile_counts) = (&*in_frontier, &*pending, &*tile_counts);
        let (frontier, next, push_classes, pull_classes) = (frontier, next, &*push_classes, &*pull_classes);
        stream.memset_zeros(counters).map_err(driver("resetting counters"))?;

        let (out_w, in_w, uniform_bits) = self.weights::<P>(graph)?;
        let (out_targets, out_w) = match out_w {
            Some(w) if P::UPDATE_GROWS_WITH_WEIGHT => self.weight_sorted(graph, w)?,
            _ => (&graph.out_targets, out_w),
        };
        let (in_offsets, in_targets) = match &graph.incoming {
            Some((o, t)) => (o, t),
            None => (&graph.out_offsets, &graph.out_targets),
        };
        let ptr = |p: u64| p.to_le_bytes();
        let mut bytes: Vec<u8> = Vec::new();
        macro_rules! push_ptr {
            ($slice:expr) => {{
                let (p, _sync) = $slice.device_ptr(&stream);
                bytes.extend_from_slice(&ptr(p));
            }};
        }
        push_ptr!(graph.out_offsets);
        push_ptr!(out_targets);
        match out_w {
            Some(w) => push_ptr!(w),
            None => bytes.extend_from_slice(&ptr(0)),
        }
        push_ptr!(in_offsets);
        push_ptr!(in_targets);
        match in_w {
            Some(w) => push_ptr!(w),
            None => bytes.extend_from_slice(&ptr(0)),
        }
        push_ptr!(now);
        push_ptr!(seen);
        match &acc {
            Some(a) => push_ptr!(a),
            None => bytes.extend_from_slice(&ptr(0)),
        }
        push_ptr!(touched);
        push_ptr!(in_frontier);
        push_ptr!(pending);
        push_ptr!(counters);
        match &send {
            Some(x) => push_ptr!(x),
            None => bytes.extend_from_slice(&ptr(0)),
        }
        push_ptr!(far[0]);
        push_ptr!(far[1]);
        push_ptr!(far_len);
        push_ptr!(sent);
        push_ptr!(prepared);
        push_ptr!(frontier_bits);
        push_ptr!(settle);
        push_ptr!(settle_mark);
        // `online_capacity` follows the pointers and `n`; set per phase by `set_capacity`.
        let capacity_offset = bytes.len() + 4;
        let classes = opts.classes;
        for x in [n, 0, uniform_bits, classes.warp, classes.cta, classes.grid] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        // The program's per-vertex arrays, uploaded for this run (before the timed part, as the graph is).
        let mut arrays = Vec::new();
        for a in program.vertex_arrays() {
            arrays.push(if a.bytes.is_empty() {
                None
            } else {
                Some(stream.clone_htod(a.bytes).map_err(driver("uploading the program's per-vertex data"))?)
            });
        }
        let addresses: Vec<u64> =
            arrays.iter().map(|a: &Option<CudaSlice<u8>>| a.as_ref().map_or(0, |a| a.device_ptr(&stream).0)).collect();
        bytes.extend_from_slice(&program.device_params(&addresses));
        while bytes.len() % 8 != 0 {
            bytes.push(0);
        }
        let mut state = stream.clone_htod(&bytes).map_err(driver("uploading the run state"))?;

        let sms = gpu.sm_count;
        let cfg = |blocks: u32| LaunchConfig {
            grid_dim: (blocks.max(1), 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        let per_thread = |count: u32| cfg(count.div_ceil(BLOCK).min(sms * 32));
        let per_warp = |count: u32| cfg((count as u64 * 32).div_ceil(BLOCK as u64).min(sms as u64 * 32) as u32);
        let per_block = |count: u32| cfg(count.min(sms * 16));
        let f_init = k.get("sx_init")?;
        let f_snapshot = k.get("sx_snapshot")?;
        let f_classify = k.get("sx_classify")?;
        let f_push = [k.get("sx_push_tiles")?, k.get("sx_push_warp")?, k.get("sx_push_cta")?];
        let f_pull = [k.get("sx_pull_thread")?, k.get("sx_pull_warp")?];
        let f_pull_chunks = k.get("sx_pull_chunks")?;
        let f_pull_tiles = k.get("sx_pull_tiles")?;
        let f_frontier_bits = k.get("sx_frontier_bits")?;
        let aggregate = P::KIND == CombineKind::Aggregate;
        let f_apply = k.get("sx_apply")?;
        let f_select = k.get("sx_select_prepare")?;
        let f_far_take = k.get("sx_far_take")?;
        let f_settle_classify = k.get("sx_settle_classify")?;
        let f_scan = [k.get("sx_scan_count")?, k.get("sx_scan_offsets")?, k.get("sx_scan_write")?];

        macro_rules! launch {
            ($f:expr, $cfg:expr $(, $arg:expr)*) => {{
                let mut b = stream.launch_builder(&$f);
                $(b.arg($arg);)*
                // SAFETY: the arguments match the kernel's parameters in its file of kernels/, and every
                // buffer the state struct points to lives until the run ends.
                unsafe { b.launch($cfg) }.map_err(driver("launching a kernel"))?;
            }};
        }
        let read = |counters: &mut CudaSlice<u64>| -> Result<Vec<u64>, CudaError> {
            let v = stream.clone_dtoh(counters).map_err(driver("reading counters"))?;
            stream.memset_zeros(counters).map_err(driver("resetting counters"))?;
            Ok(v)
        };
        let set_capacity = |state: &mut CudaSlice<u8>, capacity: u32| -> Result<(), CudaError> {
            let mut view = state.slice_mut(capacity_offset..capacity_offset + 4);
            stream.memcpy_htod(&capacity.to_le_bytes(), &mut view).map_err(driver("setting the filter capacity"))
        };

        let zero = 0u32;
        if pull_plan.as_ref().map(|p| p.classes) != Some(opts.classes) {
            // The pull's candidates by in-degree class, and the chunks of the two largest classes.
            let (one, all_flag) = (1u32, 1u32);
            stream.memset_zeros(&mut *counters).map_err(driver("resetting counters"))?;
            launch!(
                f_classify,
                per_thread(n),
                &state,
                &*frontier,
                &zero,
                &all_flag,
                &one,
                &pull_classes[0],
                &pull_classes[1],
                &pull_classes[2],
                &pull_classes[3]
            );
            let c = read(&mut *counters)?;
            let lens = [0, 1, 2, 3].map(|i| c[CLASS_LEN + i] as u32);
            let offsets = stream.clone_dtoh(in_offsets).map_err(driver("planning the pull"))?;
            let mut chunks = Vec::new();
            for class in 2..4 {
                if lens[class] == 0 {
                    continue;
                }
                let list = stream
                    .clone_dtoh(&pull_classes[class].slice(0..lens[class] as usize))
                    .map_err(driver("planning the pull"))?;
                for v in list {
                    let degree = offsets[v as usize + 1] - offsets[v as usize];
                    chunks.extend((0..degree.div_ceil(PULL_CHUNK)).map(|j| v as u64 | j << 32));
                }
            }
            // Every vertex's first chunk before any second one (kernels/chunks.cu says why).
            chunks.sort_unstable_by_key(|&item| (item >> 32, item as u32));
            let chunk_count = chunks.len() as u32;
            chunks.push(0);
            let chunks = stream.clone_htod(&chunks).map_err(driver("planning the pull"))?;
            *pull_plan = Some(PullPlan { classes: opts.classes, lens, chunks, chunk_count });
        }
        let plan = pull_plan.as_ref().expect("just made");
        let pull_lens = plan.lens;

        let fused_run = FusedRun {
            kernels: &k,
            lists: [&*frontier, &*next],
            push_classes,
            pull_classes,
            pull_lens,
            pull_chunks: (&plan.chunks, plan.chunk_count),
            tile_counts,
            blocks_override: self.blocks_override,
            silent_pulls,
            async_after: if asynchronous { ASYNC_AFTER_ITERATIONS } else { 0 },
        };
        // Made before the clock starts, as the run's other buffers are.
        // Under selective fusion a voting program keeps even its big steps in the persistent kernel: they
        // are pulls that stop at the first parent or pushes without atomics, which the kernel's grid runs
        // as fast as separate launches, so handing them back only adds launches and host round trips
        // (the H100, BFS kron:22 / urand:22: 1.26 / 1.68 ms handing back, 1.04 / 1.56 ms keeping them).
        let threshold = self.fusion_threshold.or((P::KIND == CombineKind::Voting).then_some(u64::MAX));
        let mut session = match opts.fusion {
            FusionPolicy::None | FusionPolicy::Async => None,
            _ => Some(fused_run.session(gpu, opts, n, graph.num_arcs, every, threshold)?),
        };
        // Selective fusion hands a step to the persistent kernel while its work stays under
        // `host_above`, and the kernel hands it back when it grows past it.
        let host_above = session.as_ref().map_or(0, |s| s.host_above);
        // The uploads and allocations above are asynchronous: they finish before the clock starts, so
        // that no mode's timing carries another's preparation.
        stream.synchronize().map_err(driver("preparing the run"))?;
        let start = Instant::now();
        let mut stats = RunStats { graph_edges: graph.num_edges, ..RunStats::default() };
        launch!(f_init, per_thread(n), &state);
        if label_program::<P>() && opts.labels == LabelPolicy::Link && opts.max_iterations == u32::MAX {
            let linking = Linking {
                kernels: &k,
                stream: &stream,
                state: &state,
                counters: &mut *counters,
                scratch: &*next,
                n,
                directed: graph.incoming.is_some(),
                sm_count: sms,
            };
            if let Some(records) = linking.run()? {
                stream.synchronize().map_err(driver("finishing the run"))?;
                stats.iterations = records;
                stats.time = start.elapsed();
                profile(entered, start, std::time::Duration::ZERO, stats.time);
                let raw = stream.clone_dtoh(&*now).map_err(driver("reading the result"))?;
                return Ok(Run { values: values_of::<P>(&raw, n), stats });
            }
        }
        if let (Some(queue), FusionPolicy::Async) = (queue, opts.fusion) {
            // Every initially active vertex goes into the work queue; nothing is handed over.
            let rounds = AsyncRounds {
                gpu,
                kernels: &k,
                state: &state,
                queue,
                list: &*frontier,
                len: 0,
                bucket: 0,
                blocks_override: self.blocks_override,
            };
            let (records, grid) = rounds.run()?;
            stats.iterations.extend(records);
            stream.synchronize().map_err(driver("finishing the run"))?;
            stats.time = start.elapsed();
            profile(entered, start, std::time::Duration::ZERO, stats.time);
            if let Ok(mut last) = self.last_grid.lock() {
                *last = Some(("sx_async".to_string(), grid));
            }
            let raw = stream.clone_dtoh(&*now).map_err(driver("reading the result"))?;
            return Ok(Run { values: values_of::<P>(&raw, n), stats });
        }
        // The ballot scan into `out` with predicate `mode`; returns the list's length.
        let scan = |mode: u32,
                    bucket: u32,
                    fcur: u32,
                    out: &mut CudaSlice<u32>,
                    state: &CudaSlice<u8>,
                    counters: &mut CudaSlice<u64>|
         -> Result<u32, CudaError> {
            let mut b = stream.launch_builder(&f_scan[0]);
            b.arg(state).arg(&mode).arg(&bucket).arg(&fcur).arg(tile_counts);
            // SAFETY: as for `launch!`.
            unsafe { b.launch(cfg(tiles)) }.map_err(driver("launching the ballot filter"))?;
            let mut b = stream.launch_builder(&f_scan[1]);
            b.arg(state).arg(tile_counts).arg(&tiles);
            // SAFETY: as above.
            unsafe { b.launch(cfg(1)) }.map_err(driver("launching the ballot filter"))?;
            let mut b = stream.launch_builder(&f_scan[2]);
            b.arg(state).arg(&mode).arg(&bucket).arg(&fcur).arg(tile_counts).arg(out);
            // SAFETY: as above.
            unsafe { b.launch(cfg(tiles)) }.map_err(driver("launching the ballot filter"))?;
            let v = stream.clone_dtoh(counters).map_err(driver("reading counters"))?;
            stream.memset_zeros(counters).map_err(driver("resetting counters"))?;
            Ok(v[NEXT_LEN] as u32)
        };

        // The online filter's capacity, fixed for the run: `Every` programs and the ballot policy record
        // nothing; jit takes bins of `bin_capacity` for about 8 warps' worth of vertices.
        let capacity = match (every, opts.filter) {
            (true, _) | (_, FilterPolicy::Ballot) => 0,
            (false, FilterPolicy::Online) => n,
            (false, FilterPolicy::Jit) => (opts.bin_capacity as u64 * 8).min(n as u64) as u32,
        };
        set_capacity(&mut state, capacity)?;
        let mut bucket = 0u32;
        let mut pending_maybe;
        // Which of the two lists of waiting vertices is current.
        let mut fcur = 0u32;
        let mut len = scan(1, bucket, fcur, &mut *frontier, &state, &mut *counters)?;
        let set_up = start.elapsed();
        pending_maybe = true;
        let mut iterations = 0u32;
        // Once every vertex has been in a frontier, every value is one its vertex really had, and an
        // in-place min or max program without a `source_value` may pull from every source, reading
        // its live value (`LIVE_STAMP`): one outside the frontier offers a value its neighbours have
        // already combined, a newer one is never worse, and skipping the stamp test saves a random
        // read per in-arc (WCC's pulls after the first).
        let min_or_max = in_place && matches!(P::OP, CombineOp::Min | CombineOp::Max) && !sends;
        let mut all_sent = false;
        if let (Some(session), FusionPolicy::All | FusionPolicy::PushPull) = (&mut session, opts.fusion) {
            let from = LoopState { len, bucket: 0, iterations: 0, pending_maybe: true, fcur };
            session.run(&state, from, &mut stats)?;
            if let Ok(mut last) = self.last_grid.lock() {
                *last = session.last.take();
            }
            // The run ends with the result on the device (as SIMD-X and Gunrock time it); the copy to
            // the host is not part of it.
            stream.synchronize().map_err(driver("finishing the run"))?;
            stats.time = start.elapsed();
            profile(entered, start, set_up, stats.time);
            let raw = stream.clone_dtoh(&*now).map_err(driver("reading the result"))?;
            return Ok(Run { values: values_of::<P>(&raw, n), stats });
        }
        // The counters of a select that also prepared the next frontier (its snapshot), if it did.
        let mut prepared: Option<Vec<u64>> = None;
        loop {
            // The vertices of an exhausted bucket that may owe deferred arcs (delta-stepping's settle
            // list, kernels/state.cu): they push them first, in a settle step.
            let mut owed = 0u32;
            if len == 0 {
                prepared = None;
                let lists = stream.clone_dtoh(&*far_len).map_err(driver("reading the waiting lists"))?;
                owed = lists[SETTLE_LEN] as u32;
                if owed == 0 && pending_maybe {
                    pending_maybe = false;
                    // The current bucket is exhausted: the lowest bucket still waiting becomes current, from
                    // the waiting list's bound (kernels/buckets.cu).
                    let (waiting, lowest) = (lists[fcur as usize], lists[2 + fcur as usize]);
                    if lowest != u64::MAX {
                        bucket = lowest as u32;
                        launch!(f_far_take, per_thread(waiting as u32), &state, &fcur, &bucket, &*frontier);
                        let c = read(&mut *counters)?;
                        len = c[NEXT_LEN] as u32;
                        fcur ^= 1;
                        // The list just emptied is the next change's to fill: its length and bound start over.
                        let emptied = (fcur ^ 1) as usize;
                        let mut slot = far_len.slice_mut(emptied..emptied + 1);
                        stream.memcpy_htod(&[0u64], &mut slot).map_err(driver("resetting the waiting lists"))?;
                        let mut slot = far_len.slice_mut(2 + emptied..3 + emptied);
                        stream.memcpy_htod(&[u64::MAX], &mut slot).map_err(driver("resetting the waiting lists"))?;
                        pending_maybe = c[PENDING] > 0;
                        if len == 0 && pending_maybe {
                            // The bound was stale (its vertices were relaxed in an earlier bucket); the list
                            // now has its exact one.
                            continue;
                        }
                    }
                }
            }
            let settle = owed > 0;
            if (len == 0 && !settle) || iterations >= opts.max_iterations {
                break;
            }
            let began = Instant::now();
            let all_active = every && len == n;
            let pull_possible = !matches!(opts.direction, DirectionPolicy::Push);
            // Pull steps find their active sources by this stamp (0: every vertex is one, or every
            // vertex that is not holds the silent message: SX_SILENT_PULLS in kernels/state.cu).
            let pull_stamp = |iterations: u32, all_sent: bool, all_active: bool| {
                if min_or_max && all_sent {
                    LIVE_STAMP
                } else if pull_possible && !all_active && !silent_pulls {
                    iterations + 1
                } else {
                    0
                }
            };
            // A settle step's sources are its list, stamped when it is classified (never live values).
            let stamp = match settle {
                true if pull_possible => iterations + 1,
                true => 0,
                false => pull_stamp(iterations, all_sent, all_active),
            };
            let c = match prepared.take() {
                Some(c) => c,
                None if settle => {
                    // The settle step's sources: the settle list, by degree class and stamped for a pull.
                    launch!(
                        f_settle_classify,
                        per_thread(owed),
                        &state,
                        &owed,
                        &stamp,
                        &push_classes[0],
                        &push_classes[1],
                        &push_classes[2],
                        &push_classes[3]
                    );
                    read(&mut *counters)?
                }
                // A session that never hands a step back (a voting program under selective fusion) takes
                // every step, and prepares the frontier itself: zeroed counters stand in for the host's
                // snapshot, which would only cost a launch and a read (BFS kron:22 about 30 us).
                None if session.is_some() && host_above == u64::MAX => vec![0; COUNTERS],
                None => {
                    let tag = iterations + 1;
                    launch!(f_snapshot, per_thread(len), &state, &*frontier, &len, &bucket, &tag, &stamp);
                    read(&mut *counters)?
                }
            };
            all_sent |= len == n;
            // A settle step pulls (aggregation programs) when its sources' arcs are many, as the kernel's
            // `settle_pulls` decides.
            let settle_pulls = aggregate
                && match opts.direction {
                    DirectionPolicy::Push => false,
                    DirectionPolicy::Pull => true,
                    DirectionPolicy::Auto { .. } => c[OUT_EDGES] > graph.num_arcs >> crate::fused::SETTLE_PULL_SHIFT,
                };
            let direction = match opts.direction {
                _ if settle && settle_pulls => Direction::Pull,
                _ if settle => Direction::Push,
                policy => policy::by_share(policy, c[OUT_EDGES], graph.num_arcs),
            };
            let work = crate::fused::step_work(c[OUT_EDGES], n, every);
            let sources = if settle { owed } else { len };
            // A settle step's pull stays in the persistent kernel too, as its `spread` says.
            let spread = !every
                && ((direction == Direction::Push && crate::fused::spread_push(c[OUT_EDGES], sources))
                    || (settle && direction == Direction::Pull));
            if let Some(session) = session.as_mut().filter(|_| host_above > 0 && (work <= host_above || spread)) {
                // Selective fusion: a small step; the persistent kernel takes over (it prepares the
                // frontier again, to the same result) until a step is big or the run ends.
                let from = LoopState { len, bucket, iterations, pending_maybe, fcur };
                match session.run(&state, from, &mut stats)? {
                    Handback::Done => break,
                    Handback::Host(back) => {
                        LoopState { len, bucket, iterations, pending_maybe, fcur } = back;
                        continue;
                    }
                    Handback::Async(back) => {
                        // Asynchronous rounds finish the run from the prepared frontier.
                        let rounds = AsyncRounds {
                            gpu,
                            kernels: &k,
                            state: &state,
                            queue: queue.expect("a hand-over to asynchronous rounds comes with their queue"),
                            list: &*frontier,
                            len: back.len,
                            bucket: back.bucket,
                            blocks_override: self.blocks_override,
                        };
                        stats.iterations.extend(rounds.run()?.0);
                        break;
                    }
                }
            }
            let global = f64::from_bits(c[GLOBAL]);
            // When the frontier holds every vertex with out-edges, every in-arc's source is active.
            let stamp = if c[OUT_EDGES] == graph.num_arcs && stamp != LIVE_STAMP { 0 } else { stamp };
            match direction {
                Direction::Push => {
                    let lens: Vec<u32> = if settle {
                        (0..4).map(|i| c[CLASS_LEN + i] as u32).collect()
                    } else {
                        launch!(
                            f_classify,
                            per_thread(len),
                            &state,
                            &*frontier,
                            &len,
                            &zero,
                            &zero,
                            &push_classes[0],
                            &push_classes[1],
                            &push_classes[2],
                            &push_classes[3]
                        );
                        let c = read(&mut *counters)?;
                        (0..4).map(|i| c[CLASS_LEN + i] as u32).collect()
                    };
                    let arcs = if settle { ARCS_BEYOND } else { ARCS_WITHIN };
                    if lens[0] > 0 {
                        let per_tile = push_tile_vertices(lens[0], sms * 4);
                        let blocks = lens[0].div_ceil(per_tile).min(sms * 32);
                        launch!(
                            f_push[0],
                            cfg(blocks),
                            &state,
                            &push_classes[0],
                            &lens[0],
                            &*next,
                            &per_tile,
                            &arcs,
                            &bucket
                        );
                    }
                    if lens[1] > 0 {
                        launch!(
                            f_push[1],
                            per_warp(lens[1]),
                            &state,
                            &push_classes[1],
                            &lens[1],
                            &*next,
                            &arcs,
                            &bucket
                        );
                    }
                    let one_split = 1u32;
                    if lens[2] > 0 {
                        let (list, len) = (&push_classes[2], &lens[2]);
                        launch!(f_push[2], per_block(lens[2]), &state, list, len, &*next, &one_split, &arcs, &bucket);
                    }
                    if lens[3] > 0 {
                        let blocks = lens[3].min((sms * 16).div_ceil(GRID_SPLIT)) * GRID_SPLIT;
                        let (list, len) = (&push_classes[3], &lens[3]);
                        launch!(f_push[2], cfg(blocks), &state, list, len, &*next, &GRID_SPLIT, &arcs, &bucket);
                    }
                }
                Direction::Pull => {
                    // A settle step's pull skips the vertices already settled (kernels/state.cu).
                    let settled = if settle { bucket + 1 } else { 0 };
                    if stamp != 0 && stamp != LIVE_STAMP {
                        launch!(f_frontier_bits, per_thread(n), &state, &stamp);
                    }
                    // Aggregation programs pull over edge-balanced tiles, voting programs by the thread
                    // and warp classes (which stop early); the CTA and grid classes in chunks.
                    if aggregate {
                        launch!(f_pull_tiles, per_thread(n), &state, &stamp, &settled, &*next);
                    } else {
                        if pull_lens[0] > 0 {
                            // SX_ILP candidates per thread (kernels/pull.cu).
                            let blocks = pull_lens[0].div_ceil(BLOCK * ILP).min(sms * 32);
                            launch!(f_pull[0], cfg(blocks), &state, &pull_classes[0], &pull_lens[0], &stamp, &*next);
                        }
                        if pull_lens[1] > 0 {
                            launch!(
                                f_pull[1],
                                per_warp(pull_lens[1]),
                                &state,
                                &pull_classes[1],
                                &pull_lens[1],
                                &stamp,
                                &*next
                            );
                        }
                    }
                    if plan.chunk_count > 0 {
                        let count = plan.chunk_count;
                        launch!(
                            f_pull_chunks,
                            per_block(count),
                            &state,
                            &plan.chunks,
                            &count,
                            &stamp,
                            &settled,
                            &*next
                        );
                    }
                }
            }
            let c = read(&mut *counters)?;
            let edges = c[EDGES];
            let frontier_len = sources;
            if settle {
                // The settle list is spent; the next prepare starts it over.
                let mut slot = far_len.slice_mut(SETTLE_LEN..SETTLE_LEN + 1);
                stream.memcpy_htod(&[0u64], &mut slot).map_err(driver("resetting the settle list"))?;
            }
            // The reached vertices: online list, or a ballot scan when the bins overflowed.
            let (reached_len, filter) = if every {
                // Apply clears the reached flags of every vertex.
                (n, FilterUsed::Every)
            } else if capacity == 0 || c[OVERFLOW] != 0 {
                (scan(0, 0, fcur, &mut *next, &state, &mut *counters)?, FilterUsed::Ballot)
            } else {
                // The online list; select clears its vertices' touched flags.
                (c[NEXT_LEN] as u32, FilterUsed::Online)
            };
            let mut change = 0.0;
            if !in_place {
                let all = u32::from(every);
                launch!(
                    f_apply,
                    per_thread(if every { n } else { reached_len }),
                    &state,
                    &*next,
                    &reached_len,
                    &all,
                    &global
                );
                change = f64::from_bits(read(&mut *counters)?[CHANGE]);
            }
            stats.iterations.push(IterationStats {
                direction,
                filter,
                frontier: frontier_len as u64,
                edges,
                bucket,
                time: began.elapsed(),
            });
            iterations += 1;
            if program.done(iterations, change) {
                break;
            }
            // The next frontier: active reached vertices of the current bucket; the rest wait.
            if every {
                len = scan(1, bucket, fcur, &mut *frontier, &state, &mut *counters)?;
            } else {
                // Select prepares the next frontier as the next iteration's snapshot would (the same tag
                // and stamp: a selected frontier is never every vertex of an `Every` program).
                let (tag, stamp) = (iterations + 1, pull_stamp(iterations, all_sent, false));
                launch!(
                    f_select,
                    per_thread(reached_len),
                    &state,
                    &*next,
                    &reached_len,
                    &bucket,
                    &*frontier,
                    &fcur,
                    &tag,
                    &stamp
                );
                let c = read(&mut *counters)?;
                len = c[NEXT_LEN] as u32;
                pending_maybe |= c[PENDING] > 0;
                prepared = Some(c);
            }
        }
        stream.synchronize().map_err(driver("finishing the run"))?;
        stats.time = start.elapsed();
        profile(entered, start, set_up, stats.time);
        // After the clock: dropping the fused session frees its device buffers, which waits for the device.
        if let Ok(mut last) = self.last_grid.lock() {
            *last = session.and_then(|s| s.last);
        }
        let raw = stream.clone_dtoh(&*now).map_err(driver("reading the result"))?;
        Ok(Run { values: values_of::<P>(&raw, n), stats })
    }

    /// The out-arcs' targets and weights in order of weight ([`SortedArcs`]), for a program whose update
    /// grows with the weight; `native` is the out-arcs' weights it reads in the graph's own order.
    fn weight_sorted<'g>(
        &self,
        graph: &'g DeviceGraph,
        native: &'g CudaSlice<u32>,
    ) -> Result<(&'g CudaSlice<u32>, Option<&'g CudaSlice<u32>>), CudaError> {
        let Some((kind, out, _)) = graph.weights.as_ref() else { return Ok((&graph.out_targets, Some(native))) };
        let sorted = match graph.weight_sorted.get() {
            Some(s) => s,
            None => {
                let _ = graph.weight_sorted.set(SortedArcs::build(graph, *kind, out)?);
                graph.weight_sorted.get().expect("just set")
            }
        };
        let weights = if std::ptr::eq(native, out) {
            &sorted.weights
        } else {
            // The program reads f32 weights of an integer graph: the sorted copy converted alike.
            match sorted.weights_as_f32.get() {
                Some(c) => c,
                None => {
                    let _ = sorted.weights_as_f32.set(f32_bits(&graph.gpu.stream, &sorted.weights)?);
                    sorted.weights_as_f32.get().expect("just set")
                }
            }
        };
        Ok((&sorted.targets, Some(weights)))
    }

    /// The device weights the program reads: out-arcs, in-arcs, and the uniform weight's bits.
    fn weights<'g, P: Program>(&self, graph: &'g DeviceGraph) -> Result<ProgramWeights<'g>, CudaError> {
        let w = TypeId::of::<P::Weight>();
        let native = graph.weights.as_ref();
        if w == TypeId::of::<()>() {
            return Ok((None, None, 0));
        }
        let (one_bits, want_f32) = if w == TypeId::of::<f32>() { (1.0f32.to_bits(), true) } else { (1u32, false) };
        let Some((kind, out, inw)) = native else { return Ok((None, None, one_bits)) };
        let pick = |o: &'g CudaSlice<u32>, i: Option<&'g CudaSlice<u32>>| (Some(o), Some(i.unwrap_or(o)), one_bits);
        match (kind, want_f32) {
            (WeightKind::U32, false) | (WeightKind::F32, true) => Ok(pick(out, inw.as_ref())),
            (WeightKind::F32, false) => Err(CudaError::Weights(
                "this algorithm needs integer edge weights, but the graph has real (f32) weights".into(),
            )),
            (WeightKind::U32, true) => {
                let converted = match graph.weights_as_f32.get() {
                    Some(c) => c,
                    None => {
                        let s = &graph.gpu.stream;
                        let o = f32_bits(s, out)?;
                        let i = match inw {
                            Some(i) => Some(f32_bits(s, i)?),
                            None => None,
                        };
                        let _ = graph.weights_as_f32.set((o, i));
                        graph.weights_as_f32.get().expect("just set")
                    }
                };
                Ok(pick(&converted.0, converted.1.as_ref()))
            }
        }
    }
}

/// Integer weights on the device converted to f32 bits (through the host), for programs that read f32
/// weights of a graph with integer ones.
fn f32_bits(s: &Arc<CudaStream>, x: &CudaSlice<u32>) -> Result<CudaSlice<u32>, CudaError> {
    let host = s.clone_dtoh(x).map_err(driver("converting weights"))?;
    let bits: Vec<u32> = host.iter().map(|&v| (v as f32).to_bits()).collect();
    s.clone_htod(&bits).map_err(driver("converting weights"))
}

/// The device's result bytes as values.
fn values_of<P: Program>(raw: &[u8], n: u32) -> Vec<P::Value> {
    raw.chunks_exact(std::mem::size_of::<P::Value>())
        .take(n as usize)
        .map(|b| {
            // SAFETY: `b` holds exactly one `P::Value` (a plain scalar) as the device wrote it.
            unsafe { std::ptr::read_unaligned(b.as_ptr() as *const P::Value) }
        })
        .collect()
}

/// With `SIMDX_PROFILE=1`, prints where a run's time went: preparation before the clock starts
/// (module lookup, buffers, state upload), set-up (init, pull classes, first frontier), iterations.
fn profile(entered: Instant, start: Instant, set_up: std::time::Duration, total: std::time::Duration) {
    if std::env::var_os("SIMDX_PROFILE").is_some_and(|v| v == "1") {
        eprintln!(
            "simdx profile: prepare {:.3} ms (untimed), set-up {:.3} ms, iterations {:.3} ms",
            (start - entered).as_secs_f64() * 1e3,
            set_up.as_secs_f64() * 1e3,
            (total - set_up).as_secs_f64() * 1e3
        );
    }
}
