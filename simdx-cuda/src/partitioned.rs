//! One graph split over several shares, each on a GPU of its own ([`PartitionedGraph::upload`], NCCL
//! between them) or all on one GPU ([`PartitionedGraph::upload_on_one_gpu`], device copies between
//! them, for tests and development where a machine has one GPU). The vertices are split into
//! contiguous ranges balanced by arcs (`simdx_core::partition`); share `p` holds, as [`ShareLayout`]
//! says, the arcs into the vertices of range `p` (every program) or their out-arcs and the arcs into
//! them (programs that combine in place by min or max), and a full copy of the values. A run
//! ([`CudaEngine::run_partitioned`]) drives every share from a host thread of its own through the
//! same steps as a one-GPU run, with the exchanges of modules `engine::share_steps` and
//! `engine::share_sources` between them; its result is every vertex's value, as on one GPU. The
//! design, its costs and how a run over several hosts would be launched: docs/multi-gpu.md.

pub(crate) mod exchange;
mod nccl_exchange;
pub(crate) mod plan;
mod timed;

use std::ops::Range;
use std::sync::Mutex;

use cudarc::driver::CudaSlice;
use simdx_core::acc::device::DeviceProgram;
use simdx_core::acc::{Apply, CombineOp, Program};
use simdx_core::engine::{Run, RunStats};
use simdx_core::partition::{whole_degrees, Partition, WORD_VERTICES};
use simdx_core::Graph;

use crate::engine::{PairBuffers, ReadBack, ShareLink};
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::graph::{csr_bytes, DeviceGraph};
use crate::workspace::Workspace;
use crate::CudaEngine;
pub use exchange::{Exchange, LocalExchange, Reduce};
pub use nccl_exchange::NcclExchange;
pub use timed::ExchangeTimes;

/// Where the shares of a [`PartitionedGraph`] live, which decides how they exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// Each on a GPU of its own: NCCL.
    OneGpuEach,
    /// All on one GPU: device-to-device copies.
    OneGpu,
}

/// Which arcs each share of a [`PartitionedGraph`] holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShareLayout {
    /// Share `p` holds the arcs into the vertices it owns, indexed by source (pushes) and, with
    /// `by_target`, by target (pulls): every write of a step lands on an owned vertex, and a step
    /// trades the changed values and the frontier. Every program runs on it.
    ArcsIn {
        /// The in-arcs too (else runs push).
        by_target: bool,
    },
    /// Share `p` holds the out-arcs of the vertices it owns, and the arcs into them; it pushes from its
    /// own part of the frontier, and the updates of other shares' vertices go to their owners (module
    /// `engine::share_sources`); a settle step may pull. For programs that combine in place by min or
    /// max (SSSP).
    ArcsOut,
}

/// A graph split over shares (see the module's docs), uploaded once and reused by every run.
pub struct PartitionedGraph {
    ranges: Vec<Range<u32>>,
    shares: Vec<DeviceGraph>,
    /// The whole graph's degrees, one copy on each share's GPU.
    degrees: Vec<CudaSlice<u32>>,
    /// Each share's room for the pairs of changed values it trades.
    pairs: Vec<PairBuffers>,
    placement: Placement,
    layout: ShareLayout,
    num_arcs: u64,
    num_edges: u64,
    /// Each share's exchange, made by the first run (NCCL's communicators take a while to make) and
    /// kept for the next; the lock lets one partitioned run at a time use them.
    exchanges: Mutex<Vec<Box<dyn Exchange>>>,
}

impl PartitionedGraph {
    /// `graph` split over `gpus`, one share each, exchanging through NCCL (which must be found when a
    /// run starts: `simdx_cuda::nccl`).
    pub fn upload(gpus: &[Gpu], graph: &Graph) -> Result<PartitionedGraph, CudaError> {
        Self::upload_shares(gpus.to_vec(), graph, Placement::OneGpuEach)
    }

    /// `graph` split into `parts` shares all on `gpu`, each with a stream of its own, exchanging by
    /// copies on the device: the partitioned engine on a machine with one GPU.
    pub fn upload_on_one_gpu(gpu: &Gpu, graph: &Graph, parts: usize) -> Result<PartitionedGraph, CudaError> {
        Self::upload_shares(streams_of(gpu, parts)?, graph, Placement::OneGpu)
    }

