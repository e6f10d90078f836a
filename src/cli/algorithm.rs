//! The algorithms `simdx run` knows, their parameters on the command line, and how each is run,
//! validated against its oracle and turned into printable values.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use simdx::Runner;
use simdx_algos::{bp, mlp, sssp, Bp, Mlp, MultiSourceBfs, MultiSourceSssp, WideSssp};
use simdx_algos::{undirected, verify, Bfs, KCore, PageRank, Ppr, Spmv, Sssp, Wcc};
use simdx_core::acc::VertexData;
use simdx_core::engine::RunStats;
use simdx_core::io::vertex_values::{parse_vertex_set, read_vertex_values};
use simdx_core::multi_source::{Searches, Traversal};
use simdx_core::{Graph, VertexId};

use super::error::CliError;
use super::numbers;
use super::outcome::{trials, Outcome, Values};

/// An algorithm name on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Algorithm {
    /// Breadth-first search levels from --source, or from the nearest of --sources.
    Bfs,
    /// Delta-stepping shortest paths from --source, or from the nearest of --sources (integer weights;
    /// 1 per edge if unweighted).
    Sssp,
    /// PageRank (alias: pagerank).
    #[value(alias = "pagerank")]
    Pr,
    /// Personalized PageRank jumping to --sources (or --source), each alike; dangling vertices jump
    /// there too (networkx's pagerank with personalization).
    Ppr,
    /// Weakly connected components: each vertex's component id, the smallest vertex id in it (a
    /// directed graph is first made undirected; that is not timed).
    Wcc,
    /// The k-core for --k: 1 for a vertex in it, 0 otherwise; with --all, each vertex's core number
    /// (a directed graph is first made undirected; that is not timed).
    Kcore,
    /// y = A x (y[v] = sum over in-arcs u -> v of w * x[u], scipy's A.T @ x; 1 per unweighted arc)
    /// for x from --input (default x[u] = 1 + (u mod 7)); prints y.
    Spmv,
    /// Belief propagation for --iterations (default 10): each belief becomes its prior (--priors,
    /// default uniform) times the likelihood (edge weight) weighted sum of the in-neighbours'
    /// beliefs, normalised to sum to 1.
    Bp,
    /// Forward pass of a layered network (e.g. mlp:784,256,10): inputs (no in-edges) hold --input
    /// (default ((v mod 10) + 1) / 10), every other neuron sigmoid(weighted sum + --bias).
    Mlp,
    /// Levels from each of --sources (or --samples K vertices), 64 searches per pass over the graph;
    /// --output writes `<vertex> <level from source 1> <level from source 2> ...`.
    Msbfs,
    /// Closeness centrality (networkx's, with the Wasserman-Faust correction) of every vertex, or of
    /// --sources or --samples K vertices; 64 searches per pass.
    Closeness,
    /// Harmonic centrality (networkx's: the sum of 1 / distance from every other vertex) of every
    /// vertex, or of --sources or --samples K vertices; a search program, 64 searches per pass.
    Harmonic,
    /// Eccentricity of every vertex (or of --sources or --samples K vertices) within what it reaches;
    /// the largest is the diameter (a lower bound when sampled); 64 searches per pass.
    Eccentricity,
    /// Betweenness centrality (Brandes; networkx's normalisation): exact from every vertex, or
    /// estimated from --sources or --samples K sources, scaled by n / K as networkx does.
    Bc,
    /// The number of triangles (GAP's tc: each found once, from its vertex of lowest degree rank, by
    /// intersecting sorted neighbour lists); undirected graphs.
    Tc,
    /// The triangles each vertex is in (networkx's `triangles`); undirected graphs.
    Triangles,
    /// Jaccard similarity along every edge, |N(u) ∩ N(v)| / |N(u) ∪ N(v)|; --output writes
    /// `<u> <v> <coefficient>` per edge (u < v); undirected graphs.
    Jaccard,
    /// Strongly connected components: each vertex's component named by its smallest vertex id
    /// (Multistep: trim, forward-backward from a pivot, colouring); runs on the CPU.
    Scc,
    /// Louvain communities (networkx's louvain_communities): each vertex's community, numbered in the
    /// order of the communities' smallest vertices, at --resolution, the vertex orders shuffled from
    /// --seed; prints the modularity; undirected graphs; runs on the CPU.
    Louvain,
}

