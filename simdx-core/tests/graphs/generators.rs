//! Tests of the graph generators: determinism across thread counts and seeds, spec parsing and
//! printing, and the shape of each generated graph (grid structure, Kronecker skew, uniform spread).

use simdx_core::gen::{is_spec, GeneratorSpec, WeightRange, DEFAULT_SEED};
use simdx_core::{GraphError, Weights};

fn spec(s: &str) -> GeneratorSpec {
    GeneratorSpec::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap()
}

/// Specs small enough to build quickly but with several generation chunks each.
const SPECS: [&str; 13] = [
    "kron:12",
    "kron:13:12:w",
    "urand:12",
    "urand:13:10:w=5-9",
    "rmat:12",
    "rmat:13:12:0.45:0.15:0.15:w",
    "grid:300x301",
    "grid:257x3:w=1-10",
    "kron:5:3",
    "kron:12:d",
    "urand:13:10:d:w=5-9",
    "rmat:13:12:0.45:0.15:0.15:d:w",
    "kron:13:12:w:d",
];

#[test]
fn same_graph_on_any_thread_count() {
    for s in SPECS {
        let spec = spec(s);
        let one = pool(1).install(|| spec.generate(DEFAULT_SEED)).unwrap();
        let default = spec.generate(DEFAULT_SEED).unwrap();
        let three = pool(3).install(|| spec.generate(DEFAULT_SEED)).unwrap();
        assert_eq!(one, default, "{s}: 1 thread vs the default pool");
        assert_eq!(one, three, "{s}: 1 thread vs 3 threads");
        let raw_one = pool(1).install(|| spec.edge_list(7)).unwrap();
        let raw_five = pool(5).install(|| spec.edge_list(7)).unwrap();
        assert_eq!(raw_one, raw_five, "{s}: raw edges differ between 1 and 5 threads");
    }
}

#[test]
fn seeds_change_the_graph() {
    for s in SPECS {
        let spec = spec(s);
        let a = spec.generate(1).unwrap();
        let b = spec.generate(2).unwrap();
        assert_ne!(a, b, "{s}: seeds 1 and 2 gave the same graph");
        assert_eq!(a, spec.generate(1).unwrap(), "{s}: the same seed gave different graphs");
    }
}

#[test]
fn weights_do_not_change_the_edges() {
    for (plain, weighted) in [("kron:11", "kron:11:w"), ("urand:11", "urand:11:w=3-4"), ("rmat:11", "rmat:11:w")] {
        let a = spec(plain).edge_list(9).unwrap();
        let b = spec(weighted).edge_list(9).unwrap();
        assert_eq!((a.src, a.dst), (b.src.clone(), b.dst.clone()), "{weighted} has other edges than {plain}");
        let range = spec(weighted).weights().unwrap();
        match b.weights {
            Some(simdx_core::EdgeWeights::U32(w)) => {
                assert_eq!(w.len(), b.src.len());
                assert!(w.iter().all(|&x| (range.lo..=range.hi).contains(&x)));
                assert!(w.contains(&range.lo) && w.contains(&range.hi), "{weighted}: range not covered");
            }
            other => panic!("{weighted}: expected u32 weights, got {other:?}"),
        }
    }
}

