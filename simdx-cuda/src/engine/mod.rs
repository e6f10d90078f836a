//! [`CudaEngine`]: runs any [`DeviceProgram`] on a [`DeviceGraph`], one kernel launch per step (fusion
//! mode `none`), with the same iteration semantics as the CPU backend: snapshot of the frontier's
//! values, optional global sum, push or pull by the direction policy, online or ballot filter per the
//! filter policy, apply, priority buckets, and the program's stopping test.

mod kernels;
mod setup;
mod weights;

use std::time::Instant;

use cudarc::driver::{CudaSlice, PushKernelArg};
use simdx_core::acc::device::{device_unit, label_program, silent_pulls, DeviceProgram};
use simdx_core::acc::{Apply, CombineKind, CombineOp, Program};
use simdx_core::engine::{
    policy, Direction, DirectionPolicy, FilterPolicy, FilterUsed, FusionPolicy, IterationStats, LabelPolicy, Run,
    RunOptions, RunStats, ASYNC_AFTER_ITERATIONS,
};

use self::kernels::{
    launch_step, push_tile_vertices, read_counters, Shapes, StepKernels, ARCS_BEYOND, ARCS_WITHIN, CHANGE, CLASS_LEN,
    EDGES, GLOBAL, GRID_SPLIT, LIVE_STAMP, NEXT_LEN, OUT_EDGES, OVERFLOW, PENDING, SETTLE_LEN,
};
use self::weights::ProgramArcs;
use crate::asynchronous::{runs_asynchronously, AsyncRounds, CELLS_PER_VERTEX};
use crate::error::{driver, CudaError};
use crate::fused::{FusedRun, Handback, LoopState};
use crate::graph::DeviceGraph;
use crate::launch::{Kernels, BLOCK, COUNTERS, GRID_BARRIER, ILP, TILE};
use crate::link::Linking;
use crate::workspace::Workspace;

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
        let cells =
            self.queue_cells.unwrap_or((u64::from(n) * CELLS_PER_VERTEX).min(u64::from(u32::MAX)) as u32).max(1);
        setup::prepare_queue(&mut ws.queue, gpu, n, cells, asynchronous)?;
        stream.memset_zeros(&mut ws.counters).map_err(driver("resetting counters"))?;
        let arcs = ProgramArcs::of::<P>(graph)?;
        let (bytes, capacity_offset) = setup::state_bytes(&stream, n, &arcs, ws, (!in_place, sends), opts.classes);
        let (mut state, _arrays) = setup::upload_state(program, &stream, bytes)?;
        let shapes = Shapes { sms: gpu.sm_count };
        let f = StepKernels::load(&k)?;
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
            ..
        } = ws;
        let queue = queue.as_ref().filter(|_| asynchronous);
        let (tile_counts, push_classes, pull_classes) = (&*tile_counts, &*push_classes, &*pull_classes);

        let sms = shapes.sms;
        let cfg = |blocks: u32| shapes.cfg(blocks);
        let per_thread = |count: u32| shapes.per_thread(count);
        let per_warp = |count: u32| shapes.per_warp(count);
        let per_block = |count: u32| shapes.per_block(count);
        let StepKernels {
            init: f_init,
            snapshot: f_snapshot,
            classify: f_classify,
            push: f_push,
            pull: f_pull,
            pull_chunks: f_pull_chunks,
            pull_tiles: f_pull_tiles,
            frontier_bits: f_frontier_bits,
            apply: f_apply,
            select: f_select,
            far_take: f_far_take,
            settle_classify: f_settle_classify,
            scan: f_scan,
        } = &f;
        let aggregate = P::KIND == CombineKind::Aggregate;

        macro_rules! launch {
            ($f:expr, $cfg:expr $(, $arg:expr)*) => {
                launch_step!(stream, $f, $cfg $(, $arg)*)
            };
        }
        let read = |counters: &mut CudaSlice<u64>| read_counters(&stream, counters);
        let set_capacity = |state: &mut CudaSlice<u8>, capacity: u32| -> Result<(), CudaError> {
            setup::set_capacity(&stream, state, capacity_offset, capacity)
        };

        let zero = 0u32;
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
