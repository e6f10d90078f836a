//! Command-line definitions (clap) and dispatch to one module per subcommand.

mod algorithm;
mod backend;
mod bench;
mod convert;
mod error;
mod gen;
mod graph_arg;
mod info;
mod numbers;
mod outcome;
mod outputs;
mod plot;
mod progress;
mod run;

use clap::{Parser, Subcommand};

pub use error::CliError;

/// simdx: graph algorithms on GPUs and multicore CPUs.
///
/// Wherever a GRAPH is expected, give a file (.mtx, .el, .wel, .gr, .sxg) or a generator spec:
/// kron:SCALE[:DEGREE], urand:SCALE[:DEGREE], rmat:SCALE[:DEGREE[:A:B:C]], grid:WxH; append :w for
/// integer weights in [1, 255] (or :w=LO-HI), and :d to make kron, urand or rmat directed (kron:22:d,
/// rmat:16:d:w). mlp:W0,W1,...[:FAN_IN] is a random layered perceptron (directed, f32 weights).
#[derive(Debug, Parser)]
#[command(name = "simdx", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    /// The most host memory a graph may take to read, build, convert or generate (e.g. 512M, 8G); a
    /// larger one is refused with its estimate instead of being allocated. Default: what the system has
    /// available.
    #[arg(long, global = true, value_name = "SIZE", value_parser = simdx_core::memory::parse_bytes)]
    memory_limit: Option<u64>,
    /// The most GPU memory a run may allocate (graph, run buffers, work queue; e.g. 512M, 8G); a run
    /// that needs more is refused with its estimate before allocating. It counts what each GPU has
    /// lost since the run opened it (other processes' allocations meanwhile too). Default: what the
    /// device has free.
    #[arg(long, global = true, value_name = "SIZE", value_parser = simdx_core::memory::parse_bytes)]
    device_memory_limit: Option<u64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a graph's size, direction, weights, degrees, degree histogram and memory.
    Info(info::InfoArgs),
    /// Convert a graph from any supported format (or a generator spec) to any other.
    Convert(convert::ConvertArgs),
    /// Generate a graph and write it to a file.
    Gen(gen::GenArgs),
    /// Run an algorithm (bfs, sssp, pr, ppr, wcc, kcore, spmv, bp, mlp, msbfs, closeness, harmonic,
    /// eccentricity, bc) on a graph and report time, iterations and GTEPS.
    Run(run::RunArgs),
    /// Benchmark algorithms x graphs x backends x policies; print a table and write JSON.
    Bench(bench::BenchArgs),
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), CliError> {
    simdx_core::memory::set_limit(cli.memory_limit);
    #[cfg(feature = "cuda")]
    simdx_cuda::set_memory_limit(cli.device_memory_limit);
    #[cfg(not(feature = "cuda"))]
    let _ = cli.device_memory_limit; // no GPU backend in this build: nothing to limit
    match cli.command {
        Command::Info(args) => info::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Gen(args) => gen::run(args),
        Command::Run(args) => run::run(args),
        Command::Bench(args) => bench::run(args),
    }
}
