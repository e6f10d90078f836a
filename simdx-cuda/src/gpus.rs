//! [`DeviceGraphs`]: one graph on several GPUs of one host, a whole copy on each, and many searches
//! split over them as iBFS spreads its searches over GPUs (seed 004): each GPU runs whole batches of
//! [`LANES`] searches on its own copy, one host thread per GPU, and the results are put back in the
//! order of the sources. Searches are independent, so nothing crosses between GPUs while they run;
//! what comes back is what one GPU would have returned (Brandes' dependency sums are added up).
//!
//! Sources are split in the order given, in whole batches, as evenly as the batches allow
//! ([`split_sources`]); with [`Traversal::group_by`] each GPU groups its own share.

use std::ops::Range;
use std::sync::OnceLock;
use std::time::Instant;

use simdx_core::acc::{CombineKind, Program};
use simdx_core::engine::DirectionPolicy;
use simdx_core::intersect::{IntersectError, Intersections};
use simdx_core::multi_source::{Accumulated, MultiSourceError, MultiStats, Searches, Summary, Traversal, LANES};
use simdx_core::search_program::ErasedSearch;
use simdx_core::strong::{SccError, SccStats, StrongComponents};
use simdx_core::{Graph, VertexId};

use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::graph::DeviceGraph;
use crate::partitioned::{combines_in_place_by_min_or_max, PartitionedGraph, ShareLayout};

/// How many CUDA devices this host has (0 when there is no driver).
pub fn gpu_count() -> usize {
    // SAFETY: only probes whether the shared library can be loaded; no CUDA call is made.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return 0;
    }
    cudarc::driver::CudaContext::device_count().map_or(0, |n| n.max(0) as usize)
}

/// Opens the first `count` GPUs of this host, or says why it cannot.
pub fn open_gpus(count: usize) -> Result<Vec<Gpu>, CudaError> {
    let present = gpu_count();
    if count == 0 || count > present {
        return Err(CudaError::TooFewGpus { asked: count, present });
    }
    (0..count).map(Gpu::open).collect()
}

/// A graph on one GPU or several: whole on each when it fits, and on several GPUs also split over them
/// for programs' runs. A graph too big for one GPU is only split ([`DeviceGraphs::whole_copies`] is
/// empty), and what needs it whole (searches, triangles, Jaccard, strongly connected components)
/// says so.
pub struct DeviceGraphs {
    gpus: Vec<Gpu>,
    /// The graph whole, one copy per GPU in device order; none when it does not fit beside its share.
    whole: Vec<DeviceGraph>,
    /// Why there are no whole copies (the memory error of the first GPU that could not hold one).
    not_whole: Option<String>,
    /// The graph split into shares (module `partitioned`), which a program's run takes: one per GPU
    /// when there are several, or several on one GPU ([`DeviceGraphs::with_shares_on_one_gpu`]).
    partitioned: Option<PartitionedGraph>,
    /// The graph split alike into shares of their vertices' out-arcs ([`ShareLayout::ArcsOut`]), which
    /// the runs that prefer them take ([`DeviceGraphs::shares_for`]), made by the first; inside, `None`
    /// when they did not fit beside the rest.
    arcs_out: OnceLock<Option<PartitionedGraph>>,
    num_vertices: usize,
    directed: bool,
}

