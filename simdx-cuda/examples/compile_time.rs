//! How long a program's first GPU run waits for its kernels with a cold cache: each library program's
//! source compiled as one unit (every kernel group at once), as the engine compiles it for a run that
//! waits for every kernel (one unit per group, at once on threads of their own), and the step kernels'
//! units alone (what a first run under selective fusion waits for), side by side in one process. Each is timed with an empty
//! cache directory of its own, loading included; the medians of `rounds` rounds are printed.
//!
//! `CUDA_CACHE_DISABLE=1 cargo run --release -p simdx-cuda --example compile_time -- [rounds]` (on a
//! GPU; without `CUDA_CACHE_DISABLE=1` the driver's cache under `~/.nv` answers for code seen before)

use std::time::Instant;

use simdx_algos::{Bfs, PageRank, Sssp, Wcc};
use simdx_core::acc::device::DeviceProgram;
use simdx_cuda::{kernel_source, kernel_units, Gpu, STEP_GROUPS};

/// Seconds to compile and load `sources` on `gpu` with an empty cache directory.
fn cold(gpu: &Gpu, sources: &[String]) -> Result<f64, Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    // SAFETY: this example's only thread reads the environment here and in `compile_all` below.
    unsafe { std::env::set_var("SIMDX_CACHE_DIR", dir.path()) };
    let sources: Vec<&str> = sources.iter().map(String::as_str).collect();
    let started = Instant::now();
    gpu.compile_all(&sources)?;
    Ok(started.elapsed().as_secs_f64())
}

/// The median of `v`.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One line for program `P`: one unit against the engine's units; a unique comment per round keeps
/// the process's memory cache from answering.
fn row<P: DeviceProgram>(gpu: &Gpu, name: &str, rounds: usize) -> Result<(), Box<dyn std::error::Error>> {
    let (mut whole, mut split, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let tag = format!("// round {round} {}\n", std::process::id());
        whole.push(cold(gpu, &[format!("{tag}{}", kernel_source::<P>())])?);
        let units: Vec<String> = kernel_units::<P>().into_iter().map(|u| format!("{tag}{u}")).collect();
        split.push(cold(gpu, &units)?);
        let tag = format!("// steps {round} {}\n", std::process::id());
        let units: Vec<String> = kernel_units::<P>().into_iter().map(|u| format!("{tag}{u}")).collect();
        steps.push(cold(gpu, &units[..STEP_GROUPS])?);
    }
    let units = kernel_units::<P>().len();
    println!("| {name} | {:.2} | {:.2} | {:.2} | {units} |", median(whole), median(split), median(steps));
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rounds = std::env::args().nth(1).and_then(|r| r.parse().ok()).unwrap_or(3);
    let gpu = Gpu::open(0)?;
    println!("{}, {rounds} rounds, medians, seconds", gpu.name);
    println!("| program | one unit | all units at once | step units at once | units |\n|---|---|---|---|---|");
    row::<Bfs>(&gpu, "bfs", rounds)?;
    row::<Sssp>(&gpu, "sssp", rounds)?;
    row::<PageRank>(&gpu, "pagerank", rounds)?;
    row::<Wcc>(&gpu, "wcc", rounds)?;
    Ok(())
}