/// SSSP from `--source` or the nearest of `--sources`: over `u32` distances where every shortest
/// distance fits below `u32::MAX` (half the bytes a step moves), over `u64` distances otherwise.
fn sssp(
    params: &AlgorithmArgs,
    graph: &Graph,
    seed: u64,
    runner: &Runner<'_>,
    count: u32,
    validate: bool,
) -> Result<Outcome, CliError> {
    // At least 1: `--delta` is parsed by `numbers::width`, and the runner's width is at least 1.
    let delta = params.delta.unwrap_or_else(|| u64::from(runner.sssp_delta(graph)));
    let detail = || format!(" (delta {delta})");
    let (sources, source) = match sources(params, graph)? {
        Some(sources) => (sources, None),
        None => {
            let source = pick_source(params.source, graph, seed)?;
            (vec![source], Some(source))
        }
    };
    if !sssp::fits_u32(graph) {
        let program = WideSssp { sources: VertexData::set(graph.num_vertices(), &sources), delta };
        let (run, times) = trials(runner, &program, count)?;
        let validation = check(validate, || verify::sssp_from(graph, &sources, &run.values).map(|()| detail()));
        return Ok(outcome(Values::U64(run.values), times, run.stats, source, validation));
    }
    // A width past every distance puts them all in one bucket, as u32::MAX does.
    let delta = delta.min(u64::from(u32::MAX)) as u32;
    let (run, times) = match source {
        Some(source) => trials(runner, &Sssp { source, delta }, count)?,
        None => {
            trials(runner, &MultiSourceSssp { sources: VertexData::set(graph.num_vertices(), &sources), delta }, count)?
        }
    };
    let validation = check(validate, || verify::sssp_from(graph, &sources, &run.values).map(|()| detail()));
    Ok(outcome(Values::U32(run.values), times, run.stats, source, validation))
}

/// BFS levels from `--source` (or the nearest of `--sources`), or with `--parents` the search tree.
fn bfs(
    params: &AlgorithmArgs,
    graph: &Graph,
    seed: u64,
    runner: &Runner<'_>,
    count: u32,
    validate: bool,
) -> Result<Outcome, CliError> {
    if let Some(sources) = sources(params, graph)? {
        let program = MultiSourceBfs { sources: VertexData::set(graph.num_vertices(), &sources) };
        let (run, times) = trials(runner, &program, count)?;
        let validation = check(validate, || verify::bfs_from(graph, &sources, &run.values).map(|()| String::new()));
        return Ok(outcome(Values::U32(run.values), times, run.stats, None, validation));
    }
    let source = pick_source(params.source, graph, seed)?;
    if params.parents {
        return bfs_parents(graph, source, runner, count, validate);
    }
    let (run, times) = trials(runner, &Bfs { source }, count)?;
    let validation = check(validate, || verify::bfs(graph, source, &run.values).map(|()| String::new()));
    Ok(outcome(Values::U32(run.values), times, run.stats, Some(source), validation))
}

/// Personalized PageRank jumping to `--sources` (or `--source`).
fn ppr(
    params: &AlgorithmArgs,
    graph: &Graph,
    seed: u64,
    runner: &Runner<'_>,
    count: u32,
    validate: bool,
) -> Result<Outcome, CliError> {
    let allowed = rank_allowance(params, validate)?;
    let seeds = match sources(params, graph)? {
        Some(seeds) => seeds,
        None => vec![pick_source(params.source, graph, seed)?],
    };
    let program = Ppr {
        damping: params.damping,
        tolerance: params.tolerance,
        max_iterations: params.rank_iterations(),
        ..Ppr::from_seeds(graph.num_vertices(), &seeds)
    };
    let (run, times) = trials(runner, &program, count)?;
    let validation = check(validate, || {
        verify::ppr(graph, &program, &run.values, allowed).map(|l1| format!(" (L1 distance at most {l1:.2e})"))
    });
    Ok(outcome(Values::F64(run.values), times, run.stats, None, validation))
}

