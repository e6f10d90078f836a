//! [`Runner`]: one API over both backends. It prepares a graph once (on a GPU: uploads it) and runs any
//! `#[graph_kernel]` program with the same [`RunOptions`] and the same [`Run`] result on the CUDA
//! backend, when this crate is built with the `cuda` feature and a GPU is usable, or on the CPU
//! backend otherwise; [`Runner::backend`] and [`Runner::fallback`] say which, and why.

use std::sync::Arc;

use simdx_core::acc::DeviceProgram;
use simdx_core::engine::{Engine, EngineError, Run, RunOptions, RunStats};
use simdx_core::intersect::Intersections;
use simdx_core::multi_source::{Accumulated, MultiSourceError, MultiStats, Searches, Summary, Traversal};
use simdx_core::search_program::ErasedSearch;
use simdx_core::strong::StrongComponents;
use simdx_core::{Graph, VertexId};

/// Where programs should run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The CUDA backend where it can run (the `cuda` feature, a driver and a device), else the CPU.
    Auto,
    /// The rayon CPU backend.
    Cpu,
    /// The CUDA backend on the first GPU, or an error when it cannot run.
    Cuda,
    /// The CUDA backend on the first `n` GPUs of this host ([`gpu_count`] says how many it has;
    /// `Gpus(1)` is [`Backend::Cuda`]), or an error when it cannot run. The graph is copied to each
    /// GPU, where many-search traversals ([`Runner::searches`]: all-sources levels, closeness,
    /// harmonic, eccentricity, betweenness, search programs) split their sources over the GPUs; and
    /// it is split over them, each GPU holding the arcs into a range of vertices, where a program's
    /// run ([`Runner::run`]) goes, the GPUs exchanging through NCCL (`simdx_cuda::PartitionedGraph`).
    Gpus(usize),
}

impl Backend {
    /// The lower-case name: `auto`, `cpu`, `cuda`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Cuda | Backend::Gpus(_) => "cuda",
        }
    }
}

/// How many CUDA devices this host has: the most [`Backend::Gpus`] can ask for (0 without the `cuda`
/// feature or a driver).
pub fn gpu_count() -> usize {
    #[cfg(feature = "cuda")]
    return simdx_cuda::gpu_count();
    #[cfg(not(feature = "cuda"))]
    0
}

/// Lets GPU runs under selective fusion (the default) start before their persistent kernels are
/// compiled (`true`, the default): a program's first run on a cold kernel cache then waits only for
/// its step kernels and takes every step with one launch per phase, while the fused kernels compile in
/// the background for later runs. `false` makes every run wait for all of its kernels, so that every
/// run takes the same path (benchmarks, tests). The environment's `SIMDX_DEFER_COMPILE=0` does the same
/// as `false`. No effect without the `cuda` feature.
pub fn defer_gpu_compiles(on: bool) {
    #[cfg(feature = "cuda")]
    simdx_cuda::defer_persistent_kernels(on);
    #[cfg(not(feature = "cuda"))]
    let _ = on;
}

/// Waits until no GPU kernel is compiling in the background, so that the kernel cache on disk holds
/// them for the next process; a short-lived process calls it before it exits. Returns at once without
/// the `cuda` feature.
pub fn finish_gpu_compiles() {
    #[cfg(feature = "cuda")]
    simdx_cuda::finish_background_compiles();
}

/// Why a runner could not be made or a run failed.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The CPU engine refused the run (options, weights, per-vertex data).
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The CUDA backend failed.
    #[cfg(feature = "cuda")]
    #[error(transparent)]
    Cuda(#[from] simdx_cuda::CudaError),
    /// [`Backend::Cuda`] was asked for but cannot run here.
    #[error("the CUDA backend cannot run: {0}")]
    NoCuda(String),
}

/// The graph a CPU runner reads: borrowed, or shared with the runner's owner ([`Runner::shared`]).
enum HostGraph<'g> {
    Borrowed(&'g Graph),
    Shared(Arc<Graph>),
}

