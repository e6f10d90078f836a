//! scratch: fixed cost of a run.
use simdx::engine::Engine;
use simdx::gen::GeneratorSpec;
use simdx_algos::PageRank;
fn main() {
    let engine = Engine::default();
    let g = GeneratorSpec::parse("kron:18:w").unwrap().generate(1).unwrap();
    for _ in 0..300 {
        drop(engine.run(&PageRank { damping: 0.85, tolerance: 0.0, max_iterations: 1 }, &g).unwrap());
    }
}
