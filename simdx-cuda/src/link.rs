//! The host side of linking classes on the GPU (kernels/link.cu) for programs whose values are labels
//! ([`Program::VALUES_ARE_LABELS`](simdx_core::acc::Program::VALUES_ARE_LABELS)): Afforest's order,
//! as the CPU backend runs it. The out-arcs sampled first, then the largest class found from a sample
//! of 1,024 vertices' roots read back to the host, then the other arcs of the vertices outside it.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use simdx_core::engine::linking::{largest_class, SAMPLED_ARCS, SAMPLES};
use simdx_core::engine::{Direction, FilterUsed, IterationStats};

use crate::device_structs::step::{CHANGE, EDGES, NEXT_LEN};
use crate::error::{driver, CudaError};
use crate::launch::{Kernels, BLOCK};

/// What a linking run works with.
pub(crate) struct Linking<'a> {
    pub(crate) kernels: &'a Kernels,
    pub(crate) stream: &'a Arc<CudaStream>,
    /// The run's `sx_state`, its values initialised.
    pub(crate) state: &'a CudaSlice<u8>,
    pub(crate) counters: &'a mut CudaSlice<u64>,
    /// At least `min(n, SAMPLES)` words the run does not need meanwhile.
    pub(crate) scratch: &'a CudaSlice<u32>,
    pub(crate) n: u32,
    pub(crate) directed: bool,
    pub(crate) sm_count: u32,
}

impl Linking<'_> {
    /// Links the classes, leaving each vertex's value at the root of its class, and returns one record
    /// per phase (the sampled arcs, the rest); `None`, having changed nothing, when some vertex does not
    /// start as its own label (the engine then propagates).
    pub(crate) fn run(self) -> Result<Option<Vec<IterationStats>>, CudaError> {
        let Linking { kernels, stream, state, counters, scratch, n, directed, sm_count } = self;
        let blocks = n.div_ceil(BLOCK).clamp(1, sm_count * 32);
        let cfg = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        let read = |counters: &mut CudaSlice<u64>| -> Result<Vec<u64>, CudaError> {
            let c = stream.clone_dtoh(counters).map_err(driver("reading counters"))?;
            stream.memset_zeros(counters).map_err(driver("resetting counters"))?;
            Ok(c)
        };
        macro_rules! launch {
            ($name:expr $(, $arg:expr)*) => {{
                let f = kernels.get($name)?;
                let mut b = stream.launch_builder(&f);
                b.arg(state);
                $(b.arg($arg);)*
                // SAFETY: the arguments match the kernel's parameters in kernels/link.cu, and the state
                // struct's buffers live until the run ends.
                unsafe { b.launch(cfg) }.map_err(driver("launching a kernel"))?;
            }};
        }
        let began = Instant::now();
        launch!("sx_link_check");
        if read(counters)?[CHANGE] != 0 {
            return Ok(None);
        }
        for round in 0..SAMPLED_ARCS {
            launch!("sx_link_round", &round);
            launch!("sx_link_flatten");
        }
        let count = SAMPLES.min(n);
        let seed = u64::from(n);
        launch!("sx_link_sample", scratch, &count, &seed);
        let roots = stream.clone_dtoh(&scratch.slice(0..count as usize)).map_err(driver("reading the sample"))?;
        let sampled = read(counters)?[EDGES];
        let sample = IterationStats {
            direction: Direction::Push,
            filter: FilterUsed::Every,
            frontier: u64::from(n),
            edges: sampled,
            bucket: 0,
            time: began.elapsed(),
        };
        let began = Instant::now();
        let largest = largest_class(roots.iter().map(|&r| u64::from(r))).map_or(u32::MAX, |r| r as u32);
        let directed = u32::from(directed);
        launch!("sx_link_rest", &largest, &SAMPLED_ARCS, &directed);
        launch!("sx_link_flatten");
        let c = read(counters)?;
        let rest = IterationStats {
            direction: Direction::Push,
            filter: FilterUsed::Every,
            frontier: c[NEXT_LEN],
            edges: c[EDGES],
            bucket: 0,
            time: began.elapsed(),
        };
        Ok(Some(vec![sample, rest]))
    }
}