impl DeviceGraphs {
    /// Uploads `graph` to `gpus`. On one GPU, whole (after checking that it fits). On several, first
    /// split over them, a share each, for programs' runs (with both ways of their arcs if they fit,
    /// else out-arcs only), then whole to each (at once, one thread per GPU) where a copy fits
    /// beside the share and a run's arrays; when it does not, the graph stays split only.
    pub fn upload(gpus: &[Gpu], graph: &Graph) -> Result<DeviceGraphs, CudaError> {
        if gpus.len() < 2 {
            let whole = on_each(gpus, |gpu| DeviceGraph::upload(gpu, graph))?;
            return Ok(DeviceGraphs {
                gpus: gpus.to_vec(),
                whole,
                not_whole: None,
                partitioned: None,
                ..Self::shape(graph)
            });
        }
        let partitioned = PartitionedGraph::upload(gpus, graph)?;
        let reserve = partitioned.run_reserve();
        let whole = on_each(gpus, |gpu| {
            gpu.check_free(
                "a whole copy of the graph beside its share",
                DeviceGraph::bytes_needed(graph, true) + reserve,
            )?;
            DeviceGraph::upload(gpu, graph)
        });
        let (whole, not_whole) = match whole {
            Ok(copies) => (copies, None),
            Err(e) if e.is_memory() => (Vec::new(), Some(e.to_string())),
            Err(e) => return Err(e),
        };
        Ok(DeviceGraphs { gpus: gpus.to_vec(), whole, not_whole, partitioned: Some(partitioned), ..Self::shape(graph) })
    }

    /// Uploads `graph` whole to `gpu` and also split into `shares` shares on it, which programs' runs
    /// take: a run over several GPUs, on one (tests and measurements of the partitioned engine).
    pub fn with_shares_on_one_gpu(gpu: &Gpu, graph: &Graph, shares: usize) -> Result<DeviceGraphs, CudaError> {
        let whole = vec![DeviceGraph::upload(gpu, graph)?];
        let partitioned = Some(PartitionedGraph::upload_on_one_gpu(gpu, graph, shares)?);
        Ok(DeviceGraphs { gpus: vec![gpu.clone()], whole, not_whole: None, partitioned, ..Self::shape(graph) })
    }

    /// An empty value with `graph`'s vertex count and orientation, to fill in.
    fn shape(graph: &Graph) -> DeviceGraphs {
        DeviceGraphs {
            gpus: Vec::new(),
            whole: Vec::new(),
            not_whole: None,
            partitioned: None,
            arcs_out: OnceLock::new(),
            num_vertices: graph.num_vertices(),
            directed: graph.is_directed(),
        }
    }

    /// The whole copy on the first GPU for a search, or why there is none.
    fn searcher(&self) -> Result<&DeviceGraph, MultiSourceError> {
        self.whole("a search").map_err(|e| MultiSourceError::Device(e.to_string()))
    }

    /// The graph split into shares, which a program's run takes, if it is.
    pub fn partitioned(&self) -> Option<&PartitionedGraph> {
        self.partitioned.as_ref()
    }

    /// The shares a run of `P` under `direction` takes, if the graph is split: those of the vertices'
    /// out-arcs ([`ShareLayout::ArcsOut`], made from `graph`, the graph uploaded, on first use) for an
    /// aggregation program that combines in place by min or max (SSSP) and is not told to pull, where
    /// they fit beside the rest; else the shares of the arcs into the vertices. Voting programs keep
    /// the latter: their pulls, which the direction rule takes in their big steps, need the in-arcs.
    pub fn shares_for<P: Program>(
        &self,
        graph: &Graph,
        direction: DirectionPolicy,
    ) -> Result<Option<&PartitionedGraph>, CudaError> {
        let Some(arcs_in) = self.partitioned.as_ref() else { return Ok(None) };
        let prefers = P::KIND == CombineKind::Aggregate
            && combines_in_place_by_min_or_max::<P>()
            && direction != DirectionPolicy::Pull;
        if !prefers {
            return Ok(Some(arcs_in));
        }
        // Made once (runs that meet here wait for it); where they do not fit, or a driver error stops
        // their making (returned to this run), runs take the shares of arcs in.
        let mut failed = None;
        let made = self.arcs_out.get_or_init(|| match arcs_in.upload_alike(graph, ShareLayout::ArcsOut) {
            Ok(shares) => Some(shares),
            Err(e) if e.is_memory() => None,
            Err(e) => {
                failed = Some(e);
                None
            }
        });
        match failed {
            Some(e) => Err(e),
            None => Ok(Some(made.as_ref().unwrap_or(arcs_in))),
        }
    }

