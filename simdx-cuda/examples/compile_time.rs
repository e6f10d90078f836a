//! How long a program's first GPU run waits for its kernels with a cold cache: each library
//! program's unit compiled by NVRTC and loaded, with an empty cache directory of its own; the
//! medians of `rounds` rounds (a comment unique to the round keeps the process's memory cache from
//! answering).
//!
//! `cargo run --release -p simdx-cuda --example compile_time -- [rounds]` (on a GPU)

use std::time::Instant;

use simdx_algos::{Bfs, KCore, PageRank, Sssp, Wcc};
use simdx_core::acc::device::DeviceProgram;
use simdx_cuda::{kernel_source, Gpu};

/// Seconds to compile and load program `P`'s unit, tagged `tag`, on `gpu` with an empty cache.
fn cold<P: DeviceProgram>(gpu: &Gpu, tag: &str) -> Result<f64, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    // SAFETY: this example's only thread reads the environment here and in `compile` below.
    unsafe { std::env::set_var("SIMDX_CACHE_DIR", dir.path()) };
    let source = format!("{tag}{}", kernel_source::<P>());
    let started = Instant::now();
    gpu.compile(&source)?;
    Ok(started.elapsed().as_secs_f64())
}

/// One line for program `P`: the median and the slowest of `rounds` cold compiles.
fn row<P: DeviceProgram>(gpu: &Gpu, name: &str, rounds: usize) -> Result<(), Box<dyn std::error::Error>> {
    let mut times = Vec::new();
    for round in 0..rounds {
        times.push(cold::<P>(gpu, &format!("// {name} round {round} of {}\n", std::process::id()))?);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "| {name} | {:.3} | {:.3} | {} |",
        times[times.len() / 2],
        times[times.len() - 1],
        kernel_source::<P>().len()
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds = std::env::args().nth(1).and_then(|r| r.parse().ok()).unwrap_or(3);
    let gpu = Gpu::open(0)?;
    println!("{}, {rounds} rounds, seconds", gpu.name);
    println!("| program | median | slowest | bytes of CUDA C |\n|---|---|---|---|");
    row::<Bfs>(&gpu, "bfs", rounds)?;
    row::<Sssp>(&gpu, "sssp", rounds)?;
    row::<PageRank>(&gpu, "pagerank", rounds)?;
    row::<Wcc>(&gpu, "wcc", rounds)?;
    row::<KCore>(&gpu, "kcore", rounds)?;
    Ok(())
}
