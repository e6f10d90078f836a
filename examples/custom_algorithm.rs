//! Write your own algorithm: widest paths. The width of a path is its narrowest edge; each vertex gets
//! the width of the widest path from the source (its bottleneck capacity), written from scratch as an
//! ACC program. The same source runs on the CPU and, through `#[graph_kernel]`, on the GPU: the
//! [`Runner`] picks the GPU when this is built with `--features cuda` and one is usable.
//!
//! `cargo run --release --example custom_algorithm -- grid:256x256` (add `--features cuda` for the GPU)

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx::gen::GeneratorSpec;
use simdx::{graph_kernel, Backend, Runner};

/// Widest paths from `source`; 0 means unreachable.
struct WidestPath {
    source: u32,
}

#[graph_kernel]
impl Program for WidestPath {
    type Value = u32;
    type Weight = u32;
    const OP: CombineOp = CombineOp::Max; // the widest of the paths arriving
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = 0;
    const UNSEEN: u32 = 0;

    fn init(&self, v: Vertex) -> u32 {
        if v.id == self.source {
            u32::MAX
        } else {
            0
        }
    }

    /// A vertex whose width grew since it last sent passes the news on.
    fn active(&self, now: u32, seen: u32) -> bool {
        now > seen
    }

    /// A path through this edge is as wide as the narrower of the two.
    fn compute(&self, e: Edge<u32, u32>) -> u32 {
        e.src.min(e.weight)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::args().nth(1).unwrap_or_else(|| "grid:256x256".into());
    let graph = GeneratorSpec::parse(&spec)?.generate(1)?;
    let runner = Runner::new(&graph, Backend::Auto)?;
    let run = runner.run(&WidestPath { source: 0 })?;
    let reached: Vec<u32> = run.values.iter().copied().filter(|&w| w > 0 && w < u32::MAX).collect();
    let narrowest = reached.iter().min().copied().unwrap_or(0);
    println!("widest paths from 0 on {spec}: {} vertices reached, narrowest bottleneck {narrowest}", reached.len());
    let backend = runner.backend().name();
    println!("{} iterations in {:.2} ms on {backend}", run.stats.iterations.len(), run.stats.time.as_secs_f64() * 1e3);
    Ok(())
}
