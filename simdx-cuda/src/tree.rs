//! BFS parent trees on the GPU (kernels/tree.cu): [`CudaEngine::run_with_parents`] runs a level
//! program (a breadth-first search whose values are levels, simdx-algos' `Bfs`) and, before its clock
//! stops, gives each reached vertex the first (smallest) of its in-neighbours one level closer to the
//! source: a deterministic tree whatever way the search went. The search carries 32-bit levels; the
//! pass reads each vertex's level and in-arcs until the first hit. It measured slower than carrying
//! level and parent through the search (simdx-algos' `BfsTree`, what `Runner::bfs_tree` runs): a hub
//! whose level has few vertices walks much of its list (BENCHMARKS.md,
//! docs/experiments/bfs-parents.md).

use cudarc::driver::{CudaSlice, DevicePtr, PushKernelArg};
use simdx_core::acc::device::DeviceProgram;
use simdx_core::engine::Run;
use simdx_core::VertexId;

use crate::device_structs::{self, TrState};
use crate::error::{driver, CudaError};
use crate::graph::DeviceGraph;
use crate::launch::{Kernels, BLOCK};
use crate::CudaEngine;

/// The parent tree's kernel (CUDA C), compiled behind [`device_structs::tree_header`].
const TREE_KERNELS: &str = include_str!("kernels/tree.cu");

/// The device code of the parent tree: what NVRTC compiles (and what the syntax test checks without
/// a GPU).
pub fn tree_source() -> String {
    format!("{}\n{TREE_KERNELS}", device_structs::tree_header())
}

impl CudaEngine {
    /// Runs `levels`, a program whose values are breadth-first levels from `source` (`u32::MAX` where
    /// unreached; simdx-algos' `Bfs`), on `graph`, and finds the parent tree on the device before the
    /// run's clock stops: each reached vertex's parent is an in-neighbour one level closer to `source`
    /// (the first in its in-arcs), `source` its own parent, `u32::MAX` the unreached vertices'. The
    /// run's values are the levels; the parents come second.
    pub fn run_with_parents<P: DeviceProgram<Value = u32>>(
        &self,
        levels: &P,
        graph: &DeviceGraph,
        source: VertexId,
    ) -> Result<(Run<u32>, Vec<u32>), CudaError> {
        let gpu = &graph.gpu;
        let stream = gpu.stream.clone();
        let (module, _) = gpu.compile(&tree_source())?;
        // Looked up before the search starts, as the engine's kernels are: with the driver's lazy
        // loading, the first lookup loads the kernel, which may wait for every kernel on the device, a
        // persistent one of another run among them.
        let f = Kernels::one(module).get("tr_parents")?;
        let n = graph.num_vertices;
        gpu.check_free("the parents", u64::from(n.max(1)) * 4)?;
        let parents = stream.alloc_zeros::<u32>(n.max(1) as usize).map_err(driver("allocating the parents"))?;
        let (ioff, isrc) = match &graph.incoming {
            Some((offsets, sources)) => (offsets, sources),
            None => (&graph.out_offsets, &graph.out_targets),
        };
        let find_parents = |values: &CudaSlice<u8>| -> Result<(), CudaError> {
            let state = TrState {
                level: values.device_ptr(&stream).0,
                ioff: ioff.device_ptr(&stream).0,
                isrc: isrc.device_ptr(&stream).0,
                parent: parents.device_ptr(&stream).0,
                n: u64::from(n),
                source: u64::from(source),
            };
            let blocks = n.div_ceil(BLOCK).clamp(1, gpu.sm_count * 8);
            let cfg = cudarc::driver::LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (BLOCK, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut launch = stream.launch_builder(&f);
            launch.arg(&state);
            // SAFETY: `tr_parents` takes one `tr_state` by value (generated from `TrState`), whose
            // pointers name the run's values (n levels), the graph's in-CSR and `parents` (n words),
            // which all outlive the launch: the caller waits for the stream before dropping them.
            unsafe { launch.launch(cfg) }.map_err(driver("finding the parents"))?;
            Ok(())
        };
        let run = self.run_finishing(levels, graph, Some(&find_parents))?;
        let mut parents = stream.clone_dtoh(&parents).map_err(driver("reading the parents"))?;
        parents.truncate(n as usize);
        Ok((run, parents))
    }
}
