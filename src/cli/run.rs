//! `simdx run ALGORITHM GRAPH`: run an algorithm on a backend for N trials, print time, iterations
//! and GTEPS; optionally validate against the oracle, print the per-iteration trace, write the stats
//! as JSON and the result one line per vertex.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde::Serialize;
use simdx_core::acc::Value;
use simdx_core::engine::{
    DegreeClasses, DirectionPolicy, FilterPolicy, FusionPolicy, LabelPolicy, RunOptions, RunStats,
};
use simdx_core::io::atomic_file::write_atomically;
use simdx_core::io::VertexLabels;
use simdx_core::{Graph, VertexId};

use super::algorithm::{Algorithm, AlgorithmArgs};
use super::backend::{parse_gpus, runner, BackendArg, GpusArg};
use super::error::CliError;
use super::graph_arg::GraphArg;
use super::numbers;
use super::outcome::{Outcome, Values};

/// Arguments of `simdx run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The algorithm.
    #[arg(value_enum)]
    algorithm: Algorithm,
    #[command(flatten)]
    graph: GraphArg,
    #[command(flatten)]
    params: AlgorithmArgs,
    /// Backend to run on.
    #[arg(long, value_enum, default_value_t = BackendArg::Auto)]
    backend: BackendArg,
    /// GPUs of this host to use on the CUDA backend: a count, or `all`. Many-search algorithms
    /// (msbfs, closeness, harmonic, eccentricity, bc) split their sources over them; the graph's
    /// programs (bfs, sssp, pr, wcc, kcore, ...) split the graph over them, each GPU holding the arcs
    /// into a range of vertices (NCCL between them); tc, triangles, jaccard and scc run on the first.
    #[arg(long, value_name = "N|all", default_value = "1", value_parser = parse_gpus, allow_negative_numbers = true)]
    gpus: GpusArg,
    /// Split the graph into N shares on the one GPU, as `--gpus N` splits it over N GPUs (the shares
    /// exchange by copies on the device): the multi-GPU engine on one GPU, for tests and measurements.
    #[arg(long, value_name = "N", value_parser = numbers::at_least_one, allow_negative_numbers = true)]
    shares: Option<u32>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Check the result against the serial oracle (exit code 1 if it disagrees).
    #[arg(long)]
    validate: bool,
    /// Number of runs; the reported time is their median.
    #[arg(long, default_value_t = 1, value_parser = numbers::at_least_one, allow_negative_numbers = true)]
    trials: u32,
    /// Write the run's statistics to this file as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the result to this file, one line `<id> <value>` per vertex (`inf` for unreached).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Print the per-iteration table (direction, filter, frontier, edges, time).
    #[arg(long)]
    trace: bool,
    /// Draw the per-iteration trace (frontier and edges on a log axis, direction and filter marked,
    /// time per iteration) as an SVG to this file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// On the GPU, report the energy the board drew per trial (NVML's counter, read before and after the
    /// trials; each trial's preparation included), in joules; printed and in `--json`.
    #[arg(long)]
    energy: bool,
}

