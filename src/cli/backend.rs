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

/// `--gpus`: how many GPUs of this host a CUDA run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpusArg {
    /// The first `n` GPUs (at least 1).
    Count(u32),
    /// Every GPU of the host (the CPU backend under `--backend auto` when there is none).
    All,
}

/// Parses `--gpus`: a count of at least 1, or `all`.
pub fn parse_gpus(text: &str) -> Result<GpusArg, String> {
    match text {
        "all" => Ok(GpusArg::All),
        _ => super::numbers::at_least_one(text).map(GpusArg::Count).map_err(|e| format!("{e}, or 'all'")),
    }
}

/// The library's backend for `backend` on `gpus` GPUs, or why the pair makes no sense.
fn library_backend(backend: BackendArg, gpus: GpusArg) -> Result<Backend, CliError> {
    let count = match gpus {
        GpusArg::Count(n) => n as usize,
        GpusArg::All => simdx::gpu_count(),
    };
    Ok(match (backend, count) {
        (BackendArg::Cpu, 0 | 1) => Backend::Cpu,
        (BackendArg::Cpu, _) => {
            return Err(CliError::Usage(
                "--gpus takes more than one GPU only on the CUDA backend, not with --backend cpu".into(),
            ))
        }
        (BackendArg::Auto, 0 | 1) => Backend::Auto,
        (BackendArg::Cuda, 0 | 1) => Backend::Cuda,
        (BackendArg::Auto | BackendArg::Cuda, n) => Backend::Gpus(n),
    })
}

/// A runner for `graph` on `backend` (with `gpus` GPUs where it is CUDA) with `options`.
pub fn runner(backend: BackendArg, gpus: GpusArg, options: RunOptions, graph: &Graph) -> Result<Runner<'_>, CliError> {
    let backend = library_backend(backend, gpus)?;
    let runner = Runner::with_options(graph, backend, options)?;
    if let (true, Some(why)) = (cfg!(feature = "cuda"), runner.fallback()) {
        eprintln!("simdx: running on the CPU backend: {why}");
    }
    Ok(runner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpus_take_a_count_of_at_least_one_or_all() {
        assert_eq!(parse_gpus("all"), Ok(GpusArg::All));
        assert_eq!(parse_gpus("2"), Ok(GpusArg::Count(2)));
        for wrong in ["0", "-1", "two", "", "1.5"] {
            assert!(parse_gpus(wrong).is_err(), "{wrong:?} accepted");
        }
    }

    #[test]
    fn several_gpus_are_the_cuda_backend_and_refused_on_the_cpu() {
        let backend = |b, g| library_backend(b, g).ok();
        assert_eq!(backend(BackendArg::Cuda, GpusArg::Count(2)), Some(Backend::Gpus(2)));
        assert_eq!(backend(BackendArg::Auto, GpusArg::Count(4)), Some(Backend::Gpus(4)));
        assert_eq!(backend(BackendArg::Cuda, GpusArg::Count(1)), Some(Backend::Cuda));
        assert_eq!(backend(BackendArg::Auto, GpusArg::Count(1)), Some(Backend::Auto));
        assert_eq!(backend(BackendArg::Cpu, GpusArg::Count(1)), Some(Backend::Cpu));
        assert_eq!(backend(BackendArg::Cpu, GpusArg::Count(2)), None);
    }
}
