//! wcc, kcore (and the core decomposition), spmv and BFS with parents on the CPU backend against their
//! serial oracles, on generated graphs and hand-made edge cases, under every policy of the CPU's
//! matrix: wcc, kcore and the BFS tree's levels exactly, the tree by Graph500's rules, spmv within 1e-5
//! relative; and `simdx run` for each, with --validate and --output.

use simdx::engine::{Engine, LabelPolicy, RunOptions};
use simdx::{EdgeList, EdgeWeights, Graph, GraphBuilder, SelfLoops};
use simdx_algos::{bfs_tree, core_numbers, undirected, verify, Bfs, BfsTree, KCore, Spmv, Wcc};

use crate::common::policies::policies;
use crate::common::{edges, generated};
use simdx::Backend::Cpu;

/// A directed graph from a generated one: each edge becomes one arc, oriented by a hash of its ends,
/// so weak components are rarely strongly connected.
fn oriented(spec: &str) -> Graph {
    let g = generated(spec);
    let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
    for (u, v, weight) in g.edges() {
        let forward = (u.wrapping_mul(2654435761) ^ v) % 3 != 0;
        src.push(if forward { u } else { v });
        dst.push(if forward { v } else { u });
        w.push(weight.unwrap_or(1.0) as u32);
    }
    let list = EdgeList { num_vertices: g.num_vertices(), src, dst, weights: Some(EdgeWeights::U32(w)) };
    GraphBuilder::new().directed(true).build(list).unwrap()
}