/// Engine options on the command line.
#[derive(Debug, Args)]
pub struct EngineArgs {
    /// Push, pull, or auto (pull while the frontier's out-edges exceed --threshold of all arcs).
    #[arg(long, value_enum, default_value_t = DirectionArg::Auto)]
    direction: DirectionArg,
    /// Share of all arcs above which auto direction pulls; aggregation programs (sssp, wcc, kcore; on
    /// the CPU also pagerank) use at least 0.85, sssp on a GPU only pushes, and bfs on the CPU also
    /// follows Beamer's rule (simdx_core::engine::policy says it all).
    #[arg(long, default_value_t = 0.30, value_parser = numbers::share, allow_negative_numbers = true)]
    threshold: f64,
    /// Frontier filter: online bins, ballot scan, or jit (online, ballot on overflow).
    #[arg(long, value_enum, default_value_t = FilterArg::Jit)]
    filter: FilterArg,
    /// Vertices one online-filter bin holds before jit falls back to the ballot scan (on a GPU the
    /// step's list of reached vertices holds eight bins).
    #[arg(long, value_name = "VERTICES", default_value_t = RunOptions::default().bin_capacity as u32,
          value_parser = clap::value_parser!(u32).range(1..))]
    bin_capacity: u32,
    /// Degree-class thresholds WARP,CTA,GRID.
    #[arg(long, value_name = "WARP,CTA,GRID", default_value_t = DegreeClasses::default(), value_parser = parse_classes)]
    classes: DegreeClasses,
    /// Iteration cap.
    #[arg(long, default_value_t = u32::MAX, value_parser = numbers::non_negative, allow_negative_numbers = true)]
    max_iterations: u32,
    /// Worker threads, 1 to 1024 (default: one per core; more than four per core run as four per core,
    /// with a warning), in a pool of the run's own whose threads keep looking for work between parallel
    /// loops instead of sleeping (unless there are more threads than cores).
    #[arg(long, value_name = "N", value_parser = parse_threads, allow_negative_numbers = true)]
    threads: Option<usize>,
    /// Fusion: on a GPU, auto (selective: a persistent kernel for small steps, a launch per phase for
    /// big ones; a long run of small steps ends asynchronously), none (a launch per step), push-pull (a
    /// persistent kernel per direction), all, or async (asynchronous rounds from a device work queue,
    /// for in-place min or max programs: bfs, sssp, wcc); on the CPU, none runs one step at a time, the
    /// others run each delta-stepping round of an in-place min or max program (SSSP, WCC; BFS when it
    /// only pushes) in one parallel region.
    #[arg(long, value_enum, default_value_t = FusionArg::Auto)]
    fusion: FusionArg,
    /// Programs whose values are labels (wcc): link classes (union-find, a few passes whatever the
    /// diameter) or propagate labels step by step (with pointer jumping).
    #[arg(long, value_enum, default_value_t = LabelsArg::Link)]
    labels: LabelsArg,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LabelsArg {
    Link,
    Propagate,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FusionArg {
    None,
    PushPull,
    All,
    Auto,
    Async,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum DirectionArg {
    Push,
    Pull,
    Auto,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FilterArg {
    Online,
    Ballot,
    Jit,
}

fn parse_classes(text: &str) -> Result<DegreeClasses, String> {
    let parts: Vec<&str> = text.split(',').collect();
    let [warp, cta, grid] = parts[..] else { return Err("expected three numbers WARP,CTA,GRID".into()) };
    let num = |s: &str| s.trim().parse::<u32>().map_err(|_| format!("'{s}' is not a degree"));
    Ok(DegreeClasses { warp: num(warp)?, cta: num(cta)?, grid: num(grid)? })
}

/// Threads per core `--threads` may ask for; more are cut to this many, with a warning: rayon's work
/// stealing slows down with every thread past the cores (`MAX_THREADS` in simdx-core says how much).
const THREADS_PER_CORE: usize = 4;

/// The run's thread count: `asked`, cut to [`THREADS_PER_CORE`] per core with a warning on stderr, or
/// one per core.
fn thread_count(asked: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let most = THREADS_PER_CORE * cores;
    match asked {
        None => cores,
        Some(n) if n > most => {
            eprintln!(
                "simdx: warning: --threads {n} is more than {THREADS_PER_CORE} per core on the {cores} cores this \
                 process may use; running on {most}"
            );
            most
        }
        Some(n) => n,
    }
}

/// Parses `--threads`: a whole number from 1 to [`MAX_THREADS`].
///
/// [`MAX_THREADS`]: simdx_core::engine::MAX_THREADS
fn parse_threads(text: &str) -> Result<usize, String> {
    let max = simdx_core::engine::MAX_THREADS;
    match text.trim().parse::<u64>() {
        Ok(n) if (1..=max as u64).contains(&n) => Ok(n as usize),
        Ok(_) => Err(format!("a run uses 1 to {max} threads")),
        Err(_) => Err(format!("not a thread count: give a whole number from 1 to {max}")),
    }
}

impl EngineArgs {
    fn options(&self) -> RunOptions {
        RunOptions {
            direction: match self.direction {
                DirectionArg::Push => DirectionPolicy::Push,
                DirectionArg::Pull => DirectionPolicy::Pull,
                DirectionArg::Auto => DirectionPolicy::Auto { threshold: self.threshold },
            },
            filter: match self.filter {
                FilterArg::Online => FilterPolicy::Online,
                FilterArg::Ballot => FilterPolicy::Ballot,
                FilterArg::Jit => FilterPolicy::Jit,
            },
            classes: self.classes,
            max_iterations: self.max_iterations,
            // The engine's own pool, also by default (rayon's global pool does not spin between loops).
            threads: Some(thread_count(self.threads)),
            fusion: match self.fusion {
                FusionArg::None => FusionPolicy::None,
                FusionArg::PushPull => FusionPolicy::PushPull,
                FusionArg::All => FusionPolicy::All,
                FusionArg::Auto => FusionPolicy::Auto,
                FusionArg::Async => FusionPolicy::Async,
            },
            labels: match self.labels {
                LabelsArg::Link => LabelPolicy::Link,
                LabelsArg::Propagate => LabelPolicy::Propagate,
            },
            bin_capacity: self.bin_capacity as usize,
        }
    }
}

/// What `--json` writes.
#[derive(Debug, Serialize)]
struct RunReport {
    algorithm: &'static str,
    backend: String,
    graph: String,
    vertices: usize,
    edges: u64,
    source: Option<VertexId>,
    iterations: usize,
    time_ms: f64,
    trial_ms: Vec<f64>,
    gteps: f64,
    edges_touched: u64,
    validated: Option<bool>,
    /// `--energy` on the GPU: joules per trial.
    #[serde(skip_serializing_if = "Option::is_none")]
    energy_j: Option<f64>,
    trace: Vec<TraceRow>,
}

#[derive(Debug, Serialize)]
struct TraceRow {
    direction: String,
    filter: String,
    frontier: u64,
    edges: u64,
    bucket: u32,
    time_ms: f64,
}

/// Runs `simdx run`.
pub fn run(args: RunArgs) -> Result<(), CliError> {
    let inputs: Vec<&std::path::Path> = args.graph.file().into_iter().chain(args.params.files()).collect();
    let outputs =
        [("--output", args.output.as_deref()), ("--json", args.json.as_deref()), ("--plot", args.plot.as_deref())];
    super::outputs::check(&outputs, &inputs)?;
    let (graph, labels, _) = args.graph.load_labelled()?;
    if args.trials > 1 {
        // Every trial takes the same path: none runs unfused while the fused kernels compile.
        simdx::defer_gpu_compiles(false);
    }
    let runner = match args.algorithm.cpu_only() {
        true => {
            if args.backend == BackendArg::Cuda {
                eprintln!("simdx: {} has no GPU version yet; it runs on the CPU backend", args.algorithm.name());
            }
            runner(BackendArg::Cpu, GpusArg::Count(1), args.engine.options(), &graph)?
        }
        false => match args.shares {
            Some(shares) => shares_runner(&args, shares, &graph)?,
            None => runner(args.backend, args.gpus, args.engine.options(), &graph)?,
        },
    };
    let meter = if args.energy { energy_meter(&runner) } else { None };
    let before = meter.as_ref().and_then(|m| m.millijoules().ok());
    let outcome = args.algorithm.run(&args.params, &graph, args.graph.seed, &runner, args.trials, args.validate)?;
    let ranks = matches!(args.algorithm, Algorithm::Pr | Algorithm::Ppr);
    if ranks && outcome.stats.iterations.len() >= args.params.rank_iterations() as usize {
        eprintln!(
            "simdx: warning: the ranks ran all --iterations {}: they may not have converged to --tolerance",
            args.params.rank_iterations()
        );
    }
    let cap = args.engine.max_iterations;
    if cap < u32::MAX && outcome.stats.iterations.len() >= cap as usize {
        eprintln!(
            "simdx: warning: the run stopped at --max-iterations {cap}, possibly before it converged: values \
             may be unfinished (`inf` where nothing arrived yet)"
        );
    }
    let energy_j = match (&meter, before) {
        (Some(m), Some(before)) => {
            m.millijoules().ok().map(|after| after.saturating_sub(before) as f64 / 1e3 / outcome.times.len() as f64)
        }
        _ => None,
    };
    if args.trace {
        if let Some(line) = runner.kernel_report() {
            println!("{line}");
        }
    }
    let backend = match (runner.backend(), args.shares) {
        (simdx::Backend::Gpus(n), _) => match runner.layout_note() {
            Some(note) => format!("cuda on {n} GPUs ({note})"),
            None => format!("cuda on {n} GPUs"),
        },
        (simdx::Backend::Cuda, Some(shares)) => format!("cuda, {shares} shares on one GPU"),
        (one, _) => one.name().to_string(),
    };
    report(&args, &backend, &graph, labels.as_ref(), energy_j, outcome)
}

/// The GPU's energy counter for `--energy`, or `None` after saying on stderr why there is none.
fn energy_meter(runner: &simdx::Runner<'_>) -> Option<simdx::EnergyMeter> {
    match runner.energy_meter() {
        Ok(Some(meter)) => Some(meter),
        Ok(None) => {
            eprintln!("simdx: --energy reads the GPU's counter; the CPU backend has none, so no energy is reported");
            None
        }
        Err(e) => {
            eprintln!("simdx: {e}; no energy is reported");
            None
        }
    }
}

fn report(
    args: &RunArgs,
    backend: &str,
    graph: &Graph,
    labels: Option<&VertexLabels>,
    energy_j: Option<f64>,
    outcome: Outcome,
) -> Result<(), CliError> {
    let mut times = outcome.times.clone();
    times.sort();
    let median = times[times.len() / 2];
    let stats: &RunStats = &outcome.stats;
    let counted = counted_edges(args.algorithm, graph, &outcome.values);
    let gteps = counted as f64 / median.as_secs_f64().max(1e-12) / 1e9;
    let validated = if args.validate { Some(outcome.validation.is_ok()) } else { None };
    let mut out = std::io::stdout().lock();
    let source = outcome.source.map(|s| format!(" from vertex {s}")).unwrap_or_default();
    writeln!(
        out,
        "{}{source} on {} ({} vertices, {} edges), backend {}: {:.3} ms (median of {}), {} iterations, {:.3} GTEPS",
        args.algorithm.name(),
        args.graph.describe(),
        graph.num_vertices(),
        graph.num_edges(),
        backend,
        median.as_secs_f64() * 1e3,
        times.len(),
        stats.iterations.len(),
        gteps
    )?;
    if let Values::Count { what, count } = &outcome.values {
        writeln!(out, "{count} {what}")?;
    }
    if let Values::Communities { count, modularity, .. } = &outcome.values {
        writeln!(out, "{count} communities, modularity {modularity:.6}")?;
    }
    if let Some(j) = energy_j {
        writeln!(out, "energy {j:.3} J per trial (the whole board, NVML)")?;
    }
    if args.trace {
        writeln!(
            out,
            "{:>5} {:>9} {:>7} {:>7} {:>12} {:>14} {:>10}",
            "iter", "direction", "filter", "bucket", "frontier", "edges", "ms"
        )?;
        for (i, it) in stats.iterations.iter().enumerate() {
            writeln!(
                out,
                "{i:>5} {:>9} {:>7} {:>7} {:>12} {:>14} {:>10.3}",
                format!("{:?}", it.direction).to_lowercase(),
                format!("{:?}", it.filter).to_lowercase(),
                it.bucket,
                it.frontier,
                it.edges,
                it.time.as_secs_f64() * 1e3
            )?;
        }
        let traded = stats.exchanges;
        if traded != Default::default() {
            let (packets, full, whole) = (traded.packets, traded.full, traded.whole);
            writeln!(
                out,
                "exchanges between the shares: {packets} steps in one round of packets, {full} the long way, \
                 {whole} giving every owned value"
            )?;
        }
    }
    if validated.is_some() {
        match &outcome.validation {
            Ok(detail) => writeln!(out, "validation: passed{detail}")?,
            Err(e) => writeln!(out, "validation: FAILED: {e}")?,
        }
    }
    if let Some(path) = &args.plot {
        let title = format!("{}{source} on {}, {backend}", args.algorithm.name(), args.graph.describe());
        super::plot::run_chart(path, &title, &stats.iterations)?;
    }
    if let Some(path) = &args.output {
        write_values(path, &outcome.values, labels).map_err(|e| simdx_core::GraphError::io(path, e))?;
    }
    if let Some(path) = &args.json {
        let report = RunReport {
            algorithm: args.algorithm.name(),
            backend: backend.to_string(),
            graph: args.graph.describe(),
            vertices: graph.num_vertices(),
            edges: graph.num_edges(),
            source: outcome.source,
            iterations: stats.iterations.len(),
            time_ms: median.as_secs_f64() * 1e3,
            trial_ms: outcome.times.iter().map(|t| t.as_secs_f64() * 1e3).collect(),
            gteps,
            edges_touched: stats.edges_touched(),
            validated,
            energy_j,
            trace: stats
                .iterations
                .iter()
                .map(|it| TraceRow {
                    direction: format!("{:?}", it.direction).to_lowercase(),
                    filter: format!("{:?}", it.filter).to_lowercase(),
                    frontier: it.frontier,
                    edges: it.edges,
                    bucket: it.bucket,
                    time_ms: it.time.as_secs_f64() * 1e3,
                })
                .collect(),
        };
        let text = serde_json::to_string_pretty(&report).map_err(|e| CliError::Output(e.into()))?;
        write_atomically(path, |f| f.write_all((text + "\n").as_bytes()))
            .map_err(|e| simdx_core::GraphError::io(path, e))?;
    }
    match outcome.validation {
        Err(e) if args.validate => Err(CliError::Validation(e)),
        _ => Ok(()),
    }
}

/// The edges GTEPS counts ([`Outcome::counted_edges`]), with a warning on stderr when a search
/// reached under 1% of the graph.
fn counted_edges(algorithm: Algorithm, graph: &Graph, values: &Values) -> u64 {
    let traversal = matches!(algorithm, Algorithm::Bfs | Algorithm::Sssp);
    let (edges, reached) = Outcome::counted_edges(traversal, graph, values);
    if let Some(reached) = reached.filter(|&r| (r as f64) < 0.01 * values.len() as f64) {
        eprintln!(
            "simdx: warning: the search reached {reached} of {} vertices ({edges} edges); GTEPS counts only those edges",
            values.len()
        );
    }
    edges
}

/// Writes `values` to `path`, one `<id> <value>` line per vertex, the id as the file named it when
/// `labels` are given (`--relabel`).
fn write_values(path: &std::path::Path, values: &Values, labels: Option<&VertexLabels>) -> std::io::Result<()> {
    write_atomically(path, |file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        let all: Vec<VertexId>;
        let (vertices, values) = match values {
            Values::Count { count, .. } => {
                writeln!(out, "{count}")?;
                return out.flush();
            }
            Values::Pairs { pairs, values } => {
                write_pairs(&mut out, pairs, values, labels)?;
                return out.flush();
            }
            Values::Selected { vertices, values } => (vertices.as_slice(), values.as_ref()),
            _ => {
                all = (0..values.len() as VertexId).collect();
                (all.as_slice(), values)
            }
        };
        match values {
            Values::U32(v) | Values::Communities { labels: v, .. } => {
                write_lines(&mut out, vertices, v, 1, labels, |out, x| write!(out, "{x}"))?
            }
            Values::U64(v) => write_lines(&mut out, vertices, v, 1, labels, |out, x| write!(out, "{x}"))?,
            Values::Parents(parents) => {
                for (&v, &p) in vertices.iter().zip(parents) {
                    let id =
                        |v: VertexId| labels.and_then(|l| l.get(v)).map(|l| l.to_string()).unwrap_or(v.to_string());
                    let parent = if p == VertexId::MAX { "-1".to_string() } else { id(p) };
                    writeln!(out, "{} {parent}", id(v))?;
                }
            }
            Values::F32(v) => write_lines(&mut out, vertices, v, 1, labels, |out, x| write!(out, "{x:e}"))?,
            Values::F64(v) => write_lines(&mut out, vertices, v, 1, labels, |out, x| write!(out, "{x:e}"))?,
            Values::Rows { columns, values } => {
                write_lines(&mut out, vertices, values, *columns, labels, |out, x| write!(out, "{x}"))?
            }
            Values::Selected { .. } | Values::Pairs { .. } | Values::Count { .. } => {
                unreachable!("values of some vertices hold plain values")
            }
        }
        out.flush()
    })
}

/// Writes `<u> <v> <value>` for each pair, ids as the file named them where `labels` has them.
fn write_pairs<W: Write>(
    out: &mut W,
    pairs: &[(VertexId, VertexId)],
    values: &[f64],
    labels: Option<&VertexLabels>,
) -> std::io::Result<()> {
    let id = |v: VertexId| labels.and_then(|l| l.get(v)).map_or_else(|| v.to_string(), |label| label.to_string());
    for (&(u, v), x) in pairs.iter().zip(values) {
        writeln!(out, "{} {} {x:e}", id(u), id(v))?;
    }
    Ok(())
}

/// Writes `<id> <value> ...` for each of `vertices` (`columns` values each, in turn), the original id
/// where `labels` has one, `inf` for the type's largest value (unreachable).
fn write_lines<W: Write, V: Value>(
    out: &mut W,
    vertices: &[VertexId],
    values: &[V],
    columns: usize,
    labels: Option<&VertexLabels>,
    write_value: impl Fn(&mut W, V) -> std::io::Result<()>,
) -> std::io::Result<()> {
    for (&v, row) in vertices.iter().zip(values.chunks(columns.max(1))) {
        match labels.and_then(|l| l.get(v)) {
            Some(label) => write!(out, "{label}")?,
            None => write!(out, "{v}")?,
        }
        for &x in row {
            write!(out, " ")?;
            if x.is_max() {
                write!(out, "inf")?;
            } else {
                write_value(out, x)?;
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The runner of `--shares`: the CUDA backend on one GPU, the graph split into `shares` shares on it.
fn shares_runner<'g>(args: &RunArgs, shares: u32, graph: &'g Graph) -> Result<simdx::Runner<'g>, CliError> {
    if args.backend == BackendArg::Cpu || args.gpus != GpusArg::Count(1) {
        return Err(CliError::Usage(
            "--shares splits the graph on one GPU: it takes neither --backend cpu nor --gpus".into(),
        ));
    }
    Ok(simdx::Runner::with_shares_on_one_gpu(graph, shares as usize, args.engine.options())?)
}
