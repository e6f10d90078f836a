//! `simdx bench`: algorithms x graphs x backends x policies, N trials each; prints a table (median ms,
//! GTEPS, and time over the bandwidth floor where a bandwidth is known) and writes the rows as JSON.
//! The floor is the time to move the bytes an algorithm must move at least once per pass (the CSR, the
//! weights it reads and its values read and written) at the device's copy bandwidth.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, Parser, ValueEnum};
use serde::Serialize;
use simdx_core::engine::{DirectionPolicy, FilterPolicy, FusionPolicy, RunOptions};
use simdx_core::Graph;

use super::algorithm::{Algorithm, AlgorithmArgs};
use super::backend::{runner, BackendArg, GpusArg};
use super::error::CliError;
use super::graph_arg::GraphArg;
use super::numbers;
use super::outcome::Outcome;
use super::plot::{bench_chart, Bar};

/// Arguments of `simdx bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Algorithms, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "bfs,sssp,pr")]
    algorithms: Vec<String>,
    /// Graphs (files or generator specs), comma-separated (an `mlp:784,256,10` spec keeps its commas).
    #[arg(long, default_value = "kron:16:w,urand:16:w,grid:256x256")]
    graphs: Vec<String>,
    /// Backends, comma-separated (default: cpu, and cuda when built with the `cuda` feature).
    #[arg(long, value_delimiter = ',', value_enum)]
    backends: Vec<BackendArg>,
    /// Direction policies (push, pull, auto), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "auto")]
    directions: Vec<String>,
    /// Filter policies (online, ballot, jit), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "jit")]
    filters: Vec<String>,
    /// Fusion modes (auto, none, push-pull, all, async), comma-separated: GPU kernel fusion; on the CPU, none
    /// runs one step at a time and the others fuse delta-stepping rounds (see `simdx run --fusion`).
    #[arg(long, value_delimiter = ',', default_value = "auto")]
    fusions: Vec<String>,
    /// Trials per row; the table shows their median.
    #[arg(long, default_value_t = 5, value_parser = numbers::at_least_one, allow_negative_numbers = true)]
    trials: u32,
    /// Source vertex for bfs and sssp (default: one picked from the graph's seed, the same for every row).
    #[arg(long, value_parser = numbers::vertex_id, allow_negative_numbers = true)]
    source: Option<u32>,
    /// Copy bandwidth in GB/s (bytes read + written) for the floor; default: measured on the GPU for
    /// cuda rows, none for cpu rows.
    #[arg(long, value_parser = numbers::bandwidth, allow_negative_numbers = true)]
    bandwidth: Option<f64>,
    /// PageRank (and other fixed-iteration algorithms') iteration count; tolerance is 0 so every row
    /// runs the same number of iterations.
    #[arg(long, default_value_t = 20, value_parser = numbers::at_least_one, allow_negative_numbers = true)]
    iterations: u32,
    /// Write the rows to this file as JSON.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Draw the table as a grouped bar chart (median ms on a log axis) in an SVG to this file.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

/// One measured row.
#[derive(Debug, Serialize)]
struct Row {
    algorithm: &'static str,
    graph: String,
    vertices: usize,
    edges: u64,
    backend: &'static str,
    direction: String,
    filter: String,
    fusion: String,
    iterations: usize,
    median_ms: f64,
    trial_ms: Vec<f64>,
    gteps: f64,
    floor_ms: Option<f64>,
    over_floor: Option<f64>,
}

/// Parses through clap so that the defaults stay those of `simdx run`.
#[derive(Debug, Parser)]
struct Defaults<T: Args> {
    #[command(flatten)]
    inner: T,
}