/// `bfs --parents`: the search tree from `source` (`Runner::bfs_tree`), checked by Graph500's rules and
/// its levels against the serial BFS.
fn bfs_parents(
    graph: &Graph,
    source: VertexId,
    runner: &Runner<'_>,
    count: u32,
    validate: bool,
) -> Result<Outcome, CliError> {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..count {
        let (run, parents) = runner.bfs_tree(source)?;
        times.push(run.stats.time);
        last = Some((run, parents));
    }
    let (run, parents) = last.ok_or_else(|| CliError::Usage("--trials must be at least 1".into()))?;
    let validation = check(validate, || {
        verify::bfs(graph, source, &run.values)?;
        verify::bfs_tree(graph, source, &parents).map(|()| " (the parent tree holds Graph500's rules)".to_string())
    });
    Ok(outcome(Values::Parents(parents), times, run.stats, Some(source), validation))
}

/// Algorithm parameters.
#[derive(Debug, Args)]
pub struct AlgorithmArgs {
    /// Source vertex for bfs, sssp and ppr (0-based; default: a vertex with out-edges picked from --seed).
    #[arg(long, conflicts_with = "sources", value_parser = numbers::vertex_id, allow_negative_numbers = true)]
    source: Option<VertexId>,
    /// Several sources for bfs, sssp and ppr: ids separated by commas (`3,7`), or a file of ids.
    #[arg(long, value_name = "IDS|FILE")]
    sources: Option<String>,
    /// bfs: each vertex's parent in the search tree instead of its level (the source its own parent,
    /// -1 where unreached); --validate checks the tree by Graph500's rules.
    #[arg(long, conflicts_with = "sources")]
    parents: bool,
    /// spmv: the vector x; mlp: the input features. A file with one value per vertex, one per line,
    /// or `<id> <value>` lines (vertices not named get 0).
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// bp: the prior of each vertex (non-negative), laid out as --input.
    #[arg(long, value_name = "FILE")]
    priors: Option<PathBuf>,
    /// Bucket width for sssp (default: largest weight / mean degree, at least 1, wider where the mean degree is under 16; four times that on a GPU).
    #[arg(long, value_parser = numbers::width, allow_negative_numbers = true)]
    delta: Option<u64>,
    /// PageRank damping factor.
    #[arg(long, default_value_t = 0.85, value_parser = numbers::damping, allow_negative_numbers = true)]
    damping: f64,
    /// PageRank tolerance: stop when the ranks change by less than this (L1) in one iteration.
    #[arg(long, default_value_t = 1e-6, value_parser = numbers::tolerance, allow_negative_numbers = true)]
    tolerance: f64,
    /// PageRank iteration cap (default 100); bp iterations (default 10).
    #[arg(long, value_parser = numbers::at_least_one, allow_negative_numbers = true)]
    iterations: Option<u32>,
    /// mlp: the bias added to each neuron's weighted sum: one number for all, or a file laid out as
    /// --input.
    #[arg(long, value_name = "NUMBER|FILE", default_value = "0", allow_negative_numbers = true)]
    bias: String,
    /// louvain: the resolution (gamma); above 1 favours smaller communities, below 1 larger ones.
    #[arg(long, default_value_t = 1.0, value_parser = numbers::resolution, allow_negative_numbers = true)]
    resolution: f64,
    /// kcore: the smallest degree a vertex keeps within the core (SIMD-X uses 16).
    #[arg(long, default_value_t = 16, value_parser = numbers::non_negative, allow_negative_numbers = true)]
    k: u32,
    /// kcore: the full core decomposition (every vertex's core number) instead of one k-core.
    #[arg(long)]
    all: bool,
    /// msbfs, closeness, harmonic, eccentricity, bc: K sources picked at random (from --seed) among the
    /// vertices with edges, instead of --sources (msbfs) or every vertex.
    #[arg(long, value_name = "K", conflicts_with_all = ["source", "sources"], value_parser = numbers::at_least_one,
          allow_negative_numbers = true)]
    samples: Option<u32>,
    /// msbfs, closeness, harmonic, eccentricity: batch the sources that share a highest-degree neighbour
    /// together (iBFS's GroupBy) instead of in the order given.
    #[arg(long)]
    group_by: bool,
}

impl AlgorithmArgs {
    /// The iteration cap of PageRank and personalized PageRank (`--iterations`, default 100).
    pub fn rank_iterations(&self) -> u32 {
        self.iterations.unwrap_or(100)
    }
}