    /// The whole copies, one per GPU in device order; empty when the graph is too big for one GPU
    /// beside its share and is only split.
    pub fn whole_copies(&self) -> &[DeviceGraph] {
        &self.whole
    }

    /// The whole copy on the first GPU, which `what` needs, or the error saying the graph is only
    /// split.
    pub fn whole(&self, what: &'static str) -> Result<&DeviceGraph, CudaError> {
        self.whole.first().ok_or_else(|| CudaError::NeedsWholeGraph {
            what,
            gpus: self.gpus.len(),
            why: self.not_whole.clone().unwrap_or_default(),
        })
    }

    /// What is unusual in how the graph lies on the GPUs, in words, or `None`: whether its shares hold
    /// their out-arcs only and whether no GPU holds it whole.
    pub fn layout_note(&self) -> Option<String> {
        let pushes_only = self.partitioned.as_ref().is_some_and(PartitionedGraph::pushes_only);
        let notes: Vec<&str> = [
            pushes_only.then_some("shares of out-arcs only, pushing"),
            self.whole.is_empty().then_some("no whole copy"),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!notes.is_empty()).then(|| notes.join(", "))
    }

    /// The GPUs the graph is on, in device order.
    pub fn gpus(&self) -> &[Gpu] {
        &self.gpus
    }

    /// How many GPUs the graph is on.
    pub fn gpu_count(&self) -> usize {
        self.gpus.len()
    }

