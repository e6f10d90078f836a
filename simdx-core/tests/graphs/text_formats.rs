//! The text graph formats (`.mtx`, `.el`, `.wel`, `.gr`): round trips through a file for every
//! direction and weight kind (with no read option: the `simdx:` header line restores them), the header
//! line's refusals, hand-checked tiny files, and parses large enough to be split into several chunks
//! parsed in parallel.

use std::path::{Path, PathBuf};

use simdx_core::io::{read_graph, write_graph, Format, ReadOptions};
use simdx_core::{Duplicates, EdgeList, EdgeWeights, Graph, GraphBuilder, SelfLoops, WeightKind};

fn build(n: usize, edges: &[(u32, u32)], weights: Option<EdgeWeights>, directed: bool) -> Graph {
    let src = edges.iter().map(|e| e.0).collect();
    let dst = edges.iter().map(|e| e.1).collect();
    GraphBuilder::new().directed(directed).build(EdgeList { num_vertices: n, src, dst, weights }).unwrap()
}

/// A small graph on 8 vertices whose last two (6 and 7) are isolated.
const EDGES: [(u32, u32); 9] = [(0, 1), (0, 2), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (1, 5), (2, 3)];

fn u32_weights() -> EdgeWeights {
    EdgeWeights::U32(vec![7, 0, 4294967295, 3, 1, 16777217, 5, 12, 9])
}

/// Reals that need every digit of their shortest representation to read back exactly.
fn f32_weights() -> EdgeWeights {
    EdgeWeights::F32(vec![0.1, 1.0 / 3.0, 1e-30, 3.4028235e38, 16777216.0, 1e-45, 2.5, 0.0, 123456.79])
}

fn path_in(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

fn read(path: &Path, undirected: bool) -> Graph {
    read_graph(path, &ReadOptions { undirected, ..Default::default() }).unwrap()
}

/// Writes `graph` as `name` and reads it back (as undirected when `undirected`).
fn round_trip(graph: &Graph, name: &str, undirected: bool) -> Graph {
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(&dir, name);
    write_graph(graph, &path, None).unwrap();
    read(&path, undirected)
}

fn write_file(dir: &tempfile::TempDir, name: &str, content: &str) -> PathBuf {
    let path = path_in(dir, name);
    std::fs::write(&path, content).unwrap();
    path
}

fn out(g: &Graph, v: u32) -> Vec<u32> {
    g.out_neighbors(v).to_vec()
}

/// `(target, weight)` of `v`'s out-arcs.
fn weighted_out(g: &Graph, v: u32) -> Vec<(u32, f64)> {
    let csr = g.out_csr();
    csr.range(v).map(|i| (csr.targets()[i], csr.weights().unwrap().get_f64(i))).collect()
}

// ----- Matrix Market ------------------------------------------------------------------------------

#[test]
fn mtx_round_trips_every_field_and_direction_keeping_isolated_vertices() {
    for directed in [true, false] {
        for weights in [None, Some(u32_weights()), Some(f32_weights())] {
            let g = build(8, &EDGES, weights, directed);
            let back = round_trip(&g, "g.mtx", false);
            assert_eq!(back, g, "directed {directed}, weights {:?}", g.weight_kind());
            assert_eq!(back.num_vertices(), 8);
        }
    }
}

#[test]
fn mtx_writes_undirected_graphs_as_the_lower_triangle() {
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(&dir, "g.mtx");
    write_graph(&build(3, &[(0, 1), (2, 1)], Some(EdgeWeights::U32(vec![5, 6])), false), &path, None).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('%')).collect();
    assert!(text.starts_with("%%MatrixMarket matrix coordinate integer symmetric\n"));
    assert_eq!(lines, ["3 3 2", "2 1 5", "3 2 6"]);
}

