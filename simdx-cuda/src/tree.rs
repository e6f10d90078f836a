//! BFS parent trees on the GPU (kernels/tree.cu): [`CudaEngine::run_with_parents`] runs a level
//! program (a breadth-first search whose values are levels, simdx-algos' `Bfs`) and, before its clock
//! stops, gives each reached vertex the first (smallest) of its in-neighbours one level closer to the
//! source: a deterministic tree whatever way the search went. The search carries 32-bit levels; the
//! pass reads each vertex's level and in-arcs until the first hit. It measured slower than carrying
//! level and parent through the search (simdx-algos' `BfsTree`, what `Runner::bfs_tree` runs): a hub
//! whose level has few vertices walks much of its list (BENCHMARKS.md,
//! docs/experiments/bfs-parents.md).

use cudarc::driver::{CudaFunction, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
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
        let stream = graph.gpu.stream.clone();
        let n = graph.num_vertices;
        graph.gpu.check_free("the parents", u64::from(n.max(1)) * 4)?;
        let parents = stream.alloc_zeros::<u32>(n.max(1) as usize).map_err(driver("allocating the parents"))?;
        let pass = TreePass::new(graph, &parents, source, false)?;
        let run = self.run_finishing(levels, graph, Some(&|values: &CudaSlice<u8>, _| pass.launch(values)))?;
        let mut parents = stream.clone_dtoh(&parents).map_err(driver("reading the parents"))?;
        parents.truncate(n as usize);
        Ok((run, parents))
    }
}

/// The parent pass (`tr_parents`) of a graph, ready to launch on a search's levels: every reached
/// vertex's parent written into `parents`, or with `mend` only the parents still `u32::MAX`.
pub(crate) struct TreePass<'g> {
    graph: &'g DeviceGraph,
    kernel: CudaFunction,
    parents: &'g CudaSlice<u32>,
    source: VertexId,
    mend: bool,
}

impl<'g> TreePass<'g> {
    /// The pass over `graph` into `parents` (one per vertex) for a search from `source`. The kernel is
    /// looked up here, before the search starts, as the engine's kernels are: with the driver's lazy
    /// loading, the first lookup loads the kernel, which may wait for every kernel on the device, a
    /// persistent one of another run among them.
    pub(crate) fn new(
        graph: &'g DeviceGraph,
        parents: &'g CudaSlice<u32>,
        source: VertexId,
        mend: bool,
    ) -> Result<Self, CudaError> {
        let (module, _) = graph.gpu.compile(&tree_source())?;
        let kernel = Kernels::one(module).get("tr_parents")?;
        Ok(TreePass { graph, kernel, parents, source, mend })
    }

    /// Launches the pass on `levels` (the search's values) on the graph's stream.
    pub(crate) fn launch(&self, levels: &CudaSlice<u8>) -> Result<(), CudaError> {
        let (gpu, stream) = (&self.graph.gpu, &self.graph.gpu.stream);
        let (ioff, isrc) = match &self.graph.incoming {
            Some((offsets, sources)) => (offsets, sources),
            None => (&self.graph.out_offsets, &self.graph.out_targets),
        };
        let n = self.graph.num_vertices;
        let state = TrState {
            level: levels.device_ptr(stream).0,
            ioff: ioff.device_ptr(stream).0,
            isrc: isrc.device_ptr(stream).0,
            parent: self.parents.device_ptr(stream).0,
            n: u64::from(n),
            source: u64::from(self.source),
            mend: u64::from(self.mend),
        };
        let blocks = n.div_ceil(BLOCK).clamp(1, gpu.sm_count * 8);
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        let mut launch = stream.launch_builder(&self.kernel);
        launch.arg(&state);
        // SAFETY: `tr_parents` takes one `tr_state` by value (generated from `TrState`), whose pointers
        // name the search's values (n levels), the graph's in-CSR and the parents (n words), which the
        // pass borrows or its caller holds until it has waited for the stream.
        unsafe { launch.launch(cfg) }.map_err(driver("finding the parents"))?;
        Ok(())
    }
}