/// Generated graphs (undirected and directed) plus hand-made edge cases: self-loops, duplicates,
/// isolated vertices, one vertex, no edges, a directed graph with unreachable parts, a real-weighted
/// directed multigraph.
fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> =
        ["kron:10:w", "urand:10:w", "rmat:9:8:w", "grid:24x20"].iter().map(|s| (s.to_string(), generated(s))).collect();
    all.push(("oriented kron:10:w".into(), oriented("kron:10:w")));
    all.push(("oriented urand:9:2:w".into(), oriented("urand:9:2:w")));
    let loops_and_dups = edges(5, &[(0, 0), (0, 1), (0, 1), (1, 2), (2, 1), (3, 3)], Some(vec![3, 2, 5, 1, 1, 9]));
    all.push((
        "self-loops+duplicates".into(),
        GraphBuilder::new()
            .self_loops(SelfLoops::Keep)
            .duplicates(simdx::Duplicates::Keep)
            .build(loops_and_dups.clone())
            .unwrap(),
    ));
    all.push(("cleaned".into(), GraphBuilder::new().build(loops_and_dups).unwrap()));
    all.push(("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()));
    all.push(("no edges".into(), GraphBuilder::new().build(edges(6, &[], None)).unwrap()));
    let directed = edges(8, &[(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3)], Some(vec![4, 1, 1, 7, 2, 2, 2]));
    all.push(("directed, unreachable parts".into(), GraphBuilder::new().directed(true).build(directed).unwrap()));
    let real = EdgeList {
        weights: Some(EdgeWeights::F32(vec![0.5, 0.25, 3.0, 1e-3, 7.5, 0.5])),
        ..edges(6, &[(1, 0), (1, 0), (2, 2), (3, 1), (4, 5), (5, 4)], None)
    };
    all.push((
        "directed multigraph, real weights".into(),
        GraphBuilder::new()
            .directed(true)
            .self_loops(SelfLoops::Keep)
            .duplicates(simdx::Duplicates::Keep)
            .build(real)
            .unwrap(),
    ));
    all
}

#[test]
fn wcc_matches_union_find_under_every_policy() {
    for (name, g) in graphs() {
        let sym = undirected(&g);
        for options in policies(Cpu) {
            let run = Engine::new(options).run(&Wcc, &sym).unwrap();
            // Checked against the original graph: union-find ignores direction by itself.
            verify::wcc(&g, &run.values).unwrap_or_else(|e| panic!("{name}, {options:?}: {e}"));
        }
    }
}

#[test]
fn bfs_trees_hold_graph500s_rules_under_every_policy() {
    for (name, g) in graphs() {
        let source = (0..g.num_vertices() as u32).find(|&v| g.out_degree(v) > 0).unwrap_or(0);
        for options in policies(Cpu) {
            let run = Engine::new(options).run(&BfsTree { source }, &g).unwrap();
            let case = format!("{name}, {options:?}");
            verify::bfs(&g, source, &bfs_tree::levels(&run.values)).unwrap_or_else(|e| panic!("{case}: {e}"));
            verify::bfs_tree(&g, source, &bfs_tree::parents(&run.values)).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
    }
}

/// `Runner::bfs_tree` on every backend at hand: the levels of `Bfs` and a tree that holds Graph500's
/// rules.
#[test]
fn the_runners_bfs_tree_gives_the_levels_and_a_tree_of_closer_parents() {
    for (name, g) in graphs() {
        let source = (0..g.num_vertices() as u32).find(|&v| g.out_degree(v) > 0).unwrap_or(0);
        let levels = Engine::default().run(&Bfs { source }, &g).unwrap().values;
        for backend in crate::common::policies::backends() {
            let (run, parents) = simdx::Runner::new(&g, backend).unwrap().bfs_tree(source).unwrap();
            let case = format!("{name}, {backend:?}");
            assert_eq!(run.values, levels, "{case}");
            verify::bfs_tree(&g, source, &parents).unwrap_or_else(|e| panic!("{case}: {e}"));
        }
    }
}

#[test]
fn a_wrong_parent_tree_is_refused() {
    // 0 - 1 - 2 - 3 and 4 alone.
    let g = GraphBuilder::new().build(edges(5, &[(0, 1), (1, 2), (2, 3)], None)).unwrap();
    let max = u32::MAX;
    assert!(verify::bfs_tree(&g, 0, &[0, 0, 1, 2, max]).is_ok());
    for wrong in [[1, 0, 1, 2, max], [0, 0, 0, 2, max], [0, 0, 1, 1, max], [0, 0, 1, 2, 3], [0, 0, max, 2, max]] {
        assert!(verify::bfs_tree(&g, 0, &wrong).is_err(), "{wrong:?} accepted");
    }
}

#[test]
fn wcc_on_a_small_directed_graph() {
    // 3 -> 1 -> 0 <- 2 and 5 -> 4, 6 alone: weakly {0,1,2,3}, {4,5}, {6}; 0 reaches nobody.
    let g = GraphBuilder::new().directed(true).build(edges(7, &[(3, 1), (1, 0), (2, 0), (5, 4)], None)).unwrap();
    let run = Engine::default().run(&Wcc, &undirected(&g)).unwrap();
    assert_eq!(run.values, vec![0, 0, 0, 0, 4, 4, 6]);
    // Linking (the default) joins both ends of every arc: weak components on the directed graph too.
    let linked = Engine::default().run(&Wcc, &g).unwrap();
    assert_eq!(linked.values, vec![0, 0, 0, 0, 4, 4, 6]);
    // Propagated along arcs only, labels flow forwards: vertex 3 would keep its own id.
    let propagate = RunOptions { labels: LabelPolicy::Propagate, ..RunOptions::default() };
    let forwards = Engine::new(propagate).run(&Wcc, &g).unwrap();
    assert_eq!(forwards.values[3], 3);
    assert!(verify::wcc(&g, &forwards.values).is_err());
}

#[test]
fn kcore_matches_serial_peeling_under_every_policy() {
    for (name, g) in graphs() {
        let sym = undirected(&g);
        for k in [0, 1, 2, 3, 5, 8, 16] {
            let mut first = None;
            for options in policies(Cpu) {
                let run = Engine::new(options).run(&KCore { k }, &sym).unwrap();
                verify::kcore(&g, k, &run.values).unwrap_or_else(|e| panic!("{name}, k = {k}, {options:?}: {e}"));
                assert_eq!(first.get_or_insert_with(|| run.values.clone()), &run.values, "{name}, k = {k}");
            }
        }
    }
}

#[test]
fn kcore_of_a_clique_with_a_tail() {
    // A 5-clique {0..4}, a path 4 - 5 - 6 - 7 into a triangle 7, 8, 9, and a leaf 10 on 9.
    let mut pairs = vec![(4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 7), (9, 10)];
    for u in 0..5 {
        for v in u + 1..5 {
            pairs.push((u, v));
        }
    }
    let g = GraphBuilder::new().build(edges(11, &pairs, None)).unwrap();
    let run = Engine::default().run(&KCore { k: 3 }, &g).unwrap();
    let inside: Vec<bool> = run.values.iter().map(|&d| d >= 3).collect();
    assert_eq!(inside, [true, true, true, true, true, false, false, false, false, false, false]);
    assert!(run.values[..5].iter().all(|&d| d == 4), "{:?}", run.values);
    let cores = core_numbers(|p| Engine::default().run(p, &g).map(|r| r.values)).unwrap();
    assert_eq!(cores, [4, 4, 4, 4, 4, 2, 2, 2, 2, 2, 1]);
}

#[test]
fn core_numbers_match_serial_peeling() {
    let few = [policies(Cpu)[1], policies(Cpu)[4], policies(Cpu)[8]];
    for (name, g) in graphs() {
        let sym = undirected(&g);
        for options in few {
            let engine = Engine::new(options);
            let cores = core_numbers(|p| engine.run(p, &sym).map(|r| r.values)).unwrap();
            verify::core_decomposition(&g, &cores).unwrap_or_else(|e| panic!("{name}, {options:?}: {e}"));
            let peeled = engine.core_numbers(&sym).unwrap();
            assert_eq!(peeled.values, cores, "{name}, {options:?}: the engine's peeling in levels");
        }
    }
}

#[test]
fn spmv_matches_a_direct_loop_under_every_policy() {
    for (name, g) in graphs() {
        let program = Spmv::default_input(g.num_vertices());
        let x = program.x.as_slice();
        for options in policies(Cpu) {
            let run = Engine::new(options).run(&program, &g).unwrap();
            assert!(run.stats.iterations.len() <= 1, "{name}: one product, one iteration");
            verify::spmv(&g, x, &run.values, 1e-5).unwrap_or_else(|e| panic!("{name}, {options:?}: {e}"));
        }
    }
}

#[test]
fn spmv_on_a_small_weighted_graph() {
    // Arcs 0 -> 2 (w 3) and 1 -> 2 (w 5); x = [1, 2, 3]: y = [0, 0, 3*1 + 5*2].
    let g = GraphBuilder::new().directed(true).build(edges(3, &[(0, 2), (1, 2)], Some(vec![3, 5]))).unwrap();
    let run = Engine::default().run(&Spmv::default_input(3), &g).unwrap();
    assert_eq!(run.values, vec![0.0, 0.0, 13.0]);
    assert_eq!(run.stats.iterations.len(), 1);
    // A user's x: y[2] = 3 * -0.5 + 5 * 4.
    let run = Engine::default().run(&Spmv { x: vec![-0.5, 4.0, 100.0].into() }, &g).unwrap();
    assert_eq!(run.values, vec![0.0, 0.0, 18.5]);
}

#[test]
fn per_vertex_data_of_the_wrong_length_is_an_error_not_a_panic() {
    let g = GraphBuilder::new().directed(true).build(edges(3, &[(0, 2), (1, 2)], None)).unwrap();
    let err = Engine::default().run(&Spmv { x: vec![1.0, 2.0].into() }, &g).unwrap_err();
    assert_eq!(err.to_string(), "the program's per-vertex data `x` has 2 values, but the graph has 3 vertices");
    let runner = simdx::Runner::new(&g, simdx::Backend::Auto).unwrap();
    let err = runner.run(&Spmv { x: vec![1.0; 4].into() }).unwrap_err();
    assert!(err.to_string().contains("`x` has 4 values, but the graph has 3 vertices"), "{err}");
}

/// `simdx run NAME GRAPH --validate --output FILE`: exit status, the validation line and the values.
fn run_cli(args: &[&str]) -> (String, Vec<String>) {
    let dir = std::env::temp_dir().join(format!("simdx-algorithms-cpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join(format!("{}.txt", args.join("_").replace([':', '/', '.'], "-")));
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_simdx"))
        .args(["run"])
        .args(args)
        .args(["--validate", "--output", out.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{args:?}: {stdout}{}", String::from_utf8_lossy(&o.stderr));
    let written = std::fs::read_to_string(&out).unwrap();
    (stdout, written.lines().map(|l| l.split(' ').nth(1).unwrap().to_string()).collect())
}

#[test]
fn cli_runs_wcc_kcore_and_spmv_with_validation() {
    let dir = std::env::temp_dir().join(format!("simdx-algorithms-cpu-el-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A directed edge list (3 -> 1 -> 0 <- 2, 5 -> 4, 6 alone): wcc symmetrises it first.
    let el = dir.join("small.el");
    std::fs::write(&el, "3 1\n1 0\n2 0\n5 4\n6 6\n").unwrap();
    let (text, values) = run_cli(&["wcc", el.to_str().unwrap()]);
    assert!(text.contains("validation: passed (3 components)"), "{text}");
    assert_eq!(values, ["0", "0", "0", "0", "4", "4", "6"]);
    let (text, values) = run_cli(&["spmv", el.to_str().unwrap()]);
    assert!(text.contains("validation: passed"), "{text}");
    assert_eq!(values, ["5e0", "4e0", "0e0", "0e0", "6e0", "0e0", "0e0"]);

    let (text, values) = run_cli(&["kcore", "kron:10", "--k", "8"]);
    assert!(text.contains("vertices in the 8-core)"), "{text}");
    assert!(values.iter().all(|v| v == "0" || v == "1") && values.contains(&"1".to_string()));
    let (text, all) = run_cli(&["kcore", "kron:10", "--all"]);
    assert!(text.contains("validation: passed (largest core number"), "{text}");
    let in_core = |c: &String| u32::from(c.parse::<u32>().unwrap() >= 8).to_string();
    assert_eq!(all.iter().map(in_core).collect::<Vec<_>>(), values, "the 8-core is where core numbers reach 8");
    let (text, _) = run_cli(&["spmv", "urand:9:w", "--direction", "push"]);
    assert!(text.contains("validation: passed (largest relative error"), "{text}");
}