#[test]
fn parse_accepts_every_form() {
    let range = |lo, hi| Some(WeightRange { lo, hi });
    let cases = [
        ("kron:20", GeneratorSpec::Kronecker { scale: 20, edge_factor: 16, weights: None, directed: false }),
        ("kron:10:4", GeneratorSpec::Kronecker { scale: 10, edge_factor: 4, weights: None, directed: false }),
        (
            "kron:10:w",
            GeneratorSpec::Kronecker {
                scale: 10,
                edge_factor: 16,
                weights: Some(WeightRange::default()),
                directed: false,
            },
        ),
        (
            "kron:10:8:w=2-9",
            GeneratorSpec::Kronecker {
                scale: 10,
                edge_factor: 8,
                weights: Some(WeightRange { lo: 2, hi: 9 }),
                directed: false,
            },
        ),
        ("urand:31", GeneratorSpec::Uniform { scale: 31, edge_factor: 16, weights: None, directed: false }),
        ("urand:5:1", GeneratorSpec::Uniform { scale: 5, edge_factor: 1, weights: None, directed: false }),
        (
            "urand:5:w",
            GeneratorSpec::Uniform {
                scale: 5,
                edge_factor: 16,
                weights: Some(WeightRange { lo: 1, hi: 255 }),
                directed: false,
            },
        ),
        (
            "rmat:8",
            GeneratorSpec::Rmat {
                scale: 8,
                edge_factor: 16,
                a: 0.57,
                b: 0.19,
                c: 0.19,
                weights: None,
                directed: false,
            },
        ),
        (
            "rmat:8:4:d",
            GeneratorSpec::Rmat { scale: 8, edge_factor: 4, a: 0.57, b: 0.19, c: 0.19, weights: None, directed: true },
        ),
        (
            "rmat:8:4:0.25:0.25:0.5:w",
            GeneratorSpec::Rmat {
                scale: 8,
                edge_factor: 4,
                a: 0.25,
                b: 0.25,
                c: 0.5,
                weights: Some(WeightRange::default()),
                directed: false,
            },
        ),
        ("grid:3x4", GeneratorSpec::Grid { width: 3, height: 4, weights: WeightRange::default() }),
        ("GRID:1X1", GeneratorSpec::Grid { width: 1, height: 1, weights: WeightRange::default() }),
        ("grid:10x20:w=1-10", GeneratorSpec::Grid { width: 10, height: 20, weights: WeightRange { lo: 1, hi: 10 } }),
        // Directed (`:d`), alone and with the weights in either order.
        ("kron:16:d", GeneratorSpec::Kronecker { scale: 16, edge_factor: 16, weights: None, directed: true }),
        ("kron:16:8:d", GeneratorSpec::Kronecker { scale: 16, edge_factor: 8, weights: None, directed: true }),
        (
            "urand:16:d:w=1-100",
            GeneratorSpec::Uniform { scale: 16, edge_factor: 16, weights: range(1, 100), directed: true },
        ),
        (
            "urand:16:4:w=2-3:d",
            GeneratorSpec::Uniform { scale: 16, edge_factor: 4, weights: range(2, 3), directed: true },
        ),
        (
            "rmat:16:d:w",
            GeneratorSpec::Rmat {
                scale: 16,
                edge_factor: 16,
                a: 0.57,
                b: 0.19,
                c: 0.19,
                weights: Some(WeightRange::default()),
                directed: true,
            },
        ),
    ];
    for (text, expected) in cases {
        let parsed = spec(text);
        assert_eq!(parsed, expected, "{text}");
        // The canonical form parses back to the same spec.
        let printed = parsed.to_string();
        assert_eq!(spec(&printed), parsed, "{text} printed as {printed}");
        assert!(is_spec(text), "{text}");
    }
    assert_eq!(spec("kron:20:16").to_string(), "kron:20");
    assert_eq!(spec("rmat:9:16:0.57:0.19:0.19").to_string(), "rmat:9");
    assert_eq!(spec("rmat:9:16:0.5:0.2:0.2").to_string(), "rmat:9:16:0.5:0.2:0.2");
    assert_eq!(spec("urand:9:8:w=1-255").to_string(), "urand:9:8:w");
    assert_eq!(spec("grid:5x6:w=1-255").to_string(), "grid:5x6");
    assert_eq!(spec("grid:5x6:w=2-3").to_string(), "grid:5x6:w=2-3");
    assert_eq!(spec(" kron:7 ").to_string(), "kron:7");
    assert_eq!(spec("kron:7:16:w:d").to_string(), "kron:7:d:w");
    assert_eq!(spec("rmat:9:16:0.5:0.2:0.2:w=1-255:d").to_string(), "rmat:9:16:0.5:0.2:0.2:d:w");
    assert_eq!(spec("urand:9: d ").to_string(), "urand:9:d");
    let parsed: GeneratorSpec = "urand:4".parse().unwrap();
    assert_eq!(parsed.num_generated_edges(), 256);
}