impl Algorithm {
    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Bfs => "bfs",
            Algorithm::Sssp => "sssp",
            Algorithm::Pr => "pagerank",
            Algorithm::Ppr => "ppr",
            Algorithm::Wcc => "wcc",
            Algorithm::Kcore => "kcore",
            Algorithm::Spmv => "spmv",
            Algorithm::Bp => "bp",
            Algorithm::Mlp => "mlp",
            Algorithm::Msbfs => "msbfs",
            Algorithm::Closeness => "closeness",
            Algorithm::Harmonic => "harmonic",
            Algorithm::Eccentricity => "eccentricity",
            Algorithm::Bc => "bc",
            Algorithm::Tc => "tc",
            Algorithm::Triangles => "triangles",
            Algorithm::Jaccard => "jaccard",
            Algorithm::Scc => "scc",
            Algorithm::Louvain => "louvain",
        }
    }

    /// Whether the algorithm has no GPU version (it runs on the CPU whatever `--backend` says).
    pub fn cpu_only(self) -> bool {
        matches!(self, Algorithm::Louvain)
    }

    /// Runs the algorithm `count` times on `graph`; validates the last result if asked.
    pub fn run(
        self,
        params: &AlgorithmArgs,
        graph: &Graph,
        seed: u64,
        runner: &Runner<'_>,
        count: u32,
        validate: bool,
    ) -> Result<Outcome, CliError> {
        match self {
            Algorithm::Bfs => bfs(params, graph, seed, runner, count, validate),
            Algorithm::Sssp => sssp(params, graph, seed, runner, count, validate),
            Algorithm::Pr => {
                let allowed = rank_allowance(params, validate)?;
                let program = PageRank {
                    damping: params.damping,
                    tolerance: params.tolerance,
                    max_iterations: params.rank_iterations(),
                };
                let (run, times) = trials(runner, &program, count)?;
                let validation = check(validate, || {
                    verify::pagerank(graph, &program, &run.values, allowed)
                        .map(|l1| format!(" (L1 distance at most {l1:.2e})"))
                });
                Ok(Outcome { values: Values::F64(run.values), times, stats: run.stats, source: None, validation })
            }
            Algorithm::Ppr => ppr(params, graph, seed, runner, count, validate),
            Algorithm::Wcc => {
                let sym = undirected(graph);
                let own = on_undirected(runner, &sym, graph)?;
                let (run, times) = trials(own.as_ref().unwrap_or(runner), &Wcc, count)?;
                // Union-find on the graph as given: it ignores direction by itself.
                let validation = check(validate, || {
                    let components = run.values.iter().enumerate().filter(|&(v, &c)| v as u32 == c).count();
                    verify::wcc(graph, &run.values).map(|()| format!(" ({components} components)"))
                });
                Ok(Outcome { values: Values::U32(run.values), times, stats: run.stats, source: None, validation })
            }
            Algorithm::Kcore => {
                let sym = undirected(graph);
                let own = on_undirected(runner, &sym, graph)?;
                let runner = own.as_ref().unwrap_or(runner);
                if params.all {
                    let (cores, times, stats) = core_trials(runner, count)?;
                    let validation = check(validate, || {
                        let largest = cores.iter().max().copied().unwrap_or(0);
                        verify::core_decomposition(graph, &cores).map(|()| format!(" (largest core number {largest})"))
                    });
                    return Ok(Outcome { values: Values::U32(cores), times, stats, source: None, validation });
                }
                let k = params.k;
                let (run, times) = trials(runner, &KCore { k }, count)?;
                let validation = check(validate, || {
                    let inside = run.values.iter().filter(|&&d| d >= k).count();
                    verify::kcore(graph, k, &run.values).map(|()| format!(" ({inside} vertices in the {k}-core)"))
                });
                let inside = run.values.iter().map(|&d| u32::from(d >= k)).collect();
                Ok(Outcome { values: Values::U32(inside), times, stats: run.stats, source: None, validation })
            }
            Algorithm::Spmv => {
                let n = graph.num_vertices();
                let program = match &params.input {
                    Some(path) => Spmv { x: f32_file(path, n)? },
                    None => Spmv::default_input(n),
                };
                let (run, times) = trials(runner, &program, count)?;
                let validation = check(validate, || {
                    verify::spmv(graph, program.x.as_slice(), &run.values, 1e-5)
                        .map(|worst| format!(" (largest relative error {worst:.1e})"))
                });
                Ok(outcome(Values::F32(run.values), times, run.stats, None, validation))
            }
            Algorithm::Bp => {
                let n = graph.num_vertices();
                let iterations = params.iterations.unwrap_or(Bp::ITERATIONS);
                if iterations == 0 {
                    return Err(CliError::Usage("--iterations must be at least 1 for bp".into()));
                }
                let program = match &params.priors {
                    Some(path) => {
                        let priors = read_vertex_values(path, n, 0.0)?;
                        bp::check_inputs(graph, &priors).map_err(|e| simdx_core::GraphError::file(path, e))?;
                        Bp { iterations, priors: priors.into() }
                    }
                    None => {
                        let program = Bp::uniform(n, iterations);
                        bp::check_inputs(graph, program.priors.as_slice()).map_err(unfit)?;
                        program
                    }
                };
                let (run, times) = trials(runner, &program, count)?;
                bp::check_beliefs(&run.values).map_err(unfit)?;
                let validation = check(validate, || {
                    let total: f64 = run.values.iter().sum();
                    verify::bp(graph, &program, &run.values, 1e-5).map(|()| format!(" (beliefs sum to {total:.6})"))
                });
                // Beliefs are f64 in the engine; printed as f32 (7 significant digits).
                let values = Values::F32(run.values.iter().map(|&b| b as f32).collect());
                Ok(outcome(values, times, run.stats, None, validation))
            }
            Algorithm::Mlp => {
                let n = graph.num_vertices();
                let bias = match params.bias.trim().parse::<f32>() {
                    Ok(b) if b.is_finite() => VertexData::filled(b, n),
                    Ok(_) => return Err(CliError::Usage(format!("--bias {} is not a finite number", params.bias))),
                    Err(_) => f32_file(&PathBuf::from(&params.bias), n)?,
                };
                let input = match &params.input {
                    Some(path) => f32_file(path, n)?,
                    None => Mlp::default_input(n, 0.0).input,
                };
                let program = Mlp { input, bias };
                mlp::check_network(graph).map_err(unfit)?;
                let (run, times) = trials(runner, &program, count)?;
                let validation = check(validate, || {
                    let layers = verify::mlp_layers(graph)?;
                    let widths: Vec<String> = layers.iter().map(|l| l.len().to_string()).collect();
                    verify::mlp(graph, &program, &run.values, 1e-5)
                        .map(|()| format!(" (layer widths {})", widths.join(",")))
                });
                Ok(outcome(Values::F32(run.values), times, run.stats, None, validation))
            }
            Algorithm::Msbfs | Algorithm::Closeness | Algorithm::Harmonic | Algorithm::Eccentricity | Algorithm::Bc => {
                let everyone = self != Algorithm::Msbfs;
                let chosen = search_sources(params, graph, seed, everyone)?;
                let how = Traversal {
                    direction: runner.options().direction,
                    group_by: params.group_by,
                    ..Traversal::default()
                };
                multi_search(self, graph, runner.searches(), &chosen, how, count, validate)
            }
            Algorithm::Tc | Algorithm::Triangles | Algorithm::Jaccard | Algorithm::Scc => {
                edge_computation(self, graph, runner, count, validate)
            }
            Algorithm::Louvain => louvain(params, graph, seed, runner.options().threads, count, validate),
        }
    }
}

