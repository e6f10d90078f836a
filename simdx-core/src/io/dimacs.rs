//! DIMACS shortest-path files (`.gr`), as used by the 9th DIMACS Implementation Challenge road graphs.
//!
//! Lines start with a letter: `c` comments (anywhere), exactly one problem line `p sp <vertices> <arcs>`
//! before any arc, and arc lines `a <u> <v> <w>` with 1-based vertices in `1..=vertices` and integer
//! weights in `u32` range. The number of arc lines must equal `<arcs>`. Blank lines are ignored. The
//! graph is read as directed with `u32` weights (the caller symmetrises it when asked).
//!
//! A `simdx:` [`header`] comment line before the problem line, as simdx writes it, sets
//! the direction and the weight type (`weights=none`: the weights are placeholders and are dropped).
//!
//! The writer emits the `simdx:` header, `p sp n m` and one arc line per edge in the order of
//! [`Graph::edges`]: an undirected edge once (`u <= v`), which the header makes read back undirected.
//! Unweighted graphs get weight 1 (read back unweighted); real (`f32`) weights cannot be written as
//! DIMACS integers and are refused.

use std::path::Path;

use super::text::{self, EdgeChunk, Line, LineReader, Weight};
use super::{header, ParsedEdges};
use crate::error::{GraphError, Result};
use crate::graph::builder::EdgeList;
use crate::graph::weights::WeightKind;
use crate::{Graph, MAX_VERTICES};

/// The problem line, for error messages.
const PROBLEM: &str = "'p sp <vertices> <arcs>'";

/// What the problem line says.
struct Problem {
    vertices: u64,
    arcs: u64,
    /// Its line number.
    line: u64,
}

/// Parses the bytes of a DIMACS `.gr` file.
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<ParsedEdges> {
    let mut reader = LineReader::new(text::skip_bom(bytes));
    let problem = parse_problem(path, &mut reader)?;
    let (data, first_line) = reader.rest();
    let (n, p_line) = (problem.vertices, problem.line);
    let parsed = text::parse_lines(path, data, first_line, |line, chunk: &mut EdgeChunk| {
        parse_data_line(line, chunk, n, p_line)
    });
    // An arc past the declared count comes before any error after it.
    let extra_arc = || text::nth_matching_line(data, first_line, problem.arcs.saturating_add(1), is_arc);
    let count_error = |line: u64, found: &str| {
        GraphError::parse(
            path,
            line,
            format!("the problem line declares {} arcs but the file has {found}", problem.arcs),
        )
    };
    let chunks = match parsed {
        Ok(chunks) => chunks,
        Err(e) => {
            if let (GraphError::Parse { line, .. }, Some(extra)) = (&e, extra_arc()) {
                if extra < *line {
                    return Err(count_error(extra, "more"));
                }
            }
            return Err(e);
        }
    };
    let found: u64 = chunks.iter().map(|c| c.src.len() as u64).sum();
    if found < problem.arcs {
        return Err(count_error(problem.line, &found.to_string()));
    }
    if found > problem.arcs {
        return Err(count_error(extra_arc().unwrap_or(problem.line), &found.to_string()));
    }
    let edges = text::concat_edges(chunks, Some(WeightKind::U32));
    let edges = EdgeList { num_vertices: n as usize, src: edges.src, dst: edges.dst, weights: edges.weights };
    Ok(ParsedEdges { edges, directed: true })
}

/// Whether a line is an arc line (its first token is `a`).
#[inline]
fn is_arc(line: &mut Line<'_>) -> bool {
    line.next_token() == Some(b"a")
}

