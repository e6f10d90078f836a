//! [`RunOptions`]: the knobs of a run — direction policy, filter policy, degree classes, iteration
//! cap and thread count — shared by every backend.

/// Push or pull, per iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DirectionPolicy {
    /// Always push along out-edges of active vertices.
    Push,
    /// Always pull along in-edges of every vertex that can still change.
    Pull,
    /// Pull when the active vertices' out-edges exceed `threshold` × the graph's arcs, push otherwise,
    /// with the share raised for aggregation programs and Beamer's rule for voting ones on the CPU:
    /// the rule is written once, in [`crate::run::policy`].
    Auto {
        /// Share of all arcs (0..=1) above which an iteration pulls.
        threshold: f64,
    },
}

impl Default for DirectionPolicy {
    fn default() -> Self {
        DirectionPolicy::Auto { threshold: 0.30 }
    }
}

/// How the next frontier is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FilterPolicy {
    /// Online filter: vertices are recorded in per-task bins while Compute runs (bins never overflow).
    Online,
    /// Ballot filter: a scan of the vertex status after Compute, giving a sorted, duplicate-free list.
    Ballot,
    /// Online first; on any bin overflow, ballot for that iteration (the default).
    #[default]
    Jit,
}

/// Degree thresholds that split active vertices into load-balancing classes: a vertex's edges are
/// handled by a thread (degree < `warp`), a warp (< `cta`), a block (< `grid`) or the whole grid.
/// The CPU backend runs every class below `grid` as one task per vertex and splits vertices of the
/// grid class into tasks of `grid / 16` edges (at least 256), so one hub cannot stall a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DegreeClasses {
    /// Smallest degree of the warp class.
    pub warp: u32,
    /// Smallest degree of the block (CTA) class.
    pub cta: u32,
    /// Smallest degree of the grid class.
    pub grid: u32,
}

impl Default for DegreeClasses {
    /// `256,1024,65536`. SIMD-X's thread class ends at 32 arcs, but the CUDA engine spreads that class
    /// over edge-balanced tiles, which also beat a warp a vertex for degrees up to 255 in BFS and SSSP
    /// (WCC and PageRank lose a little on some graphs; measurements: `docs/experiments/gpu-traversal.md`,
    /// "Degree classes"). The CPU backend reads only `grid`.
    fn default() -> Self {
        DegreeClasses { warp: 256, cta: 1024, grid: 65536 }
    }
}

impl std::fmt::Display for DegreeClasses {
    /// `warp,cta,grid`, as the CLI's `--classes` reads it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{},{}", self.warp, self.cta, self.grid)
    }
}

/// Options of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunOptions {
    /// Push/pull choice.
    pub direction: DirectionPolicy,
    /// Frontier filter choice.
    pub filter: FilterPolicy,
    /// Load-balancing degree classes.
    pub classes: DegreeClasses,
    /// The most iterations to run, whatever the program says.
    pub max_iterations: u32,
    /// Worker threads (`None`: rayon's global pool, one per core). An [`Engine`] makes its pool of
    /// this many at its first run and keeps it for the next ones; through a run, that pool's threads
    /// keep looking for work between parallel loops instead of sleeping, as an OpenMP team spins
    /// (rayon's global pool, which other code may share, is left as it is). At most
    /// [`MAX_THREADS`]; with more threads than cores nothing spins.
    ///
    /// [`Engine`]: crate::engine::Engine
    pub threads: Option<usize>,
    /// Capacity of one online-filter bin, in vertices; [`FilterPolicy::Jit`] falls back to the ballot
    /// filter when a bin would exceed it.
    pub bin_capacity: usize,
    /// How a GPU backend groups iterations into kernel launches; on the CPU, whether the rounds of
    /// in-place min and max programs fuse (anything but [`FusionPolicy::None`]; see
    /// [`FusionPolicy`]).
    pub fusion: FusionPolicy,
    /// How programs whose values are labels ([`crate::acc::Program::VALUES_ARE_LABELS`]) reach
    /// their result.
    pub labels: LabelPolicy,
}