    /// As [`PartitionedGraph::upload_on_one_gpu`], with only the shares' out-arcs, as a graph whose
    /// shares do not fit both ways is split ([`PartitionedGraph::pushes_only`]): that layout on one GPU.
    pub fn upload_out_arcs_on_one_gpu(gpu: &Gpu, graph: &Graph, parts: usize) -> Result<PartitionedGraph, CudaError> {
        Self::upload_on_one_gpu_as(gpu, graph, parts, ShareLayout::ArcsIn { by_target: false })
    }

    /// `graph` split as [`PartitionedGraph::upload`] splits it, in the layout `layout`.
    pub fn upload_as(gpus: &[Gpu], graph: &Graph, layout: ShareLayout) -> Result<PartitionedGraph, CudaError> {
        let partition = Partition::by_arcs(graph, gpus.len().max(1)).aligned(WORD_VERTICES);
        Self::upload_parts(gpus, graph, &partition, Placement::OneGpuEach, layout)
    }

    /// `graph` split as [`PartitionedGraph::upload_on_one_gpu`] splits it, in the layout `layout`.
    pub fn upload_on_one_gpu_as(
        gpu: &Gpu,
        graph: &Graph,
        parts: usize,
        layout: ShareLayout,
    ) -> Result<PartitionedGraph, CudaError> {
        let gpus = streams_of(gpu, parts)?;
        let partition = Partition::by_arcs(graph, gpus.len()).aligned(WORD_VERTICES);
        Self::upload_parts(&gpus, graph, &partition, Placement::OneGpu, layout)
    }

    /// `graph` split over the same shares (GPUs or streams) and ranges as this one, in `layout`.
    pub fn upload_alike(&self, graph: &Graph, layout: ShareLayout) -> Result<PartitionedGraph, CudaError> {
        let gpus: Vec<Gpu> = self.shares.iter().map(|s| s.gpu.clone()).collect();
        let starts: Vec<u32> = self.ranges.iter().map(|r| r.start).collect();
        let partition = Partition::from_starts(&starts, graph.num_vertices() as u32)
            .ok_or_else(|| CudaError::TooLarge("the graph is not the one this partition was made for".into()))?;
        Self::upload_parts(&gpus, graph, &partition, self.placement, layout)
    }

    /// Uploads the shares with both ways of their arcs if they and a run's arrays fit each GPU, else
    /// with their out-arcs only (runs on them push).
    fn upload_shares(gpus: Vec<Gpu>, graph: &Graph, placement: Placement) -> Result<PartitionedGraph, CudaError> {
        if gpus.is_empty() {
            return Err(CudaError::TooLarge("a partitioned graph needs at least one share".into()));
        }
        let partition = Partition::by_arcs(graph, gpus.len()).aligned(WORD_VERTICES);
        let (both, out) = (ShareLayout::ArcsIn { by_target: true }, ShareLayout::ArcsIn { by_target: false });
        match Self::upload_parts(&gpus, graph, &partition, placement, both) {
            Err(e) if e.is_memory() => Self::upload_parts(&gpus, graph, &partition, placement, out),
            uploaded => uploaded,
        }
    }

    fn upload_parts(
        gpus: &[Gpu],
        graph: &Graph,
        partition: &Partition,
        placement: Placement,
        layout: ShareLayout,
    ) -> Result<PartitionedGraph, CudaError> {
        let n = graph.num_vertices() as u32;
        let degrees = whole_degrees(graph);
        let mut shares = Vec::with_capacity(gpus.len());
        let mut uploaded = Vec::with_capacity(gpus.len());
        let mut pairs = Vec::with_capacity(gpus.len());
        let room = pair_room(n, gpus.len(), layout);
        for (p, gpu) in gpus.iter().enumerate() {
            // One share's host copy at a time: the host holds the graph and one share.
            let needed = share_bytes(graph, partition, p, layout, placement, gpus.len());
            gpu.check_free("a share of the graph and a run's arrays on it", needed)?;
            shares.push(match layout {
                ShareLayout::ArcsIn { by_target: true } => DeviceGraph::upload(gpu, &partition.share(graph, p))?,
                ShareLayout::ArcsIn { by_target: false } => {
                    DeviceGraph::upload_out_arcs(gpu, &partition.share(graph, p))?
                }
                ShareLayout::ArcsOut => {
                    let out = partition.out_rows(graph, p);
                    let in_rows = graph.is_directed().then(|| partition.in_rows(graph, p));
                    DeviceGraph::upload_rows(gpu, &out, in_rows.as_ref(), out.num_arcs())?
                }
            });
            uploaded.push(gpu.stream.clone_htod(&degrees).map_err(driver("uploading the degrees"))?);
            pairs.push(PairBuffers::new(gpu, n, gpus.len(), room)?);
        }
        Ok(PartitionedGraph {
            ranges: (0..gpus.len()).map(|p| partition.range(p)).collect(),
            shares,
            degrees: uploaded,
            pairs,
            placement,
            layout,
            num_arcs: graph.num_arcs(),
            num_edges: graph.num_edges(),
            exchanges: Mutex::new(Vec::new()),
        })
    }

