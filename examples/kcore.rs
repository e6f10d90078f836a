//! The 16-core of a generated graph, and its full core decomposition.
//!
//! `cargo run --release --example kcore -- kron:16`

use simdx::engine::Engine;
use simdx::gen::GeneratorSpec;
use simdx_algos::{core_numbers, KCore};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "kron:16".into());
    let graph = GeneratorSpec::parse(&spec)?.generate(1)?;
    let engine = Engine::default();
    let k = 16;
    let run = engine.run(&KCore { k }, &graph)?;
    let inside = run.values.iter().filter(|&&degree| degree >= k).count();
    let cores = core_numbers(|program| engine.run(program, &graph).map(|r| r.values))?;
    let degeneracy = cores.iter().max().copied().unwrap_or(0);
    println!(
        "kcore on {spec}: {inside} of {} vertices in the {k}-core ({:.2} ms); largest core number {degeneracy}",
        graph.num_vertices(),
        run.stats.time.as_secs_f64() * 1e3
    );
    Ok(())
}
