//! SNAP/GAP edge lists: `.el` holds one edge `u v` per line, `.wel` one weighted edge `u v w`.
//!
//! Ids are 0-based and below [`crate::MAX_VERTICES`]; columns are separated by spaces or tabs; blank
//! lines and lines starting with `#` or `%` are ignored. The vertex count is the largest id plus one, so
//! isolated vertices after the last one named by an edge are lost on a round trip. The file is read
//! as directed (the caller symmetrises it when asked). Weights that are all integers in `u32` range
//! give integer weights; any other finite non-negative number makes all weights `f32`.
//!
//! The writer puts a `#` comment header first, then one line per edge in the order of
//! [`Graph::edges`] (an undirected edge once, `u <= v`). A `.wel` of an unweighted graph gets weight 1;
//! an `.el` of a weighted graph drops the weights.

use std::path::Path;

use super::text::{self, EdgeChunk, Line, Weight};
use super::ParsedEdges;
use crate::error::Result;
use crate::graph::builder::EdgeList;
use crate::graph::weights::WeightKind;
use crate::Graph;

/// Parses the bytes of an `.el` (`weighted == false`) or `.wel` file.
pub(crate) fn parse(path: &Path, bytes: &[u8], weighted: bool) -> Result<ParsedEdges> {
    let bytes = text::skip_bom(bytes);
    let chunks = if weighted {
        text::parse_lines(path, bytes, 1, parse_weighted_line)?
    } else {
        text::parse_lines(path, bytes, 1, parse_line)?
    };
    let edges = text::concat_edges(chunks, weighted.then_some(WeightKind::U32));
    let edges =
        EdgeList { num_vertices: edges.id_end as usize, src: edges.src, dst: edges.dst, weights: edges.weights };
    Ok(ParsedEdges { edges, directed: true })
}

/// Whether a line holds no edge: blank, or a `#` or `%` comment.
#[inline]
fn is_skipped(line: &Line<'_>) -> bool {
    matches!(line.first_byte(), None | Some(b'#') | Some(b'%'))
}

/// Parses `u v` into `chunk`.
#[inline]
fn parse_line(line: &mut Line<'_>, chunk: &mut EdgeChunk) -> Result<(), String> {
    if is_skipped(line) {
        return Ok(());
    }
    let (u, v) = parse_endpoints(line, "'u v'")?;
    if let Some(tok) = line.next_token() {
        return Err(format!(
            "unexpected extra column '{}' (expected 'u v'; a weighted edge list should be named .wel)",
            text::show(tok)
        ));
    }
    chunk.push_edge(u, v);
    Ok(())
}

/// Parses `u v w` into `chunk`.
#[inline]
fn parse_weighted_line(line: &mut Line<'_>, chunk: &mut EdgeChunk) -> Result<(), String> {
    if is_skipped(line) {
        return Ok(());
    }
    let (u, v) = parse_endpoints(line, "'u v w'")?;
    let w = line.expect_token("the weight (expected 'u v w')")?;
    line.expect_end("'u v w'")?;
    chunk.push_weight_token(w)?;
    chunk.push_edge(u, v);
    Ok(())
}

#[inline]
fn parse_endpoints(line: &mut Line<'_>, layout: &str) -> Result<(u32, u32), String> {
    let u = text::parse_vertex(line.expect_token("the source vertex")?)?;
    let v = line.next_token().ok_or_else(|| format!("missing the target vertex (expected {layout})"))?;
    let v = text::parse_vertex(v)?;
    Ok((u, v))
}

/// Writes `graph` as an `.el` (`weighted == false`) or `.wel` file.
pub(crate) fn write(graph: &Graph, path: &Path, weighted: bool) -> Result<()> {
    let edges = text::count_written_edges(graph);
    let shape = if graph.is_directed() { "directed" } else { "undirected, each edge once as u <= v" };
    let weights = match (weighted, graph.weight_kind()) {
        (false, _) => String::new(),
        (true, Some(kind)) => format!(", {kind} weights"),
        (true, None) => ", unweighted (every weight 1)".to_string(),
    };
    let header = format!(
        "# simdx {}: {} vertices, {edges} edges ({shape}{weights}); 0-based ids\n",
        if weighted { "weighted edge list" } else { "edge list" },
        graph.num_vertices()
    );
    text::write_edges(graph, path, &header, |buf, u, v, w| {
        text::push_u32(buf, u);
        buf.push(b' ');
        text::push_u32(buf, v);
        if weighted {
            buf.push(b' ');
            text::push_weight(buf, w.unwrap_or(Weight::U32(1)));
        }
        buf.push(b'\n');
    })
}
