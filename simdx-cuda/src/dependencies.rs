//! Brandes' dependency accumulation on the GPU (kernels/dependencies.cu), the heavy part of
//! betweenness centrality: for each source in turn, a breadth-first search that counts shortest paths
//! level by level (one round trip to the host per level, for the level's size), then the sweep back
//! that gives each vertex its dependency, then the sums. The same result as the CPU's
//! [`simdx_core::dependencies`] (sums of path shares, in a different order of additions). The
//! buffers are made by the first call for a graph and kept.

use std::time::Instant;

use cudarc::driver::DevicePtr;
use simdx_core::dependencies::sweep_stats;
use simdx_core::multi_source::{check_sources, MultiSourceError, MultiStats};
use simdx_core::VertexId;

use crate::device_structs::sweep::{ARCS, NEXT};
use crate::device_structs::BcState;
use crate::error::{driver, CudaError};
use crate::graph::DeviceGraph;
use crate::launch::{launch_with_state, BLOCK};
use crate::search_buffers::DependencyBuffers;

/// Launches kernel `$name` of `$b`'s buffers on `$blocks` blocks with the state and the arguments.
macro_rules! launch {
    ($b:expr, $stream:expr, $name:expr, $blocks:expr $(, $arg:expr)*) => {
        launch_with_state!($b.kernels, $stream, &$b.state, "launching a dependency sweep", $name, $blocks $(, $arg)*)
    };
}

impl DeviceGraph {
    /// The sum over `sources` of each vertex's dependency on them, along out-arcs, as
    /// [`simdx_core::dependencies::dependency_sums`] gives it.
    pub(crate) fn sum_dependencies(&self, sources: &[VertexId]) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
        check_sources(sources, self.num_vertices as usize)?;
        let device = |e: CudaError| MultiSourceError::Device(e.to_string());
        let mut slot = self.dependencies.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let first = slot.is_none();
        if first {
            *slot = Some(DependencyBuffers::new(&self.gpu, self.num_vertices).map_err(device)?);
        }
        let buffers = slot.as_mut().expect("made above");
        self.sweep(buffers, sources, first).map_err(device)
    }

    fn sweep(
        &self,
        b: &mut DependencyBuffers,
        sources: &[VertexId],
        first: bool,
    ) -> Result<(Vec<f64>, MultiStats), CudaError> {
        let start = Instant::now();
        let stream = self.gpu.stream.clone();
        let (n, fill) = (self.num_vertices, self.gpu.sm_count * 8);
        let state = BcState {
            off: self.out_offsets.device_ptr(&stream).0,
            tgt: self.out_targets.device_ptr(&stream).0,
            level: b.level.device_ptr(&stream).0,
            sigma: b.sigma.device_ptr(&stream).0,
            delta: b.delta.device_ptr(&stream).0,
            sums: b.sums.device_ptr(&stream).0,
            order: b.order.device_ptr(&stream).0,
            large: b.large.device_ptr(&stream).0,
            ctr: b.counters.device_ptr(&stream).0,
        };
        stream.memcpy_htod(&[state], &mut b.state).map_err(driver("uploading the sweeps' state"))?;
        if first {
            launch!(b, stream, "bc_clear", n.div_ceil(BLOCK).min(fill), &n);
        }
        stream.memset_zeros(&mut b.sums).map_err(driver("clearing the sums"))?;
        stream.memset_zeros(&mut b.counters).map_err(driver("clearing counters"))?;
        for &source in sources {
            launch!(b, stream, "bc_start", 1, &source);
            // bounds[d]..bounds[d + 1]: the vertices of level d in `order`.
            let mut bounds = vec![0u32, 1];
            loop {
                let depth = bounds.len() as u32 - 2;
                let (begin, end) = (bounds[depth as usize], bounds[depth as usize + 1]);
                launch!(b, stream, "bc_forward", (end - begin).div_ceil(BLOCK / 32).min(fill), &begin, &end, &depth);
                launch!(b, stream, "bc_forward_large", fill, &end, &depth);
                let c = stream.clone_dtoh(&b.counters).map_err(driver("reading counters"))?;
                stream.memset_zeros(&mut b.counters.slice_mut(..ARCS)).map_err(driver("resetting counters"))?;
                if c[NEXT] == 0 {
                    break;
                }
                bounds.push(end + c[NEXT] as u32);
            }
            // The deepest level has no dependency; the others pull theirs from the level below.
            for depth in (0..bounds.len() as u32 - 2).rev() {
                let (begin, end) = (bounds[depth as usize], bounds[depth as usize + 1]);
                launch!(b, stream, "bc_backward", (end - begin).div_ceil(BLOCK / 32).min(fill), &begin, &end, &depth);
                launch!(b, stream, "bc_backward_large", fill, &depth);
                stream.memset_zeros(&mut b.counters.slice_mut(..ARCS)).map_err(driver("resetting counters"))?;
            }
            let reached = *bounds.last().expect("two bounds at least");
            launch!(b, stream, "bc_finish", reached.div_ceil(BLOCK).min(fill), &reached);
        }
        // Every source's bc_finish added its vertices' out-arcs (the levels reset only the slots before).
        let arcs = 2 * stream.clone_dtoh(&b.counters).map_err(driver("reading counters"))?[ARCS];
        let sums = stream.clone_dtoh(&b.sums).map_err(driver("reading the sums"))?;
        let sums = if n == 0 { Vec::new() } else { sums };
        Ok((sums, sweep_stats(sources.len(), arcs, start.elapsed())))
    }
}
