//! The step kernels as the host launches them: their functions, looked up once a run
//! ([`StepKernels`]), the launch shapes ([`Shapes`]), the launch itself ([`launch_step!`]) and the
//! constants it passes (as in kernels/state.cu; the counter slots the host reads after a step are in
//! `device_structs`).

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig};

use crate::error::{driver, CudaError};
use crate::launch::{Kernels, BLOCK};

/// The pull stamp "every source, read live" (`SX_LIVE` in kernels/state.cu).
pub(crate) const LIVE_STAMP: u32 = u32::MAX;
/// Which arcs a push step relaxes (`SX_ARCS_WITHIN`, `SX_ARCS_BEYOND` in kernels/state.cu): under
/// delta-stepping's deferral, those whose update lands in the current bucket or below, or the others
/// (the settle step); every arc for other programs.
pub(crate) const ARCS_WITHIN: u32 = 1;
pub(crate) const ARCS_BEYOND: u32 = 2;
/// The ballot scan's predicates (`mode` in kernels/scan.cu): the vertices reached in this step, and
/// the active ones (those of a later bucket are filed as waiting).
pub(super) const SCAN_REACHED: u32 = 0;
pub(super) const SCAN_ACTIVE: u32 = 1;
/// Blocks that share one vertex of the grid class.
pub(super) const GRID_SPLIT: u32 = 64;

/// Vertices per tile of the thread class's push (as `sx_push_tile_vertices` in kernels/tiles.cu): 256,
/// halved down to 32 while the worklist of `len` would make fewer than `blocks` tiles, so that a small
/// frontier spreads over the GPU with several threads a vertex.
pub(super) fn push_tile_vertices(len: u32, blocks: u32) -> u32 {
    let mut per_tile = BLOCK;
    while per_tile > 32 && len.div_ceil(per_tile) < blocks {
        per_tile /= 2;
    }
    per_tile
}

/// Launches kernel `$f` on `$stream` with launch configuration `$cfg` and the arguments `$arg`s (the
/// run state first); expands to a `?` on the launch.
macro_rules! launch_step {
    ($stream:expr, $f:expr, $cfg:expr $(, $arg:expr)*) => {{
        use cudarc::driver::PushKernelArg as _;
        let mut b = $stream.launch_builder(&$f);
        $(b.arg($arg);)*
        // SAFETY: the arguments match the kernel's parameters in its file of kernels/, and every
        // buffer the state struct points to lives until the run ends.
        unsafe { b.launch($cfg) }.map_err($crate::error::driver("launching a kernel"))?;
    }};
}
pub(super) use launch_step;

/// The launch configurations of the step kernels on a GPU of `sms` multiprocessors.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shapes {
    pub(super) sms: u32,
}