/// How the engines run a program whose values are labels ([`crate::acc::Program::VALUES_ARE_LABELS`]:
/// WCC).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LabelPolicy {
    /// The default: link classes (union-find) in Afforest's order: every vertex's first two
    /// out-arcs, then the other arcs of the vertices outside the largest class found so far. A few
    /// passes over the vertices and at most one over the arcs, whatever the graph's diameter. Used
    /// when every vertex starts as its own label and no iteration cap is set; otherwise the engine
    /// propagates.
    #[default]
    Link,
    /// Propagate labels step by step as for any other program, each reached vertex following its
    /// chain of labels after every step (pointer jumping).
    Propagate,
}

/// Kernel fusion on a GPU: how many iterations one launch runs.
///
/// On the CPU, any policy but `None` runs each push iteration of an in-place min or max program
/// (SSSP, WCC; BFS when the direction policy only pushes) as one *bucket-fused round* in one parallel
/// region, as GAP does: every worker relaxes its share of the frontier and then, without waiting for
/// the others, the vertices it brought into the current delta-stepping bucket, while fewer than
/// 1,000 of them wait. Such an iteration's `frontier` counts the vertices it relaxed. Such rounds
/// always push and find the next frontier online (the ballot filter steps one iteration at a time).
/// A voting program (BFS) under the auto direction policy steps (and may pull) for its first
/// [`ASYNC_AFTER_ITERATIONS`] iterations and runs fused rounds after them (a high-diameter graph).
/// `None` runs one push or pull step per iteration; `Async` runs as `All` (its queue is the GPU's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FusionPolicy {
    /// One launch per step of every iteration; the host decides everything.
    None,
    /// A persistent kernel runs consecutive push iterations, another consecutive pull iterations;
    /// control returns to the host only to switch direction or finish.
    PushPull,
    /// One persistent kernel runs the whole algorithm, switching direction on the device.
    All,
    /// Selective fusion (the default): the persistent kernel runs the iterations whose frontier is
    /// small, where launches and host round trips would dominate (long tails, high-diameter graphs,
    /// delta-stepping buckets), and hands a big step back to the host, which runs it with one launch
    /// per phase, where a full-size grid does more. The threshold is a few out-edges per thread of the
    /// persistent grid; a voting program (BFS) keeps every step in the persistent kernel. A run of an asynchronous-capable program (see `Async`) that is still going
    /// after [`ASYNC_AFTER_ITERATIONS`] small synchronous iterations (a high-diameter graph) finishes in
    /// asynchronous rounds; on the GPU a voting program's run goes over already after 8 when every
    /// frontier so far held under n / 4096 vertices.
    #[default]
    Auto,
    /// Asynchronous rounds from the start: one persistent kernel takes each vertex whose value improved
    /// from a device work queue and relaxes its out-arcs at once, without a grid barrier per level.
    /// For in-place min or max programs without a global sum, a stopping test or an iteration cap
    /// (BFS, SSSP, WCC, widest path); others run as under `Auto`. Exact when `compute` never gives a
    /// worse update for a better source value (the result is then the best value over all paths, as
    /// synchronous rounds give). `can_update` prunes synchronous rounds only and is not read. The rounds
    /// go in epochs: each relaxes, asynchronously, the active vertices of the lowest `bucket` and every
    /// vertex they improve within it (delta-stepping's order); vertices that do not fit in the queue
    /// (two cells per vertex) wait for the next epoch, so the queue never overflows.
    Async,
}

/// Synchronous iterations after which selective fusion ([`FusionPolicy::Auto`]) hands a run that
/// could run asynchronously over to asynchronous rounds: a breadth-first search of a power-law or
/// random graph ends well before (its frontier grows by the degree each level), one of a road network
/// or a grid well after.
pub const ASYNC_AFTER_ITERATIONS: u32 = 64;

/// The most worker threads a run may ask for ([`RunOptions::threads`]). Each is an OS thread with its
/// own stack, and more threads than cores only take turns on them while rayon's work stealing costs
/// more with every thread (a steal walks a list of all of them): a thousand threads on a few cores
/// slow a run many times over, and a hundred thousand do not start in useful time (measurements:
/// `docs/experiments/cpu-engine.md`). The command line runs on at most four threads per core.
pub const MAX_THREADS: usize = 1024;

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            direction: DirectionPolicy::default(),
            filter: FilterPolicy::default(),
            classes: DegreeClasses::default(),
            max_iterations: u32::MAX,
            threads: None,
            bin_capacity: 4096,
            fusion: FusionPolicy::default(),
            labels: LabelPolicy::default(),
        }
    }
}
