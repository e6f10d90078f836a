//! The forward pass of a random multi-layer perceptron (784-256-128-10 by default), checked against a
//! dense matrix product per layer.
//!
//! `cargo run --release --example mlp -- mlp:784,256,128,10`

use simdx::engine::Engine;
use simdx::gen::GeneratorSpec;
use simdx_algos::{verify, Mlp};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "mlp:784,256,128,10".into());
    let network = GeneratorSpec::parse(&spec)?.generate(1)?;
    let mlp = Mlp::default_input(network.num_vertices(), -0.5);
    let run = Engine::default().run(&mlp, &network)?;
    verify::mlp(&network, &mlp, &run.values, 1e-5)?;
    let outputs = verify::mlp_layers(&network)?.pop().unwrap_or_default();
    let best = outputs.iter().copied().max_by(|&a, &b| run.values[a as usize].total_cmp(&run.values[b as usize]));
    println!(
        "mlp {spec}: {} layers in {:.2} ms; {} outputs, the largest at neuron {} ({:.4})",
        run.stats.iterations.len(),
        run.stats.time.as_secs_f64() * 1e3,
        outputs.len(),
        best.unwrap_or(0),
        best.map_or(f32::NAN, |v| run.values[v as usize])
    );
    Ok(())
}
