//! The buffers of the searches a device graph keeps between calls (made by the first call): those of
//! the multi-source traversal (multi_source.rs) and of Brandes' sweeps (dependencies.rs), each with
//! its compiled kernels. Apart from the graph so that it can hold them without a module cycle.

use cudarc::driver::CudaSlice;
use simdx_core::multi_source::LANES;

use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::launch::Kernels;

/// The multi-source kernels (CUDA C, self-contained).
pub(crate) const MULTI_SOURCE_KERNELS: &str = include_str!("kernels/multi_source.cu");
/// Counter words of the multi-source kernels: 8 slots, then one per search of a batch (`MS_COUNTS` in
/// kernels/multi_source.cu, `COUNTS` in multi_source.rs).
const MS_COUNTER_WORDS: usize = 8 + LANES;
/// Words of the multi-source kernels' `ms_state`.
pub(crate) const STATE_WORDS: usize = 20;
/// Brandes' sweeps' kernels (CUDA C, self-contained).
const DEPENDENCY_KERNELS: &str = include_str!("kernels/dependencies.cu");
/// Counter words of the sweeps.
const BC_COUNTER_WORDS: usize = 3;
/// Words of the sweeps' `bc_state`.
pub(crate) const BC_STATE_WORDS: usize = 9;

/// What a graph's traversals work in: the kernels, three status words per vertex, the list of a
/// level's reached vertices, two queues (three degree classes of `n` entries each), the counters.
pub(crate) struct MultiSourceBuffers {
    pub(crate) kernels: Kernels,
    pub(crate) seen: CudaSlice<u64>,
    pub(crate) frontier: CudaSlice<u64>,
    pub(crate) next: CudaSlice<u64>,
    pub(crate) reached: CudaSlice<u32>,
    pub(crate) queues: [CudaSlice<u32>; 2],
    pub(crate) counters: CudaSlice<u64>,
    pub(crate) state: CudaSlice<u64>,
    pub(crate) batch: CudaSlice<u32>,
    pub(crate) chunk_end: CudaSlice<u32>,
}

impl MultiSourceBuffers {
    pub(crate) fn new(gpu: &Gpu, n: u32) -> Result<Self, CudaError> {
        let n = n as usize;
        gpu.check_free("the multi-source traversal", (n as u64 + 1) * (3 * 8 + 4 + 2 * 3 * 4 + 4))?;
        let (module, _) = gpu.compile(MULTI_SOURCE_KERNELS)?;
        let s = &gpu.stream;
        let what = "allocating the multi-source traversal";
        let words = |len: usize| s.alloc_zeros::<u64>(len.max(1));
        let ids = |len: usize| s.alloc_zeros::<u32>(len.max(1));
        Ok(MultiSourceBuffers {
            kernels: Kernels { module },
            seen: words(n).map_err(driver(what))?,
            frontier: words(n).map_err(driver(what))?,
            next: words(n).map_err(driver(what))?,
            reached: ids(n).map_err(driver(what))?,
            queues: [ids(3 * n).map_err(driver(what))?, ids(3 * n).map_err(driver(what))?],
            counters: words(MS_COUNTER_WORDS).map_err(driver(what))?,
            state: words(STATE_WORDS).map_err(driver(what))?,
            batch: ids(LANES).map_err(driver(what))?,
            chunk_end: ids(n).map_err(driver(what))?,
        })
    }
}

/// What the sweeps work in: per vertex a level, path count, dependency and sum, the vertices in the
/// order reached, a list of large vertices, counters.
pub(crate) struct DependencyBuffers {
    pub(crate) kernels: Kernels,
    pub(crate) level: CudaSlice<u32>,
    pub(crate) sigma: CudaSlice<f64>,
    pub(crate) delta: CudaSlice<f64>,
    pub(crate) sums: CudaSlice<f64>,
    pub(crate) order: CudaSlice<u32>,
    pub(crate) large: CudaSlice<u32>,
    pub(crate) counters: CudaSlice<u64>,
    pub(crate) state: CudaSlice<u64>,
}

impl DependencyBuffers {
    pub(crate) fn new(gpu: &Gpu, n: u32) -> Result<Self, CudaError> {
        let n = (n as usize).max(1);
        gpu.check_free("the dependency sweeps", n as u64 * (4 + 3 * 8 + 2 * 4))?;
        let (module, _) = gpu.compile(DEPENDENCY_KERNELS)?;
        let s = &gpu.stream;
        let what = "allocating the dependency sweeps";
        Ok(DependencyBuffers {
            kernels: Kernels { module },
            level: s.alloc_zeros::<u32>(n).map_err(driver(what))?,
            sigma: s.alloc_zeros::<f64>(n).map_err(driver(what))?,
            delta: s.alloc_zeros::<f64>(n).map_err(driver(what))?,
            sums: s.alloc_zeros::<f64>(n).map_err(driver(what))?,
            order: s.alloc_zeros::<u32>(n).map_err(driver(what))?,
            large: s.alloc_zeros::<u32>(n).map_err(driver(what))?,
            counters: s.alloc_zeros::<u64>(BC_COUNTER_WORDS).map_err(driver(what))?,
            state: s.alloc_zeros::<u64>(BC_STATE_WORDS).map_err(driver(what))?,
        })
    }
}
