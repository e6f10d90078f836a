//! Belief propagation for 10 iterations on a generated weighted graph (likelihoods = edge weights),
//! checked against the serial oracle.
//!
//! `cargo run --release --example bp -- kron:16:w`

use simdx::engine::Engine;
use simdx::gen::GeneratorSpec;
use simdx_algos::{verify, Bp};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "kron:16:w".into());
    let graph = GeneratorSpec::parse(&spec)?.generate(1)?;
    let bp = Bp::uniform(graph.num_vertices(), Bp::ITERATIONS);
    let run = Engine::default().run(&bp, &graph)?;
    verify::bp(&graph, &bp, &run.values, 1e-5)?;
    let (top, belief) = run.values.iter().copied().enumerate().fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a });
    println!(
        "bp on {spec}: {} iterations, beliefs sum to {:.6}, strongest belief {belief:.3e} at vertex {top}, {:.2} ms",
        bp.iterations,
        run.values.iter().sum::<f64>(),
        run.stats.time.as_secs_f64() * 1e3
    );
    Ok(())
}
