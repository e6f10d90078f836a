//! One sparse matrix-vector product y = A x on a generated weighted graph, x[u] = 1 + (u mod 7).
//!
//! `cargo run --release --example spmv -- kron:16:w`

use simdx::engine::Engine;
use simdx::gen::GeneratorSpec;
use simdx_algos::Spmv;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "kron:16:w".into());
    let graph = GeneratorSpec::parse(&spec)?.generate(1)?;
    let run = Engine::default().run(&Spmv::default_input(graph.num_vertices()), &graph)?;
    let sum: f64 = run.values.iter().map(|&y| f64::from(y)).sum();
    let largest = run.values.iter().copied().fold(0.0f32, f32::max);
    println!(
        "spmv on {spec}: sum of y = {sum:.6e}, largest entry {largest:.6e} ({} arcs in {:.2} ms)",
        graph.num_arcs(),
        run.stats.time.as_secs_f64() * 1e3
    );
    Ok(())
}
