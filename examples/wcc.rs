//! Weakly connected components of a generated graph: how many, and the largest.
//!
//! `cargo run --release --example wcc -- kron:16`

use simdx::engine::Engine;
use simdx::gen::GeneratorSpec;
use simdx_algos::{undirected, Wcc};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "kron:16".into());
    let graph = GeneratorSpec::parse(&spec)?.generate(1)?;
    // Generated graphs are undirected already; a directed one would be symmetrised here.
    let run = Engine::default().run(&Wcc, &undirected(&graph))?;
    let mut size = vec![0u32; graph.num_vertices()];
    for &c in &run.values {
        size[c as usize] += 1;
    }
    let components = size.iter().filter(|&&s| s > 0).count();
    let largest = size.iter().max().copied().unwrap_or(0);
    println!(
        "wcc on {spec}: {components} components, the largest has {largest} vertices ({} iterations, {:.2} ms)",
        run.stats.iterations.len(),
        run.stats.time.as_secs_f64() * 1e3
    );
    Ok(())
}
