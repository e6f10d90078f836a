//! `simdx info GRAPH`: vertices, edges, direction, weights, degree summary and histogram, memory —
//! as text or as one JSON object (`--json`).

use std::io::Write;

use clap::Args;
use serde::Serialize;
use simdx_core::Graph;

use super::error::CliError;
use super::graph_arg::GraphArg;

/// Arguments of `simdx info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    #[command(flatten)]
    graph: GraphArg,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// What `simdx info --json` prints.
#[derive(Debug, Serialize)]
struct GraphInfo {
    graph: String,
    vertices: usize,
    /// Directed: arcs; undirected: unordered pairs.
    edges: u64,
    /// Stored out-arcs (twice the edges, for an undirected graph without self-loops).
    arcs: u64,
    directed: bool,
    weighted: bool,
    weight_type: Option<String>,
    min_degree: u64,
    mean_degree: f64,
    max_degree: u64,
    /// `degree_histogram[0]` counts degree 0; entry k >= 1 counts degrees in [2^(k-1), 2^k).
    degree_histogram: Vec<u64>,
    memory_bytes: usize,
    load_seconds: f64,
    /// With `--relabel`: the file's ids of the first vertices (at most 5), in vertex order.
    #[serde(skip_serializing_if = "Option::is_none")]
    relabelled_from: Option<Vec<String>>,
}

impl GraphInfo {
    fn of(graph: &Graph, name: String, load_seconds: f64) -> Self {
        let (min_degree, max_degree, mean_degree) = graph.degree_summary();
        GraphInfo {
            graph: name,
            vertices: graph.num_vertices(),
            edges: graph.num_edges(),
            arcs: graph.num_arcs(),
            directed: graph.is_directed(),
            weighted: graph.is_weighted(),
            weight_type: graph.weight_kind().map(|k| k.to_string()),
            min_degree,
            mean_degree,
            max_degree,
            degree_histogram: graph.degree_histogram(),
            memory_bytes: graph.data_bytes(),
            load_seconds,
            relabelled_from: None,
        }
    }
}

/// Runs `simdx info`.
pub fn run(args: InfoArgs) -> Result<(), CliError> {
    let (graph, labels, took) = args.graph.load_labelled()?;
    let mut info = GraphInfo::of(&graph, args.graph.describe(), took.as_secs_f64());
    info.relabelled_from =
        labels.map(|l| (0..l.len().min(5) as u32).filter_map(|v| l.get(v)).map(String::from).collect());
    let mut out = std::io::stdout().lock();
    if args.json {
        let text = serde_json::to_string(&info).map_err(|e| CliError::Output(e.into()))?;
        writeln!(out, "{text}")?;
    } else {
        print_text(&mut out, &info)?;
    }
    Ok(())
}

fn print_text(out: &mut impl Write, info: &GraphInfo) -> std::io::Result<()> {
    writeln!(out, "graph       {}", info.graph)?;
    writeln!(out, "vertices    {}", info.vertices)?;
    if let Some(ids) = &info.relabelled_from {
        let more = if info.vertices > ids.len() { ", ..." } else { "" };
        writeln!(out, "relabelled  0, 1, ... were the file's ids {}{more}", ids.join(", "))?;
    }
    let kind = if info.directed { "directed arcs" } else { "undirected edges" };
    writeln!(out, "edges       {} {kind} ({} stored arcs)", info.edges, info.arcs)?;
    writeln!(out, "weights     {}", info.weight_type.as_deref().unwrap_or("none"))?;
    let side = if info.directed { "out-degree" } else { "degree" };
    writeln!(out, "{side:<11} min {}  mean {:.2}  max {}", info.min_degree, info.mean_degree, info.max_degree)?;
    writeln!(out, "memory      {}", simdx_core::memory::show_bytes(info.memory_bytes as u64))?;
    writeln!(out, "load time   {:.3} s", info.load_seconds)?;
    writeln!(out, "{side} histogram")?;
    let widest = info.degree_histogram.iter().copied().max().unwrap_or(0).max(1);
    for (k, &count) in info.degree_histogram.iter().enumerate() {
        let range = match k {
            0 => "0".to_string(),
            1 => "1".to_string(),
            _ => format!("{}-{}", 1u64 << (k - 1), (1u128 << k) - 1),
        };
        let bar = "#".repeat(((count as f64 / widest as f64) * 50.0).ceil() as usize);
        writeln!(out, "  {range:>21} {count:>12} {bar}")?;
    }
    Ok(())
}