#[test]
fn mtx_hand_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(
        &dir,
        "tiny.mtx",
        "%%MatrixMarket matrix coordinate real general\n% a comment\n%\n4 5 4\n1 2 0.5\n\n2 3 1.25\n% late comment\n4 1 3\n3 5 2e-1\n",
    );
    let g = read(&path, false);
    assert!(g.is_directed());
    assert_eq!(g.num_vertices(), 5);
    assert_eq!(g.num_edges(), 4);
    assert_eq!(g.weight_kind(), Some(WeightKind::F32));
    assert_eq!(weighted_out(&g, 0), [(1, 0.5)]);
    assert_eq!(weighted_out(&g, 1), [(2, 1.25)]);
    assert_eq!(weighted_out(&g, 2), [(4, f64::from(0.2f32))]);
    assert_eq!(weighted_out(&g, 3), [(0, 3.0)]);
    assert_eq!(out(&g, 4), Vec::<u32>::new());
    assert_eq!(g.in_neighbors(0), &[3]);
}

#[test]
fn mtx_symmetric_pattern_is_undirected_and_the_header_is_case_insensitive() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(
        &dir,
        "sym.mtx",
        "%%matrixmarket MATRIX Coordinate PATTERN Symmetric\r\n3 3 3\r\n2 1\r\n3 2\r\n3 3\r\n",
    );
    let g = read(&path, false);
    assert!(!g.is_directed());
    assert!(!g.is_weighted());
    assert_eq!(g.num_edges(), 2, "the diagonal entry is a self-loop, removed by default");
    assert_eq!(out(&g, 0), [1]);
    assert_eq!(out(&g, 1), [0, 2]);
    assert_eq!(out(&g, 2), [1]);
    let kept = read_graph(&path, &ReadOptions { self_loops: SelfLoops::Keep, ..Default::default() }).unwrap();
    assert_eq!(out(&kept, 2), [1, 2]);
}

#[test]
fn mtx_integer_field_and_rectangular_matrices() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "rect.mtx", "%%MatrixMarket matrix coordinate integer general\n2 4 2\n1 4 10\n2 3 0\n");
    let g = read(&path, false);
    assert_eq!(g.num_vertices(), 4, "max(rows, columns)");
    assert_eq!(g.weight_kind(), Some(WeightKind::U32));
    assert_eq!(weighted_out(&g, 0), [(3, 10.0)]);
    assert_eq!(weighted_out(&g, 1), [(2, 0.0)]);
}

#[test]
fn mtx_without_entries_keeps_its_vertices() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "empty.mtx", "%%MatrixMarket matrix coordinate real symmetric\n6 6 0\n");
    let g = read(&path, false);
    assert_eq!((g.num_vertices(), g.num_edges()), (6, 0));
    assert_eq!(g.weight_kind(), Some(WeightKind::F32), "a real matrix gives real weights even without entries");
    assert_eq!(round_trip(&g, "again.mtx", false), g);
}

#[test]
fn mtx_multigraph_round_trips_with_duplicates_kept() {
    let edges = EdgeList {
        num_vertices: 3,
        src: vec![0, 0, 1, 2],
        dst: vec![1, 1, 1, 0],
        weights: Some(EdgeWeights::U32(vec![3, 2, 4, 1])),
    };
    let builder = GraphBuilder::new().duplicates(Duplicates::Keep).self_loops(SelfLoops::Keep);
    let g = builder.build(edges).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(&dir, "multi.mtx");
    write_graph(&g, &path, None).unwrap();
    let options = ReadOptions { duplicates: Duplicates::Keep, self_loops: SelfLoops::Keep, ..Default::default() };
    assert_eq!(read_graph(&path, &options).unwrap(), g);
    // The header says so: the duplicates and the self-loop come back without the options, in every
    // format that holds the weights.
    for name in ["multi.mtx", "multi.wel", "multi.gr", "multi.sxg"] {
        assert_eq!(round_trip(&g, name, false), g, "{name}");
    }
}

// ----- edge lists ---------------------------------------------------------------------------------

#[test]
fn el_round_trips_directed_and_undirected() {
    let directed = build(6, &EDGES, None, true);
    assert_eq!(round_trip(&directed, "g.el", false), directed);
    let undirected = build(6, &EDGES, None, false);
    assert_eq!(round_trip(&undirected, "g.el", true), undirected);
    // The header says undirected: no option needed.
    assert_eq!(round_trip(&undirected, "g.el", false), undirected);
}

