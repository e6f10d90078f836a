//! Reading and writing graph files. The format follows the file extension unless given:
//!
//! | extension | format | direction |
//! |---|---|---|
//! | `.mtx` | Matrix Market coordinate (pattern/integer/real; general/symmetric; 1-based) | `general` directed, `symmetric` undirected |
//! | `.el` | edge list `u v` (0-based, `#` or `%` comments) | directed unless `undirected` or the [`header`] says so |
//! | `.wel` | weighted edge list `u v w` | directed unless `undirected` or the [`header`] says so |
//! | `.gr` | DIMACS shortest path (`p sp n m`, `a u v w`, 1-based) | directed unless `undirected` or the [`header`] says so |
//! | `.sxg` | simdx binary (memory-mapped, checksummed; see [`binary`]) | as stored |
//!
//! Every text file simdx writes opens with a `simdx:` comment line ([`header`]) naming its direction,
//! vertex count, edge count and weight type, so that it reads back as the graph that was written.
//! Text is parsed in parallel; every error names the file and the line (or byte offset).
//! [`vertex_values`] reads per-vertex inputs (vectors, vertex sets) for programs. Every writer goes
//! through [`atomic_file`], so a failed or killed write never leaves a partial file.

pub mod atomic_file;
pub mod binary;
pub mod dimacs;
pub mod edgelist;
pub mod header;
pub mod mtx;
pub mod relabel;
pub(crate) mod text;
pub mod vertex_values;

use std::path::Path;

use crate::error::{GraphError, Result};
use crate::graph::builder::{Duplicates, EdgeList, GraphBuilder, SelfLoops};
use crate::Graph;
pub use relabel::VertexLabels;

/// A graph file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Matrix Market coordinate format (`.mtx`).
    MatrixMarket,
    /// Unweighted edge list (`.el`).
    EdgeList,
    /// Weighted edge list (`.wel`).
    WeightedEdgeList,
    /// DIMACS shortest-path format (`.gr`).
    Dimacs,
    /// simdx's own binary CSR format (`.sxg`).
    Binary,
}

impl Format {
    /// Every format, in the order of the table above.
    pub const ALL: [Format; 5] =
        [Format::MatrixMarket, Format::EdgeList, Format::WeightedEdgeList, Format::Dimacs, Format::Binary];

    /// The format's usual extension (without the dot), also its name on the command line.
    pub fn extension(self) -> &'static str {
        match self {
            Format::MatrixMarket => "mtx",
            Format::EdgeList => "el",
            Format::WeightedEdgeList => "wel",
            Format::Dimacs => "gr",
            Format::Binary => "sxg",
        }
    }

    /// The format named by an extension or name such as `mtx` or `wel` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Format> {
        let name = name.to_ascii_lowercase();
        Format::ALL.into_iter().find(|f| f.extension() == name)
    }

    /// The format implied by a path's extension.
    pub fn from_path(path: &Path) -> Option<Format> {
        Format::from_name(path.extension()?.to_str()?)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.extension())
    }
}

/// How to read a graph file.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// Force a format instead of guessing from the extension.
    pub format: Option<Format>,
    /// Symmetrise a directed input (`.el`, `.wel`, `.gr`, general `.mtx`) into an undirected graph.
    pub undirected: bool,
    /// What to do with self-loops.
    pub self_loops: SelfLoops,
    /// What to do with duplicate edges.
    pub duplicates: Duplicates,
    /// Number the vertex ids of an `.el` or `.wel` file densely, whatever they are (64-bit numbers,
    /// names), in the order they first appear ([`relabel`]); [`read_labelled_graph`] keeps the
    /// original ids.
    pub relabel: bool,
}

/// The edges of a text file and whether the file itself says the graph is directed.
#[derive(Debug)]
pub(crate) struct ParsedEdges {
    pub(crate) edges: EdgeList,
    pub(crate) directed: bool,
}

fn resolve_format(path: &Path, format: Option<Format>) -> Result<Format> {
    format.or_else(|| Format::from_path(path)).ok_or_else(|| {
        GraphError::file(
            path,
            "unknown graph format: use the extension .mtx, .el, .wel, .gr or .sxg, or name the format explicitly",
        )
    })
}

/// Reads a graph file. Binary files keep the direction they were written with (`undirected` still
/// symmetrises a directed one); text files are parsed in parallel and built with the given options.
/// With [`ReadOptions::relabel`] the original ids are dropped: [`read_labelled_graph`] keeps them.
pub fn read_graph(path: &Path, options: &ReadOptions) -> Result<Graph> {
    read_labelled_graph(path, options).map(|(graph, _)| graph)
}

