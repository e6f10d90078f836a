//! The `simdx` command-line tool: inspect, convert and generate graphs and run algorithms on them.
//! Exit code 0 on success, 2 on bad input or usage; errors go to stderr as one sentence.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// The CPU engine's steps make short-lived lists on every worker thread (reached vertices, bins,
/// bucket lists), so the allocator is on its hot path: mimalloc serves them faster than glibc's
/// (measurements: `docs/experiments/cpu-engine.md`, "The allocator: mimalloc for the `simdx` binary").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // A write cut short by Ctrl-C (or SIGTERM, SIGHUP) leaves no temporary file beside its destination.
    simdx_core::io::atomic_file::remove_temporaries_on_signals();
    let args = cli::Cli::parse();
    let result = cli::run(args);
    // Kernels still compiling in the background go to the cache for the next call.
    simdx::finish_gpu_compiles();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("simdx: error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
