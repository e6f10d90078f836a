//! CPU backend benchmarks: BFS, SSSP and PageRank on kron:18, urand:18 and grid:512x512, each beside
//! the `graph` crate's (neo4j-labs) PageRank and delta-stepping SSSP on the same graph.
//! Run: `cargo bench -p simdx-benches --bench cpu`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use graph::prelude::{delta_stepping, page_rank, DeltaSteppingConfig, PageRankConfig};
use simdx::engine::Engine;
use simdx::gen::GeneratorSpec;
use simdx_algos::{default_delta, Bfs, PageRank, Sssp};
use simdx_benches::{baseline, source};

const GRAPHS: [&str; 3] = ["kron:18:w", "urand:18:w", "grid:512x512"];
const PAGERANK: PageRank = PageRank { damping: 0.85, tolerance: 0.0, max_iterations: 20 };

fn benches(c: &mut Criterion) {
    let engine = Engine::default();
    for spec in GRAPHS {
        let g = GeneratorSpec::parse(spec).unwrap().generate(1).unwrap();
        let (plain, weighted) = baseline(&g);
        let s = source(&g);
        let delta = default_delta(&g);
        let mut group = c.benchmark_group(spec);
        group.sample_size(10);
        group.bench_function(BenchmarkId::new("bfs", "simdx"), |b| {
            b.iter(|| engine.run(&Bfs { source: s }, &g).unwrap())
        });
        group.bench_function(BenchmarkId::new("sssp", "simdx"), |b| {
            b.iter(|| engine.run(&Sssp { source: s, delta }, &g).unwrap())
        });
        group.bench_function(BenchmarkId::new("sssp", "graph-crate"), |b| {
            b.iter(|| delta_stepping(&weighted, DeltaSteppingConfig::new(s as usize, delta as f32)))
        });
        group.bench_function(BenchmarkId::new("pagerank-20", "simdx"), |b| {
            b.iter(|| engine.run(&PAGERANK, &g).unwrap())
        });
        group.bench_function(BenchmarkId::new("pagerank-20", "graph-crate"), |b| {
            b.iter(|| page_rank(&plain, PageRankConfig::new(20, 0.0, 0.85)))
        });
        group.finish();
    }
}

criterion_group!(cpu, benches);
criterion_main!(cpu);