#[test]
fn parse_rejects_bad_specs_with_clear_messages() {
    let cases = [
        ("kron", "expected KIND:PARAMETERS"),
        ("kron:", "scale '' is not a whole number"),
        ("kron:abc", "scale 'abc' is not a whole number"),
        ("kron:0", "scale 0 is out of range 1..=31"),
        ("kron:32", "scale 32 is out of range 1..=31"),
        ("kron:-1", "not a whole number"),
        ("kron:10:0", "edge factor must be at least 1"),
        ("kron:10:x", "edge factor 'x' is not a whole number"),
        ("kron:10:16:3", "expected kron:SCALE[:EDGE_FACTOR][:d][:w|:w=LO-HI]"),
        ("kron:10:w=0-5", "weights must be at least 1"),
        ("kron:10:w=9-5", "the weight range 9-5 is empty"),
        ("kron:10:w=5", "not of the form LO-HI"),
        ("kron:10:w=a-b", "weight bound 'a' is not a whole number"),
        ("urand:10:1:2:3", "expected urand:SCALE"),
        ("rmat:10:16:0.5:0.5", "expected rmat:SCALE[:EDGE_FACTOR[:A:B:C]][:d][:w|:w=LO-HI]"),
        ("rmat:10:16:0.5:0.5:0.5", "A + B + C = 1.5 exceeds 1"),
        ("rmat:10:16:1.5:0:0", "probability A = 1.5 is not in [0, 1]"),
        ("rmat:10:16:0.5:-0.1:0", "probability B = -0.1 is not in [0, 1]"),
        ("rmat:10:16:0.5:0.1:x", "probability C = 'x' is not a number"),
        ("rmat:10:16:NaN:0.1:0.1", "probability A = NaN is not in [0, 1]"),
        ("grid:10", "not of the form WIDTHxHEIGHT"),
        ("grid:0x5", "the grid width must be at least 1"),
        ("grid:5x0", "the grid height must be at least 1"),
        ("grid:5xy", "grid height 'y' is not a whole number"),
        ("grid:65536x65536", "more than the limit of 4294967295"),
        ("grid:99999999999x1", "too large"),
        ("grid:3x3:4", "expected grid:WIDTHxHEIGHT[:w=LO-HI]"),
        ("grid:w", "expected grid:WIDTHxHEIGHT"),
        ("ring:5", "unknown generator 'ring': use one of kron, urand, rmat, grid"),
        ("kron:31:99999999999999", "too many edges"),
        // The directed flag.
        ("kron:10:d:d", "':d' is given twice"),
        ("urand:10:d:w:d", "':d' is given twice"),
        ("kron:10:w:d:w=1-2", "the weights (':w' or ':w=LO-HI') are given twice"),
        ("kron:10:d:8", "':d' must come after the numeric parameters"),
        ("rmat:10:16:0.5:d:0.1:0.1", "':d' must come after the numeric parameters"),
        ("kron:10:w:8", "':w' must come after the numeric parameters"),
        ("kron:d", "expected kron:SCALE[:EDGE_FACTOR][:d][:w|:w=LO-HI]"),
        ("kron:10:d:w=9-5", "the weight range 9-5 is empty"),
        ("grid:4x4:d", "grid graphs are always undirected; ':d' applies to kron, urand and rmat"),
        ("grid:4x4:w=1-9:d", "grid graphs are always undirected"),
        ("mlp:3,2:d", "mlp networks are always directed; leave out ':d'"),
    ];
    for (text, expected) in cases {
        match GeneratorSpec::parse(text) {
            Err(e @ GraphError::Spec { .. }) => {
                let message = e.to_string();
                assert!(message.contains(expected), "{text}: message '{message}' lacks '{expected}'");
                assert!(!message.contains('\n'), "{text}: message '{message}' is more than one line");
                assert!(message.contains(&format!("'{text}'")), "{text}: message '{message}' does not quote the spec");
            }
            other => panic!("{text}: expected a spec error, got {other:?}"),
        }
    }
}

#[test]
fn is_spec_is_a_cheap_prefix_test() {
    for s in ["kron:20", "urand:x", "rmat:", "grid:3x3", "Kron:5"] {
        assert!(is_spec(s), "{s}");
    }
    for s in ["graph.mtx", "kron", "data/kron:20.el", "", "/tmp/x.sxg", "kronecker:5"] {
        assert!(!is_spec(s), "{s}");
    }
}