impl std::ops::Deref for HostGraph<'_> {
    type Target = Graph;
    fn deref(&self) -> &Graph {
        match self {
            HostGraph::Borrowed(graph) => graph,
            HostGraph::Shared(graph) => graph,
        }
    }
}

/// Why a build without the `cuda` feature cannot run on a GPU.
#[cfg(not(feature = "cuda"))]
const NO_CUDA: &str = "this build has no CUDA backend (build simdx with `--features cuda`)";

/// How many times [`algos::meyer_sanders_delta`](crate::algos::meyer_sanders_delta()) the SSSP bucket
/// width is on a GPU ([`Runner::sssp_delta`]): four times the CPU's width keeps kron near its best
/// width and brings urand near its own (which is wider), and the grid does not move with the width
/// (measurements: `docs/experiments/gpu-sssp.md`).
pub const GPU_DELTA_FACTOR: u32 = 4;

/// A prepared backend for one graph: the engine, and on a GPU the graph on the device.
enum Prepared {
    Cpu(Engine),
    #[cfg(feature = "cuda")]
    Cuda(simdx_cuda::CudaEngine, Box<simdx_cuda::DeviceGraphs>),
}

/// Runs programs on one graph, on the CUDA backend or the CPU one.
///
/// ```
/// use simdx::{Backend, Runner};
/// use simdx::gen::GeneratorSpec;
///
/// let graph = GeneratorSpec::parse("grid:8x8").unwrap().generate(1).unwrap();
/// let runner = Runner::new(&graph, Backend::Auto).unwrap();
/// let run = runner.run(&simdx::algos::Bfs { source: 0 }).unwrap();
/// assert_eq!(run.values[63], 14);
/// println!("ran on {}{}", runner.backend().name(), runner.fallback().map(|why| format!(" ({why})")).unwrap_or_default());
/// ```
pub struct Runner<'g> {
    prepared: Prepared,
    /// The graph on the host: what the CPU backend runs on, and what searches over a graph that is
    /// only split over GPUs fold their levels with ([`SplitSearches`](crate::SplitSearches)).
    graph: HostGraph<'g>,
    options: RunOptions,
    fallback: Option<String>,
}

impl<'g> Runner<'g> {
    /// Prepares `backend` for `graph` with the default options. [`Backend::Auto`] falls back to the CPU
    /// when the CUDA backend cannot run (see [`Runner::fallback`]); [`Backend::Cuda`] then fails.
    pub fn new(graph: &'g Graph, backend: Backend) -> Result<Self, RunError> {
        Self::with_options(graph, backend, RunOptions::default())
    }

    /// As [`Runner::new`], with `options`.
    pub fn with_options(graph: &'g Graph, backend: Backend, options: RunOptions) -> Result<Self, RunError> {
        Self::prepare(HostGraph::Borrowed(graph), backend, options)
    }

    fn prepare(graph: HostGraph<'g>, backend: Backend, options: RunOptions) -> Result<Self, RunError> {
        let cuda = match backend {
            Backend::Cpu => Err(None),
            Backend::Auto | Backend::Cuda => Self::cuda(&graph, 1, options).map_err(Some),
            Backend::Gpus(count) => Self::cuda(&graph, count, options).map_err(Some),
        };
        match cuda {
            Ok(prepared) => Ok(Runner { prepared, graph, options, fallback: None }),
            Err(Some(why)) if backend != Backend::Auto => Err(RunError::NoCuda(why)),
            Err(fallback) => Ok(Runner { prepared: Prepared::Cpu(Engine::new(options)), graph, options, fallback }),
        }
    }

    #[cfg(feature = "cuda")]
    fn cuda(graph: &Graph, count: usize, options: RunOptions) -> Result<Prepared, String> {
        let gpus = match count {
            1 => vec![simdx_cuda::available().map_err(|e| format!("no usable GPU: {e}"))?],
            _ => simdx_cuda::open_gpus(count).map_err(|e| e.to_string())?,
        };
        let devices = simdx_cuda::DeviceGraphs::upload(&gpus, graph).map_err(|e| e.to_string())?;
        Ok(Prepared::Cuda(simdx_cuda::CudaEngine::new(options), Box::new(devices)))
    }