fn parse_list<T: ValueEnum>(what: &str, names: &[String]) -> Result<Vec<T>, CliError> {
    names
        .iter()
        .map(|n| T::from_str(n.trim(), true).map_err(|_| CliError::Usage(format!("unknown {what} '{n}'"))))
        .collect()
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum DirectionName {
    Push,
    Pull,
    Auto,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FilterName {
    Online,
    Ballot,
    Jit,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq)]
enum FusionName {
    None,
    PushPull,
    All,
    Auto,
    Async,
}

/// Bytes `algorithm` must move at least: one pass over the offsets, the targets, the weights it reads
/// and its values (read and written); algorithms that sweep every vertex each iteration (pagerank, bp)
/// make one such pass per engine iteration.
fn floor_bytes(algorithm: Algorithm, graph: &Graph, engine_iterations: usize) -> u64 {
    let n = graph.num_vertices() as u64;
    let arcs = graph.num_arcs();
    let reads_weights = matches!(algorithm.name(), "sssp" | "bp" | "spmv" | "mlp");
    let weights = if reads_weights && graph.out_csr().weights().is_some() { 4 * arcs } else { 0 };
    let once = 8 * (n + 1) + 4 * arcs + weights + 2 * 4 * n;
    match algorithm.name() {
        "pagerank" | "bp" => once * engine_iterations.max(1) as u64,
        _ => once,
    }
}

/// Runs `simdx bench`.
pub fn run(args: BenchArgs) -> Result<(), CliError> {
    let inputs: Vec<&std::path::Path> =
        args.graphs.iter().filter(|g| !simdx_core::gen::is_spec(g)).map(std::path::Path::new).collect();
    super::outputs::check(&[("--json", args.json.as_deref()), ("--plot", args.plot.as_deref())], &inputs)?;
    let algorithms: Vec<Algorithm> = parse_list("algorithm", &args.algorithms)?;
    let directions: Vec<DirectionName> = parse_list("direction", &args.directions)?;
    let filters: Vec<FilterName> = parse_list("filter", &args.filters)?;
    let fusions: Vec<FusionName> = parse_list("fusion mode", &args.fusions)?;
    let backends = if args.backends.is_empty() {
        if cfg!(feature = "cuda") {
            vec![BackendArg::Cpu, BackendArg::Auto]
        } else {
            vec![BackendArg::Cpu]
        }
    } else {
        args.backends.clone()
    };
    let mut params_line =
        vec!["run".to_string(), "--iterations".into(), args.iterations.to_string(), "--tolerance".into(), "0".into()];
    if let Some(s) = args.source {
        params_line.extend(["--source".into(), s.to_string()]);
    }
    let params =
        Defaults::<AlgorithmArgs>::try_parse_from(&params_line).map_err(|e| CliError::Usage(e.to_string()))?.inner;

    let graphs = graph_list(&args.graphs);
    let graph_args = graphs.iter().map(|spec| graph_arg(spec)).collect::<Result<Vec<_>, _>>()?;
    let lists = Policies { algorithms, directions, filters, fusions };

    let mut rows = Vec::new();
    let measured = measure(&args, &graph_args, &backends, &params, &lists, &mut rows);
    // The rows measured before a failure are kept: written out, then the failure is reported.
    if let Some(path) = &args.plot {
        let bars: Vec<Bar> = rows
            .iter()
            .map(|r| Bar {
                group: format!("{} {}", r.algorithm, r.graph),
                series: format!("{} {}/{}/{}", r.backend, r.direction, r.filter, r.fusion),
                ms: r.median_ms,
            })
            .collect();
        bench_chart(path, &format!("simdx bench, median of {} trials", args.trials), &bars)?;
    }
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&rows).map_err(|e| CliError::Output(e.into()))?;
        simdx_core::io::atomic_file::write_atomically(path, |f| std::io::Write::write_all(f, (text + "\n").as_bytes()))
            .map_err(|e| simdx_core::GraphError::io(path, e))?;
    }
    measured
}

/// The algorithms and policies whose every combination is a row.
struct Policies {
    algorithms: Vec<Algorithm>,
    directions: Vec<DirectionName>,
    filters: Vec<FilterName>,
    fusions: Vec<FusionName>,
}

/// The graphs of `--graphs`: split at commas, except the commas of an `mlp:W0,W1,...` spec (a piece
/// that starts with a digit continues the spec before it).
fn graph_list(given: &[String]) -> Vec<String> {
    let mut graphs: Vec<String> = Vec::new();
    for piece in given.iter().flat_map(|g| g.split(',')) {
        match graphs.last_mut() {
            Some(last) if last.starts_with("mlp:") && piece.starts_with(|c: char| c.is_ascii_digit()) => {
                last.push(',');
                last.push_str(piece);
            }
            _ => graphs.push(piece.to_string()),
        }
    }
    graphs
}

/// One `--graphs` entry as a GRAPH argument, checked before any row runs: a generator spec must
/// parse, a file must exist.
fn graph_arg(spec: &str) -> Result<GraphArg, CliError> {
    let arg = Defaults::<GraphArg>::try_parse_from(["graph", spec]).map_err(|e| CliError::Usage(e.to_string()))?.inner;
    if simdx_core::gen::is_spec(spec) {
        simdx_core::gen::GeneratorSpec::parse(spec)?;
    } else {
        std::fs::metadata(spec).map_err(|e| simdx_core::GraphError::io(std::path::Path::new(spec), e))?;
    }
    Ok(arg)
}

