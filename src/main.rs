//! The `simdx` command-line tool: inspect, convert and generate graphs (and, as algorithms arrive,
//! run them). Exit code 0 on success, 2 on bad input or usage; errors go to stderr as one sentence.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("simdx: error: {err}");
            ExitCode::from(err.exit_code())
        }
    }
}
