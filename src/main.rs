//! The `simdx` command-line tool: inspect, convert and generate graphs and run algorithms on them.
//! Exit code 0 on success, 2 on bad input or usage; errors go to stderr as one sentence.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// The CPU engine's steps make short-lived lists on every worker thread (reached vertices, bins,
/// bucket lists), so the allocator is on its hot path: with mimalloc instead of glibc's, SSSP and BFS
/// on 16 Xeon cores ran 10-20% faster (BENCHMARKS.md, "The allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // A write cut short by Ctrl-C (or SIGTERM, SIGHUP) leaves no temporary file beside its destination.
    simdx_core::io::atomic_file::remove_temporaries_on_signals();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("simdx: error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
