//! Search programs (`#[search_kernel]`) on the CPU's many-source traversal: every accumulator type and
//! combine, per-vertex data, the vertex view and a depth limit, against the program's own
//! `discovered` folded over serial searches, in every direction, both orientations, GroupBy or not;
//! every multi-search application (harmonic, a search program, among them) against its oracle on
//! generated and edge-case graphs; and per-vertex data of the wrong length refused.

use simdx::multi_source::{MultiSourceError, Traversal};
use simdx::search_program::search;
use simdx::{Graph, GraphBuilder};

use crate::applications::{application_graphs, check_applications};
use crate::common::{edges, generated};
use crate::search_programs::*;

fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> =
        ["kron:10", "grid:30x20"].iter().map(|s| (s.to_string(), generated(s))).collect();
    let directed = [(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3)];
    all.push((
        "directed, unreachable parts".into(),
        GraphBuilder::new().directed(true).build(edges(8, &directed, None)).unwrap(),
    ));
    all.push(("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()));
    all
}

#[test]
fn every_kind_of_search_program_accumulates_what_serial_searches_give() {
    for (name, graph) in graphs() {
        check_every_program(&name, &graph, &graph);
    }
}

#[test]
fn every_application_matches_its_oracle_on_generated_and_edge_case_graphs() {
    for (name, graph) in application_graphs() {
        check_applications(&name, &graph, &graph);
    }
}

#[test]
fn per_vertex_data_of_the_wrong_length_is_refused() {
    let graph = generated("grid:4x4");
    let program = WeightWithin { hops: 1, weight: weights(15) };
    let error = search(&graph, &program, &[0], Traversal::default()).unwrap_err();
    assert!(matches!(error, MultiSourceError::Data(_)));
    assert_eq!(
        error.to_string(),
        "the program's per-vertex data `weight` has 15 values, but the graph has 16 vertices"
    );
}
