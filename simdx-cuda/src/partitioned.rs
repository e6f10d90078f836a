//! One graph split over several shares, each on a GPU of its own ([`PartitionedGraph::upload`], NCCL
//! between them) or all on one GPU ([`PartitionedGraph::upload_on_one_gpu`], device copies between
//! them, for tests and development where a machine has one GPU). The vertices are split into
//! contiguous ranges balanced by arcs (`simdx_core::partition`); share `p` holds the arcs into the
//! vertices of range `p`, both ways, and a full copy of the values. A run
//! ([`CudaEngine::run_partitioned`]) drives every share from a host thread of its own through the
//! same steps as a one-GPU run, with the exchanges of module `engine::share_steps` between them; its
//! result is every vertex's value, as on one GPU. The design, its costs and how a run over several
//! hosts would be launched: docs/multi-gpu.md.

pub(crate) mod exchange;
mod nccl_exchange;
pub(crate) mod plan;

use std::ops::Range;
use std::sync::Mutex;

use cudarc::driver::CudaSlice;
use simdx_core::acc::device::DeviceProgram;
use simdx_core::engine::Run;
use simdx_core::partition::{whole_degrees, Partition, WORD_VERTICES};
use simdx_core::Graph;

use crate::engine::{PairBuffers, ShareLink};
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::graph::DeviceGraph;
use crate::CudaEngine;
pub use exchange::{Exchange, LocalExchange, Reduce};
pub use nccl_exchange::NcclExchange;

/// Where the shares of a [`PartitionedGraph`] live, which decides how they exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// Each on a GPU of its own: NCCL.
    OneGpuEach,
    /// All on one GPU: device-to-device copies.
    OneGpu,
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
        let gpus = (0..parts.max(1)).map(|_| gpu.with_own_stream()).collect::<Result<Vec<_>, _>>()?;
        Self::upload_shares(gpus, graph, Placement::OneGpu)
    }

    fn upload_shares(gpus: Vec<Gpu>, graph: &Graph, placement: Placement) -> Result<PartitionedGraph, CudaError> {
        if gpus.is_empty() {
            return Err(CudaError::TooLarge("a partitioned graph needs at least one share".into()));
        }
        let partition = Partition::by_arcs(graph, gpus.len()).aligned(WORD_VERTICES);
        let degrees = whole_degrees(graph);
        let mut shares = Vec::with_capacity(gpus.len());
        let mut uploaded = Vec::with_capacity(gpus.len());
        let mut pairs = Vec::with_capacity(gpus.len());
        for (p, gpu) in gpus.iter().enumerate() {
            // One share's host copy at a time: the host holds the graph and one share.
            shares.push(DeviceGraph::upload(gpu, &partition.share(graph, p))?);
            uploaded.push(gpu.stream.clone_htod(&degrees).map_err(driver("uploading the degrees"))?);
            pairs.push(PairBuffers::new(gpu, graph.num_vertices() as u32)?);
        }
        Ok(PartitionedGraph {
            ranges: (0..gpus.len()).map(|p| partition.range(p)).collect(),
            shares,
            degrees: uploaded,
            pairs,
            placement,
            num_arcs: graph.num_arcs(),
            num_edges: graph.num_edges(),
            exchanges: Mutex::new(Vec::new()),
        })
    }

    /// How many shares.
    pub fn parts(&self) -> usize {
        self.shares.len()
    }

    /// The vertices share `p` owns.
    pub fn range(&self, p: usize) -> Range<u32> {
        self.ranges[p].clone()
    }

    /// Share `p` on its GPU: the arcs into the vertices it owns, over every vertex.
    pub fn share(&self, p: usize) -> &DeviceGraph {
        &self.shares[p]
    }

    /// Each share's exchange, made anew.
    fn make_exchanges(&self) -> Result<Vec<Box<dyn Exchange>>, CudaError> {
        Ok(match self.placement {
            Placement::OneGpu => {
                let streams: Vec<_> = self.shares.iter().map(|s| s.gpu.stream.clone()).collect();
                LocalExchange::group(&streams).into_iter().map(|e| Box::new(e) as Box<dyn Exchange>).collect()
            }
            Placement::OneGpuEach => {
                let gpus: Vec<Gpu> = self.shares.iter().map(|s| s.gpu.clone()).collect();
                NcclExchange::group(&gpus)?.into_iter().map(|e| Box::new(e) as Box<dyn Exchange>).collect()
            }
        })
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
        let mut exchanges = graph.exchanges.lock().map_err(|_| CudaError::Driver {
            what: "starting a partitioned run",
            message: "an earlier run on this graph panicked".into(),
        })?;
        if exchanges.is_empty() {
            *exchanges = graph.make_exchanges()?;
        }
        let runs: Vec<Result<Run<P::Value>, CudaError>> = std::thread::scope(|scope| {
            let threads: Vec<_> = exchanges
                .iter_mut()
                .enumerate()
                .map(|(p, exchange)| {
                    scope.spawn(move || {
                        let share = &graph.shares[p];
                        share.gpu.bind()?;
                        let link = ShareLink {
                            exchange: &mut **exchange,
                            ranges: &graph.ranges,
                            arcs: graph.num_arcs,
                            degrees: &graph.degrees[p],
                            pairs: &graph.pairs[p],
                        };
                        let run = self.run_share(program, share, link);
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
            }
        }
        first.stats.graph_edges = graph.num_edges;
        Ok(first)
    }
}

/// The error of a share whose thread panicked.
fn panicked() -> CudaError {
    CudaError::Driver { what: "running a share", message: "its thread panicked".into() }
}
