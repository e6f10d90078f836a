//! The `simdx:` line at the top of every text graph file simdx writes, so that the file reads back,
//! with no option, as the graph that was written: its direction, vertex count (isolated vertices
//! included), edge count, weight type and whether it keeps self-loops or duplicate edges.
//!
//! The line is a comment of the format (`#` in `.el`/`.wel`, `c` in `.gr`, `%` in `.mtx`), so other
//! readers (GAP, SNAP, DIMACS and Matrix Market tools) skip it:
//!
//! ```text
//! # simdx: undirected vertices=1024 edges=15872 weights=u32 self-loops multigraph
//! ```
//!
//! The words: `directed` or `undirected` (one of them is required; an undirected file holds each
//! edge once), `vertices=N`, `edges=M` (the edge lines that follow), `weights=none|u32|f32` (`none`:
//! the weight column of a `.wel` or `.gr`, if any, is a placeholder 1), `self-loops` and `multigraph`
//! (the file's self-loops and repeated edges are part of the graph and are kept). An unknown word is
//! refused rather than ignored. Only the comment lines before the first data line are searched, and
//! only the first `simdx:` line counts; a file without one reads as before (an edge list as directed,
//! its vertex count the largest id plus one).

use std::path::Path;

use super::text::{self, Line, LineReader};
use super::{Format, ParsedEdges};
use crate::error::{GraphError, Result};
use crate::graph::builder::{Duplicates, SelfLoops};
use crate::graph::weights::{EdgeWeights, WeightKind};
use crate::{Graph, VertexId};

/// What a `simdx:` line declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    /// The line's number in the file.
    pub(crate) line: u64,
    /// Whether the graph is directed.
    pub(crate) directed: bool,
    /// The vertex count.
    pub(crate) vertices: Option<u64>,
    /// The number of edge lines.
    pub(crate) edges: Option<u64>,
    /// The weight type: `Some(None)` for an unweighted graph.
    pub(crate) weights: Option<Option<WeightKind>>,
    /// The file's self-loops belong to the graph.
    pub(crate) self_loops: bool,
    /// The file's repeated edges belong to the graph.
    pub(crate) multigraph: bool,
}

/// The words a `simdx:` line may hold, for error messages.
const WORDS: &str = "directed|undirected, vertices=N, edges=M, weights=none|u32|f32, self-loops, multigraph";

/// The `simdx:` line (with its newline) for `graph` in a file of `format` holding `edges` edge lines,
/// behind the format's comment marker.
pub(crate) fn line(graph: &Graph, format: Format, edges: u64) -> String {
    let marker = match format {
        Format::Dimacs => "c",
        Format::MatrixMarket => "%",
        _ => "#",
    };
    let direction = if graph.is_directed() { "directed" } else { "undirected" };
    let weights = graph.weight_kind().map_or("none".to_string(), |k| k.to_string());
    let mut line =
        format!("{marker} simdx: {direction} vertices={} edges={edges} weights={weights}", graph.num_vertices());
    if has_self_loops(graph) {
        line.push_str(" self-loops");
    }
    if graph.has_duplicate_arcs() {
        line.push_str(" multigraph");
    }
    line.push('\n');
    line
}

/// Whether some vertex lists itself.
fn has_self_loops(graph: &Graph) -> bool {
    use rayon::prelude::*;
    (0..graph.num_vertices() as VertexId)
        .into_par_iter()
        .with_min_len(1024)
        .any(|v| graph.out_neighbors(v).binary_search(&v).is_ok())
}

/// Whether a line is a comment or blank in `format` (before the data starts).
fn is_comment(format: Format, line: &Line<'_>) -> bool {
    match (format, line.first_byte()) {
        (_, None) => true,
        (Format::Dimacs, Some(b)) => b == b'c',
        (Format::MatrixMarket, Some(b)) => b == b'%',
        (_, Some(b)) => b == b'#' || b == b'%',
    }
}