    /// The most device bytes a GPU needs for its share of `graph` split over `gpus` GPUs in `layout`
    /// and a run on it, as [`PartitionedGraph::upload`] checks before it uploads. What a run on several
    /// GPUs needs of each.
    pub fn bytes_per_gpu(graph: &Graph, gpus: usize, layout: ShareLayout) -> u64 {
        let partition = Partition::by_arcs(graph, gpus.max(1)).aligned(WORD_VERTICES);
        let share = |p| share_bytes(graph, &partition, p, layout, Placement::OneGpuEach, gpus.max(1));
        (0..gpus.max(1)).map(share).max().unwrap_or(0)
    }

    /// The most device bytes a share's first run allocates on its GPU (its arrays, and NCCL's buffers
    /// when the shares have a GPU each), which a whole copy of the graph beside the share must leave
    /// free.
    pub(crate) fn run_reserve(&self) -> u64 {
        let run = |s: &DeviceGraph| run_bytes(s.num_vertices, s.num_arcs, s.weights.is_some());
        let nccl = if self.placement == Placement::OneGpuEach { NCCL_RESERVE } else { 0 };
        self.shares.iter().map(run).max().unwrap_or(0) + nccl
    }

    /// Whether the shares hold no in-arcs (both ways of the arcs into their vertices did not fit), so
    /// that runs on them push.
    pub fn pushes_only(&self) -> bool {
        self.layout == ShareLayout::ArcsIn { by_target: false }
    }

    /// Which arcs the shares hold.
    pub fn layout(&self) -> ShareLayout {
        self.layout
    }

    /// How many shares.
    pub fn parts(&self) -> usize {
        self.shares.len()
    }

    /// The vertices share `p` owns.
    pub fn range(&self, p: usize) -> Range<u32> {
        self.ranges[p].clone()
    }

    /// Share `p` on its GPU, over every vertex: the arcs into the vertices it owns, or their out-arcs
    /// ([`PartitionedGraph::layout`]).
    pub fn share(&self, p: usize) -> &DeviceGraph {
        &self.shares[p]
    }

    /// Each share's exchange, made anew (timing itself under `SIMDX_PROFILE=1`).
    fn make_exchanges(&self) -> Result<Vec<Box<dyn Exchange>>, CudaError> {
        let exchanges: Vec<Box<dyn Exchange>> = match self.placement {
            Placement::OneGpu => {
                let streams: Vec<_> = self.shares.iter().map(|s| s.gpu.stream.clone()).collect();
                LocalExchange::group(&streams).into_iter().map(|e| Box::new(e) as Box<dyn Exchange>).collect()
            }
            Placement::OneGpuEach => {
                let gpus: Vec<Gpu> = self.shares.iter().map(|s| s.gpu.clone()).collect();
                NcclExchange::group(&gpus)?.into_iter().map(|e| Box::new(e) as Box<dyn Exchange>).collect()
            }
        };
        if !crate::profiling() {
            return Ok(exchanges);
        }
        let timed = exchanges.into_iter().zip(&self.shares).map(|(exchange, share)| {
            let stream = share.gpu.stream.clone();
            let wait: timed::Wait =
                Box::new(move || stream.synchronize().map_err(driver("waiting for a share's steps")));
            Box::new(timed::TimedExchange::new(exchange, wait)) as Box<dyn Exchange>
        });
        Ok(timed.collect())
    }
}

impl CudaEngine {
    /// Runs `program` on a partitioned graph: every share from a host thread of its own, in step
    /// (module `engine::share_steps`). The result holds every vertex's value, as a run on one GPU
    /// gives it; its statistics are the first share's, with each step's relaxed arcs summed over the
    /// shares.
    pub fn run_partitioned<P: DeviceProgram + Sync>(
        &self,
        program: &P,
        graph: &PartitionedGraph,
    ) -> Result<Run<P::Value>, CudaError> {
        self.run_partitioned_reading(program, graph, ReadBack::New)
    }