/// The sources of a multi-search application: --sources, --samples K vertices with edges picked
/// from `seed`, or (when `everyone`) every vertex.
fn search_sources(params: &AlgorithmArgs, graph: &Graph, seed: u64, everyone: bool) -> Result<Vec<VertexId>, CliError> {
    let n = graph.num_vertices();
    if let Some(k) = params.samples {
        let candidates: Vec<VertexId> = (0..n as VertexId).filter(|&v| graph.out_degree(v) > 0).collect();
        if k == 0 || candidates.is_empty() {
            return Err(CliError::Usage("--samples needs at least 1 and a graph with edges".into()));
        }
        let mut rng = simdx_core::gen::rng::WyRand::new(seed);
        let picks =
            (0..k.min(candidates.len() as u32)).map(|_| candidates[rng.below(candidates.len() as u64) as usize]);
        let mut picked: Vec<VertexId> = picks.collect();
        picked.sort_unstable();
        picked.dedup();
        return Ok(picked);
    }
    match sources(params, graph)? {
        Some(given) if given.len() > n => Err(CliError::Usage(format!(
            "--sources names {} sources but the graph has only {n} vertices: name each source at most once",
            given.len()
        ))),
        Some(given) => Ok(given),
        None if params.source.is_some() => Ok(vec![pick_source(params.source, graph, seed)?]),
        None if everyone => Ok((0..n as VertexId).collect()),
        None => Err(CliError::Usage("msbfs needs --sources IDS|FILE or --samples K".into())),
    }
}

