//! [`Workspace`]: the arrays a run works in, kept with a [`DeviceGraph`](crate::DeviceGraph) and
//! reused by every run on it, and [`PullPlan`], how pull steps cover its vertices.

use cudarc::driver::CudaSlice;
use simdx_core::engine::DegreeClasses;

use crate::asynchronous::QueueBuffers;
use crate::device_structs::step::COUNTERS;
use crate::error::{driver, CudaError};
use crate::launch::TILE;

/// The arrays a run works in, allocated once per device graph (values at 8 bytes, the widest type).
pub(crate) struct Workspace {
    pub(crate) now: CudaSlice<u8>,
    pub(crate) seen: CudaSlice<u8>,
    pub(crate) acc: CudaSlice<u8>,
    pub(crate) send: CudaSlice<u8>,
    /// A byte a vertex, in whole words (kernels/online_filter.cu, `sx_touch`).
    pub(crate) touched: CudaSlice<u32>,
    pub(crate) in_frontier: CudaSlice<u32>,
    /// A byte a vertex, in whole words.
    pub(crate) pending: CudaSlice<u32>,
    /// The two lists of waiting (pending) vertices; their lengths and bounds, then the settle list's
    /// length (`far_len` in kernels/state.cu).
    pub(crate) far: [CudaSlice<u32>; 2],
    pub(crate) far_len: CudaSlice<u64>,
    /// The seen value each snapshot replaced, and the tag (iteration + 1) of that snapshot.
    pub(crate) sent: CudaSlice<u8>,
    pub(crate) prepared: CudaSlice<u32>,
    /// One bit a vertex: whether it is an active source of the current pull step (kernels/pull.cu).
    pub(crate) frontier_bits: CudaSlice<u32>,
    /// Delta-stepping's settle list (the current bucket's vertices that may owe deferred arcs) and each
    /// vertex's mark in it (kernels/state.cu, `SX_DEFERS`).
    pub(crate) settle: CudaSlice<u32>,
    pub(crate) settle_mark: CudaSlice<u32>,
    pub(crate) frontier: CudaSlice<u32>,
    pub(crate) next: CudaSlice<u32>,
    pub(crate) push_classes: Vec<CudaSlice<u32>>,
    pub(crate) pull_classes: Vec<CudaSlice<u32>>,
    /// The pull step's plan for the graph, made by the first run with its degree classes.
    pub(crate) pull_plan: Option<PullPlan>,
    pub(crate) tile_counts: CudaSlice<u32>,
    pub(crate) counters: CudaSlice<u64>,
    /// The work queue of asynchronous rounds, made by the first run that may use it.
    pub(crate) queue: Option<QueueBuffers>,
}

impl Workspace {
    /// The device bytes of the arrays [`Workspace::new`] makes for `n` vertices.
    pub(crate) fn bytes(n: u32) -> u64 {
        let nz = u64::from(n.max(1));
        let tiles = u64::from(n.div_ceil(TILE).max(1));
        nz * (5 * 8 + 16 * 4) + 2 * nz.div_ceil(4) * 4 + nz.div_ceil(32) * 4 + tiles * 4
    }

    /// Allocates the arrays for `n` vertices after checking that they fit in free memory.
    pub(crate) fn new(gpu: &crate::gpu::Gpu, n: u32) -> Result<Workspace, CudaError> {
        let nz = n.max(1) as usize;
        let tiles = n.div_ceil(TILE).max(1) as usize;
        gpu.check_free("the run's vertex arrays and worklists", Self::bytes(n))?;
        let s = &gpu.stream;
        let u32s = |len: usize| s.alloc_zeros::<u32>(len).map_err(driver("allocating worklists"));
        let values = || s.alloc_zeros::<u8>(nz * 8).map_err(driver("allocating vertex values"));
        Ok(Workspace {
            now: values()?,
            seen: values()?,
            acc: values()?,
            send: values()?,
            touched: u32s(nz.div_ceil(4))?,
            in_frontier: u32s(nz)?,
            pending: u32s(nz.div_ceil(4))?,
            far: [u32s(nz)?, u32s(nz)?],
            far_len: s.alloc_zeros::<u64>(5).map_err(driver("allocating counters"))?,
            sent: values()?,
            prepared: u32s(nz)?,
            frontier_bits: u32s(nz.div_ceil(32))?,
            settle: u32s(nz)?,
            settle_mark: u32s(nz)?,
            frontier: u32s(nz)?,
            next: u32s(nz)?,
            push_classes: (0..4).map(|_| u32s(nz)).collect::<Result<_, _>>()?,
            pull_classes: (0..4).map(|_| u32s(nz)).collect::<Result<_, _>>()?,
            pull_plan: None,
            tile_counts: u32s(tiles)?,
            counters: s.alloc_zeros::<u64>(COUNTERS).map_err(driver("allocating counters"))?,
            queue: None,
        })
    }
}

/// In-arcs per chunk of the pull's CTA and grid classes, as `SX_CHUNK` in kernels/chunks.cu.
pub(crate) const PULL_CHUNK: u64 = 1024;

/// How pull steps cover the vertices, fixed for a graph and its degree classes (so made once, outside
/// the timed run, like the in-CSR itself): the in-degree classes as lists (`pull_classes`), and the
/// vertices of the CTA and grid classes cut into chunks of [`PULL_CHUNK`] in-arcs.
pub(crate) struct PullPlan {
    pub(crate) classes: DegreeClasses,
    pub(crate) lens: [u32; 4],
    /// `vertex | chunk << 32` per chunk.
    pub(crate) chunks: CudaSlice<u64>,
    pub(crate) chunk_count: u32,
}

impl crate::graph::DeviceGraph {
    /// The run's arrays, which live with the device graph and are reused by every run on it (each
    /// run re-initialises what it reads): locked for one run, allocated by the first.
    pub(crate) fn run_workspace(&self) -> Result<std::sync::MutexGuard<'_, Option<Workspace>>, CudaError> {
        let mut slot = self.workspace.lock().map_err(|_| CudaError::Driver {
            what: "reusing the run's buffers",
            message: "an earlier run on this graph panicked".into(),
        })?;
        if slot.is_none() {
            *slot = Some(Workspace::new(&self.gpu, self.num_vertices)?);
        }
        Ok(slot)
    }
}
