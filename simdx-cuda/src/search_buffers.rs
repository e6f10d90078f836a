//! The buffers of the searches a device graph keeps between calls (made by the first call): those of
//! the multi-source traversal (multi_source.rs) and of Brandes' sweeps (dependencies.rs), each with
//! its compiled kernels. Apart from the graph so that it can hold them without a module cycle.

use cudarc::driver::CudaSlice;
use simdx_core::multi_source::LANES;

use crate::device_structs::{self, multi_source::COUNTS, sweep, BcState, MsState};
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::launch::Kernels;

/// The multi-source kernels (CUDA C), compiled behind [`device_structs::multi_source_header`].
const MULTI_SOURCE_KERNELS: &str = include_str!("kernels/multi_source.cu");
/// Counter words of the multi-source kernels: the slots before `COUNTS`, then one per search of a
/// batch.
const MS_COUNTER_WORDS: usize = COUNTS + LANES;
/// Brandes' sweeps' kernels (CUDA C), compiled behind [`device_structs::sweep_header`].
const DEPENDENCY_KERNELS: &str = include_str!("kernels/dependencies.cu");

/// The multi-source kernels behind `program_unit` (a search program's device code, or nothing):
/// `ms_state` and the counter slots between them.
pub(crate) fn multi_source_unit(program_unit: &str) -> String {
    format!("{program_unit}\n{}\n{MULTI_SOURCE_KERNELS}", device_structs::multi_source_header())
}

/// The sweeps' unit: `bc_state` and the counter slots, then the kernels.
pub(crate) fn sweep_unit() -> String {
    format!("{}\n{DEPENDENCY_KERNELS}", device_structs::sweep_header())
}

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
    pub(crate) state: CudaSlice<MsState>,
    pub(crate) batch: CudaSlice<u32>,
    pub(crate) chunk_end: CudaSlice<u32>,
}

impl MultiSourceBuffers {
    pub(crate) fn new(gpu: &Gpu, n: u32) -> Result<Self, CudaError> {
        let n = n as usize;
        gpu.check_free("the multi-source traversal", (n as u64 + 1) * (3 * 8 + 4 + 2 * 3 * 4 + 4))?;
        let (module, _) = gpu.compile(&multi_source_unit(""))?;
        let s = &gpu.stream;
        let what = "allocating the multi-source traversal";
        let words = |len: usize| s.alloc_zeros::<u64>(len.max(1));
        let ids = |len: usize| s.alloc_zeros::<u32>(len.max(1));
        Ok(MultiSourceBuffers {
            kernels: Kernels::one(module),
            seen: words(n).map_err(driver(what))?,
            frontier: words(n).map_err(driver(what))?,
            next: words(n).map_err(driver(what))?,
            reached: ids(n).map_err(driver(what))?,
            queues: [ids(3 * n).map_err(driver(what))?, ids(3 * n).map_err(driver(what))?],
            counters: words(MS_COUNTER_WORDS).map_err(driver(what))?,
            state: s.alloc_zeros::<MsState>(1).map_err(driver(what))?,
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
    pub(crate) state: CudaSlice<BcState>,
}

impl DependencyBuffers {
    pub(crate) fn new(gpu: &Gpu, n: u32) -> Result<Self, CudaError> {
        let n = (n as usize).max(1);
        gpu.check_free("the dependency sweeps", n as u64 * (4 + 3 * 8 + 2 * 4))?;
        let (module, _) = gpu.compile(&sweep_unit())?;
        let s = &gpu.stream;
        let what = "allocating the dependency sweeps";
        Ok(DependencyBuffers {
            kernels: Kernels::one(module),
            level: s.alloc_zeros::<u32>(n).map_err(driver(what))?,
            sigma: s.alloc_zeros::<f64>(n).map_err(driver(what))?,
            delta: s.alloc_zeros::<f64>(n).map_err(driver(what))?,
            sums: s.alloc_zeros::<f64>(n).map_err(driver(what))?,
            order: s.alloc_zeros::<u32>(n).map_err(driver(what))?,
            large: s.alloc_zeros::<u32>(n).map_err(driver(what))?,
            counters: s.alloc_zeros::<u64>(sweep::WORDS).map_err(driver(what))?,
            state: s.alloc_zeros::<BcState>(1).map_err(driver(what))?,
        })
    }
}
