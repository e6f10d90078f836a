//! What the engine, the fused kernels' host side and the device graph share, so that none of them
//! imports another for it: the compiled kernels of a program ([`Kernels`]), the block size, the tile
//! and the grid barrier.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaModule};

use crate::error::{driver, CudaError};

/// The software grid barrier of the fused kernels (CUDA C, self-contained): `sx_grid_sync(bar)` over a
/// zeroed buffer of [`GRID_BARRIER_WORDS`] `u32`s, in a grid launched cooperatively.
pub const GRID_BARRIER: &str = include_str!("kernels/barrier.cu");
/// The `u32` words of a grid barrier's buffer.
pub const GRID_BARRIER_WORDS: usize = 64;
/// Threads per block of every kernel (`SX_BLOCK` in kernels/state.cu).
pub(crate) const BLOCK: u32 = 256;
/// Arcs, or candidates, one thread loads at once (`SX_ILP`).
pub(crate) const ILP: u32 = 4;
/// Vertices per tile of the ballot filter and the edge-balanced steps (`SX_TILE`).
pub(crate) const TILE: u32 = BLOCK * 16;

/// The kernels of one program: the modules its units compiled to (the engine's kernels are split over
/// several units, compiled at once; a self-contained kernel set is one).
pub(crate) struct Kernels {
    modules: Vec<Arc<CudaModule>>,
    /// Which module holds a kernel, where the modules say (the engine's units, in
    /// `engine::KERNEL_GROUPS` order); otherwise each module is tried in turn.
    unit_of: Option<fn(&str) -> Option<usize>>,
}

impl Kernels {
    /// The kernels of one module.
    pub(crate) fn one(module: Arc<CudaModule>) -> Kernels {
        Kernels { modules: vec![module], unit_of: None }
    }

    /// The kernels of several modules, each kernel in the module `unit_of` names for it: looked up
    /// there alone (trying the others would leave a failed driver call per miss, which
    /// compute-sanitizer reports).
    pub(crate) fn split(modules: Vec<Arc<CudaModule>>, unit_of: fn(&str) -> Option<usize>) -> Kernels {
        Kernels { modules, unit_of: Some(unit_of) }
    }

    /// The kernel `name`, from the module that has it.
    pub(crate) fn get(&self, name: &str) -> Result<CudaFunction, CudaError> {
        if let Some(module) = self.unit_of.and_then(|unit_of| unit_of(name)).and_then(|i| self.modules.get(i)) {
            return module.load_function(name).map_err(driver("finding a kernel"));
        }
        let mut last = None;
        for module in &self.modules {
            match module.load_function(name) {
                Ok(f) => return Ok(f),
                Err(e) => last = Some(e),
            }
        }
        Err(driver("finding a kernel")(last.expect("a program has at least one module")))
    }
}

/// Launches kernel `$name` of `$kernels` on `$stream` with `$blocks` blocks of [`BLOCK`] threads,
/// the state buffer `$state` as its first argument and then `$arg`s; `$what` names the launch in an
/// error. For the self-contained kernel sets (multi-source traversal, Brandes' sweeps), whose kernels
/// all take their state first. Expands to a `?` on the launch.
macro_rules! launch_with_state {
    ($kernels:expr, $stream:expr, $state:expr, $what:expr, $name:expr, $blocks:expr $(, $arg:expr)*) => {{
        use cudarc::driver::PushKernelArg as _;
        let f = $kernels.get($name)?;
        let mut builder = $stream.launch_builder(&f);
        builder.arg($state);
        $(builder.arg($arg);)*
        let blocks: u32 = $blocks;
        let cfg = cudarc::driver::LaunchConfig {
            grid_dim: (blocks.max(1), 1, 1),
            block_dim: ($crate::launch::BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the callers pass the arguments their kernel file declares, after the state, and the
        // state names buffers that live as long as the device graph that holds them.
        unsafe { builder.launch(cfg) }.map_err($crate::error::driver($what))?;
    }};
}
pub(crate) use launch_with_state;
