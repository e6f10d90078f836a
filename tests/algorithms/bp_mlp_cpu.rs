//! Belief propagation and the MLP forward pass on the CPU backend against their serial oracles
//! (within 1e-5 relative), on generated graphs and hand-made edge cases, under every policy of the
//! CPU's matrix (`tests/common/policies.rs`).

use simdx::engine::Engine;
use simdx::{EdgeList, EdgeWeights, Graph, GraphBuilder, SelfLoops};
use simdx_algos::mlp::NOT_COMPUTED;
use simdx_algos::{verify, Bp, Mlp};

use crate::common::generated;
use crate::common::policies::policies;
use simdx::Backend::Cpu;

const REL: f64 = 1e-5;

fn edges(n: usize, pairs: &[(u32, u32)], weights: Option<EdgeWeights>) -> EdgeList {
    EdgeList {
        num_vertices: n,
        src: pairs.iter().map(|p| p.0).collect(),
        dst: pairs.iter().map(|p| p.1).collect(),
        weights,
    }
}

fn directed(n: usize, pairs: &[(u32, u32)], weights: Option<EdgeWeights>) -> Graph {
    GraphBuilder::new().directed(true).build(edges(n, pairs, weights)).unwrap()
}

/// Generated graphs (integer-weighted, unweighted, a grid, a real-weighted network) plus edge cases:
/// self-loops, duplicates, isolated vertices, one vertex, no edges, vertices without in-neighbours,
/// and a chain whose belief drains away.
fn bp_graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> = ["kron:10:w", "urand:10", "rmat:9:8:w", "grid:24x20", "mlp:16,8,4:3"]
        .iter()
        .map(|s| (s.to_string(), generated(s)))
        .collect();
    let loops_and_dups =
        edges(5, &[(0, 0), (0, 1), (0, 1), (1, 2), (2, 1), (3, 3)], Some(EdgeWeights::U32(vec![3, 2, 5, 1, 1, 9])));
    let keep = GraphBuilder::new().self_loops(SelfLoops::Keep).duplicates(simdx::Duplicates::Keep);
    all.push(("self-loops+duplicates".into(), keep.build(loops_and_dups.clone()).unwrap()));
    all.push(("cleaned".into(), GraphBuilder::new().build(loops_and_dups).unwrap()));
    all.push(("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()));
    all.push(("no edges".into(), GraphBuilder::new().build(edges(6, &[], None)).unwrap()));
    let cycle_and_tail = [(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3)];
    let w = EdgeWeights::F32(vec![0.5, 1.0, 0.25, 2.0, 0.0, 3.0, 1.5]);
    all.push(("directed, real weights, sources".into(), directed(8, &cycle_and_tail, Some(w))));
    all.push(("chain draining away".into(), directed(4, &[(0, 1), (1, 2), (2, 3)], None)));
    all
}

#[test]
fn bp_matches_the_serial_loop_under_every_policy() {
    for (name, g) in bp_graphs() {
        for iterations in [1, 3, 10] {
            let params = Bp::uniform(g.num_vertices(), iterations);
            let expected = verify::serial_bp(&g, &params);
            let total: f64 = expected.iter().sum();
            assert!(total == 0.0 || (total - 1.0).abs() < 1e-12, "{name}: oracle beliefs sum to {total}");
            for options in policies(Cpu) {
                let run = Engine::new(options).run(&params, &g).unwrap();
                verify::bp(&g, &params, &run.values, REL)
                    .unwrap_or_else(|e| panic!("{name}, {iterations} iterations, {options:?}: {e}"));
                let engine_iterations = run.stats.iterations.len() as u32;
                assert!(g.num_vertices() == 0 || engine_iterations == 2 * iterations, "{name}: {engine_iterations}");
            }
        }
    }
}

#[test]
fn bp_edge_cases_have_the_documented_beliefs() {
    let run =
        |g: &Graph, iterations| Engine::default().run(&Bp::uniform(g.num_vertices(), iterations), g).unwrap().values;
    // A directed 3-cycle fed by vertex 3, which no one feeds: from 1/4 each, vertex 0 gathers the
    // beliefs of 2 and 3, and vertex 3 gets 0.
    let g = directed(4, &[(0, 1), (1, 2), (2, 0), (3, 0)], None);
    assert_eq!(run(&g, 1), vec![0.5, 0.25, 0.25, 0.0]);
    // Likelihoods weigh the in-neighbours: 1 -> 0 (weight 3) and 2 -> 0 (weight 1), beliefs 1/3 each.
    let g = directed(3, &[(1, 0), (2, 0), (0, 1), (0, 2)], Some(EdgeWeights::U32(vec![3, 1, 1, 1])));
    let b = run(&g, 1);
    assert!((b[0] - 4.0 / 6.0).abs() < 1e-12 && (b[1] - 1.0 / 6.0).abs() < 1e-12, "{b:?}");
    // A chain drains: after 3 iterations all belief sits at its end; after 4 nothing flows.
    let chain = directed(4, &[(0, 1), (1, 2), (2, 3)], None);
    assert_eq!(run(&chain, 3), vec![0.0, 0.0, 0.0, 1.0]);
    assert_eq!(run(&chain, 4), vec![0.0; 4]);
    // No edges at all: nothing flows, every belief is 0 (not NaN), and 0 iterations count as 1.
    let empty = GraphBuilder::new().build(edges(3, &[], None)).unwrap();
    assert_eq!(run(&empty, 0), vec![0.0; 3]);
}

/// Layered networks: generated, fully connected and with a fan-in, plus hand-made ones with integer
/// and no weights.
fn networks() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> =
        ["mlp:8,5,3", "mlp:64,32,16,4", "mlp:64,32,16,4:5", "mlp:1,1", "mlp:3,200,2:2", "mlp:784,64,10"]
            .iter()
            .map(|s| (s.to_string(), generated(s)))
            .collect();
    let two_layers = [(0, 2), (1, 2), (0, 3), (2, 4), (3, 4), (3, 5)];
    all.push(("integer weights".into(), directed(6, &two_layers, Some(EdgeWeights::U32(vec![1, 2, 3, 1, 1, 2])))));
    all.push(("unweighted, isolated input".into(), directed(7, &two_layers, None)));
    all.push(("no edges".into(), directed(3, &[], None)));
    all
}