/// The first `simdx:` line among the comment lines that open `bytes`, parsed; `None` when there is none.
pub(crate) fn find(path: &Path, bytes: &[u8], format: Format) -> Result<Option<Header>> {
    let mut reader = LineReader::new(text::skip_bom(bytes));
    while let Some((number, bytes)) = reader.next_line() {
        let line = Line::new(bytes);
        if !is_comment(format, &line) {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(bytes);
        let body = text.trim_start().trim_start_matches(['#', '%', 'c']).trim_start();
        if let Some(words) = body.strip_prefix("simdx:") {
            return parse(words, number).map(Some).map_err(|m| GraphError::parse(path, number, m));
        }
    }
    Ok(None)
}

/// Parses the words after `simdx:`.
fn parse(words: &str, line: u64) -> std::result::Result<Header, String> {
    let mut header = Header {
        line,
        directed: false,
        vertices: None,
        edges: None,
        weights: None,
        self_loops: false,
        multigraph: false,
    };
    let mut direction = None;
    let count = |value: &str, what: &str| {
        value.parse::<u64>().map_err(|_| format!("the simdx header's {what}={value} is not a count"))
    };
    for word in words.split_whitespace() {
        match word.split_once('=') {
            None if word == "directed" || word == "undirected" => {
                if direction.replace(word).is_some_and(|d| d != word) {
                    return Err("the simdx header says both directed and undirected".into());
                }
            }
            None if word == "self-loops" => header.self_loops = true,
            None if word == "multigraph" => header.multigraph = true,
            Some(("vertices", n)) => header.vertices = Some(count(n, "vertices")?),
            Some(("edges", m)) => header.edges = Some(count(m, "edges")?),
            Some(("weights", "none")) => header.weights = Some(None),
            Some(("weights", "u32")) => header.weights = Some(Some(WeightKind::U32)),
            Some(("weights", "f32")) => header.weights = Some(Some(WeightKind::F32)),
            Some(("weights", other)) => {
                return Err(format!("the simdx header's weights={other} is not none, u32 or f32"));
            }
            _ => {
                return Err(format!(
                    "unknown word '{}' in the simdx header (expected {WORDS})",
                    text::show(word.as_bytes())
                ))
            }
        }
    }
    match direction {
        Some(d) => header.directed = d == "directed",
        None => return Err("the simdx header does not say directed or undirected".into()),
    }
    Ok(header)
}

impl Header {
    /// Makes `parsed` the graph the header declares, or refuses a file that contradicts it: the
    /// direction; the vertex count (ids must lie below it; a `.mtx` or `.gr` must declare the same);
    /// the number of edges read; the weights (dropped for `none`, made real for `f32`).
    /// `relabelled`: the ids were renumbered, so the vertex count does not apply.
    pub(crate) fn apply(&self, path: &Path, format: Format, parsed: &mut ParsedEdges, relabelled: bool) -> Result<()> {
        let err = |m: String| GraphError::parse(path, self.line, m);
        if format == Format::MatrixMarket && parsed.directed != self.directed {
            let banner = if parsed.directed { "general" } else { "symmetric" };
            return Err(err(format!("the simdx header says {}, but the banner says {banner}", self.direction())));
        }
        parsed.directed = self.directed;
        let edges = &mut parsed.edges;
        if let Some(n) = self.vertices.filter(|_| !relabelled) {
            let found = edges.num_vertices as u64;
            match format {
                Format::MatrixMarket | Format::Dimacs if found != n => {
                    return Err(err(format!(
                        "the simdx header declares {n} vertices, but the file's size line declares {found}"
                    )));
                }
                _ if found > n => {
                    return Err(err(format!(
                        "the simdx header declares {n} vertices, but an edge names vertex {}",
                        found - 1
                    )));
                }
                _ => edges.num_vertices = n as usize,
            }
        }
        if let Some(m) = self.edges.filter(|&m| m != edges.len() as u64) {
            return Err(err(format!(
                "the simdx header declares {m} edges, but the file holds {} (is it cut short?)",
                edges.len()
            )));
        }
        if let Some(kind) = self.weights {
            self.apply_weights(format, parsed, kind).map_err(err)?;
        }
        Ok(())
    }

    /// The weights part of [`Header::apply`].
    fn apply_weights(
        &self,
        format: Format,
        parsed: &mut ParsedEdges,
        kind: Option<WeightKind>,
    ) -> std::result::Result<(), String> {
        let found = parsed.edges.weights.as_ref().map(EdgeWeights::kind);
        let shown = |k: Option<WeightKind>| k.map_or("no".to_string(), |k| k.to_string());
        let contradiction = || {
            format!("the simdx header declares {} weights, but the file holds {} weights", shown(kind), shown(found))
        };
        match (format, kind, found) {
            // The placeholder weight column of an unweighted graph's .wel or .gr.
            (Format::WeightedEdgeList | Format::Dimacs, None, _) => parsed.edges.weights = None,
            (_, k, f) if k == f => {}
            (Format::WeightedEdgeList, Some(WeightKind::F32), Some(WeightKind::U32)) => {
                if let Some(EdgeWeights::U32(w)) = parsed.edges.weights.take() {
                    parsed.edges.weights = Some(EdgeWeights::F32(w.into_iter().map(|x| x as f32).collect()));
                }
            }
            _ => return Err(contradiction()),
        }
        Ok(())
    }

    /// `directed` or `undirected`.
    fn direction(&self) -> &'static str {
        if self.directed {
            "directed"
        } else {
            "undirected"
        }
    }

    /// The builder's policy for self-loops: kept when the header says the graph has them.
    pub(crate) fn self_loops(&self, asked: SelfLoops) -> SelfLoops {
        if self.self_loops {
            SelfLoops::Keep
        } else {
            asked
        }
    }

    /// The builder's policy for repeated edges: kept when the header says the graph is a multigraph.
    pub(crate) fn duplicates(&self, asked: Duplicates) -> Duplicates {
        if self.multigraph {
            Duplicates::Keep
        } else {
            asked
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_parse_and_unknown_ones_are_refused() {
        let h = parse(" undirected vertices=10 edges=3 weights=f32 self-loops", 1).unwrap();
        assert!(!h.directed && h.self_loops && !h.multigraph);
        assert_eq!((h.vertices, h.edges, h.weights), (Some(10), Some(3), Some(Some(WeightKind::F32))));
        assert!(parse(" directed weights=none", 2).unwrap().directed);
        assert!(parse(" vertices=3", 1).unwrap_err().contains("directed or undirected"));
        assert!(parse(" directed undirected", 1).unwrap_err().contains("both"));
        assert!(parse(" directed colour=red", 1).unwrap_err().contains("unknown word 'colour=red'"));
        assert!(parse(" directed vertices=-1", 1).unwrap_err().contains("not a count"));
        assert!(parse(" directed weights=f64", 1).unwrap_err().contains("weights=f64"));
    }

    #[test]
    fn only_the_opening_comments_are_searched() {
        let p = Path::new("g.el");
        let found = find(p, b"# a comment\n\n# simdx: directed vertices=4\n0 1\n", Format::EdgeList).unwrap();
        assert_eq!(found.map(|h| (h.line, h.vertices)), Some((3, Some(4))));
        assert_eq!(find(p, b"0 1\n# simdx: directed vertices=4\n", Format::EdgeList).unwrap(), None);
        let gr = b"c simdx: undirected vertices=2 edges=1 weights=u32\np sp 2 1\na 1 2 3\n";
        assert!(find(Path::new("g.gr"), gr, Format::Dimacs).unwrap().is_some());
    }
}