    #[cfg(not(feature = "cuda"))]
    fn cuda(_: &Graph, _: usize, _: RunOptions) -> Result<Prepared, String> {
        Err(NO_CUDA.into())
    }

    /// A runner on the first GPU whose programs' runs take `graph` split into `shares` shares on that
    /// GPU, exchanging by copies on the device, as a run over `shares` GPUs splits it: the multi-GPU
    /// engine on one GPU, for tests and measurements. Searches and other computations take the
    /// whole graph, as on [`Backend::Cuda`].
    pub fn with_shares_on_one_gpu(graph: &'g Graph, shares: usize, options: RunOptions) -> Result<Self, RunError> {
        #[cfg(feature = "cuda")]
        {
            let gpu = simdx_cuda::available().map_err(|e| RunError::NoCuda(format!("no usable GPU: {e}")))?;
            let devices = simdx_cuda::DeviceGraphs::with_shares_on_one_gpu(&gpu, graph, shares)?;
            let prepared = Prepared::Cuda(simdx_cuda::CudaEngine::new(options), Box::new(devices));
            Ok(Runner { prepared, graph: HostGraph::Borrowed(graph), options, fallback: None })
        }
        #[cfg(not(feature = "cuda"))]
        {
            let _ = (graph, shares, options);
            Err(RunError::NoCuda(NO_CUDA.into()))
        }
    }

    /// The backend that runs programs: [`Backend::Cpu`], [`Backend::Cuda`] (one GPU) or
    /// [`Backend::Gpus`] (several).
    pub fn backend(&self) -> Backend {
        match &self.prepared {
            Prepared::Cpu(..) => Backend::Cpu,
            #[cfg(feature = "cuda")]
            Prepared::Cuda(_, devices) if devices.gpu_count() > 1 => Backend::Gpus(devices.gpu_count()),
            #[cfg(feature = "cuda")]
            Prepared::Cuda(..) => Backend::Cuda,
        }
    }

    /// What is unusual in how the graph lies on the GPUs, in words (a graph too big for one GPU: its
    /// shares hold their out-arcs only, or no GPU holds it whole), or `None`.
    pub fn layout_note(&self) -> Option<String> {
        match &self.prepared {
            Prepared::Cpu(..) => None,
            #[cfg(feature = "cuda")]
            Prepared::Cuda(_, devices) => devices.layout_note(),
        }
    }

    /// Why [`Backend::Auto`] runs on the CPU (no `cuda` feature, no driver, no device, ...); `None`
    /// when it runs where it was asked to.
    pub fn fallback(&self) -> Option<&str> {
        self.fallback.as_deref()
    }

    /// The options in use.
    pub fn options(&self) -> &RunOptions {
        &self.options
    }

    /// Replaces the options for later runs, keeping the prepared graph.
    pub fn set_options(&mut self, options: RunOptions) {
        match &mut self.prepared {
            Prepared::Cpu(engine) => *engine = Engine::new(options),
            #[cfg(feature = "cuda")]
            Prepared::Cuda(engine, _) => *engine = simdx_cuda::CudaEngine::new(options),
        }
        self.options = options;
    }

    /// The bucket width [`algos::Sssp`](crate::algos::Sssp) takes on this runner's backend when the
    /// user gives none: [`algos::default_delta`](crate::algos::default_delta()) on the CPU, and
    /// [`GPU_DELTA_FACTOR`] times [`algos::meyer_sanders_delta`](crate::algos::meyer_sanders_delta())
    /// on a GPU, where every delta-stepping step has a fixed cost (grid barriers, a bucket change's
    /// passes over the waiting vertices, frontier scans) that fewer and fuller buckets repay.
    pub fn sssp_delta(&self, graph: &Graph) -> u32 {
        match self.backend() {
            Backend::Cuda | Backend::Gpus(_) => {
                crate::algos::meyer_sanders_delta(graph).saturating_mul(GPU_DELTA_FACTOR)
            }
            Backend::Cpu | Backend::Auto => crate::algos::default_delta(graph),
        }
    }

