//! What a run prepares before its clock starts: the work queue of asynchronous rounds, the run state
//! `sx_state` (kernels/state.cu) that every step kernel takes first, with the program's per-vertex
//! arrays it points to and the online filter's capacity, and the pull plan of a graph (made by its
//! first run with given degree classes, like the in-CSR itself).

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use simdx_core::acc::device::DeviceProgram;
use simdx_core::engine::{DegreeClasses, FilterPolicy, RunOptions};

use super::kernels::{launch_step, read_counters, Shapes, StepKernels};
use super::weights::ProgramArcs;
use crate::asynchronous::QueueBuffers;
use crate::device_structs::step::CLASS_LEN;
use crate::device_structs::{DeviceStruct, SxState};
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::workspace::{PullPlan, Workspace, PULL_CHUNK};

/// The program's per-vertex arrays on the device, uploaded for one run; the run state points to them.
pub(super) type VertexArrays = Vec<Option<CudaSlice<u8>>>;

/// Makes `queue` a work queue of `cells` cells for a graph of `n` vertices if the run may go
/// asynchronous (`asynchronous`), and zeroes it for the run.
pub(super) fn prepare_queue(
    queue: &mut Option<QueueBuffers>,
    gpu: &Gpu,
    n: u32,
    cells: u32,
    asynchronous: bool,
) -> Result<(), CudaError> {
    if asynchronous && queue.as_ref().map(QueueBuffers::capacity) != Some(cells) {
        *queue = None; // freed before the new one is allocated
        *queue = Some(QueueBuffers::new(gpu, n, cells)?);
    }
    match queue {
        Some(q) if asynchronous => q.reset(&gpu.stream),
        _ => Ok(()),
    }
}

/// The device address of `slice`.
fn address<T>(slice: &CudaSlice<T>, stream: &Arc<CudaStream>) -> u64 {
    slice.device_ptr(stream).0
}

/// What a share of a partitioned run gives its run state.
pub(super) struct ShareState<'a> {
    /// The whole graph's degrees.
    pub(super) degrees: &'a CudaSlice<u32>,
    /// The vertices the share owns.
    pub(super) owned: Range<u32>,
    /// The vertices its frontier and waiting lists may hold: its own on a share of owned sources,
    /// every vertex on others.
    pub(super) listed: Range<u32>,
}

/// The run state `sx_state` ([`SxState`]) up to the program's parameters: the arcs the program
/// reads, the workspace's arrays (`acc` and `send` only where the program has them), `n`, the online
/// filter's capacity (0 here: [`set_capacity`] writes it once the run's first frontier is prepared),
/// the uniform weight's bits and the degree classes; for a share of a partitioned run (`share`), the
/// whole graph's degrees, the vertices it owns and those it lists (else none, and every vertex).
pub(super) fn run_state(
    stream: &Arc<CudaStream>,
    n: u32,
    arcs: &ProgramArcs<'_>,
    ws: &Workspace,
    (acc, send): (bool, bool),
    classes: DegreeClasses,
    share: Option<ShareState<'_>>,
) -> SxState {
    let Workspace {
        now,
        seen,
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
        counters,
        ..
    } = ws;
    SxState {
        out_offsets: address(arcs.out_offsets, stream),
        out_targets: address(arcs.out_targets, stream),
        out_weights: arcs.out_weights.map_or(0, |w| address(w, stream)),
        in_offsets: address(arcs.in_offsets, stream),
        in_targets: address(arcs.in_targets, stream),
        in_weights: arcs.in_weights.map_or(0, |w| address(w, stream)),
        now: address(now, stream),
        seen: address(seen, stream),
        acc: if acc { address(&ws.acc, stream) } else { 0 },
        touched: address(touched, stream),
        in_frontier: address(in_frontier, stream),
        pending: address(pending, stream),
        counters: address(counters, stream),
        send: if send { address(&ws.send, stream) } else { 0 },
        far: [address(&far[0], stream), address(&far[1], stream)],
        far_len: address(far_len, stream),
        sent: address(sent, stream),
        prepared: address(prepared, stream),
        frontier_bits: address(frontier_bits, stream),
        settle: address(settle, stream),
        settle_mark: address(settle_mark, stream),
        n,
        online_capacity: 0,
        uniform_weight_bits: arcs.uniform_bits,
        class_warp: classes.warp,
        class_cta: classes.cta,
        class_grid: classes.grid,
        degrees: share.as_ref().map_or(0, |s| address(s.degrees, stream)),
        owned_begin: share.as_ref().map_or(0, |s| s.owned.start),
        owned_end: share.as_ref().map_or(n, |s| s.owned.end),
        listed_begin: share.as_ref().map_or(0, |s| s.listed.start),
        listed_end: share.as_ref().map_or(n, |s| s.listed.end),
        senders: 0,
        sender_words: 0,
    }
}