#[test]
fn directly_built_specs_are_validated() {
    let bad = GeneratorSpec::Kronecker { scale: 40, edge_factor: 16, weights: None, directed: false };
    assert!(matches!(bad.generate(1), Err(GraphError::Spec { .. })));
    let bad = GeneratorSpec::Grid { width: 4, height: 4, weights: WeightRange { lo: 5, hi: 4 } };
    assert!(bad.edge_list(1).is_err());
}

#[test]
fn grid_structure_is_exact() {
    for (w, h) in [(1u32, 1u32), (1, 7), (6, 1), (2, 2), (17, 9), (40, 33)] {
        let spec = spec(&format!("grid:{w}x{h}:w=3-12"));
        assert_eq!(spec.num_generated_edges(), 2 * u64::from(w * h) - u64::from(w + h));
        let g = spec.generate(DEFAULT_SEED).unwrap();
        assert!(!g.is_directed());
        assert_eq!(g.num_vertices(), (w * h) as usize);
        assert_eq!(g.num_edges(), 2 * u64::from(w * h) - u64::from(w + h), "{w}x{h}");
        for y in 0..h {
            for x in 0..w {
                let v = y * w + x;
                let mut expected = Vec::new();
                if y > 0 {
                    expected.push(v - w);
                }
                if x > 0 {
                    expected.push(v - 1);
                }
                if x + 1 < w {
                    expected.push(v + 1);
                }
                if y + 1 < h {
                    expected.push(v + w);
                }
                assert_eq!(g.out_neighbors(v), &expected[..], "{w}x{h}: neighbours of ({x}, {y})");
            }
        }
        match g.out_csr().weights() {
            Some(Weights::U32(wts)) => assert!(wts.iter().all(|&x| (3..=12).contains(&x))),
            other => panic!("grid weights should be u32, got {other:?}"),
        }
        // Symmetric weights: the arc u->v has the weight of v->u.
        for (u, v, wt) in g.edges() {
            let back = g.out_csr().range(v).find(|&i| g.out_csr().targets()[i] == u).unwrap();
            assert_eq!(g.out_csr().weights().unwrap().get_f64(back), wt.unwrap());
        }
    }
    // Degrees 2 (corners), 3 (sides), 4 (inside) on a large grid.
    let g = spec("grid:50x40").generate(3).unwrap();
    let mut by_degree = [0usize; 5];
    for v in 0..g.num_vertices() as u32 {
        by_degree[g.out_degree(v) as usize] += 1;
    }
    assert_eq!(by_degree, [0, 0, 4, 2 * (48 + 38), 48 * 38]);
    // Default weights cover [1, 255].
    let Some(Weights::U32(w)) = g.out_csr().weights() else { panic!("grid must be weighted") };
    assert_eq!((w.iter().min(), w.iter().max()), (Some(&1), Some(&255)));
}

#[test]
fn kronecker_is_skewed() {
    let spec = spec("kron:16");
    assert_eq!(spec.num_vertices(), 1 << 16);
    assert_eq!(spec.num_generated_edges(), 16 << 16);
    let raw = spec.edge_list(DEFAULT_SEED).unwrap();
    assert_eq!(raw.len(), 16 << 16);
    assert!(raw.src.iter().chain(&raw.dst).all(|&v| v < 1 << 16));
    let g = spec.generate(DEFAULT_SEED).unwrap();
    assert_eq!(g.num_vertices(), 1 << 16);
    assert!(!g.is_directed() && !g.is_weighted());
    let (min, max, mean) = g.degree_summary();
    assert_eq!(min, 0, "Kronecker graphs have isolated vertices");
    assert!(max as f64 > 50.0 * mean, "max degree {max} vs mean {mean}");
    // Duplicates are common but most edges survive.
    assert!(g.num_edges() > (8 << 16) && g.num_edges() < (16 << 16), "{} edges", g.num_edges());
    // The permutation hides the hubs: the highest-degree vertex is not vertex 0, as it is in R-MAT.
    let hub = (0..1u32 << 16).max_by_key(|&v| g.out_degree(v)).unwrap();
    let rmat = spec_rmat_hub();
    assert_eq!(rmat, 0, "R-MAT's hub should be vertex 0");
    assert_ne!(hub, 0, "the Kronecker labels should be permuted");
}

