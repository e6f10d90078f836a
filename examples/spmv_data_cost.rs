//! What reading a user's vector costs SpMV: the library's `Spmv`, which reads `x[u]` from per-vertex
//! data, against the same product with `x` computed from a rule (`1 + u mod 7`) in kernel code, run
//! alternately on one runner (the GPU where there is one). Prints each one's median time and their
//! ratio, and checks that both give the same `y` (within 1e-5 relative: the order of the additions
//! may differ).
//!
//! `cargo run --release --features cuda --example spmv_data_cost -- kron:22:w 9`

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx::algos::Spmv;
use simdx::gen::GeneratorSpec;
use simdx::{graph_kernel, Backend, Runner};

/// SpMV with `x[u] = 1 + (u mod 7)` computed in `init`, reading no per-vertex data.
struct SpmvByRule;

#[graph_kernel]
impl Program for SpmvByRule {
    type Value = f32;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f32 = 0.0;
    const UNSEEN: f32 = 0.0;

    fn init(&self, v: Vertex) -> f32 {
        1.0 + (v.id % 7) as f32
    }

    fn active(&self, _now: f32, _seen: f32) -> bool {
        true
    }

    fn compute(&self, e: Edge<f32, f32>) -> f32 {
        e.src * e.weight
    }

    fn apply(&self, _v: Vertex, _x: f32, y: f32, _global: f64) -> f32 {
        y
    }

    fn done(&self, iterations: u32, _change: f64) -> bool {
        iterations >= 1
    }
}

fn median(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "kron:16:w".into());
    let trials: usize = std::env::args().nth(2).map_or(Ok(7), |t| t.parse())?;
    let graph = GeneratorSpec::parse(&spec)?.generate(1)?;
    let runner = Runner::new(&graph, Backend::Auto)?;
    let data = Spmv::default_input(graph.num_vertices());
    let (mut with_data, mut by_rule) = (Vec::new(), Vec::new());
    for _ in 0..trials.max(1) {
        let a = runner.run(&data)?;
        let b = runner.run(&SpmvByRule)?;
        // Sums of the same terms, maybe added in another order (atomics on a GPU): equal within 1e-5.
        let apart = |(x, y): (&f32, &f32)| (x - y).abs() > 1e-5 * (x.abs() + y.abs()).max(1e-30);
        if let Some(v) = a.values.iter().zip(&b.values).position(apart) {
            return Err(format!("the products differ at {v}: {} and {}", a.values[v], b.values[v]).into());
        }
        with_data.push(a.stats.time.as_secs_f64() * 1e3);
        by_rule.push(b.stats.time.as_secs_f64() * 1e3);
    }
    let (d, r) = (median(with_data), median(by_rule));
    let backend = runner.backend().name();
    println!("spmv on {spec} ({backend}, median of {trials}): x from per-vertex data {d:.3} ms, x by rule {r:.3} ms, ratio {:.3}", d / r);
    Ok(())
}
