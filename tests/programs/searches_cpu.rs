//! Search programs (`#[search_kernel]`) on the CPU's many-source traversal: every accumulator type and
//! combine, per-vertex data, the vertex view and a depth limit, against the program's own
//! `discovered` folded over serial searches, in every direction, both orientations, GroupBy or not;
//! every multi-search application (harmonic, a search program, among them) against its oracle on
//! generated and edge-case graphs; and per-vertex data of the wrong length refused.

use simdx::algos::Bfs;
use simdx::engine::{Engine, RunOptions};
use simdx::multi_source::{
    accumulate_levels, summary_of_levels, Accumulated, MultiSourceError, MultiStats, Orientation, Searches, Summary,
    Traversal,
};
use simdx::search_program::{search, ErasedSearch};
use simdx::{Graph, GraphBuilder, VertexId};

use crate::applications::{application_graphs, check_applications, check_level_applications};
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

/// Searches run one at a time, a CPU BFS per source, their levels folded by
/// `simdx::multi_source::{summary_of_levels, accumulate_levels}`: what the GPUs' searches over a graph
/// that is only split do (`simdx::SplitSearches`, with a partitioned BFS), here with the CPU engine,
/// so that the folding is held to the batched traversal's answers without a GPU. Out-arcs only, as
/// there.
struct OneBfsPerSource<'a>(&'a Graph);

impl OneBfsPerSource<'_> {
    fn each<T>(&self, sources: &[VertexId], mut fold: impl FnMut(usize, &[u32]) -> T) -> Vec<T> {
        let engine = Engine::new(RunOptions::default());
        let levels = |s| engine.run(&Bfs { source: s }, self.0).unwrap().values;
        sources.iter().enumerate().map(|(i, &s)| fold(i, &levels(s))).collect()
    }
}

impl Searches for OneBfsPerSource<'_> {
    fn num_vertices(&self) -> usize {
        self.0.num_vertices()
    }

    fn is_directed(&self) -> bool {
        self.0.is_directed()
    }

    fn dependency_sums(&self, _: &[VertexId]) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
        unreachable!("Brandes' sweeps are not levels")
    }

    fn summaries(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<Summary>, MultiStats), MultiSourceError> {
        assert!(how.orientation == Orientation::Out || !self.0.is_directed());
        Ok((self.each(sources, |i, levels| summary_of_levels(sources[i], levels, u32::MAX)), MultiStats::default()))
    }

    fn levels(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
        assert!(how.orientation == Orientation::Out || !self.0.is_directed());
        let k = sources.len();
        let mut table = vec![u32::MAX; self.0.num_vertices() * k];
        self.each(sources, |i, levels| levels.iter().enumerate().for_each(|(v, &l)| table[v * k + i] = l));
        Ok((table, MultiStats::default()))
    }

    fn accumulate(
        &self,
        program: &dyn ErasedSearch,
        sources: &[VertexId],
        how: Traversal,
    ) -> Result<Accumulated, MultiSourceError> {
        assert!(how.orientation == Orientation::Out || !self.0.is_directed());
        let found = self.each(sources, |i, levels| accumulate_levels(self.0, program, sources[i], levels));
        Ok((found, MultiStats::default()))
    }
}

#[test]
fn levels_folded_one_search_at_a_time_give_what_the_traversal_gives() {
    for (name, graph) in graphs().into_iter().filter(|(_, g)| !g.is_directed()) {
        check_every_program(&name, &OneBfsPerSource(&graph), &graph);
    }
    for (name, graph) in application_graphs() {
        check_level_applications(&name, &OneBfsPerSource(&graph), &graph);
    }
}