fn spec_rmat_hub() -> u32 {
    let g = spec("rmat:16").generate(DEFAULT_SEED).unwrap();
    (0..1u32 << 16).max_by_key(|&v| g.out_degree(v)).unwrap()
}

#[test]
fn uniform_keeps_almost_every_edge() {
    let spec = spec("urand:16");
    let g = spec.generate(DEFAULT_SEED).unwrap();
    let generated = spec.num_generated_edges() as f64;
    // Self-loops (1 in 2^16) and duplicates (about m/(2n^2) * m) are rare.
    let kept = g.num_edges() as f64 / generated;
    assert!(kept > 0.995 && kept <= 1.0, "kept {kept} of the edges");
    let (_, max, mean) = g.degree_summary();
    assert!((max as f64) < 3.0 * mean, "max degree {max} vs mean {mean}");
}

#[test]
fn rmat_with_equal_quadrants_looks_uniform() {
    let g = spec("rmat:16:16:0.25:0.25:0.25").generate(DEFAULT_SEED).unwrap();
    let (_, max, mean) = g.degree_summary();
    assert!((max as f64) < 3.0 * mean, "max degree {max} vs mean {mean}");
    let skewed = spec("rmat:16").generate(DEFAULT_SEED).unwrap();
    assert!(skewed.degree_summary().1 > 20 * max);
}

#[test]
fn small_scales_work() {
    for s in ["kron:1", "kron:1:1", "urand:1", "rmat:1:1:w", "grid:1x1", "grid:1x2"] {
        let g = spec(s).generate(0).unwrap();
        assert_eq!(g.num_vertices(), spec(s).num_vertices(), "{s}");
        assert!(g.num_edges() <= 1, "{s}");
    }
}

// --- mlp: random multi-layer perceptrons ---

#[test]
fn mlp_specs_parse_print_and_validate() {
    let full = spec("mlp:784,256,128,10");
    assert_eq!(full, GeneratorSpec::Mlp { widths: vec![784, 256, 128, 10], fan_in: None });
    assert_eq!(full.to_string(), "mlp:784,256,128,10");
    assert_eq!((full.num_vertices(), full.num_generated_edges()), (1178, 784 * 256 + 256 * 128 + 128 * 10));
    assert!(full.is_directed() && full.weights().is_none() && is_spec("MLP:3,2"));
    let sparse = spec("mlp: 8, 5 ,3:4");
    assert_eq!(sparse, GeneratorSpec::Mlp { widths: vec![8, 5, 3], fan_in: Some(4) });
    assert_eq!(spec(&sparse.to_string()), sparse);
    // The fan-in is capped by the width of the layer before: 5 * 4 + 3 * 4 edges.
    assert_eq!(sparse.num_generated_edges(), 32);
    for (bad, message) in [
        ("mlp:", "layer width '' is not a whole number"),
        ("mlp:10", "at least two layers"),
        ("mlp:10,0,3", "layer width '0' is not a whole number from 1"),
        ("mlp:10,x", "layer width 'x'"),
        ("mlp:10,5:0", "fan-in '0' is not a whole number from 1"),
        ("mlp:10,5:2:3", "expected mlp:WIDTH,WIDTH"),
        ("mlp:10,5:w", "real (f32) weights"),
        ("mlp:3000000000,2000000000", "more than the limit"),
    ] {
        let err = GeneratorSpec::parse(bad).unwrap_err().to_string();
        assert!(err.contains(message), "{bad}: {err}");
    }
}

#[test]
fn mlp_networks_are_layered_directed_and_deterministic() {
    for (s, widths, k) in [("mlp:8,5,3", vec![8u32, 5, 3], None), ("mlp:300,40,7:16", vec![300, 40, 7], Some(16u32))] {
        let g = spec(s).generate(DEFAULT_SEED).unwrap();
        assert!(g.is_directed(), "{s}");
        assert_eq!(g.num_vertices(), widths.iter().sum::<u32>() as usize);
        assert_eq!(g, pool(3).install(|| spec(s).generate(DEFAULT_SEED)).unwrap(), "{s}: thread count matters");
        assert_ne!(g, spec(s).generate(DEFAULT_SEED + 1).unwrap(), "{s}: the seed does not matter");
        let Some(Weights::F32(w)) = g.in_csr().weights() else { panic!("{s}: expected f32 weights") };
        // Layer l holds ids first..first + widths[l]; its inputs come from previous..first.
        let (mut previous, mut first) = (0, 0);
        for l in 0..widths.len() {
            let inputs = if l == 0 { 0 } else { k.map_or(widths[l - 1], |k| k.min(widths[l - 1])) };
            for v in first..first + widths[l] {
                assert_eq!(g.in_degree(v), u64::from(inputs), "{s}: neuron {v}");
                assert!(g.in_neighbors(v).iter().all(|&u| (previous..first).contains(&u)), "{s}: inputs of {v}");
                let range = g.in_csr().range(v);
                assert!(w[range].iter().all(|&x| (0.0..2.0 / inputs as f32).contains(&x)), "{s}: weights of {v}");
            }
            (previous, first) = (first, first + widths[l]);
        }
    }
}