    /// Runs `program` to completion on the prepared graph.
    pub fn run<P: DeviceProgram>(&self, program: &P) -> Result<Run<P::Value>, RunError> {
        match &self.prepared {
            Prepared::Cpu(engine) => Ok(engine.run(program, &self.graph)?),
            #[cfg(feature = "cuda")]
            Prepared::Cuda(engine, devices) => match devices.shares_for::<P>(&self.graph, self.options.direction)? {
                Some(shares) => Ok(engine.run_partitioned(program, shares)?),
                None => Ok(engine.run(program, Self::bound_whole(devices, "a program's run on one GPU")?)?),
            },
        }
    }

    /// The graph whole on one GPU (for `what`), that GPU made the thread's current one.
    #[cfg(feature = "cuda")]
    fn bound_whole<'d>(
        devices: &'d simdx_cuda::DeviceGraphs,
        what: &'static str,
    ) -> Result<&'d simdx_cuda::DeviceGraph, RunError> {
        let whole = devices.whole(what)?;
        whole.gpu().bind()?;
        Ok(whole)
    }

    /// Breadth-first search from `source` with its parent tree (Graph500's and GAP's output): the
    /// run's values are the levels (`u32::MAX` where unreached), and each vertex's parent comes second
    /// (`source` its own, `u32::MAX` where unreached), an in-neighbour one level closer. On the CPU
    /// and on one GPU, a level search whose engine keeps each vertex's sender
    /// ([`Engine::run_bfs_with_senders`](crate::engine::Engine::run_bfs_with_senders), the CUDA
    /// backend's `run_bfs_with_senders`; any in-neighbour one level closer); on several GPUs the
    /// [`algos::BfsTree`](crate::algos::BfsTree) program, whose value packs level and parent.
    /// Measured in docs/experiments/bfs-parents.md.
    ///
    /// ```
    /// use simdx::{Backend, Runner};
    /// use simdx::gen::GeneratorSpec;
    ///
    /// let graph = GeneratorSpec::parse("grid:3x3").unwrap().generate(1).unwrap();
    /// let runner = Runner::new(&graph, Backend::Auto).unwrap();
    /// let (levels, parents) = runner.bfs_tree(4).unwrap();
    /// assert_eq!((levels.values[0], parents[4]), (2, 4));
    /// assert!([1, 3].contains(&parents[0]));
    /// ```
    pub fn bfs_tree(&self, source: VertexId) -> Result<(Run<u32>, Vec<u32>), RunError> {
        let bfs = crate::algos::Bfs { source };
        let senders = match &self.prepared {
            Prepared::Cpu(engine) => Some(engine.run_bfs_with_senders(&bfs, &self.graph)?),
            #[cfg(feature = "cuda")]
            Prepared::Cuda(engine, devices) if devices.partitioned().is_none() => {
                let whole = Self::bound_whole(devices, "a BFS tree on one GPU")?;
                Some(engine.run_bfs_with_senders(&bfs, whole, source)?)
            }
            #[cfg(feature = "cuda")]
            Prepared::Cuda(..) => None,
        };
        if let Some((levels, mut parents)) = senders {
            if let Some(own) = parents.get_mut(source as usize) {
                *own = source;
            }
            return Ok((levels, parents));
        }
        let tree = self.run(&crate::algos::BfsTree { source })?;
        let parents = crate::algos::bfs_tree::parents(&tree.values);
        Ok((Run { values: crate::algos::bfs_tree::levels(&tree.values), stats: tree.stats }, parents))
    }

    /// The core number of every vertex (the largest `k` whose k-core holds it; degrees in arcs as
    /// stored, as [`KCore`](crate::algos::KCore) counts them, so prepare a directed graph in its
    /// [`undirected`](crate::algos::undirected()) form). On the CPU by parallel peeling in levels
    /// (`Engine::core_numbers`; the statistics hold its time only); on GPUs by one k-core run per
    /// distinct core number ([`algos::core_numbers`](crate::algos::core_numbers())), whose iterations
    /// and times the statistics add up.
    ///
    /// ```
    /// use simdx::{Backend, Runner};
    /// use simdx::gen::GeneratorSpec;
    ///
    /// let graph = GeneratorSpec::parse("grid:4x4").unwrap().generate(1).unwrap();
    /// let runner = Runner::new(&graph, Backend::Auto).unwrap();
    /// let (cores, _) = runner.core_numbers().unwrap();
    /// assert!(cores.iter().all(|&c| c == 2));
    /// ```
    pub fn core_numbers(&self) -> Result<(Vec<u32>, RunStats), RunError> {
        match &self.prepared {
            Prepared::Cpu(engine) => {
                let run = engine.core_numbers(&self.graph)?;
                Ok((run.values, run.stats))
            }
            #[cfg(feature = "cuda")]
            Prepared::Cuda(..) => self.core_numbers_by_k_cores(),
        }
    }

    /// [`Runner::core_numbers`] by one k-core run per distinct core number, their statistics added up.
    #[cfg(feature = "cuda")]
    fn core_numbers_by_k_cores(&self) -> Result<(Vec<u32>, RunStats), RunError> {
        let mut total = RunStats::default();
        let cores = crate::algos::core_numbers(|program| {
            let run = self.run(program)?;
            total.time += run.stats.time;
            total.graph_edges = run.stats.graph_edges;
            total.iterations.extend(run.stats.iterations);
            total.exchanges += run.stats.exchanges;
            Ok::<_, RunError>(run.values)
        })?;
        Ok((cores, total))
    }

    /// The prepared graph's multi-source traversal (many breadth-first searches at once) and Brandes'
    /// sweeps, on the runner's backend: what [`algos::levels_from_each`](crate::algos::levels_from_each()),
    /// [`algos::closeness`](crate::algos::closeness()), [`algos::eccentricity`](crate::algos::eccentricity())
    /// and [`algos::betweenness`](crate::algos::betweenness()) take. On several GPUs the searches split
    /// over the GPUs' whole copies of the graph; a graph too big for a whole copy runs them one
    /// partitioned BFS per source (`SplitSearches`, with the `cuda` feature), and says so where that
    /// cannot serve (betweenness, searches along in-arcs of a directed graph). The runner is itself the
    /// [`Searches`] it returns.
    ///
    /// ```
    /// use simdx::{Backend, Runner};
    /// use simdx::gen::GeneratorSpec;
    ///
    /// let graph = GeneratorSpec::parse("grid:8x8").unwrap().generate(1).unwrap();
    /// let runner = Runner::new(&graph, Backend::Auto).unwrap();
    /// let (eccentricities, _) = simdx::algos::eccentricity(runner.searches(), &[0, 27], Default::default()).unwrap();
    /// assert_eq!(eccentricities, vec![14, 8]);
    /// ```
    pub fn searches(&self) -> &dyn Searches {
        self
    }

    /// Calls `work` with the searches of the runner's graph: the CPU's traversal, the one GPU's, the
    /// GPUs' whole copies, or, when no GPU holds the graph whole, one partitioned BFS per source
    /// ([`SplitSearches`](crate::SplitSearches)).
    fn with_searches<T>(&self, work: impl FnOnce(&dyn Searches) -> T) -> T {
        match &self.prepared {
            Prepared::Cpu(_) => work(&*self.graph),
            #[cfg(feature = "cuda")]
            Prepared::Cuda(engine, devices) => match (devices.whole_copies(), devices.partitioned()) {
                ([one], _) => work(one),
                ([], Some(shares)) => work(&crate::SplitSearches::new(engine, shares, &self.graph)),
                _ => work(devices.as_ref()),
            },
        }
    }

    /// The searches of a partitioned runner's graph split into its shares, one partitioned BFS per
    /// source, whether or not a GPU also holds it whole (what [`Runner::searches`] takes only when
    /// none does): for tests and measurements of searches over a graph too big for one GPU. `None`
    /// unless the runner's programs run on shares ([`Backend::Gpus`],
    /// [`Runner::with_shares_on_one_gpu`]).
    #[cfg(feature = "cuda")]
    pub fn split_searches(&self) -> Option<crate::SplitSearches<'_>> {
        match &self.prepared {
            Prepared::Cuda(engine, devices) => {
                devices.partitioned().map(|shares| crate::SplitSearches::new(engine, shares, &self.graph))
            }
            Prepared::Cpu(_) => None,
        }
    }

    /// The prepared graph's edge computations (triangles, Jaccard similarity) on the runner's backend
    /// (on several GPUs, the first; an error there when the graph is too big for one GPU): what [`algos::triangle_count`](crate::algos::triangle_count()),
    /// [`algos::triangles`](crate::algos::triangles()) and [`algos::jaccard`](crate::algos::jaccard())
    /// take.
    ///
    /// ```
    /// use simdx::{Backend, Runner};
    /// use simdx::gen::GeneratorSpec;
    ///
    /// let graph = GeneratorSpec::parse("grid:8x8").unwrap().generate(1).unwrap();
    /// let runner = Runner::new(&graph, Backend::Auto).unwrap();
    /// assert_eq!(simdx::algos::triangle_count(runner.intersections()).unwrap(), 0);
    /// ```
    pub fn intersections(&self) -> &dyn Intersections {
        match &self.prepared {
            Prepared::Cpu(_) => &*self.graph,
            #[cfg(feature = "cuda")]
            Prepared::Cuda(_, devices) => devices.as_ref(),
        }
    }

    /// The prepared graph's strongly connected components on the runner's backend (on several GPUs,
    /// the first; an error there when the graph is too big for one GPU): what [`algos::scc_on`](crate::algos::scc_on()) takes.
    ///
    /// ```
    /// use simdx::{Backend, Runner};
    /// use simdx::gen::GeneratorSpec;
    ///
    /// let graph = GeneratorSpec::parse("grid:4x4").unwrap().generate(1).unwrap();
    /// let runner = Runner::new(&graph, Backend::Auto).unwrap();
    /// let (components, _) = simdx::algos::scc_on(runner.strong_components()).unwrap();
    /// assert!(components.iter().all(|&c| c == 0));
    /// ```
    pub fn strong_components(&self) -> &dyn StrongComponents {
        match &self.prepared {
            Prepared::Cpu(_) => &*self.graph,
            #[cfg(feature = "cuda")]
            Prepared::Cuda(_, devices) => devices.as_ref(),
        }
    }

    /// A runner of the same backend and options for another graph (uploaded anew on a GPU).
    pub fn for_graph<'h>(&self, graph: &'h Graph) -> Result<Runner<'h>, RunError> {
        let prepared = match &self.prepared {
            Prepared::Cpu(engine) => Prepared::Cpu(engine.clone()),
            #[cfg(feature = "cuda")]
            Prepared::Cuda(engine, devices) => {
                let gpus = devices.gpus();
                let uploaded = match devices.partitioned() {
                    Some(shares) if gpus.len() == 1 => {
                        simdx_cuda::DeviceGraphs::with_shares_on_one_gpu(&gpus[0], graph, shares.parts())?
                    }
                    _ => simdx_cuda::DeviceGraphs::upload(gpus, graph)?,
                };
                Prepared::Cuda(engine.clone(), Box::new(uploaded))
            }
        };
        Ok(Runner {
            prepared,
            graph: HostGraph::Borrowed(graph),
            options: self.options,
            fallback: self.fallback.clone(),
        })
    }

    /// The device's measured copy bandwidth in GB/s (bytes read + written), on the CUDA backend.
    pub fn measured_bandwidth(&self) -> Option<f64> {
        match &self.prepared {
            Prepared::Cpu(..) => None,
            #[cfg(feature = "cuda")]
            Prepared::Cuda(_, devices) => devices.gpus()[0].copy_bandwidth().ok(),
        }
    }

    /// A reader of the GPU's energy counter (through NVML), to measure what runs on it: `Ok(None)` on
    /// the CPU backend, an error when the driver cannot say.
    pub fn energy_meter(&self) -> Result<Option<EnergyMeter>, RunError> {
        match &self.prepared {
            Prepared::Cpu(..) => Ok(None),
            #[cfg(feature = "cuda")]
            Prepared::Cuda(_, devices) => Ok(Some(EnergyMeter(simdx_cuda::EnergyMeter::for_gpu(&devices.gpus()[0])?))),
        }
    }

    /// The persistent kernel of the last run, its grid and registers (CUDA runs with fusion), as a
    /// line of text.
    pub fn kernel_report(&self) -> Option<String> {
        match &self.prepared {
            Prepared::Cpu(..) => None,
            #[cfg(feature = "cuda")]
            Prepared::Cuda(engine, _) => engine.last_fused_kernel().map(|(name, g)| {
                format!(
                    "fused kernel {name}: {} blocks of 256 threads ({} per SM, co-resident), {} registers per thread",
                    g.blocks, g.blocks_per_sm, g.registers
                )
            }),
        }
    }
}

