//! Every multi-search application (msbfs levels, closeness, harmonic, eccentricity, betweenness) on a
//! backend against its serial oracle, on generated graphs and the edge cases: directed with
//! unreachable parts, isolated vertices, a single vertex, no edges.

use simdx::multi_source::{Searches, Traversal};
use simdx::{Graph, GraphBuilder, VertexId};
use simdx_algos::{betweenness, closeness, eccentricity, harmonic, levels_from_each, verify};

use crate::common::{edges, generated};

/// The graphs every application is checked on, named.
pub fn application_graphs() -> Vec<(String, Graph)> {
    let directed = [(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3), (3, 7), (7, 5)];
    let isolated = [(0, 1), (1, 2), (4, 5)]; // 3, 6 and 7 have no edges
    vec![
        ("kron:9".into(), generated("kron:9")),
        ("grid:12x10".into(), generated("grid:12x10")),
        (
            "directed, unreachable parts".into(),
            GraphBuilder::new().directed(true).build(edges(9, &directed, None)).unwrap(),
        ),
        ("isolated vertices".into(), GraphBuilder::new().build(edges(8, &isolated, None)).unwrap()),
        ("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()),
        ("no edges".into(), GraphBuilder::new().build(edges(5, &[], None)).unwrap()),
    ]
}

/// Runs every application from every vertex of `graph` on `searches` (a backend holding `graph`)
/// and checks it; panics naming the graph and the application.
pub fn check_applications(name: &str, searches: &(impl Searches + ?Sized), graph: &Graph) {
    check_level_applications(name, searches, graph);
    let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).collect();
    if graph.is_directed() {
        check_in_arc_applications(name, searches, graph, &all);
    }
    for normalized in [true, false] {
        let (values, _) = betweenness(searches, &all, normalized).unwrap();
        verify::betweenness(graph, &all, normalized, &values, 1e-9).unwrap_or_else(|e| panic!("{name}, bc: {e}"));
    }
}

/// The applications that need only each search's levels along out-arcs, from every vertex of
/// `graph`, checked: all-sources levels and eccentricity, and closeness and harmonic centrality on an
/// undirected graph (on a directed one they search along in-arcs). What searches over a graph that
/// is only split over GPUs run.
pub fn check_level_applications(name: &str, searches: &(impl Searches + ?Sized), graph: &Graph) {
    let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).collect();
    let how = Traversal::default();
    let (levels, _) = levels_from_each(searches, &all, how).unwrap();
    verify::levels_from_each(graph, &all, &levels).unwrap_or_else(|e| panic!("{name}, msbfs: {e}"));
    let (values, _) = eccentricity(searches, &all, how).unwrap();
    verify::eccentricity(graph, &all, &values).unwrap_or_else(|e| panic!("{name}, eccentricity: {e}"));
    if !graph.is_directed() {
        check_in_arc_applications(name, searches, graph, &all);
    }
}

/// Closeness and harmonic centrality from `all`, checked.
fn check_in_arc_applications(name: &str, searches: &(impl Searches + ?Sized), graph: &Graph, all: &[VertexId]) {
    let how = Traversal::default();
    let (values, _) = closeness(searches, all, how).unwrap();
    verify::closeness(graph, all, &values, 1e-12).unwrap_or_else(|e| panic!("{name}, closeness: {e}"));
    let (values, _) = harmonic(searches, all, Traversal { group_by: true, ..how }).unwrap();
    verify::harmonic(graph, all, &values, 1e-9).unwrap_or_else(|e| panic!("{name}, harmonic: {e}"));
}