/// Parses one line after the problem line: a comment, a blank line or an arc `a u v w`.
#[inline]
fn parse_data_line(line: &mut Line<'_>, chunk: &mut EdgeChunk, n: u64, p_line: u64) -> Result<(), String> {
    if matches!(line.first_byte(), None | Some(b'c')) {
        return Ok(());
    }
    match line.next_token().unwrap_or_default() {
        b"a" => {}
        b"p" => return Err(format!("a second problem line (the first is line {p_line})")),
        kind => return Err(unknown_line(kind)),
    }
    let layout = "'a <u> <v> <weight>'";
    let u = line.next_token().ok_or_else(|| format!("missing the arc's source (expected {layout})"))?;
    let u = text::parse_index(u, "vertex", n, "vertices")?;
    let v = line.next_token().ok_or_else(|| format!("missing the arc's target (expected {layout})"))?;
    let v = text::parse_index(v, "vertex", n, "vertices")?;
    let w = line.next_token().ok_or_else(|| format!("missing the arc's weight (expected {layout})"))?;
    let w = text::parse_weight_u32(w)?;
    line.expect_end(layout)?;
    chunk.push_u32(w);
    chunk.push_edge(u, v);
    Ok(())
}

fn unknown_line(kind: &[u8]) -> String {
    format!("unknown line type '{}' (expected 'c', 'p' or 'a')", text::show(kind))
}

/// Reads comment lines up to and including the problem line.
fn parse_problem(path: &Path, reader: &mut LineReader<'_>) -> Result<Problem> {
    let (number, bytes) = loop {
        let Some((number, bytes)) = reader.next_line() else {
            return Err(GraphError::file(path, format!("no problem line {PROBLEM} found")));
        };
        match Line::new(bytes).first_byte() {
            None | Some(b'c') => continue,
            Some(b'a') => {
                return Err(GraphError::parse(path, number, format!("an arc before the problem line {PROBLEM}")))
            }
            Some(b'p') => break (number, bytes),
            Some(_) => {
                let kind = Line::new(bytes).next_token().unwrap_or_default();
                return Err(GraphError::parse(path, number, unknown_line(kind)));
            }
        }
    };
    let at = |m: String| GraphError::parse(path, number, m);
    let mut line = Line::new(bytes);
    if line.next_token() != Some(b"p") {
        let kind = Line::new(bytes).next_token().unwrap_or_default();
        return Err(at(unknown_line(kind)));
    }
    let kind =
        line.next_token().ok_or_else(|| at(format!("the problem line lacks the problem type (expected {PROBLEM})")))?;
    if kind != b"sp" {
        return Err(at(format!(
            "the problem type '{}' is not supported (expected a shortest-path file, {PROBLEM})",
            text::show(kind)
        )));
    }
    let mut count = |what: &str| -> Result<u64> {
        let tok =
            line.next_token().ok_or_else(|| at(format!("the problem line lacks the {what} (expected {PROBLEM})")))?;
        text::parse_count(tok, what).map_err(at)
    };
    let vertices = count("number of vertices")?;
    let arcs = count("number of arcs")?;
    line.expect_end(PROBLEM).map_err(at)?;
    if vertices > MAX_VERTICES as u64 {
        return Err(at(format!("the graph has {vertices} vertices, more than the {MAX_VERTICES} simdx supports")));
    }
    Ok(Problem { vertices, arcs, line: number })
}

/// Writes `graph` as a DIMACS `.gr` file.
pub(crate) fn write(graph: &Graph, path: &Path) -> Result<()> {
    if graph.weight_kind() == Some(WeightKind::F32) {
        return Err(GraphError::file(
            path,
            "DIMACS .gr files hold integer weights, but this graph has real (f32) weights; write .mtx or .wel instead",
        ));
    }
    let n = graph.num_vertices();
    let m = text::count_written_edges(graph);
    let shape = if graph.is_directed() { "one arc a line" } else { "each undirected edge once, as u <= v" };
    let weights = if graph.is_weighted() { "u32 weights" } else { "unweighted, every weight a placeholder 1" };
    let header = format!("{}c {shape}, {weights}\np sp {n} {m}\n", header::line(graph, super::Format::Dimacs, m));
    text::write_edges(graph, path, &header, |buf, u, v, w| {
        buf.extend_from_slice(b"a ");
        text::push_one_based(buf, u);
        buf.push(b' ');
        text::push_one_based(buf, v);
        buf.push(b' ');
        text::push_weight(buf, w.unwrap_or(Weight::U32(1)));
        buf.push(b'\n');
    })
}