// --- directed generators (`:d`) ---

/// The arcs `u -> v` of a raw edge list, self-loops dropped, each with its smallest weight (0 when
/// unweighted) — what a directed graph built from it must hold, in source-then-target order.
fn expected_arcs(raw: &simdx_core::EdgeList) -> std::collections::BTreeMap<(u32, u32), u32> {
    let weight = |i: usize| match &raw.weights {
        Some(simdx_core::EdgeWeights::U32(w)) => w[i],
        None => 0,
        other => panic!("expected u32 weights, got {other:?}"),
    };
    let mut arcs = std::collections::BTreeMap::new();
    for (i, (&u, &v)) in raw.src.iter().zip(&raw.dst).enumerate() {
        if u != v {
            let w = arcs.entry((u, v)).or_insert(u32::MAX);
            *w = (*w).min(weight(i));
        }
    }
    arcs
}

#[test]
fn directed_specs_say_so() {
    for s in ["kron:10:d", "urand:10:d:w", "rmat:10:4:d", "mlp:3,2"] {
        assert!(spec(s).is_directed(), "{s}");
        assert!(spec(s).generate(1).unwrap().is_directed(), "{s}");
    }
    for s in ["kron:10", "urand:10:w", "rmat:10:4", "grid:3x3"] {
        assert!(!spec(s).is_directed(), "{s}");
        assert!(!spec(s).generate(1).unwrap().is_directed(), "{s}");
    }
    // Directedness changes neither the sizes nor the raw edge stream.
    for (undirected, directed) in
        [("kron:11", "kron:11:d"), ("urand:11:4:w", "urand:11:4:d:w"), ("rmat:11:w=2-7", "rmat:11:d:w=2-7")]
    {
        let (a, b) = (spec(undirected), spec(directed));
        assert_eq!(
            (a.num_vertices(), a.num_generated_edges(), a.weights()),
            (b.num_vertices(), b.num_generated_edges(), b.weights())
        );
        assert_eq!(
            a.edge_list(5).unwrap(),
            b.edge_list(5).unwrap(),
            "{directed}: another edge stream than {undirected}"
        );
    }
}

#[test]
fn directed_graphs_hold_each_generated_arc_once() {
    for s in
        ["kron:12:d", "kron:11:4:d:w", "urand:12:4:d", "urand:10:d:w=1-3", "rmat:12:d", "rmat:12:8:0.25:0.25:0.25:d:w"]
    {
        let spec = spec(s);
        let raw = spec.edge_list(DEFAULT_SEED).unwrap();
        let arcs = expected_arcs(&raw);
        let g = spec.generate(DEFAULT_SEED).unwrap();
        assert!(g.is_directed(), "{s}");
        assert_eq!(g.num_vertices(), spec.num_vertices(), "{s}");
        // Fewer arcs than generated edges (self-loops and duplicates go), but not by much.
        assert_eq!(g.num_edges(), arcs.len() as u64, "{s}: arcs vs the stream without loops and duplicates");
        assert_eq!(g.num_arcs(), arcs.len() as u64, "{s}");
        assert!(
            g.num_edges() < raw.len() as u64 && g.num_edges() > raw.len() as u64 / 2,
            "{s}: {} arcs",
            g.num_edges()
        );
        let got: Vec<((u32, u32), u32)> = g.edges().map(|(u, v, w)| ((u, v), w.map_or(0, |w| w as u32))).collect();
        let want: Vec<((u32, u32), u32)> = arcs.into_iter().collect();
        assert!(got == want, "{s}: the graph's arcs are not the generated ones");
        // A directed graph is not symmetric: some arc has no reverse.
        assert!(got.iter().any(|((u, v), _)| !g.out_neighbors(*v).contains(u)), "{s}: every arc has its reverse");
    }
}