    /// As [`CudaEngine::run_partitioned`], with every vertex's value in `values` (made `n` values
    /// long) and the statistics returned: a caller that runs many times (one search per source) keeps
    /// one vector, whose host pages a new one would touch afresh each time.
    pub fn run_partitioned_into<P: DeviceProgram + Sync>(
        &self,
        program: &P,
        graph: &PartitionedGraph,
        values: &mut Vec<P::Value>,
    ) -> Result<RunStats, CudaError> {
        Ok(self.run_partitioned_reading(program, graph, ReadBack::Into(values))?.stats)
    }

    /// [`CudaEngine::run_partitioned`], the first share's values going where `read` says.
    fn run_partitioned_reading<P: DeviceProgram + Sync>(
        &self,
        program: &P,
        graph: &PartitionedGraph,
        read: ReadBack<'_, P::Value>,
    ) -> Result<Run<P::Value>, CudaError> {
        let mut exchanges = graph.exchanges.lock().map_err(|_| CudaError::Driver {
            what: "starting a partitioned run",
            message: "an earlier run on this graph panicked".into(),
        })?;
        if exchanges.is_empty() {
            *exchanges = graph.make_exchanges()?;
        }
        // Every share ends with every value: the first reads them back.
        let mut first_read = Some(read);
        let runs: Vec<Result<Run<P::Value>, CudaError>> = std::thread::scope(|scope| {
            let threads: Vec<_> = exchanges
                .iter_mut()
                .enumerate()
                .map(|(p, exchange)| {
                    let read = first_read.take().unwrap_or(ReadBack::Skip);
                    scope.spawn(move || {
                        let share = &graph.shares[p];
                        share.gpu.bind()?;
                        let link = ShareLink {
                            exchange: &mut **exchange,
                            ranges: &graph.ranges,
                            arcs: graph.num_arcs,
                            degrees: &graph.degrees[p],
                            pairs: &graph.pairs[p],
                            pushes_only: graph.pushes_only(),
                            from_owned: graph.layout == ShareLayout::ArcsOut,
                            packets_first: true,
                        };
                        let run = self.run_share(program, share, link, read);
                        if let (Ok(run), Some(times)) = (&run, exchange.take_times()) {
                            eprintln!("{}", times.line(p, graph.shares.len(), run.stats.time));
                        }
                        if run.is_err() {
                            exchange.leave();
                        }
                        run
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap_or_else(|_| Err(panicked()))).collect()
        });
        if runs.iter().any(Result::is_err) {
            // A share that failed left the others' exchanges mid-way: the next run makes new ones.
            exchanges.clear();
        }
        let mut runs = runs.into_iter().collect::<Result<Vec<_>, _>>()?;
        let mut first = runs.swap_remove(0);
        for other in &runs {
            for (mine, theirs) in first.stats.iterations.iter_mut().zip(&other.stats.iterations) {
                mine.edges += theirs.edges;
                if graph.layout == ShareLayout::ArcsOut {
                    // Each share's frontier is its own part of the step's.
                    mine.frontier += theirs.frontier;
                }
            }
        }
        first.stats.graph_edges = graph.num_edges;
        Ok(first)
    }
}

/// Whether `P` combines in place by min or max: what shares of out-arcs ([`ShareLayout::ArcsOut`])
/// take, whose copies of other shares' vertices' values are combined at their owners (an idempotent
/// combine makes a stale copy cost only a redundant update).
pub fn combines_in_place_by_min_or_max<P: Program>() -> bool {
    P::APPLY == Apply::InPlace && matches!(P::OP, CombineOp::Min | CombineOp::Max)
}

/// Device memory NCCL's communicator takes on each GPU (its buffers for each peer and protocol),
/// kept free beside a share on a GPU of its own.
const NCCL_RESERVE: u64 = 512 << 20;

/// The device bytes share `p` of `graph` split by `partition` in `layout` takes with a run on it: its
/// out-CSR, its in-CSR (or only its offsets), the whole graph's degrees, the pairs' and the `parts`
/// packets' room, NCCL's buffers when it has a GPU of its own, and what its first run allocates
/// ([`run_bytes`]).
fn share_bytes(
    graph: &Graph,
    partition: &Partition,
    p: usize,
    layout: ShareLayout,
    placement: Placement,
    parts: usize,
) -> u64 {
    let (n, weighted) = (graph.num_vertices() as u32, graph.is_weighted());
    let nn = u64::from(n);
    let (arcs, incoming) = match layout {
        ShareLayout::ArcsIn { by_target } => {
            let arcs = partition.arcs_into(graph, p);
            (arcs, csr_bytes(nn, if by_target { arcs } else { 1 }, weighted))
        }
        ShareLayout::ArcsOut if graph.is_directed() => {
            (partition.arcs_from(graph, p), csr_bytes(nn, partition.arcs_into(graph, p), weighted))
        }
        ShareLayout::ArcsOut => (partition.arcs_from(graph, p), 0),
    };
    let nccl = if placement == Placement::OneGpuEach { NCCL_RESERVE } else { 0 };
    let exchange = PairBuffers::bytes(n, parts, pair_room(n, parts, layout));
    csr_bytes(nn, arcs, weighted) + incoming + nn * 8 + exchange + nccl + run_bytes(n, arcs, weighted)
}

/// The pairs a share of `parts` over `n` vertices in `layout` has room for: `n` (each vertex's changed
/// value once) for shares of in-arcs; for shares of out-arcs, each of the other parts' vertices once
/// from every share that may reach it.
fn pair_room(n: u32, parts: usize, layout: ShareLayout) -> u64 {
    match layout {
        ShareLayout::ArcsIn { .. } => u64::from(n),
        ShareLayout::ArcsOut => u64::from(n) * parts.saturating_sub(1).max(1) as u64,
    }
}

/// The device bytes a share's first run allocates: a run's arrays for `n` vertices and, on a weighted
/// share of `arcs` arcs, its out-arcs in order of weight (made for a program whose update grows with
/// the weight).
fn run_bytes(n: u32, arcs: u64, weighted: bool) -> u64 {
    Workspace::bytes(n) + if weighted { arcs * 8 } else { 0 }
}

/// `gpu` once per share (at least one), each with a stream of its own: shares on one GPU.
fn streams_of(gpu: &Gpu, parts: usize) -> Result<Vec<Gpu>, CudaError> {
    (0..parts.max(1)).map(|_| gpu.with_own_stream()).collect()
}

/// The error of a share whose thread panicked.
fn panicked() -> CudaError {
    CudaError::Driver { what: "running a share", message: "its thread panicked".into() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::gen::GeneratorSpec;

    #[test]
    fn shares_of_out_arcs_only_save_their_in_arcs() {
        let (both, out) = (ShareLayout::ArcsIn { by_target: true }, ShareLayout::ArcsIn { by_target: false });
        for (spec, arc_bytes) in [("kron:10", 4), ("urand:9:w", 8), ("kron:9:d", 4)] {
            let g = GeneratorSpec::parse(spec).unwrap().generate(3).unwrap();
            let partition = Partition::by_arcs(&g, 2).aligned(WORD_VERTICES);
            let most = (0..2).map(|p| partition.arcs_into(&g, p)).max().unwrap();
            let (both_bytes, out_bytes) =
                (PartitionedGraph::bytes_per_gpu(&g, 2, both), PartitionedGraph::bytes_per_gpu(&g, 2, out));
            assert_eq!(both_bytes - out_bytes, (most - 1) * arc_bytes, "{spec}");
            // A share of everything holds at least the graph's own arrays and a run's.
            let whole = DeviceGraph::bytes_needed(&g, true) + Workspace::bytes(g.num_vertices() as u32);
            assert!(PartitionedGraph::bytes_per_gpu(&g, 1, both) >= whole, "{spec}");
        }
    }

    #[test]
    fn shares_of_owned_sources_of_an_undirected_graph_pull_along_their_out_arcs() {
        // An undirected graph's arcs into a range are its vertices' out-arcs: a share of owned sources
        // takes what a share of arcs in without its in-arcs takes, less that share's empty in-CSR.
        let arcs_out = ShareLayout::ArcsOut;
        for spec in ["kron:10", "urand:9:w"] {
            let g = GeneratorSpec::parse(spec).unwrap().generate(3).unwrap();
            let n = g.num_vertices() as u64;
            let out_only = PartitionedGraph::bytes_per_gpu(&g, 2, ShareLayout::ArcsIn { by_target: false });
            let empty_in_csr = csr_bytes(n, 1, g.is_weighted());
            assert_eq!(PartitionedGraph::bytes_per_gpu(&g, 2, arcs_out), out_only - empty_in_csr, "{spec}");
            // With three shares each has room for its updates of the two others' vertices.
            let pairs = |layout| pair_room(n as u32, 3, layout) * 12;
            assert_eq!(pairs(arcs_out) - pairs(ShareLayout::ArcsIn { by_target: true }), n * 12, "{spec}");
        }
    }
}