#[test]
fn mlp_matches_a_dense_forward_pass_under_every_policy() {
    for (name, g) in networks() {
        let depth = verify::mlp_layers(&g).unwrap().len();
        for bias in [0.0, -0.75] {
            let params = Mlp::default_input(g.num_vertices(), bias);
            for options in policies(Cpu) {
                let run = Engine::new(options).run(&params, &g).unwrap();
                verify::mlp(&g, &params, &run.values, REL)
                    .unwrap_or_else(|e| panic!("{name}, bias {bias}, {options:?}: {e}"));
                assert_eq!(run.stats.iterations.len(), depth, "{name}: one iteration per layer");
                assert!(run.values.iter().all(|&x| x != NOT_COMPUTED), "{name}: a neuron was not computed");
            }
        }
    }
}

#[test]
fn mlp_by_hand_and_non_layered_graphs() {
    // Inputs 0 and 1 hold 0.1 and 0.2; neuron 2 = sigmoid(0.1 * 1 + 0.2 * 2).
    let g = directed(3, &[(0, 2), (1, 2)], Some(EdgeWeights::F32(vec![1.0, 2.0])));
    let values = Engine::default().run(&Mlp::default_input(3, 0.0), &g).unwrap().values;
    assert_eq!(&values[..2], &[0.1, 0.2]);
    assert!((values[2] - 1.0 / (1.0 + (-0.5f32).exp())).abs() < 1e-6, "{values:?}");
    // A user's inputs and biases, -1 among them: neuron 2 = sigmoid(-1 * 1 + 3 * 2 + 0.25).
    let user = Mlp { input: vec![-1.0, 3.0, 7.0].into(), bias: vec![9.0, 9.0, 0.25].into() };
    let values = Engine::default().run(&user, &g).unwrap().values;
    assert_eq!(&values[..2], &[-1.0, 3.0]);
    assert!((values[2] - 1.0 / (1.0 + (-5.25f32).exp())).abs() < 1e-6, "{values:?}");
    verify::mlp(&g, &user, &values, REL).unwrap();
    // A skip connection (0 -> 2 besides 0 -> 1 -> 2) is not a layered network: the oracle says so.
    let skip = directed(3, &[(0, 1), (1, 2), (0, 2)], None);
    let err = verify::mlp_layers(&skip).unwrap_err();
    assert!(err.contains("edge 1 -> 2 goes from layer 1 to layer 1"), "{err}");
    // A cycle that no input reaches stays uncomputed, on both sides.
    let g = directed(4, &[(0, 1), (2, 3), (3, 2)], None);
    let mlp = Mlp::default_input(4, 0.0);
    let values = Engine::default().run(&mlp, &g).unwrap().values;
    assert_eq!(values[2..], [NOT_COMPUTED, NOT_COMPUTED]);
    verify::mlp(&g, &mlp, &values, REL).unwrap();
}
