//! The host side of asynchronous rounds (kernels/async.cu): which programs may run them, the work
//! queue's buffers (kept with a device graph's workspace), and one launch that relaxes every active
//! vertex, and every vertex it improves, until nothing improves: one epoch, or more when the queue's
//! cells ran out (each epoch starts again at the first cell with the vertices that did not fit).

use std::sync::Arc;
use std::time::Duration;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use simdx_core::acc::device::DeviceProgram;
use simdx_core::acc::{Apply, CombineOp};
use simdx_core::engine::{Direction, FilterUsed, IterationStats, RunOptions};

use crate::device_structs::queue::{EPOCHS, LOG, LOG_EPOCHS, WORDS as CONTROL_WORDS};
use crate::device_structs::SxQueue;
use crate::error::{driver, CudaError};
use crate::fused::{grid_for, FusedGrid};
use crate::gpu::Gpu;
use crate::launch::{Kernels, BLOCK, GRID_BARRIER_WORDS};

/// Cells of the queue per vertex, by default: every improvement of a vertex enqueues it, and asynchronous
/// rounds improve some vertices more than once (a better value reaches them after a first).
pub(crate) const CELLS_PER_VERTEX: u64 = 2;

/// Whether `P` may run in asynchronous rounds: combined in place by min or max, with no global sum
/// and no stopping test (which count iterations or their changes), and no iteration cap.
pub(crate) fn runs_asynchronously<P: DeviceProgram>(opts: &RunOptions) -> bool {
    P::APPLY == Apply::InPlace
        && matches!(P::OP, CombineOp::Min | CombineOp::Max)
        && !P::USES_GLOBAL
        && !P::FEATURES.done
        && opts.max_iterations == u32::MAX
}

/// The work queue of asynchronous rounds: 8-byte cells, two far lists of vertices deferred to later
/// epochs (one entry per vertex each; more spill into a scan of every vertex), counters and a grid
/// barrier.
pub(crate) struct QueueBuffers {
    cells: CudaSlice<u64>,
    far: [CudaSlice<u32>; 2],
    far_capacity: u32,
    control: CudaSlice<u64>,
    barrier: CudaSlice<u32>,
    capacity: u32,
}

impl QueueBuffers {
    /// Allocates a queue of `cells` cells for a graph of `n` vertices after checking that it fits in
    /// free memory.
    pub(crate) fn new(gpu: &Gpu, n: u32, cells: u32) -> Result<QueueBuffers, CudaError> {
        let capacity = cells.max(1);
        let far_capacity = n.max(1);
        gpu.check_free("the asynchronous work queue", u64::from(capacity) * 8 + u64::from(far_capacity) * 8)?;
        let s = &gpu.stream;
        let far = || s.alloc_zeros::<u32>(far_capacity as usize).map_err(driver("allocating the work queue"));
        Ok(QueueBuffers {
            cells: s.alloc_zeros::<u64>(capacity as usize).map_err(driver("allocating the work queue"))?,
            far: [far()?, far()?],
            far_capacity,
            control: s.alloc_zeros::<u64>(CONTROL_WORDS).map_err(driver("allocating the work queue"))?,
            barrier: s.alloc_zeros::<u32>(GRID_BARRIER_WORDS).map_err(driver("allocating the work queue"))?,
            capacity,
        })
    }

    /// The queue's cells.
    pub(crate) fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Zeroes the queue for a run (every cell empty for every epoch); asynchronous, on
    /// `stream`, so that it can be done before a run's clock starts.
    pub(crate) fn reset(&mut self, stream: &Arc<CudaStream>) -> Result<(), CudaError> {
        stream.memset_zeros(&mut self.cells).map_err(driver("resetting the work queue"))?;
        stream.memset_zeros(&mut self.control).map_err(driver("resetting the work queue"))?;
        stream.memset_zeros(&mut self.barrier).map_err(driver("resetting the work queue"))
    }
}

/// One launch of asynchronous rounds.
pub(crate) struct AsyncRounds<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) kernels: &'a Kernels,
    /// The run's `sx_state`.
    pub(crate) state: &'a CudaSlice<u8>,
    /// Zeroed by [`QueueBuffers::reset`] since its last use.
    pub(crate) queue: &'a QueueBuffers,
    /// A prepared frontier handed over from synchronous rounds, and its length (0 at a run's start).
    pub(crate) list: &'a CudaSlice<u32>,
    pub(crate) len: u32,
    /// The bucket of the handed-over frontier (0 when nothing is handed over), recorded in the first
    /// epoch's row.
    pub(crate) bucket: u32,
    /// Blocks instead of the largest co-resident grid (tests).
    pub(crate) blocks_override: Option<u32>,
}

impl AsyncRounds<'_> {
    /// Runs the rounds to the end and returns their record (a row per epoch: the vertices relaxed and
    /// their out-arcs; epochs past the 64th share the last row) and the kernel's grid.
    pub(crate) fn run(self) -> Result<(Vec<IterationStats>, FusedGrid), CudaError> {
        let AsyncRounds { gpu, kernels, state, queue, list, len, bucket, blocks_override } = self;
        let stream = &gpu.stream;
        let kernel = kernels.get("sx_async")?;
        let grid = grid_for(gpu, &kernel)?;
        if grid.blocks == 0 {
            return Err(CudaError::Driver {
                what: "sizing the asynchronous kernel",
                message: format!("sx_async cannot have one block of {BLOCK} threads resident per SM"),
            });
        }
        let description = SxQueue {
            cells: queue.cells.device_ptr(stream).0,
            ctl: queue.control.device_ptr(stream).0,
            barrier: queue.barrier.device_ptr(stream).0,
            list: list.device_ptr(stream).0,
            far: [queue.far[0].device_ptr(stream).0, queue.far[1].device_ptr(stream).0],
            len,
            capacity: queue.capacity,
            far_capacity: queue.far_capacity,
            pad: 0,
        };
        let control = stream.clone_htod(&[description]).map_err(driver("uploading the work queue's description"))?;
        let blocks = blocks_override.unwrap_or(grid.blocks);
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        let mut b = stream.launch_builder(&kernel);
        b.arg(state).arg(&control);
        // SAFETY: the arguments are the kernel's (`sx_state*`, `sx_queue*`); the buffers both point to
        // outlive the launch, which the read below waits for. The grid is co-resident (cooperative
        // launch), which the kernel's waiting needs.
        unsafe { b.launch_cooperative(cfg) }.map_err(driver("launching the asynchronous kernel cooperatively"))?;
        let counters = stream.clone_dtoh(&queue.control).map_err(driver("reading the work queue's counters"))?;
        let epochs = (counters[EPOCHS] as usize).clamp(1, LOG_EPOCHS);
        let mut records = Vec::with_capacity(epochs);
        let (mut items, mut edges, mut at) = (0, 0, counters[CONTROL_WORDS - 1]);
        for row in counters[LOG..LOG + 3 * epochs].chunks(3) {
            // The handed-over frontier's vertices count in the first epoch.
            let (handed, bucket) = if records.is_empty() { (u64::from(len), bucket) } else { (0, 0) };
            records.push(IterationStats {
                direction: Direction::Push,
                filter: FilterUsed::Queue,
                frontier: handed + row[0] - items,
                edges: row[1] - edges,
                bucket,
                time: Duration::from_nanos(row[2].saturating_sub(at)),
            });
            (items, edges, at) = (row[0], row[1], row[2]);
        }
        Ok((records, FusedGrid { blocks, ..grid }))
    }
}