/// The largest graph whose betweenness `--validate` checks (the oracle is quadratic in the vertices).
const BC_ORACLE_VERTICES: usize = 5000;

/// Runs a multi-search application `count` times from `sources`.
fn multi_search(
    algorithm: Algorithm,
    graph: &Graph,
    searches: &dyn Searches,
    sources: &[VertexId],
    how: Traversal,
    count: u32,
    validate: bool,
) -> Result<Outcome, CliError> {
    use simdx_algos::{betweenness, closeness, eccentricity, harmonic, levels_from_each};
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..count.max(1) {
        let (values, stats) = match algorithm {
            Algorithm::Msbfs => {
                let (levels, stats) = levels_from_each(searches, sources, how).map_err(usage)?;
                (Values::Rows { columns: sources.len(), values: levels }, stats)
            }
            Algorithm::Closeness | Algorithm::Harmonic => {
                let run = if algorithm == Algorithm::Closeness { closeness } else { harmonic };
                let (values, stats) = run(searches, sources, how).map_err(usage)?;
                (Values::Selected { vertices: sources.to_vec(), values: Box::new(Values::F64(values)) }, stats)
            }
            Algorithm::Bc => {
                let (values, stats) = betweenness(searches, sources, true).map_err(usage)?;
                (Values::F64(values), stats)
            }
            _ => {
                let (values, stats) = eccentricity(searches, sources, how).map_err(usage)?;
                (Values::Selected { vertices: sources.to_vec(), values: Box::new(Values::U32(values)) }, stats)
            }
        };
        times.push(stats.time);
        last = Some((values, stats));
    }
    let (values, stats) = last.expect("at least one trial ran");
    let validation = check(validate, || match &values {
        Values::Rows { values, .. } => verify::levels_from_each(graph, sources, values).map(|()| String::new()),
        Values::F64(_) if graph.num_vertices() > BC_ORACLE_VERTICES => Err(format!(
            "the betweenness oracle is quadratic in the vertices; --validate takes graphs of at most \
             {BC_ORACLE_VERTICES} vertices, this one has {}",
            graph.num_vertices()
        )),
        Values::F64(values) => verify::betweenness(graph, sources, true, values, 1e-9).map(|()| String::new()),
        Values::Selected { values, .. } => match values.as_ref() {
            Values::F64(c) if algorithm == Algorithm::Harmonic => {
                verify::harmonic(graph, sources, c, 1e-9).map(|()| String::new())
            }
            Values::F64(c) => verify::closeness(graph, sources, c, 1e-9).map(|()| String::new()),
            Values::U32(e) => {
                let largest = e.iter().max().copied().unwrap_or(0);
                verify::eccentricity(graph, sources, e).map(|()| format!(" (largest eccentricity {largest})"))
            }
            _ => Ok(String::new()),
        },
        _ => Ok(String::new()),
    });
    let stats =
        RunStats { iterations: stats.levels, time: stats.time, graph_edges: graph.num_edges(), ..RunStats::default() };
    Ok(Outcome { values, times, stats, source: None, validation })
}

