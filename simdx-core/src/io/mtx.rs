//! Matrix Market coordinate files (`.mtx`): a sparse matrix read as a graph, row `i` column `j`
//! being the edge `i - 1 -> j - 1`.
//!
//! The file is a header line `%%MatrixMarket matrix coordinate <field> <symmetry>` (case-insensitive),
//! `%` comment lines, a size line `rows columns entries`, then exactly `entries` lines `i j [w]` with
//! 1-based indices. Fields `pattern` (no weights), `integer` (`u32` weights) and `real` (`f32`
//! weights, also spelt `double`) are read; symmetries `general` (a directed graph) and `symmetric`
//! (undirected; an entry may sit in either triangle). The vertex count is `max(rows, columns)`.
//! Weights must be finite and non-negative. Dense (`array`) files, `complex` fields and the
//! `skew-symmetric` and `hermitian` symmetries have no graph meaning here and are refused.
//!
//! A `simdx:` [`header`] comment line, as simdx writes it after the banner, must agree
//! with the banner and the size line, and says whether self-loops and repeated entries are part of the
//! graph (they are kept).
//!
//! The writer picks `pattern`, `integer` or `real` from the graph's weights, and writes an undirected
//! graph as `symmetric`, each edge once in the lower triangle (`row >= column`), a directed one as
//! `general`, with the `simdx:` line after the banner.

use std::path::Path;

use super::text::{self, EdgeChunk, Line, LineReader, Weight};
use super::{header, ParsedEdges};
use crate::error::{GraphError, Result};
use crate::graph::builder::EdgeList;
use crate::graph::weights::WeightKind;
use crate::{Graph, MAX_VERTICES};

/// The header line a Matrix Market file must start with, for error messages.
const BANNER: &str = "'%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>'";

/// The numeric field of the entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

/// What the header and size lines say.
struct Header {
    field: Field,
    symmetric: bool,
    rows: u64,
    cols: u64,
    entries: u64,
    /// Line number of the size line.
    size_line: u64,
}

/// Parses the bytes of a Matrix Market file.
pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<ParsedEdges> {
    let mut reader = LineReader::new(text::skip_bom(bytes));
    let header = parse_header(path, &mut reader)?;
    let (data, first_line) = reader.rest();
    let (rows, cols, field) = (header.rows, header.cols, header.field);
    let parsed = text::parse_lines(path, data, first_line, |line, chunk: &mut EdgeChunk| {
        parse_entry(line, chunk, rows, cols, field)
    });
    // An entry past the declared count comes before any error after it.
    let extra_entry = || text::nth_matching_line(data, first_line, header.entries.saturating_add(1), is_entry);
    let count_error = |line: u64, found: &str| {
        GraphError::parse(
            path,
            line,
            format!("the header declares {} entries but the file has {found}", header.entries),
        )
    };
    let chunks = match parsed {
        Ok(chunks) => chunks,
        Err(e) => {
            if let (GraphError::Parse { line, .. }, Some(extra)) = (&e, extra_entry()) {
                if extra < *line {
                    return Err(count_error(extra, "more"));
                }
            }
            return Err(e);
        }
    };
    let found: u64 = chunks.iter().map(|c| c.src.len() as u64).sum();
    if found < header.entries {
        return Err(count_error(header.size_line, &found.to_string()));
    }
    if found > header.entries {
        return Err(count_error(extra_entry().unwrap_or(header.size_line), &found.to_string()));
    }
    let weights = match field {
        Field::Pattern => None,
        Field::Integer => Some(WeightKind::U32),
        Field::Real => Some(WeightKind::F32),
    };
    let edges = text::concat_edges(chunks, weights);
    let num_vertices = rows.max(cols) as usize;
    let edges = EdgeList { num_vertices, src: edges.src, dst: edges.dst, weights: edges.weights };
    Ok(ParsedEdges { edges, directed: !header.symmetric })
}

/// Whether a data line holds an entry (is neither blank nor a `%` comment).
#[inline]
fn is_entry(line: &mut Line<'_>) -> bool {
    !matches!(line.first_byte(), None | Some(b'%'))
}

/// Parses one data line `i j [w]` into `chunk`.
#[inline]
fn parse_entry(line: &mut Line<'_>, chunk: &mut EdgeChunk, rows: u64, cols: u64, field: Field) -> Result<(), String> {
    if !is_entry(line) {
        return Ok(());
    }
    let layout = if field == Field::Pattern { "'row column'" } else { "'row column value'" };
    let i = text::parse_index(line.expect_token("the row index")?, "row", rows, "rows")?;
    let j = line.next_token().ok_or_else(|| format!("missing the column index (expected {layout})"))?;
    let j = text::parse_index(j, "column", cols, "columns")?;
    let mut value = || line.next_token().ok_or_else(|| format!("missing the value (expected {layout})"));
    let w = match field {
        Field::Pattern => None,
        Field::Integer => Some(Weight::U32(text::parse_weight_u32(value()?)?)),
        Field::Real => Some(Weight::F32(text::parse_weight_f32(value()?)?)),
    };
    line.expect_end(layout)?;
    match w {
        None => {}
        Some(Weight::U32(w)) => chunk.push_u32(w),
        Some(Weight::F32(w)) => chunk.push_f32(w),
    }
    chunk.push_edge(i, j);
    Ok(())
}