impl Shapes {
    /// `blocks` blocks (at least one) of [`BLOCK`] threads.
    pub(super) fn cfg(self, blocks: u32) -> LaunchConfig {
        LaunchConfig { grid_dim: (blocks.max(1), 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
    }

    /// A thread for each of `count` items, at most 32 blocks per SM.
    pub(super) fn per_thread(self, count: u32) -> LaunchConfig {
        self.cfg(count.div_ceil(BLOCK).min(self.sms * 32))
    }

    /// A warp for each of `count` items, at most 32 blocks per SM.
    pub(super) fn per_warp(self, count: u32) -> LaunchConfig {
        self.cfg((count as u64 * 32).div_ceil(BLOCK as u64).min(self.sms as u64 * 32) as u32)
    }

    /// A block for each of `count` items, at most 16 blocks per SM.
    pub(super) fn per_block(self, count: u32) -> LaunchConfig {
        self.cfg(count.min(self.sms * 16))
    }
}

/// The counters after a step, read back and zeroed for the next one.
pub(super) fn read_counters(stream: &Arc<CudaStream>, counters: &mut CudaSlice<u64>) -> Result<Vec<u64>, CudaError> {
    let v = stream.clone_dtoh(counters).map_err(driver("reading counters"))?;
    stream.memset_zeros(counters).map_err(driver("resetting counters"))?;
    Ok(v)
}

/// The functions of the step kernels, looked up once a run.
pub(super) struct StepKernels {
    pub(super) init: CudaFunction,
    pub(super) snapshot: CudaFunction,
    pub(super) classify: CudaFunction,
    /// The push by the thread (in tiles), warp and CTA classes (the CTA kernel also takes the grid class).
    pub(super) push: [CudaFunction; 3],
    /// The pull of voting programs by the thread and warp classes.
    pub(super) pull: [CudaFunction; 2],
    pub(super) pull_chunks: CudaFunction,
    pub(super) pull_tiles: CudaFunction,
    pub(super) frontier_bits: CudaFunction,
    pub(super) apply: CudaFunction,
    pub(super) select: CudaFunction,
    pub(super) far_take: CudaFunction,
    pub(super) settle_classify: CudaFunction,
    /// The ballot filter's three passes: count, offsets, write.
    pub(super) scan: [CudaFunction; 3],
    /// A partitioned run's frontier exchange: owned frontier vertices into the bitmap, the bitmap's
    /// vertices into a list (kernels/shares.cu).
    pub(super) share_mark: CudaFunction,
    pub(super) share_collect: CudaFunction,
    /// A partitioned run's exchange of the values a step changed, as (vertex, value) pairs.
    pub(super) share_pack: CudaFunction,
    pub(super) share_unpack: CudaFunction,
    /// A partitioned run's exchange of a step's few changes and frontier as one packet a share.
    pub(super) share_pack_packet: CudaFunction,
    pub(super) share_unpack_packets: CudaFunction,
    /// A share of owned sources: its updates of other shares' vertices, packed as a packet or as
    /// pairs, and the others' combined into its values.
    pub(super) share_pack_remote: CudaFunction,
    pub(super) share_pack_remote_pairs: CudaFunction,
    pub(super) share_combine_packets: CudaFunction,
    pub(super) share_combine_pairs: CudaFunction,
    /// A share of owned sources before a settle step that pulls: its settle list and what each
    /// vertex of it sends as pairs, and the others' stamped as the pull's sources.
    pub(super) share_pack_settle: CudaFunction,
    pub(super) share_unpack_settle: CudaFunction,
}

impl StepKernels {
    /// Looks the step kernels up in the program's module.
    pub(super) fn load(k: &Kernels) -> Result<StepKernels, CudaError> {
        Ok(StepKernels {
            init: k.get("sx_init")?,
            snapshot: k.get("sx_snapshot")?,
            classify: k.get("sx_classify")?,
            push: [k.get("sx_push_tiles")?, k.get("sx_push_warp")?, k.get("sx_push_cta")?],
            pull: [k.get("sx_pull_thread")?, k.get("sx_pull_warp")?],
            pull_chunks: k.get("sx_pull_chunks")?,
            pull_tiles: k.get("sx_pull_tiles")?,
            frontier_bits: k.get("sx_frontier_bits")?,
            apply: k.get("sx_apply")?,
            select: k.get("sx_select_prepare")?,
            far_take: k.get("sx_far_take")?,
            settle_classify: k.get("sx_settle_classify")?,
            scan: [k.get("sx_scan_count")?, k.get("sx_scan_offsets")?, k.get("sx_scan_write")?],
            share_mark: k.get("sx_share_mark")?,
            share_collect: k.get("sx_share_collect")?,
            share_pack: k.get("sx_share_pack")?,
            share_unpack: k.get("sx_share_unpack")?,
            share_pack_packet: k.get("sx_share_pack_packet")?,
            share_unpack_packets: k.get("sx_share_unpack_packets")?,
            share_pack_remote: k.get("sx_share_pack_remote")?,
            share_pack_remote_pairs: k.get("sx_share_pack_remote_pairs")?,
            share_combine_packets: k.get("sx_share_combine_packets")?,
            share_combine_pairs: k.get("sx_share_combine_pairs")?,
            share_pack_settle: k.get("sx_share_pack_settle")?,
            share_unpack_settle: k.get("sx_share_unpack_settle")?,
        })
    }
}