/// Triangle counting, Jaccard similarity and strongly connected components (on the runner's backend:
/// the GPU's kernels, or the CPU on `--threads` threads or one per core): `count` timed trials, the
/// last one validated against its oracle if asked.
fn edge_computation(
    algorithm: Algorithm,
    graph: &Graph,
    runner: &Runner<'_>,
    count: u32,
    validate: bool,
) -> Result<Outcome, CliError> {
    use simdx_algos::{jaccard, triangle_count, triangles};
    let threads = runner.options().threads;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.unwrap_or(0)).build().map_err(usage)?;
    let on = runner.intersections();
    let text = |e: &dyn std::fmt::Display| e.to_string();
    let compute = || match algorithm {
        Algorithm::Scc => {
            simdx_algos::scc_on(runner.strong_components()).map(|(c, _)| Values::U32(c)).map_err(|e| text(&e))
        }
        Algorithm::Tc => {
            triangle_count(on).map(|count| Values::Count { what: "triangles", count }).map_err(|e| text(&e))
        }
        Algorithm::Triangles => triangles(on).map(Values::U64).map_err(|e| text(&e)),
        _ => {
            let pairs = jaccard::edge_pairs(graph);
            jaccard(on, &pairs).map(|values| Values::Pairs { pairs, values }).map_err(|e| text(&e))
        }
    };
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..count.max(1) {
        let started = std::time::Instant::now();
        last = Some(pool.install(compute).map_err(usage)?);
        times.push(started.elapsed());
    }
    let values = last.expect("at least one trial ran");
    let validation = check(validate, || match &values {
        Values::U32(components) => verify::scc(graph, components).map(|()| {
            let count = components.iter().enumerate().filter(|&(v, &c)| c as usize == v).count();
            format!(" ({count} components)")
        }),
        Values::Count { count, .. } => verify::triangle_count(graph, *count).map(|()| String::new()),
        Values::U64(counts) => verify::triangles(graph, counts).map(|()| String::new()),
        Values::Pairs { pairs, values } => verify::jaccard(graph, pairs, values, 1e-12).map(|()| String::new()),
        _ => unreachable!("these give components, a count, per-vertex counts or pairs"),
    });
    let time = times.last().copied().unwrap_or_default();
    let stats = RunStats { time, graph_edges: graph.num_edges(), ..RunStats::default() };
    Ok(Outcome { values, times, stats, source: None, validation })
}

/// Louvain communities (CPU, on `threads` threads or one per core) at `--resolution`, the vertex
/// orders shuffled from `seed`: `count` timed trials, the last one validated if asked (a partition
/// numbered by smallest vertex, the modularity recomputed, no two communities that would gain by
/// merging).
fn louvain(
    params: &AlgorithmArgs,
    graph: &Graph,
    seed: u64,
    threads: Option<usize>,
    count: u32,
    validate: bool,
) -> Result<Outcome, CliError> {
    use simdx_algos::louvain::LouvainOptions;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads.unwrap_or(0)).build().map_err(usage)?;
    let options = LouvainOptions { resolution: params.resolution, seed, ..LouvainOptions::default() };
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..count.max(1) {
        let started = std::time::Instant::now();
        last = Some(pool.install(|| simdx_algos::louvain(graph, &options)).map_err(usage)?);
        times.push(started.elapsed());
    }
    let found = last.expect("at least one trial ran");
    let validation = check(validate, || {
        verify::louvain(graph, &found.labels, found.modularity, params.resolution, true)
            .map(|k| format!(" ({k} communities, modularity recomputed, no merger gains)"))
    });
    let time = times.last().copied().unwrap_or_default();
    let stats = RunStats { time, graph_edges: graph.num_edges(), ..RunStats::default() };
    let values = Values::Communities { labels: found.labels, count: found.count, modularity: found.modularity };
    Ok(Outcome { values, times, stats, source: None, validation })
}

fn usage(error: impl std::fmt::Display) -> CliError {
    CliError::Usage(error.to_string())
}

fn outcome(
    values: Values,
    times: Vec<Duration>,
    stats: RunStats,
    source: Option<VertexId>,
    validation: Result<String, String>,
) -> Outcome {
    Outcome { values, times, stats, source, validation }
}

/// `--sources` as vertex ids of `graph`, if given.
fn sources(params: &AlgorithmArgs, graph: &Graph) -> Result<Option<Vec<VertexId>>, CliError> {
    match &params.sources {
        Some(spec) => Ok(Some(parse_vertex_set(spec, graph.num_vertices(), "--sources")?)),
        None => Ok(None),
    }
}