/// As [`read_graph`], with each vertex's original id when [`ReadOptions::relabel`] numbered them
/// (only `.el` and `.wel` files can be relabelled). Before building, refuses an edge list whose ids
/// are far sparser than its edges (unless relabelled) and a graph that would not fit in the memory
/// available, each with one sentence naming the file.
pub fn read_labelled_graph(path: &Path, options: &ReadOptions) -> Result<(Graph, Option<VertexLabels>)> {
    let format = resolve_format(path, options.format)?;
    if options.relabel && !matches!(format, Format::EdgeList | Format::WeightedEdgeList) {
        return Err(GraphError::file(
            path,
            format!("--relabel applies to .el and .wel edge lists, not to .{format} files"),
        ));
    }
    if format == Format::Binary {
        crate::memory::check_mapped_file(path)?;
        let graph = binary::read(path)?;
        let graph = if options.undirected && graph.is_directed() { symmetrise(&graph, options)? } else { graph };
        return Ok((graph, None));
    }
    let bytes = text::TextFile::open(path)?;
    crate::memory::check_text_file(path, &bytes, !options.undirected)?;
    let header = header::find(path, &bytes, format)?;
    let (mut parsed, labels) = match format {
        Format::EdgeList | Format::WeightedEdgeList if options.relabel => {
            let (parsed, labels) = relabel::parse(path, &bytes, format == Format::WeightedEdgeList)?;
            (parsed, Some(labels))
        }
        Format::MatrixMarket => (mtx::parse(path, &bytes)?, None),
        Format::EdgeList => (edgelist::parse(path, &bytes, false)?, None),
        Format::WeightedEdgeList => (edgelist::parse(path, &bytes, true)?, None),
        Format::Dimacs => (dimacs::parse(path, &bytes)?, None),
        Format::Binary => unreachable!("handled above"),
    };
    let (n, m) = (parsed.edges.num_vertices, parsed.edges.src.len());
    match format {
        Format::EdgeList | Format::WeightedEdgeList if !options.relabel => relabel::check_dense(path, n, m)?,
        Format::MatrixMarket | Format::Dimacs => check_declared(path, n, m)?,
        _ => {}
    }
    if let Some(header) = &header {
        header.apply(path, format, &mut parsed, options.relabel)?;
        if parsed.edges.num_vertices > n {
            check_declared(path, parsed.edges.num_vertices, m)?;
        }
    }
    let n = parsed.edges.num_vertices;
    let directed = parsed.directed && !options.undirected;
    crate::memory::check(
        crate::memory::graph_bytes(n as u64, m as u64, directed),
        &format!("a graph of {n} vertices and {m} edges"),
    )
    .map_err(|e| GraphError::file(path, e))?;
    let graph = GraphBuilder::new()
        .directed(directed)
        .self_loops(header.as_ref().map_or(options.self_loops, |h| h.self_loops(options.self_loops)))
        .duplicates(header.as_ref().map_or(options.duplicates, |h| h.duplicates(options.duplicates)))
        .build(parsed.edges)
        .map_err(|e| GraphError::file(path, e.to_string()))?;
    Ok((graph, labels))
}

/// Vertex counts a header may declare whatever the edges below it (arrays of a few hundred megabytes).
const DECLARED_FROM: u64 = 1 << 24;
/// Beyond [`DECLARED_FROM`], the most vertices a header may declare per edge the file holds.
const DECLARED_RATIO: u64 = 1024;

/// Refuses a header (`.mtx` size line, `.gr` problem line) that declares vastly more vertices than the
/// file's edges could touch, e.g. 400 million rows for one entry, before its arrays are allocated: a
/// damaged or mistaken header, named in one sentence with the memory it would take.
fn check_declared(path: &Path, num_vertices: usize, num_edges: usize) -> Result<()> {
    let (n, m) = (num_vertices as u64, num_edges as u64);
    if n <= DECLARED_FROM || n <= DECLARED_RATIO * (m + 1) {
        return Ok(());
    }
    Err(GraphError::file(
        path,
        format!(
            "the header declares {n} vertices but the file holds only {m} edges: building it would take about {} \
             of arrays for isolated vertices; check the header",
            crate::memory::show_bytes(crate::memory::graph_bytes(n, m, true))
        ),
    ))
}

/// Writes `graph` to `path` in `format` (or the one its extension implies). Every file reads back, with
/// no option, as the same graph: text files open with a [`header`] line (`# simdx: undirected
/// vertices=N edges=M weights=u32`) that restores direction, vertex count, weight type and kept
/// self-loops or duplicate edges; undirected graphs are written as `symmetric` Matrix Market, and as
/// one line per edge (`u <= v`) in edge lists and DIMACS. A graph a format cannot hold is refused:
/// weights in an `.el`, real weights in a `.gr`.
pub fn write_graph(graph: &Graph, path: &Path, format: Option<Format>) -> Result<()> {
    let format = resolve_format(path, format)?;
    match format {
        Format::MatrixMarket => mtx::write(graph, path),
        Format::EdgeList => edgelist::write(graph, path, false),
        Format::WeightedEdgeList => edgelist::write(graph, path, true),
        Format::Dimacs => dimacs::write(graph, path),
        Format::Binary => binary::write(graph, path),
    }
}

/// An undirected copy of a directed graph: every arc becomes an edge.
fn symmetrise(graph: &Graph, options: &ReadOptions) -> Result<Graph> {
    let edges = graph_to_edge_list(graph);
    GraphBuilder::new().self_loops(options.self_loops).duplicates(options.duplicates).build(edges)
}

/// The edges of `graph` as an edge list (each undirected edge once, `u <= v`).
pub fn graph_to_edge_list(graph: &Graph) -> EdgeList {
    use crate::graph::weights::{EdgeWeights, Weights};
    let csr = graph.out_csr();
    let (mut src, mut dst, mut arc) = (Vec::new(), Vec::new(), Vec::new());
    for u in 0..csr.num_vertices() as u32 {
        for i in csr.range(u) {
            let v = csr.targets()[i];
            if graph.is_directed() || u <= v {
                src.push(u);
                dst.push(v);
                arc.push(i);
            }
        }
    }
    let weights = csr.weights().map(|w| match w {
        Weights::U32(w) => EdgeWeights::U32(arc.iter().map(|&i| w[i]).collect()),
        Weights::F32(w) => EdgeWeights::F32(arc.iter().map(|&i| w[i]).collect()),
    });
    EdgeList { num_vertices: graph.num_vertices(), src, dst, weights }
}
