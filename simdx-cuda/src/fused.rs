//! The host side of push-pull kernel fusion: sizes the persistent grid from the occupancy API (blocks
//! per SM for the compiled kernel's registers and shared memory, times the SM count), launches it
//! cooperatively (so the driver refuses, never hangs, a grid that could not be co-resident), relaunches
//! the other direction's kernel when a push-pull run switches, and turns the device's per-iteration log
//! into [`IterationStats`].

use std::time::Duration;

use cudarc::driver::{CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
use simdx_core::engine::{Direction, DirectionPolicy, FilterUsed, FusionPolicy, IterationStats, RunOptions, RunStats};

use crate::engine::{Kernels, BLOCK};
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;

/// Counter sets in rotation and counters per set, as in kernels/fused.cu.
const RING: usize = 16;
const COUNTERS: usize = 12;
const MIN_BUCKET: usize = 3;
/// Byte offsets in `sx_fused` of the loop state the kernel writes back.
const LOOP_STATE: usize = 148;
const STATUS_SWITCH: u32 = 2;
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
    pub state: &'a CudaSlice<u8>,
    pub lists: [&'a CudaSlice<u32>; 2],
    pub push_classes: &'a [CudaSlice<u32>],
    pub pull_classes: &'a [CudaSlice<u32>],
    pub pull_lens: [u32; 4],
    /// The pull's chunks of the CTA and grid classes, and how many.
    pub pull_chunks: (&'a CudaSlice<u64>, u32),
    pub tile_counts: &'a CudaSlice<u32>,
    pub len: u32,
    /// Which list of waiting vertices is current.
    pub fcur: u32,
    /// Blocks to launch instead of the occupancy-derived grid (tests of the co-residency guard).
    pub blocks_override: Option<u32>,
    /// Whether pulls read every send slot without a stamp (`SX_SILENT_PULLS` in engine.cu). A field
    /// read at run time, not the compile-time macro: a stamp known to be 0 when the fused kernel is
    /// compiled made NVRTC lay it out differently, and its all-active iterations ran 10% slower.
    pub silent_pulls: bool,
}

/// The largest cooperative grid for `kernel`: blocks per SM from the occupancy API times the SMs.
pub(crate) fn grid_for(gpu: &Gpu, kernel: &cudarc::driver::CudaFunction) -> Result<FusedGrid, CudaError> {
    let blocks_per_sm = kernel
        .occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0, None)
        .map_err(driver("asking the occupancy of a fused kernel"))?;
    let registers = kernel.num_regs().map_err(driver("reading a kernel's registers"))?;
    Ok(FusedGrid { blocks_per_sm, blocks: blocks_per_sm * gpu.sm_count, registers })
}

impl FusedRun<'_> {
    /// Runs the iterations in persistent kernels; appends their statistics; returns the iterations run
    /// and the last kernel launched with its grid.
    pub(crate) fn run(
        &self,
        gpu: &Gpu,
        opts: &RunOptions,
        num_arcs: u64,
        stats: &mut RunStats,
    ) -> Result<(u32, (String, FusedGrid)), CudaError> {
        let stream = &gpu.stream;
        let names = ["sx_fused_push", "sx_fused_pull", "sx_fused_all"];
        let kernels: Vec<_> = names.iter().map(|n| self.kernels.get(n)).collect::<Result<_, _>>()?;
        let grids: Vec<FusedGrid> = kernels.iter().map(|k| grid_for(gpu, k)).collect::<Result<_, _>>()?;
        let log_capacity = opts.max_iterations.min(LOG_CAPACITY);
        let mut ring_init = vec![0u64; RING * COUNTERS];
        for set in ring_init.chunks_mut(COUNTERS) {
            set[MIN_BUCKET] = u64::MAX;
        }
        let mut ring = stream.clone_htod(&ring_init).map_err(driver("allocating counters"))?;
        let barrier = stream
            .alloc_zeros::<u32>(crate::engine::GRID_BARRIER_WORDS)
            .map_err(driver("allocating the grid barrier"))?;
        let log = stream.alloc_zeros::<u64>(log_capacity as usize * 5 + 5).map_err(driver("allocating the log"))?;

        let (policy, threshold) = match opts.direction {
            DirectionPolicy::Push => (0u32, 0.0),
            DirectionPolicy::Pull => (1, 0.0),
            DirectionPolicy::Auto { threshold } => (2, threshold * num_arcs as f64),
        };
        let mut bytes = Vec::with_capacity(192);
        let mut ptr = |p: u64| bytes.extend_from_slice(&p.to_le_bytes());
        for l in self.lists {
            ptr(l.device_ptr(stream).0);
        }
        for c in self.push_classes.iter().chain(self.pull_classes) {
            ptr(c.device_ptr(stream).0);
        }
        for l in self.pull_lens {
            bytes.extend_from_slice(&l.to_le_bytes());
        }
        for p in [
            self.tile_counts.device_ptr(stream).0,
            barrier.device_ptr(stream).0,
            ring.device_ptr(stream).0,
            log.device_ptr(stream).0,
        ] {
            bytes.extend_from_slice(&p.to_le_bytes());
        }
        for x in [log_capacity, policy] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        bytes.extend_from_slice(&threshold.to_le_bytes());
        // max_iterations, then the loop state: len, bucket, iterations, cur, pending_maybe, status, fcur.
        for x in [opts.max_iterations, self.len, 0, 0, 0, 1, 0, self.fcur] {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        debug_assert_eq!(bytes.len(), 176);
        bytes.extend_from_slice(&self.pull_chunks.0.device_ptr(stream).0.to_le_bytes());
        bytes.extend_from_slice(&self.pull_chunks.1.to_le_bytes());
        bytes.extend_from_slice(&u32::from(self.silent_pulls).to_le_bytes());
        while bytes.len() % 8 != 0 {
            bytes.push(0);
        }
        debug_assert_eq!(bytes.len(), 192);
        let mut control = stream.clone_htod(&bytes).map_err(driver("uploading the fused-kernel state"))?;

        // Push-pull starts with the direction the first iteration will take; a switch relaunches.
        let mut which = match opts.fusion {
            FusionPolicy::All => 2,
            _ if matches!(opts.direction, DirectionPolicy::Pull) => 1,
            _ => 0,
        };
        let mut launches = 0u32;
        let iterations = loop {
            let grid = grids[which];
            if grid.blocks == 0 {
                return Err(CudaError::Driver {
                    what: "sizing a fused kernel",
                    message: format!("{} cannot have one block of {BLOCK} threads resident per SM", names[which]),
                });
            }
            let blocks = self.blocks_override.unwrap_or(grid.blocks);
            // Each launch starts its counter rotation at set 0: the sets must be clean again.
            stream.memcpy_htod(&ring_init, &mut ring).map_err(driver("resetting counters"))?;
            let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
            let mut b = stream.launch_builder(&kernels[which]);
            b.arg(self.state).arg(&mut control);
            // SAFETY: the arguments are the kernel's (`sx_state*`, `sx_fused*`); every buffer the two
            // structs point to outlives the launch, which is synchronised below.
            unsafe { b.launch_cooperative(cfg) }.map_err(driver("launching a fused kernel cooperatively"))?;
            launches += 1;
            let back = stream.clone_dtoh(&control).map_err(driver("reading the fused-kernel state"))?;
            let word = |i: usize| {
                u32::from_le_bytes(back[LOOP_STATE + 4 * i..LOOP_STATE + 4 * i + 4].try_into().expect("4 bytes"))
            };
            let (iterations, status) = (word(2), word(5));
            if status != STATUS_SWITCH {
                break iterations;
            }
            which = 1 - which;
            if launches > 2 * iterations + 4 {
                return Err(CudaError::Driver {
                    what: "running fused kernels",
                    message: "direction switches do not settle".into(),
                });
            }
        };
        let logged = (iterations.min(log_capacity)) as usize;
        let rows = stream.clone_dtoh(&log.slice(0..(logged + 1) * 5)).map_err(driver("reading the iteration log"))?;
        for i in 0..logged {
            let row = &rows[i * 5..i * 5 + 5];
            let end = rows[(i + 1) * 5 + 4];
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
        let mut grid = grids[which];
        grid.blocks = self.blocks_override.unwrap_or(grid.blocks);
        Ok((iterations, (names[which].to_string(), grid)))
    }
}