/// The most L1 distance `--validate` allows between PageRank's ranks and the power iteration's fixed
/// point (which the check bounds from both sides): a run that stops when an iteration changes the
/// ranks by less than the tolerance `t` is within `t·d/(1-d)` of it (the iteration shrinks distances
/// by `d`), doubled for rounding, at least 1e-5. A tolerance whose allowance passes 1e-2 would let
/// meaningless ranks pass: `--validate` refuses it.
fn rank_allowance(params: &AlgorithmArgs, validate: bool) -> Result<f64, CliError> {
    let (t, d) = (params.tolerance, params.damping);
    let allowed = (2.0 * t * d / (1.0 - d)).max(1e-5);
    if validate && allowed > 1e-2 {
        return Err(CliError::Usage(format!(
            "--validate cannot judge ranks converged only to --tolerance {t} with --damping {d} (they may be \
             {allowed:.1e} from the answer in L1); give a tolerance of at most {:.1e}",
            1e-2 * (1.0 - d) / (2.0 * d)
        )));
    }
    Ok(allowed)
}

/// An algorithm's refusal of a graph or of inputs that do not fit it.
fn unfit(why: String) -> CliError {
    CliError::Usage(why)
}

/// A vector file of `n` values as `f32`, each of which must stay finite (vertices not named get 0).
fn f32_file(path: &std::path::Path, n: usize) -> Result<VertexData<f32>, CliError> {
    let values = read_vertex_values(path, n, 0.0)?;
    match values.iter().position(|&x| !(x as f32).is_finite()) {
        Some(v) => {
            let message = format!("the value of vertex {v}, {:e}, is out of range for f32", values[v]);
            Err(simdx_core::GraphError::file(path, message).into())
        }
        None => Ok(values.into_iter().map(|x| x as f32).collect::<Vec<_>>().into()),
    }
}

/// For a directed `graph`, a runner of the same backend and options on `sym`, its undirected form
/// (uploaded for CUDA); none when `sym` is `graph` itself (use the given runner).
fn on_undirected<'h>(runner: &Runner<'_>, sym: &'h Graph, graph: &Graph) -> Result<Option<Runner<'h>>, CliError> {
    if std::ptr::eq(sym, graph) {
        return Ok(None);
    }
    Ok(Some(runner.for_graph(sym)?))
}

/// `count` core decompositions ([`Runner::core_numbers`]: on the CPU one parallel peeling, on GPUs
/// one k-core run per distinct core number); a trial's time and statistics are those of all its
/// runs together.
fn core_trials(runner: &Runner<'_>, count: u32) -> Result<(Vec<u32>, Vec<Duration>, RunStats), CliError> {
    let mut times = Vec::new();
    let mut last = (Vec::new(), RunStats::default());
    for _ in 0..count {
        let (cores, stats) = runner.core_numbers()?;
        times.push(stats.time);
        last = (cores, stats);
    }
    Ok((last.0, times, last.1))
}

/// The oracle's verdict when `validate` is set; no check (and no cost) otherwise.
fn check(validate: bool, oracle: impl FnOnce() -> Result<String, String>) -> Result<String, String> {
    if validate {
        oracle()
    } else {
        Ok(String::new())
    }
}

/// The given source if it exists, or a vertex with out-edges picked deterministically from `seed`.
fn pick_source(given: Option<VertexId>, graph: &Graph, seed: u64) -> Result<VertexId, CliError> {
    let n = graph.num_vertices();
    if let Some(s) = given {
        return if (s as usize) < n {
            Ok(s)
        } else {
            Err(CliError::Usage(format!("--source {s} does not exist: the graph has {n} vertices (ids 0..{n})")))
        };
    }
    if n == 0 {
        return Err(CliError::Usage("the graph has no vertices to start from".into()));
    }
    let start = (seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17) as usize % n;
    let found = (0..n).map(|i| ((start + i) % n) as VertexId).find(|&v| graph.out_degree(v) > 0);
    Ok(found.unwrap_or(start as VertexId))
}

impl AlgorithmArgs {
    /// The files the parameters may name (--sources, --input, --priors, --bias), which no output may
    /// replace; a value that is no file (ids, a number) names none.
    pub fn files(&self) -> Vec<&std::path::Path> {
        let named = [self.sources.as_deref().map(std::path::Path::new), self.input.as_deref(), self.priors.as_deref()];
        named.into_iter().flatten().chain([std::path::Path::new(&self.bias)]).collect()
    }
}