#[test]
fn directed_graphs_symmetrise_to_the_undirected_ones() {
    for (directed, undirected) in
        [("kron:12:d", "kron:12"), ("urand:11:8:d:w", "urand:11:8:w"), ("rmat:12:d:w=3-9", "rmat:12:w=3-9")]
    {
        for seed in [DEFAULT_SEED, 11] {
            let d = spec(directed).generate(seed).unwrap();
            let (mut src, mut dst, mut weights) = (Vec::new(), Vec::new(), Vec::new());
            for (u, v, w) in d.edges() {
                src.push(u);
                dst.push(v);
                weights.extend(w.map(|w| w as u32));
            }
            let weights = (!weights.is_empty()).then_some(simdx_core::EdgeWeights::U32(weights));
            let edges = simdx_core::EdgeList { num_vertices: d.num_vertices(), src, dst, weights };
            let symmetrised = simdx_core::GraphBuilder::new().build(edges).unwrap();
            assert!(
                symmetrised == spec(undirected).generate(seed).unwrap(),
                "{directed} symmetrised is not {undirected} (seed {seed})"
            );
        }
    }
}

#[test]
fn directed_in_csr_is_the_transpose_of_the_out_csr() {
    for s in ["kron:12:d:w", "urand:11:d", "rmat:12:4:d:w=1-1000"] {
        let g = spec(s).generate(DEFAULT_SEED).unwrap();
        let (out, incoming) = (g.out_csr(), g.in_csr());
        assert_eq!(out.weights().is_some(), s.contains(":w"), "{s}: out-CSR weights");
        assert_eq!(incoming.weights().is_some(), s.contains(":w"), "{s}: in-CSR weights");
        if let Some(w) = out.weights() {
            assert!(matches!(w, Weights::U32(_)) && matches!(incoming.weights(), Some(Weights::U32(_))), "{s}");
        }
        let weight = |csr: &simdx_core::Csr, i: usize| csr.weights().map(|w| w.get_f64(i));
        // (v, u, weight) for every arc u -> v, from each side, in (v, u) order.
        let mut from_out: Vec<(u32, u32, Option<f64>)> = (0..g.num_vertices() as u32)
            .flat_map(|u| out.range(u).map(move |i| (out.targets()[i], u, weight(out, i))))
            .collect();
        from_out.sort_by_key(|&(v, u, _)| (v, u));
        let from_in: Vec<(u32, u32, Option<f64>)> = (0..g.num_vertices() as u32)
            .flat_map(|v| incoming.range(v).map(move |i| (v, incoming.targets()[i], weight(incoming, i))))
            .collect();
        assert_eq!(out.num_arcs(), incoming.num_arcs(), "{s}");
        assert!(from_out == from_in, "{s}: the in-CSR is not the transpose of the out-CSR");
        for v in 0..g.num_vertices() as u32 {
            assert!(g.in_neighbors(v).windows(2).all(|p| p[0] < p[1]), "{s}: in-neighbours of {v} not sorted");
        }
        assert!((0..g.num_vertices() as u32).any(|v| g.in_degree(v) != g.out_degree(v)), "{s}: in = out degrees");
    }
}

#[test]
fn directed_kronecker_keeps_its_skew() {
    let g = spec("kron:16:d").generate(DEFAULT_SEED).unwrap();
    let undirected = spec("kron:16").generate(DEFAULT_SEED).unwrap();
    // Each undirected edge is one or two arcs.
    assert!(g.num_edges() >= undirected.num_edges() && g.num_edges() <= 2 * undirected.num_edges());
    let (_, max, mean) = g.degree_summary();
    assert!(max as f64 > 25.0 * mean, "max out-degree {max} vs mean {mean}");
    let max_in = (0..1u32 << 16).map(|v| g.in_degree(v)).max().unwrap();
    assert!(max_in as f64 > 25.0 * mean, "max in-degree {max_in} vs mean {mean}");
}
