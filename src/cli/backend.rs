//! `--backend` on the command line: its names, and the library's [`Runner`] made from one, with a
//! notice on stderr when `auto` in a CUDA build finds no usable GPU and runs on the CPU.

use clap::ValueEnum;
use simdx::{Backend, Runner};
use simdx_core::engine::RunOptions;
use simdx_core::Graph;

use super::error::CliError;

/// A backend name on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendArg {
    /// CUDA where this build has it and a GPU is usable, else the CPU.
    Auto,
    /// The rayon CPU backend.
    Cpu,
    /// The CUDA backend (needs the `cuda` feature and an NVIDIA GPU; an error otherwise).
    Cuda,
}

/// A runner for `graph` on `backend` with `options`.
pub fn runner(backend: BackendArg, options: RunOptions, graph: &Graph) -> Result<Runner<'_>, CliError> {
    let backend = match backend {
        BackendArg::Auto => Backend::Auto,
        BackendArg::Cpu => Backend::Cpu,
        BackendArg::Cuda => Backend::Cuda,
    };
    let runner = Runner::with_options(graph, backend, options)?;
    if let (true, Some(why)) = (cfg!(feature = "cuda"), runner.fallback()) {
        eprintln!("simdx: running on the CPU backend: {why}");
    }
    Ok(runner)
}