impl Runner<'static> {
    /// As [`Runner::with_options`] for a graph the runner shares rather than borrows, so that it can
    /// live as long as its owner wants (in a struct, behind a Python object): the CPU backend reads
    /// `graph` through the `Arc`; the CUDA backend uploads it (and keeps the `Arc` for searches over a graph
    /// that is only split).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use simdx::{Backend, Runner};
    /// use simdx::gen::GeneratorSpec;
    ///
    /// let graph = Arc::new(GeneratorSpec::parse("grid:8x8").unwrap().generate(1).unwrap());
    /// let runner: Runner<'static> = Runner::shared(graph, Backend::Cpu, Default::default()).unwrap();
    /// assert_eq!(runner.run(&simdx::algos::Bfs { source: 0 }).unwrap().values[63], 14);
    /// ```
    pub fn shared(graph: Arc<Graph>, backend: Backend, options: RunOptions) -> Result<Self, RunError> {
        Self::prepare(HostGraph::Shared(graph), backend, options)
    }
}

/// The GPU's energy counter ([`Runner::energy_meter`]).
pub struct EnergyMeter(#[cfg(feature = "cuda")] simdx_cuda::EnergyMeter);

impl EnergyMeter {
    /// The device's energy since the driver loaded, in millijoules.
    pub fn millijoules(&self) -> Result<u64, RunError> {
        #[cfg(feature = "cuda")]
        return Ok(self.0.millijoules()?);
        #[cfg(not(feature = "cuda"))]
        unreachable!("an energy meter exists only on the CUDA backend")
    }
}

/// A runner's searches, on its backend ([`Runner::searches`]).
impl Searches for Runner<'_> {
    fn num_vertices(&self) -> usize {
        self.graph.num_vertices()
    }

    fn is_directed(&self) -> bool {
        self.graph.is_directed()
    }

    fn dependency_sums(&self, sources: &[VertexId]) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
        self.with_searches(|searches| searches.dependency_sums(sources))
    }

    fn summaries(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<Summary>, MultiStats), MultiSourceError> {
        self.with_searches(|searches| searches.summaries(sources, how))
    }

    fn levels(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
        self.with_searches(|searches| searches.levels(sources, how))
    }

    fn accumulate(
        &self,
        program: &dyn ErasedSearch,
        sources: &[VertexId],
        how: Traversal,
    ) -> Result<Accumulated, MultiSourceError> {
        self.with_searches(|searches| searches.accumulate(program, sources, how))
    }
}