/// Measures every row, printing each as it finishes and adding it to `rows`.
fn measure(
    args: &BenchArgs,
    graphs: &[GraphArg],
    backends: &[BackendArg],
    params: &AlgorithmArgs,
    lists: &Policies,
    rows: &mut Vec<Row>,
) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<9} {:<22} {:<5} {:<5} {:<6} {:<9} {:>6} {:>11} {:>8} {:>10} {:>8}",
        "algorithm", "graph", "back", "dir", "filter", "fusion", "iters", "median ms", "GTEPS", "floor ms", "x floor"
    )?;
    for graph_arg in graphs {
        let (graph, _) = graph_arg.load()?;
        for &backend in backends {
            // One executor per graph and backend: the graph goes to the GPU once for all rows.
            let mut runner = runner(backend, GpusArg::Count(1), RunOptions::default(), &graph)?;
            let used = runner.backend().name();
            let bandwidth = args.bandwidth.or_else(|| runner.measured_bandwidth());
            for &algorithm in &lists.algorithms {
                for &direction in &lists.directions {
                    for &filter in &lists.filters {
                        for &fusion in &lists.fusions {
                            runner.set_options(options(direction, filter, fusion));
                            let outcome = algorithm.run(params, &graph, graph_arg.seed, &runner, args.trials, false)?;
                            let mut times: Vec<f64> = outcome.times.iter().map(|t| t.as_secs_f64() * 1e3).collect();
                            let trial_ms = times.clone();
                            times.sort_by(f64::total_cmp);
                            let median_ms = times[times.len() / 2];
                            let floor_ms = bandwidth.map(|gbps| {
                                floor_bytes(algorithm, &graph, outcome.stats.iterations.len()) as f64 / (gbps * 1e9)
                                    * 1e3
                            });
                            let traversal = matches!(algorithm, Algorithm::Bfs | Algorithm::Sssp);
                            let (edges, _) = Outcome::counted_edges(traversal, &graph, &outcome.values);
                            let row = Row {
                                algorithm: algorithm.name(),
                                graph: graph_arg.graph.clone(),
                                vertices: graph.num_vertices(),
                                edges: graph.num_edges(),
                                backend: used,
                                direction: format!("{direction:?}").to_lowercase(),
                                filter: format!("{filter:?}").to_lowercase(),
                                fusion: format!("{fusion:?}").to_lowercase(),
                                iterations: outcome.stats.iterations.len(),
                                median_ms,
                                trial_ms,
                                gteps: edges as f64 / (median_ms * 1e-3).max(1e-12) / 1e9,
                                floor_ms,
                                over_floor: floor_ms.map(|f| median_ms / f.max(1e-12)),
                            };
                            print_row(&mut out, &row)?;
                            rows.push(row);
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

fn options(direction: DirectionName, filter: FilterName, fusion: FusionName) -> RunOptions {
    RunOptions {
        direction: match direction {
            DirectionName::Push => DirectionPolicy::Push,
            DirectionName::Pull => DirectionPolicy::Pull,
            DirectionName::Auto => DirectionPolicy::default(),
        },
        filter: match filter {
            FilterName::Online => FilterPolicy::Online,
            FilterName::Ballot => FilterPolicy::Ballot,
            FilterName::Jit => FilterPolicy::Jit,
        },
        fusion: match fusion {
            FusionName::None => FusionPolicy::None,
            FusionName::PushPull => FusionPolicy::PushPull,
            FusionName::All => FusionPolicy::All,
            FusionName::Auto => FusionPolicy::Auto,
            FusionName::Async => FusionPolicy::Async,
        },
        ..RunOptions::default()
    }
}

fn print_row(out: &mut impl Write, r: &Row) -> std::io::Result<()> {
    let opt = |x: Option<f64>, prec: usize| x.map_or_else(|| "-".to_string(), |v| format!("{v:.prec$}"));
    writeln!(
        out,
        "{:<9} {:<22} {:<5} {:<5} {:<6} {:<9} {:>6} {:>11.3} {:>8.3} {:>10} {:>8}",
        r.algorithm,
        r.graph,
        r.backend,
        r.direction,
        r.filter,
        r.fusion,
        r.iterations,
        r.median_ms,
        r.gteps,
        opt(r.floor_ms, 3),
        opt(r.over_floor, 1)
    )
}