#[test]
fn every_text_format_keeps_trailing_isolated_vertices() {
    // Vertices 6 and 7 are isolated: the header's vertex count keeps them.
    for directed in [true, false] {
        let plain = build(8, &EDGES, None, directed);
        let weighted = build(8, &EDGES, Some(u32_weights()), directed);
        for (g, name) in [(&plain, "g.el"), (&weighted, "g.wel"), (&weighted, "g.gr"), (&weighted, "g.mtx")] {
            assert_eq!(&round_trip(g, name, false), g, "{name}, directed {directed}");
        }
    }
}

#[test]
fn edge_lists_without_a_simdx_header_number_vertices_by_the_largest_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "plain.el", "# a SNAP comment\n0 1\n3 1\n");
    let g = read(&path, false);
    assert!(g.is_directed());
    assert_eq!((g.num_vertices(), g.num_edges()), (4, 2));
}

#[test]
fn the_simdx_header_is_checked_against_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |name: &str, text: &str, expected: &str| {
        let path = write_file(&dir, name, text);
        let err = read_graph(&path, &ReadOptions::default()).unwrap_err().to_string();
        assert!(err.contains(expected) && err.contains(name), "{name}: expected '{expected}' in '{err}'");
    };
    refused("a.el", "# simdx: directed vertices=3 edges=1 weights=none\n0 5\n", "declares 3 vertices");
    refused("b.el", "# simdx: directed vertices=9 edges=3 weights=none\n0 1\n1 2\n", "declares 3 edges");
    refused("c.el", "# simdx: directed weights=u32\n0 1\n", "declares u32 weights");
    refused("d.wel", "# simdx: directed weights=u32\n0 1 0.5\n", "holds f32 weights");
    refused("e.el", "# simdx: sideways\n0 1\n", "unknown word 'sideways'");
    refused("f.el", "# simdx: vertices=2\n0 1\n", "directed or undirected");
    refused("g.mtx", "%%MatrixMarket matrix coordinate pattern general\n% simdx: undirected\n2 2 1\n1 2\n", "banner");
    refused(
        "h.mtx",
        "%%MatrixMarket matrix coordinate pattern general\n% simdx: directed vertices=3\n2 2 1\n1 2\n",
        "size line",
    );
    refused("i.gr", "c simdx: directed weights=f32\np sp 2 1\na 1 2 3\n", "declares f32 weights");
    let path = write_file(&dir, "ok.wel", "# simdx: undirected vertices=5 edges=2 weights=f32\n0 1 2\n1 2 3\n");
    let g = read(&path, false);
    assert!(!g.is_directed());
    assert_eq!((g.num_vertices(), g.num_edges(), g.weight_kind()), (5, 2, Some(WeightKind::F32)));
}

#[test]
fn wel_round_trips_u32_and_f32_weights() {
    for weights in [u32_weights(), f32_weights()] {
        let kind = weights.kind();
        let directed = build(6, &EDGES, Some(weights.clone()), true);
        let back = round_trip(&directed, "g.wel", false);
        assert_eq!(back.weight_kind(), Some(kind));
        assert_eq!(back, directed, "{kind}");
        let undirected = build(6, &EDGES, Some(weights), false);
        assert_eq!(round_trip(&undirected, "g.wel", true), undirected, "{kind}");
    }
}

#[test]
fn f32_weights_that_are_whole_numbers_stay_real() {
    let g = build(3, &[(0, 1), (1, 2)], Some(EdgeWeights::F32(vec![2.0, 1e10])), true);
    for name in ["g.wel", "g.mtx"] {
        let back = round_trip(&g, name, false);
        assert_eq!(back.weight_kind(), Some(WeightKind::F32), "{name}");
        assert_eq!(back, g, "{name}");
    }
}

