//! Triangle counting (total and per vertex) and Jaccard similarity on the CUDA backend against the
//! CPU's results and the hash-set oracles (`simdx_algos::verify`): counts exactly, coefficients bit
//! for bit, on generated graphs (kron, urand, rmat, a grid), hand-made ones (no triangles, no edges,
//! self-loops, a clique whose lists a warp intersects, two hubs whose common leaves a block
//! intersects), through a device graph and through the facade's runner; a directed graph is refused
//! with the CPU's error. Without a GPU these tests print that they were skipped; with
//! `SIMDX_REQUIRE_GPU=1` they fail.
#![cfg(feature = "cuda")]

use simdx::intersect::Intersections;
use simdx::{Backend, Graph, GraphBuilder, Runner, SelfLoops, VertexId};
use simdx_algos::{jaccard, triangle_count, triangles, verify};
use simdx_cuda::DeviceGraph;

use crate::common::{edges, generated, gpu};

/// Every pair of `0..k`.
fn clique(k: u32) -> Vec<(u32, u32)> {
    (0..k).flat_map(|u| (u + 1..k).map(move |v| (u, v))).collect()
}

/// The undirected graphs compared, by name.
fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> =
        ["kron:10", "urand:10", "rmat:9", "grid:8x8"].iter().map(|s| (s.to_string(), generated(s))).collect();
    let build = |n: usize, pairs: &[(u32, u32)]| GraphBuilder::new().build(edges(n, pairs, None)).unwrap();
    let star: Vec<(u32, u32)> = (1..40).map(|v| (0, v)).chain([(40, 41), (41, 42), (42, 43)]).collect();
    all.push(("no triangles (a star and a path)".into(), build(50, &star)));
    all.push(("no edges".into(), build(7, &[])));
    all.push(("one vertex".into(), build(1, &[])));
    let loops = edges(6, &[(0, 0), (0, 1), (1, 2), (2, 0), (2, 2), (3, 4), (4, 5), (5, 3), (3, 0)], None);
    all.push(("self-loops kept".into(), GraphBuilder::new().self_loops(SelfLoops::Keep).build(loops).unwrap()));
    all.push(("a clique of 300 (warps)".into(), build(300, &clique(300))));
    let hubs: Vec<(u32, u32)> = (2..5002).flat_map(|leaf| [(0, leaf), (1, leaf)]).chain([(0, 1), (2, 3)]).collect();
    all.push(("two hubs of 5000 common leaves (blocks)".into(), build(5002, &hubs)));
    all
}

/// The pairs whose coefficients are compared: every edge, and some pairs that are not edges.
fn pairs(g: &Graph) -> Vec<(VertexId, VertexId)> {
    let mut pairs = jaccard::edge_pairs(g);
    let n = g.num_vertices() as VertexId;
    if n > 0 {
        pairs.extend([(0, 0), (0, n - 1), (n / 2, n - 1), (n - 1, n / 3)]);
    }
    pairs
}

/// Checks the device graph's results on `g` against the CPU's and the oracles.
fn compare(name: &str, g: &Graph, on: &dyn Intersections) {
    let total = triangle_count(on).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(total, triangle_count(g).unwrap(), "{name}: total");
    verify::triangle_count(g, total).unwrap_or_else(|e| panic!("{name}: {e}"));
    let each = triangles(on).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(each, triangles(g).unwrap(), "{name}: per vertex");
    verify::triangles(g, &each).unwrap_or_else(|e| panic!("{name}: {e}"));
    let pairs = pairs(g);
    let got = jaccard(on, &pairs).unwrap_or_else(|e| panic!("{name}: {e}"));
    let want = jaccard(g, &pairs).unwrap();
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&want), "{name}: Jaccard coefficients");
    verify::jaccard(g, &pairs, &got, 1e-12).unwrap_or_else(|e| panic!("{name}: {e}"));
}

#[test]
fn triangles_and_jaccard_on_the_gpu_match_the_cpu_and_the_oracles() {
    let Some(gpu) = gpu() else { return };
    for (name, g) in graphs() {
        let dg = DeviceGraph::upload(&gpu, &g).unwrap();
        compare(&name, &g, &dg);
        // Twice on one device graph: the kept buffers start each call clean.
        compare(&name, &g, &dg);
    }
}

#[test]
fn the_runner_counts_triangles_on_the_gpu() {
    let Some(_) = gpu() else { return };
    let g = generated("kron:10");
    let runner = Runner::new(&g, Backend::Cuda).unwrap();
    assert_eq!(runner.backend(), Backend::Cuda);
    compare("kron:10 through the runner", &g, runner.intersections());
}

#[test]
fn a_directed_graph_is_refused_on_the_gpu_as_on_the_cpu() {
    let Some(gpu) = gpu() else { return };
    let g = generated("kron:8:d");
    let dg = DeviceGraph::upload(&gpu, &g).unwrap();
    let cpu = triangle_count(&g).unwrap_err().to_string();
    assert_eq!(triangle_count(&dg).unwrap_err().to_string(), cpu);
    assert_eq!(triangles(&dg).unwrap_err().to_string(), cpu);
    assert_eq!(jaccard(&dg, &[(0, 1)]).unwrap_err().to_string(), jaccard(&g, &[(0, 1)]).unwrap_err().to_string());
    let outside = [(0, g.num_vertices() as VertexId)];
    let undirected = generated("kron:8");
    let dg = DeviceGraph::upload(&gpu, &undirected).unwrap();
    let want = jaccard(&undirected, &outside).unwrap_err().to_string();
    assert_eq!(jaccard(&dg, &outside).unwrap_err().to_string(), want);
}
