//! SNAP/GAP edge lists: `.el` holds one edge `u v` per line, `.wel` one weighted edge `u v w`.
//!
//! Ids are 0-based and below [`crate::MAX_VERTICES`]; columns are separated by spaces or tabs; blank
//! lines and lines starting with `#` or `%` are ignored. Without a `simdx:` [`header`] line
//! the vertex count is the largest id plus one and the file is read as directed (the caller
//! symmetrises it when asked); with one, the header's direction, vertex count and weight type hold.
//! Weights that are all integers in `u32` range give integer weights; any other finite non-negative
//! number makes all weights `f32`.
//!
//! The writer puts the `simdx:` header line and a `#` comment first, then one line per edge in the
//! order of [`Graph::edges`] (an undirected edge once, `u <= v`). A `.wel` of an unweighted graph gets
//! a placeholder weight 1 (its header says `weights=none`, so it reads back unweighted); an `.el` of a
//! weighted graph is refused, as it would lose the weights.

use std::path::Path;

use super::text::{self, EdgeChunk, Line, Weight};
use super::{header, Format, ParsedEdges};
use crate::error::{GraphError, Result};
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

/// Writes `graph` as an `.el` (`weighted == false`) or `.wel` file. An `.el` of a weighted graph is
/// refused: it would read back without its weights.
pub(crate) fn write(graph: &Graph, path: &Path, weighted: bool) -> Result<()> {
    if let (false, Some(kind)) = (weighted, graph.weight_kind()) {
        return Err(GraphError::file(
            path,
            format!(
                "an .el edge list holds no weights, but this graph has {kind} weights; write a .wel file (or \
                 .mtx, .sxg) to keep them"
            ),
        ));
    }
    let edges = text::count_written_edges(graph);
    let format = if weighted { Format::WeightedEdgeList } else { Format::EdgeList };
    let shape = if graph.is_directed() { "one arc 'u v" } else { "each undirected edge once, 'u v" };
    let column = match (weighted, graph.weight_kind()) {
        (false, _) => "'",
        (true, Some(_)) => " w'",
        (true, None) => " 1' (the graph is unweighted)",
    };
    let header = format!("{}# {shape}{column} a line, 0-based ids\n", header::line(graph, format, edges));
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