#[test]
fn el_of_a_weighted_graph_is_refused_and_wel_of_an_unweighted_graph_reads_back_unweighted() {
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(&dir, "w.el");
    let err = write_graph(&build(6, &EDGES, Some(u32_weights()), true), &path, None).unwrap_err().to_string();
    assert!(err.contains("w.el") && err.contains("u32 weights") && err.contains(".wel"), "{err}");
    assert!(!path.exists());
    let unweighted = build(6, &EDGES, None, false);
    for name in ["g.wel", "g.gr"] {
        assert_eq!(round_trip(&unweighted, name, false), unweighted, "{name}");
    }
}

#[test]
fn el_hand_checked_with_comments_tabs_crlf_bom_and_no_final_newline() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "tiny.el", "\u{feff}# SNAP header\r\n% another comment\n0\t1\n\n  3   1  \r\n1 3\n2 0");
    let g = read(&path, false);
    assert!(g.is_directed());
    assert!(!g.is_weighted());
    assert_eq!(g.num_vertices(), 4);
    assert_eq!(g.num_edges(), 4);
    assert_eq!(out(&g, 0), [1]);
    assert_eq!(out(&g, 1), [3]);
    assert_eq!(out(&g, 2), [0]);
    assert_eq!(out(&g, 3), [1]);
    let u = read(&path, true);
    assert!(!u.is_directed());
    assert_eq!(u.num_edges(), 3, "1-3 and 3-1 are one undirected edge");
    assert_eq!(out(&u, 1), [0, 3]);
}

#[test]
fn wel_hand_checked_integer_and_mixed_weights() {
    let dir = tempfile::tempdir().unwrap();
    let ints = write_file(&dir, "ints.wel", "0 1 4\n1 2 0\n2 0 4294967295\n");
    let g = read(&ints, false);
    assert_eq!(g.weight_kind(), Some(WeightKind::U32));
    assert_eq!(weighted_out(&g, 0), [(1, 4.0)]);
    assert_eq!(weighted_out(&g, 1), [(2, 0.0)]);
    assert_eq!(weighted_out(&g, 2), [(0, 4294967295.0)]);
    // One real weight (or an integer past u32) makes every weight f32.
    let mixed = write_file(&dir, "mixed.wel", "0 1 4\n1 2 0.5\n2 0 3\n");
    let g = read(&mixed, false);
    assert_eq!(g.weight_kind(), Some(WeightKind::F32));
    assert_eq!(weighted_out(&g, 0), [(1, 4.0)]);
    assert_eq!(weighted_out(&g, 1), [(2, 0.5)]);
    let big = write_file(&dir, "big.wel", "0 1 4294967296\n");
    assert_eq!(read(&big, false).weight_kind(), Some(WeightKind::F32));
}

#[test]
fn an_edge_list_without_edges_has_no_vertices() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "none.wel", "# nothing here\n\n");
    let g = read(&path, false);
    assert_eq!((g.num_vertices(), g.num_edges()), (0, 0));
    assert_eq!(g.weight_kind(), Some(WeightKind::U32));
}

// ----- DIMACS -------------------------------------------------------------------------------------

#[test]
fn gr_round_trips_directed_and_undirected_keeping_isolated_vertices() {
    let directed = build(8, &EDGES, Some(u32_weights()), true);
    assert_eq!(round_trip(&directed, "g.gr", false), directed);
    let undirected = build(8, &EDGES, Some(u32_weights()), false);
    assert_eq!(round_trip(&undirected, "g.gr", true), undirected);
    assert_eq!(round_trip(&undirected, "g.gr", false), undirected);
    // Unweighted graphs are written with a placeholder weight 1 and read back unweighted.
    let plain = build(8, &EDGES, None, true);
    assert_eq!(round_trip(&plain, "g.gr", false), plain);
}

#[test]
fn gr_writes_each_undirected_edge_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(&dir, "u.gr");
    write_graph(&build(3, &[(1, 0), (1, 2)], None, false), &path, None).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('c')).collect();
    assert_eq!(lines, ["p sp 3 2", "a 1 2 1", "a 2 3 1"]);
}