/// Reads the header line, the comments and the size line.
fn parse_header(path: &Path, reader: &mut LineReader<'_>) -> Result<Header> {
    let (number, banner) = reader.next_line().unwrap_or((1, b""));
    let (field, symmetric) = parse_banner(banner).map_err(|m| GraphError::parse(path, number, m))?;
    let (size_line, line) = loop {
        match reader.next_line() {
            None => {
                return Err(GraphError::file(path, "the file ends before the size line 'rows columns entries'"));
            }
            Some((number, bytes)) => {
                if is_entry(&mut Line::new(bytes)) {
                    break (number, bytes);
                }
            }
        }
    };
    let at = |m: String| GraphError::parse(path, size_line, m);
    let mut line = Line::new(line);
    let layout = "the size line 'rows columns entries'";
    let mut count = |what: &str| -> Result<u64> {
        let tok = line.next_token().ok_or_else(|| at(format!("missing the {what} in {layout}")))?;
        text::parse_count(tok, what).map_err(at)
    };
    let rows = count("number of rows")?;
    let cols = count("number of columns")?;
    let entries = count("number of entries")?;
    line.expect_end(layout).map_err(at)?;
    for (n, unit) in [(rows, "rows"), (cols, "columns")] {
        if n > MAX_VERTICES as u64 {
            return Err(at(format!("the matrix has {n} {unit}, more than the {MAX_VERTICES} vertices simdx supports")));
        }
    }
    if symmetric && rows != cols {
        return Err(at(format!("a symmetric matrix must be square, but this one is {rows} x {cols}")));
    }
    Ok(Header { field, symmetric, rows, cols, entries, size_line })
}

/// Parses `%%MatrixMarket matrix coordinate <field> <symmetry>` into the field and whether the
/// matrix is symmetric.
fn parse_banner(bytes: &[u8]) -> Result<(Field, bool), String> {
    let mut line = Line::new(bytes);
    let is = |tok: &[u8], word: &str| tok.eq_ignore_ascii_case(word.as_bytes());
    match line.next_token() {
        Some(tok) if is(tok, "%%MatrixMarket") => {}
        _ => return Err(format!("missing the Matrix Market header line {BANNER}")),
    }
    let mut next =
        |what: &str| line.next_token().ok_or_else(|| format!("the header line lacks the {what} (expected {BANNER})"));
    let object = next("object")?;
    if !is(object, "matrix") {
        return Err(format!("the object '{}' is not supported; simdx reads 'matrix' files", text::show(object)));
    }
    let format = next("format")?;
    if is(format, "array") {
        return Err("the 'array' (dense) format is not supported; simdx reads 'coordinate' (sparse) matrices".into());
    }
    if !is(format, "coordinate") {
        return Err(format!("unknown format '{}' (expected 'coordinate')", text::show(format)));
    }
    let field = next("field")?;
    let field = if is(field, "pattern") {
        Field::Pattern
    } else if is(field, "integer") {
        Field::Integer
    } else if is(field, "real") || is(field, "double") {
        Field::Real
    } else if is(field, "complex") {
        return Err("the 'complex' field is not supported (expected pattern, integer or real)".into());
    } else {
        return Err(format!("unknown field '{}' (expected pattern, integer or real)", text::show(field)));
    };
    let symmetry = next("symmetry")?;
    let symmetric = if is(symmetry, "general") {
        false
    } else if is(symmetry, "symmetric") {
        true
    } else if is(symmetry, "skew-symmetric") || is(symmetry, "hermitian") {
        return Err(format!(
            "the '{}' symmetry is not supported (expected general or symmetric)",
            text::show(symmetry).to_ascii_lowercase()
        ));
    } else {
        return Err(format!("unknown symmetry '{}' (expected general or symmetric)", text::show(symmetry)));
    };
    line.expect_end(BANNER)?;
    Ok((field, symmetric))
}

/// Writes `graph` as a Matrix Market coordinate file.
pub(crate) fn write(graph: &Graph, path: &Path) -> Result<()> {
    let field = match graph.weight_kind() {
        None => "pattern",
        Some(WeightKind::U32) => "integer",
        Some(WeightKind::F32) => "real",
    };
    let directed = graph.is_directed();
    let symmetry = if directed { "general" } else { "symmetric" };
    let n = graph.num_vertices();
    let m = text::count_written_edges(graph);
    let shape = if directed { "row -> column" } else { "each undirected edge once, in the lower triangle" };
    let simdx = header::line(graph, super::Format::MatrixMarket, m);
    let header = format!("%%MatrixMarket matrix coordinate {field} {symmetry}\n{simdx}% {shape}\n{n} {n} {m}\n");
    text::write_edges(graph, path, &header, |buf, u, v, w| {
        // Undirected edges come as u <= v; the lower triangle wants row >= column.
        let (row, col) = if directed { (u, v) } else { (v, u) };
        text::push_one_based(buf, row);
        buf.push(b' ');
        text::push_one_based(buf, col);
        if let Some(w) = w {
            buf.push(b' ');
            text::push_weight(buf, w);
        }
        buf.push(b'\n');
    })
}
