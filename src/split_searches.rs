//! [`SplitSearches`]: many breadth-first searches over a graph that is only split over GPUs, too big
//! for a whole copy beside each GPU's share. Each source is one [`Bfs`] run by the partitioned engine
//! (the shares exchanging through NCCL, as any program's run does); its levels come back whole to the
//! host, which folds them into what was asked on its cores: a column of the levels table, the
//! search's summary, a search program's accumulator
//! ([`accumulate_levels`](simdx_core::multi_source::accumulate_levels)). The answers are the batched
//! traversal's; the work is one run per source instead of 64 searches a pass, so a graph that has
//! whole copies takes those ([`DeviceGraphs`](simdx_cuda::DeviceGraphs)).
//!
//! Two things need what the shares do not hold, and say so: searches along in-arcs of a directed graph
//! (closeness and harmonic centrality there), and Brandes' sweeps (betweenness). A traversal's
//! direction policy and GroupBy do not apply here: each BFS runs with the engine's own options.

use std::time::Instant;

use simdx_core::engine::IterationStats;
use simdx_core::multi_source::{
    accumulate_levels, check_search_data, check_sources, summary_of_levels, Accumulated, MultiSourceError, MultiStats,
    Orientation, Searches, Summary, Traversal,
};
use simdx_core::search_program::ErasedSearch;
use simdx_core::{Graph, VertexId};
use simdx_cuda::{CudaEngine, PartitionedGraph};

use crate::algos::Bfs;

/// The searches of a graph split into shares: one partitioned BFS per source (see the module's docs).
/// [`Runner::searches`](crate::Runner::searches) hands them out when no GPU holds the graph whole;
/// [`Runner::split_searches`](crate::Runner::split_searches) makes them for any partitioned runner.
pub struct SplitSearches<'a> {
    engine: &'a CudaEngine,
    shares: &'a PartitionedGraph,
    graph: &'a Graph,
}

impl<'a> SplitSearches<'a> {
    /// The searches of `graph`, split into `shares`, run by `engine`.
    pub(crate) fn new(engine: &'a CudaEngine, shares: &'a PartitionedGraph, graph: &'a Graph) -> Self {
        SplitSearches { engine, shares, graph }
    }

    /// Runs one BFS from each of `sources`, in order, and hands each search's index and levels to
    /// `fold`; the searches' statistics as one traversal's, each search a batch of its own.
    fn each<T>(
        &self,
        sources: &[VertexId],
        how: Traversal,
        mut fold: impl FnMut(usize, &[u32]) -> T,
    ) -> Result<(Vec<T>, MultiStats), MultiSourceError> {
        check_sources(sources, self.graph.num_vertices())?;
        if how.orientation == Orientation::In && self.graph.is_directed() {
            return Err(self.missing("searches along the in-arcs of a directed graph"));
        }
        let started = Instant::now();
        let mut stats = MultiStats::default();
        let mut folded = Vec::with_capacity(sources.len());
        // One vector for every search's levels, so that its host pages are touched once.
        let mut levels = Vec::new();
        for (i, &source) in sources.iter().enumerate() {
            let run = self
                .engine
                .run_partitioned_into(&Bfs { source }, self.shares, &mut levels)
                .map_err(|e| MultiSourceError::Device(e.to_string()))?;
            let batch = stats.batches;
            stats.levels.extend(run.iterations.into_iter().map(|level| IterationStats { bucket: batch, ..level }));
            stats.batches += 1;
            folded.push(fold(i, &levels));
        }
        stats.time = started.elapsed();
        Ok((folded, stats))
    }

    /// The error for `what`, which needs the graph whole on one GPU.
    fn missing(&self, what: &str) -> MultiSourceError {
        MultiSourceError::Device(format!(
            "{what} need the whole graph on one GPU, but this graph is only split into {} shares (too big for a \
             whole copy beside each GPU's share)",
            self.shares.parts()
        ))
    }
}

impl Searches for SplitSearches<'_> {
    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    fn is_directed(&self) -> bool {
        self.graph.is_directed()
    }

    fn dependency_sums(&self, _: &[VertexId]) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
        Err(self.missing("Brandes' dependency sums (betweenness centrality)"))
    }

    fn summaries(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<Summary>, MultiStats), MultiSourceError> {
        self.each(sources, how, |i, levels| summary_of_levels(sources[i], levels, u32::MAX))
    }

    fn levels(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
        use rayon::prelude::*;
        let k = sources.len();
        let mut table = vec![u32::MAX; self.graph.num_vertices() * k];
        let (_, stats) = self.each(sources, how, |i, levels| {
            table.par_chunks_mut(k.max(1)).zip(levels).for_each(|(row, &level)| row[i] = level);
        })?;
        Ok((table, stats))
    }

    fn accumulate(
        &self,
        program: &dyn ErasedSearch,
        sources: &[VertexId],
        how: Traversal,
    ) -> Result<Accumulated, MultiSourceError> {
        check_search_data(program, self.graph.num_vertices())?;
        self.each(sources, how, |i, levels| accumulate_levels(self.graph, program, sources[i], levels))
    }
}