/// Uploads the run state `state` followed by the program's parameters (`sx_state`'s `params`, padded
/// to a multiple of 8 bytes, as the C struct is). The program's per-vertex arrays are uploaded for this
/// run (before the timed part, as the graph is) and returned with the state: they must live as long as
/// it.
pub(super) fn upload_state<P: DeviceProgram>(
    program: &P,
    stream: &Arc<CudaStream>,
    state: &SxState,
) -> Result<(CudaSlice<u8>, VertexArrays), CudaError> {
    let mut arrays = Vec::new();
    for a in program.vertex_arrays() {
        arrays.push(if a.bytes.is_empty() {
            None
        } else {
            Some(stream.clone_htod(a.bytes).map_err(driver("uploading the program's per-vertex data"))?)
        });
    }
    let addresses: Vec<u64> =
        arrays.iter().map(|a: &Option<CudaSlice<u8>>| a.as_ref().map_or(0, |a| a.device_ptr(stream).0)).collect();
    let mut bytes = state.as_bytes().to_vec();
    bytes.extend_from_slice(&program.device_params(&addresses));
    while bytes.len() % 8 != 0 {
        bytes.push(0);
    }
    let state = stream.clone_htod(&bytes).map_err(driver("uploading the run state"))?;
    Ok((state, arrays))
}

/// Writes the online filter's capacity into the uploaded run state (`online_capacity` of [`SxState`]).
pub(super) fn set_capacity(
    stream: &Arc<CudaStream>,
    state: &mut CudaSlice<u8>,
    capacity: u32,
) -> Result<(), CudaError> {
    let offset = std::mem::offset_of!(SxState, online_capacity);
    let mut view = state.slice_mut(offset..offset + std::mem::size_of::<u32>());
    stream.memcpy_htod(&capacity.to_le_bytes(), &mut view).map_err(driver("setting the filter capacity"))
}

/// The online filter's capacity, fixed for a run of `n` vertices: `Every` programs and the ballot
/// policy record nothing; jit takes bins of `bin_capacity` for about 8 warps' worth of vertices.
pub(super) fn filter_capacity(every: bool, opts: &RunOptions, n: u32) -> u32 {
    match (every, opts.filter) {
        (true, _) | (_, FilterPolicy::Ballot) => 0,
        (false, FilterPolicy::Online) => n,
        (false, FilterPolicy::Jit) => (opts.bin_capacity as u64 * 8).min(n as u64) as u32,
    }
}

/// Makes the workspace's pull plan for degree classes `classes` unless it has it: the pull's candidates
/// by in-degree class (`pull_classes`), and the chunks of the two largest classes.
#[allow(clippy::too_many_arguments)]
pub(super) fn plan_pull(
    ws: &mut Workspace,
    stream: &Arc<CudaStream>,
    f: &StepKernels,
    shapes: Shapes,
    state: &CudaSlice<u8>,
    in_offsets: &CudaSlice<u64>,
    n: u32,
    classes: DegreeClasses,
) -> Result<(), CudaError> {
    if ws.pull_plan.as_ref().map(|p| p.classes) == Some(classes) {
        return Ok(());
    }
    let Workspace { frontier, pull_classes, counters, pull_plan, .. } = ws;
    let (zero, one, all_flag) = (0u32, 1u32, 1u32);
    stream.memset_zeros(&mut *counters).map_err(driver("resetting counters"))?;
    launch_step!(
        stream,
        f.classify,
        shapes.per_thread(n),
        state,
        &*frontier,
        &zero,
        &all_flag,
        &one,
        &pull_classes[0],
        &pull_classes[1],
        &pull_classes[2],
        &pull_classes[3]
    );
    let c = read_counters(stream, &mut *counters)?;
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
    *pull_plan = Some(PullPlan { classes, lens, chunks, chunk_count });
    Ok(())
}
