//! Prints the CUDA C that `#[graph_kernel]` generated for one of the library's programs (prelude
//! included), as a GPU backend compiles it: `cargo run -p simdx-algos --example device_code -- sssp`.
//! With `--host` the host shim comes first, so that the output compiles with a C compiler.

use simdx_core::acc::device::{device_unit, HOST_SHIM};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = match args.first().map(String::as_str) {
        Some("bfs") => device_unit::<simdx_algos::Bfs>(),
        Some("sssp") => device_unit::<simdx_algos::Sssp>(),
        Some("pr" | "pagerank") => device_unit::<simdx_algos::PageRank>(),
        Some("ppr") => device_unit::<simdx_algos::Ppr>(),
        Some("spmv") => device_unit::<simdx_algos::Spmv>(),
        Some("mlp") => device_unit::<simdx_algos::Mlp>(),
        Some("bp") => device_unit::<simdx_algos::Bp>(),
        Some("msbfs") => device_unit::<simdx_algos::MultiSourceBfs>(),
        _ => {
            eprintln!("usage: device_code bfs|sssp|pr|ppr|spmv|mlp|bp|msbfs [--host]");
            std::process::exit(2);
        }
    };
    if args.iter().any(|a| a == "--host") {
        print!("{HOST_SHIM}");
    }
    print!("{code}");
}