    /// Runs `search` on each GPU's share of `sources` (one thread per GPU) and returns the shares'
    /// results in order, with the range of `sources` each covered.
    fn split<T: Send>(
        &self,
        sources: &[VertexId],
        search: impl Fn(&DeviceGraph, &[VertexId]) -> Result<T, MultiSourceError> + Sync,
    ) -> Result<Vec<(Range<usize>, T)>, MultiSourceError> {
        let whole = self.searcher()?;
        if self.whole.len() == 1 {
            return Ok(vec![(0..sources.len(), search(whole, sources)?)]);
        }
        let shares = split_sources(sources.len(), self.whole.len());
        let results = std::thread::scope(|scope| {
            let workers: Vec<_> = shares
                .iter()
                .zip(&self.whole)
                .map(|(share, graph)| {
                    let search = &search;
                    scope.spawn(move || {
                        graph.gpu.bind().map_err(|e| MultiSourceError::Device(e.to_string()))?;
                        search(graph, &sources[share.clone()])
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().expect("a GPU's search thread panicked")).collect::<Vec<_>>()
        });
        shares.into_iter().zip(results).map(|(share, result)| Ok((share, result?))).collect()
    }
}

/// Runs `work` on each of `gpus` at once, one thread per GPU bound to its context, and returns the
/// results in device order, or the first GPU's error.
fn on_each<T: Send>(gpus: &[Gpu], work: impl Fn(&Gpu) -> Result<T, CudaError> + Sync) -> Result<Vec<T>, CudaError> {
    if let [gpu] = gpus {
        return Ok(vec![work(gpu)?]);
    }
    std::thread::scope(|scope| {
        let workers: Vec<_> = gpus
            .iter()
            .map(|gpu| {
                let work = &work;
                scope.spawn(move || {
                    gpu.ctx.bind_to_thread().map_err(driver("binding a GPU to its thread"))?;
                    work(gpu)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("a GPU's thread panicked")).collect()
    })
}

/// Splits `sources` searches over `gpus` GPUs: contiguous ranges of whole batches of [`LANES`] (the
/// last batch may be partial), the batches as evenly as they go, the first GPUs taking one more when
/// they do not divide. GPUs left without a batch get no range, so there are at most `gpus` ranges, none
/// empty (none at all when there are no sources).
pub fn split_sources(sources: usize, gpus: usize) -> Vec<Range<usize>> {
    let batches = sources.div_ceil(LANES);
    let gpus = gpus.max(1).min(batches);
    let mut start = 0;
    (0..gpus)
        .map(|g| {
            let take = batches / gpus + usize::from(g < batches % gpus);
            let end = (start + take * LANES).min(sources);
            let share = start..end;
            start = end;
            share
        })
        .collect()
}

/// The statistics of the shares as one traversal's: batches counted over all GPUs (each level's
/// `bucket`, its batch, numbered across them) and the wall time of the whole.
fn merge_stats(shares: impl IntoIterator<Item = MultiStats>, started: Instant) -> MultiStats {
    let mut merged = MultiStats::default();
    for share in shares {
        let offset = merged.batches;
        merged.levels.extend(share.levels.into_iter().map(|mut level| {
            level.bucket += offset;
            level
        }));
        merged.batches += share.batches;
    }
    merged.time = started.elapsed();
    merged
}

/// Each share's levels (row-major, one column per search of the share) as one row-major table over
/// all `k` searches of `n` vertices.
fn merge_levels(n: usize, k: usize, shares: &[(Range<usize>, Vec<u32>)]) -> Vec<u32> {
    let mut levels = vec![u32::MAX; n * k];
    for (share, part) in shares {
        let width = share.len();
        for v in 0..n {
            levels[v * k + share.start..v * k + share.end].copy_from_slice(&part[v * width..(v + 1) * width]);
        }
    }
    levels
}

impl Searches for DeviceGraphs {
    fn num_vertices(&self) -> usize {
        self.num_vertices
    }

    fn is_directed(&self) -> bool {
        self.directed
    }

    fn dependency_sums(&self, sources: &[VertexId]) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
        let started = Instant::now();
        if sources.is_empty() {
            return self.searcher()?.dependency_sums(sources);
        }
        let shares = self.split(sources, |graph, share| graph.dependency_sums(share))?;
        let mut sums = vec![0.0; self.num_vertices()];
        let mut stats = Vec::with_capacity(shares.len());
        for (_, (part, part_stats)) in shares {
            sums.iter_mut().zip(part).for_each(|(sum, x)| *sum += x);
            stats.push(part_stats);
        }
        Ok((sums, merge_stats(stats, started)))
    }

    fn summaries(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<Summary>, MultiStats), MultiSourceError> {
        let started = Instant::now();
        if sources.is_empty() {
            return self.searcher()?.summaries(sources, how);
        }
        let shares = self.split(sources, |graph, share| graph.summaries(share, how))?;
        let (summaries, stats): (Vec<_>, Vec<_>) = shares.into_iter().map(|(_, result)| result).unzip();
        Ok((summaries.concat(), merge_stats(stats, started)))
    }

    fn levels(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
        let started = Instant::now();
        if sources.is_empty() {
            return self.searcher()?.levels(sources, how);
        }
        let shares = self.split(sources, |graph, share| graph.levels(share, how))?;
        let (levels, stats): (Vec<_>, Vec<_>) =
            shares.into_iter().map(|(share, (levels, stats))| ((share, levels), stats)).unzip();
        Ok((merge_levels(self.num_vertices(), sources.len(), &levels), merge_stats(stats, started)))
    }

    fn accumulate(
        &self,
        program: &dyn ErasedSearch,
        sources: &[VertexId],
        how: Traversal,
    ) -> Result<Accumulated, MultiSourceError> {
        let started = Instant::now();
        if sources.is_empty() {
            return self.searcher()?.accumulate(program, sources, how);
        }
        let shares = self.split(sources, |graph, share| graph.accumulate(program, share, how))?;
        let (results, stats): (Vec<_>, Vec<_>) = shares.into_iter().map(|(_, result)| result).unzip();
        Ok((results.concat(), merge_stats(stats, started)))
    }
}

impl Intersections for DeviceGraphs {
    fn triangle_count(&self) -> Result<u64, IntersectError> {
        self.edge_computer()?.triangle_count()
    }

    fn triangles_per_vertex(&self) -> Result<Vec<u64>, IntersectError> {
        self.edge_computer()?.triangles_per_vertex()
    }

    fn jaccard(&self, pairs: &[(VertexId, VertexId)]) -> Result<Vec<f64>, IntersectError> {
        self.edge_computer()?.jaccard(pairs)
    }
}

impl StrongComponents for DeviceGraphs {
    fn strong_components(&self) -> Result<(Vec<VertexId>, SccStats), SccError> {
        let whole = self.whole("the strongly connected components").map_err(|e| SccError::Device(e.to_string()))?;
        whole.strong_components()
    }
}

impl DeviceGraphs {
    /// The whole copy on the first GPU for triangles and Jaccard, or why there is none.
    fn edge_computer(&self) -> Result<&DeviceGraph, IntersectError> {
        self.whole("triangles and Jaccard similarity").map_err(|e| IntersectError::Device(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_split_in_whole_batches_as_evenly_as_they_go() {
        assert_eq!(split_sources(256, 2), vec![0..128, 128..256]);
        assert_eq!(split_sources(256, 4), vec![0..64, 64..128, 128..192, 192..256]);
        assert_eq!(split_sources(200, 2), vec![0..128, 128..200]);
        assert_eq!(split_sources(320, 3), vec![0..128, 128..256, 256..320]);
        assert_eq!(split_sources(10, 4), vec![0..10]);
        assert_eq!(split_sources(65, 4), vec![0..64, 64..65]);
        assert!(split_sources(0, 2).is_empty());
        assert_eq!(split_sources(100, 0), vec![0..100]);
    }

    #[test]
    fn every_source_lands_in_exactly_one_share() {
        for sources in [1, 63, 64, 65, 127, 500, 1000] {
            for gpus in 1..=8 {
                let shares = split_sources(sources, gpus);
                assert!(shares.len() <= gpus);
                assert_eq!(shares.first().map(|s| s.start), Some(0));
                assert_eq!(shares.last().map(|s| s.end), Some(sources));
                assert!(shares.windows(2).all(|w| w[0].end == w[1].start && !w[1].is_empty()));
                let batches: Vec<usize> = shares.iter().map(|s| s.len().div_ceil(LANES)).collect();
                let (most, least) = (batches.iter().max().unwrap(), batches.iter().min().unwrap());
                assert!(most - least <= 1, "{sources} sources on {gpus} GPUs: batches {batches:?}");
            }
        }
    }

    #[test]
    fn levels_of_shares_interleave_into_one_table() {
        // 3 vertices, 3 searches: the first share holds searches 0..2, the second search 2.
        let first = (0..2, vec![0, 1, 10, 11, 20, 21]);
        let second = (2..3, vec![2, 12, 22]);
        assert_eq!(merge_levels(3, 3, &[first, second]), vec![0, 1, 2, 10, 11, 12, 20, 21, 22]);
    }

    #[test]
    fn batches_are_numbered_across_gpus() {
        use simdx_core::engine::{Direction, FilterUsed, IterationStats};
        let level = |bucket| IterationStats {
            direction: Direction::Push,
            filter: FilterUsed::Online,
            frontier: 1,
            edges: 1,
            bucket,
            time: Default::default(),
        };
        let a = MultiStats { batches: 2, levels: vec![level(0), level(1)], time: Default::default() };
        let b = MultiStats { batches: 1, levels: vec![level(0)], time: Default::default() };
        let merged = merge_stats([a, b], Instant::now());
        assert_eq!(merged.batches, 3);
        assert_eq!(merged.levels.iter().map(|l| l.bucket).collect::<Vec<_>>(), vec![0, 1, 2]);
    }
}