#[test]
fn gr_hand_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(
        &dir,
        "tiny.gr",
        "c 9th DIMACS challenge\nc\np sp 5 4\nc arcs\na 1 2 7\na 2 3 1\n\na 5 1 100\nc trailing comment\na 1 5 0\n",
    );
    let g = read(&path, false);
    assert!(g.is_directed());
    assert_eq!(g.num_vertices(), 5);
    assert_eq!(g.weight_kind(), Some(WeightKind::U32));
    assert_eq!(weighted_out(&g, 0), [(1, 7.0), (4, 0.0)]);
    assert_eq!(weighted_out(&g, 1), [(2, 1.0)]);
    assert_eq!(weighted_out(&g, 4), [(0, 100.0)]);
    assert_eq!(out(&g, 3), Vec::<u32>::new());
}

#[test]
fn gr_refuses_to_write_real_weights() {
    let dir = tempfile::tempdir().unwrap();
    let path = path_in(&dir, "real.gr");
    let err = write_graph(&build(3, &EDGES[..3], Some(EdgeWeights::F32(vec![0.5; 3])), true), &path, None).unwrap_err();
    assert!(err.to_string().contains("integer weights"), "{err}");
    assert!(err.to_string().contains("real.gr"), "{err}");
}

// ----- all formats --------------------------------------------------------------------------------

/// A pseudo-random graph (fixed LCG) with `m` edges on `n` vertices, vertex `n - 1` guaranteed used.
fn random_graph(n: u32, m: usize, weights: Option<WeightKind>, directed: bool) -> Graph {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as u32
    };
    let mut edges: Vec<(u32, u32)> = (0..m).map(|_| (next() % n, next() % n)).collect();
    edges.push((0, n - 1));
    let weights = weights.map(|kind| match kind {
        WeightKind::U32 => EdgeWeights::U32((0..edges.len()).map(|_| next() % 1000).collect()),
        WeightKind::F32 => EdgeWeights::F32((0..edges.len()).map(|_| next() as f32 / 7919.0).collect()),
    });
    build(n as usize, &edges, weights, directed)
}

#[test]
fn larger_random_graphs_round_trip_through_every_text_format() {
    for directed in [true, false] {
        for kind in [None, Some(WeightKind::U32), Some(WeightKind::F32)] {
            let g = random_graph(3000, 40_000, kind, directed);
            let undirected = !directed;
            assert_eq!(round_trip(&g, "r.mtx", false), g, "mtx {directed} {kind:?}");
            let names: &[&str] = match kind {
                None => &["r.el"],
                Some(WeightKind::U32) => &["r.wel", "r.gr"],
                Some(WeightKind::F32) => &["r.wel"],
            };
            for name in names {
                assert_eq!(round_trip(&g, name, undirected), g, "{name} {directed} {kind:?}");
                assert_eq!(round_trip(&g, name, false), g, "{name} {directed} {kind:?}, no option");
            }
        }
    }
}

#[test]
fn explicit_format_overrides_the_extension() {
    let dir = tempfile::tempdir().unwrap();
    let g = build(6, &EDGES, None, true);
    let path = path_in(&dir, "graph.txt");
    write_graph(&g, &path, Some(Format::EdgeList)).unwrap();
    let back = read_graph(&path, &ReadOptions { format: Some(Format::EdgeList), ..Default::default() }).unwrap();
    assert_eq!(back, g);
}

#[test]
fn files_of_many_chunks_parse_in_order() {
    // About 12 MB: several 4 MiB chunks whatever the thread count.
    let n = 1_000_000u64;
    let mut text = String::from("%%MatrixMarket matrix coordinate integer general\n% comment\n");
    text.push_str(&format!("{n} {n} {n}\n"));
    for i in 0..n {
        text.push_str(&format!("{} {} {}\n", i + 1, (i * 7919) % n + 1, i % 1000));
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write_file(&dir, "big.mtx", &text);
    let g = read(&path, false);
    // 0 and 500000 map to themselves: two self-loops, removed.
    assert_eq!(g.num_edges(), n - 2);
    assert_eq!(out(&g, 500_000), Vec::<u32>::new());
    for v in [1u32, 4095, 333_333, 999_999] {
        let i = u64::from(v);
        assert_eq!(weighted_out(&g, v), [(((i * 7919) % n) as u32, (i % 1000) as f64)]);
    }
}
