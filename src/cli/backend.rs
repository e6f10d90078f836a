//! The backend `simdx run` uses: [`Executor`] runs a program on the CPU engine or, with the `cuda`
//! feature and a usable GPU, on the CUDA engine with the graph uploaded once; with no GPU it falls
//! back to the CPU and says so.

use clap::ValueEnum;
use serde::Serialize;
use simdx_core::acc::DeviceProgram;
use simdx_core::engine::{Engine, Run, RunOptions};
use simdx_core::Graph;

use super::error::CliError;

/// Where a program runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The rayon CPU backend.
    Cpu,
    /// The CUDA backend (needs the `cuda` feature and an NVIDIA GPU).
    Cuda,
}

impl Backend {
    /// The default: CUDA when built with the `cuda` feature, else the CPU.
    pub fn default_for_build() -> Backend {
        if cfg!(feature = "cuda") {
            Backend::Cuda
        } else {
            Backend::Cpu
        }
    }
}

/// A ready backend: the engine, and for CUDA the graph on the device.
pub enum Executor<'g> {
    /// The CPU engine over the host graph.
    Cpu(Engine, &'g Graph),
    /// The CUDA engine over the uploaded graph.
    #[cfg(feature = "cuda")]
    Cuda(simdx_cuda::CudaEngine, Box<simdx_cuda::DeviceGraph>),
}

impl<'g> Executor<'g> {
    /// Prepares `backend` for `graph`; CUDA without a usable GPU falls back to the CPU with a notice on
    /// stderr. Returns the executor and the backend actually used.
    pub fn new(backend: Backend, options: RunOptions, graph: &'g Graph) -> Result<(Executor<'g>, Backend), CliError> {
        match backend {
            Backend::Cpu => Ok((Executor::Cpu(Engine::new(options), graph), Backend::Cpu)),
            Backend::Cuda => Self::cuda(options, graph),
        }
    }

    #[cfg(feature = "cuda")]
    fn cuda(options: RunOptions, graph: &'g Graph) -> Result<(Executor<'g>, Backend), CliError> {
        match simdx_cuda::available() {
            Ok(gpu) => {
                let device_graph =
                    simdx_cuda::DeviceGraph::upload(&gpu, graph).map_err(|e| CliError::Usage(e.to_string()))?;
                Ok((Executor::Cuda(simdx_cuda::CudaEngine::new(options), Box::new(device_graph)), Backend::Cuda))
            }
            Err(e) => {
                eprintln!("simdx: no usable GPU ({e}); running on the CPU backend instead");
                Ok((Executor::Cpu(Engine::new(options), graph), Backend::Cpu))
            }
        }
    }

    #[cfg(not(feature = "cuda"))]
    fn cuda(options: RunOptions, graph: &'g Graph) -> Result<(Executor<'g>, Backend), CliError> {
        eprintln!(
            "simdx: this build has no CUDA backend (rebuild with `--features cuda`); running on the CPU backend instead"
        );
        Ok((Executor::Cpu(Engine::new(options), graph), Backend::Cpu))
    }

    /// Replaces the engine options for later runs, keeping the graph (on the GPU: uploaded once).
    pub fn set_options(&mut self, options: RunOptions) {
        match self {
            Executor::Cpu(engine, _) => *engine = Engine::new(options),
            #[cfg(feature = "cuda")]
            Executor::Cuda(engine, _) => *engine = simdx_cuda::CudaEngine::new(options),
        }
    }

    /// The device's measured copy bandwidth in GB/s (bytes read + written) for GPU executors.
    pub fn measured_bandwidth(&self) -> Option<f64> {
        match self {
            Executor::Cpu(..) => None,
            #[cfg(feature = "cuda")]
            Executor::Cuda(_, graph) => graph.gpu().copy_bandwidth().ok(),
        }
    }

    /// For `--trace`: the fused kernel of the last run, its grid and registers (GPU runs with fusion).
    pub fn kernel_report(&self) -> Option<String> {
        match self {
            Executor::Cpu(..) => None,
            #[cfg(feature = "cuda")]
            Executor::Cuda(engine, _) => engine.last_fused_kernel().map(|(name, g)| {
                format!(
                    "fused kernel {name}: {} blocks of 256 threads ({} per SM, co-resident), {} registers per thread",
                    g.blocks, g.blocks_per_sm, g.registers
                )
            }),
        }
    }

    /// Runs `program` once.
    pub fn run<P: DeviceProgram>(&self, program: &P) -> Result<Run<P::Value>, CliError> {
        match self {
            Executor::Cpu(engine, graph) => engine.run(program, graph).map_err(|e| CliError::Usage(e.to_string())),
            #[cfg(feature = "cuda")]
            Executor::Cuda(engine, graph) => engine.run(program, graph).map_err(|e| CliError::Usage(e.to_string())),
        }
    }
}
