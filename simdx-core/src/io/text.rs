//! Shared machinery of the text readers and writers: opening a file (memory-mapped), splitting it into
//! newline-aligned chunks parsed in parallel, fast hand-written tokenising and number parsing with
//! line-numbered errors, and a writer that formats blocks of edges in parallel.
//!
//! A reader parses its header serially, then hands the rest of the bytes to [`parse_lines`] with the
//! number of the first line it holds. Every chunk is parsed by one rayon task into its own [`EdgeChunk`];
//! the chunks are then concatenated in parallel ([`concat_edges`]). An error found in a chunk is turned
//! into a [`GraphError::Parse`] whose line is counted in the whole file, and the first error in file
//! order is the one reported.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::ops::{Deref, Range};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use memmap2::Mmap;
use rayon::prelude::*;

use super::atomic_file::write_atomically;
use crate::error::{GraphError, Result};
use crate::graph::weights::{EdgeWeights, WeightKind, Weights};
use crate::{Graph, VertexId, MAX_VERTICES};

/// The bytes of a text file: memory-mapped when it is a regular file, read into memory otherwise
/// (a pipe, `/dev/stdin`). Dereferences to `&[u8]`.
pub(crate) struct TextFile {
    data: Data,
}

enum Data {
    Mapped(Mmap),
    Read(Vec<u8>),
}

impl TextFile {
    /// Opens `path`. Fails with [`GraphError::Io`] when the file cannot be opened, and with a
    /// [`GraphError::File`] when it is a directory or empty.
    pub(crate) fn open(path: &Path) -> Result<TextFile> {
        let meta = std::fs::metadata(path).map_err(|e| GraphError::io(path, e))?;
        if meta.is_dir() {
            return Err(GraphError::file(path, "is a directory, not a graph file"));
        }
        let mut file = File::open(path).map_err(|e| GraphError::io(path, e))?;
        let data = if meta.is_file() {
            if meta.len() == 0 {
                return Err(GraphError::file(path, "the file is empty"));
            }
            // SAFETY: the map is read-only. As with every memory-mapped reader, another process that
            // truncates or rewrites the file while it is being parsed can change the bytes under us;
            // the parsers treat the bytes as untrusted input and never rely on them for memory safety.
            Data::Mapped(unsafe { Mmap::map(&file) }.map_err(|e| GraphError::io(path, e))?)
        } else {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes).map_err(|e| GraphError::io(path, e))?;
            Data::Read(bytes)
        };
        let text = TextFile { data };
        if text.is_empty() {
            return Err(GraphError::file(path, "the file is empty"));
        }
        Ok(text)
    }
}

impl Deref for TextFile {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.data {
            Data::Mapped(map) => map,
            Data::Read(bytes) => bytes,
        }
    }
}

/// `bytes` without a leading UTF-8 byte-order mark.
pub(crate) fn skip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

// ---------------------------------------------------------------------------------------------------
// Tokenising and numbers
// ---------------------------------------------------------------------------------------------------

/// Whether `b` separates tokens: space, tab, carriage return, vertical tab or form feed.
#[inline]
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c)
}

/// One line of text (without its newline), consumed token by token.
pub(crate) struct Line<'a> {
    rest: &'a [u8],
}

impl<'a> Line<'a> {
    /// The line `bytes`, which must not contain `\n`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Line { rest: bytes }
    }

    /// The first byte that is not blank, or `None` for a blank (or fully consumed) line.
    #[inline]
    pub(crate) fn first_byte(&self) -> Option<u8> {
        self.rest.iter().copied().find(|&b| !is_blank(b))
    }

    /// The next token, or `None` at the end of the line.
    #[inline]
    pub(crate) fn next_token(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|&b| !is_blank(b))?;
        let rest = &self.rest[start..];
        let len = rest.iter().position(|&b| is_blank(b)).unwrap_or(rest.len());
        self.rest = &rest[len..];
        Some(&rest[..len])
    }

    /// The next token, or an error saying that `what` is missing.
    #[inline]
    pub(crate) fn expect_token(&mut self, what: &str) -> Result<&'a [u8], String> {
        self.next_token().ok_or_else(|| format!("missing {what}"))
    }

    /// Fails when a token is left on the line; `expected` describes the line's layout.
    #[inline]
    pub(crate) fn expect_end(&mut self, expected: &str) -> Result<(), String> {
        match self.next_token() {
            None => Ok(()),
            Some(tok) => Err(format!("unexpected extra column '{}' (expected {expected})", show(tok))),
        }
    }
}

/// A token for an error message: lossy UTF-8 with control characters escaped, cut after 40 characters.
pub(crate) fn show(tok: &[u8]) -> String {
    let text = String::from_utf8_lossy(tok);
    let mut shown: String =
        text.chars().take(40).flat_map(|c| if c.is_control() { c.escape_debug().collect() } else { vec![c] }).collect();
    if text.chars().nth(40).is_some() {
        shown.push_str("...");
    }
    shown
}

/// Why a token is not an unsigned integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumError {
    /// Not a string of decimal digits.
    Invalid,
    /// Decimal digits, but more than a `u64` holds.
    Overflow,
}

/// Parses a token of decimal digits (no sign) as a `u64`.
#[inline]
pub(crate) fn parse_u64(tok: &[u8]) -> Result<u64, NumError> {
    if tok.is_empty() {
        return Err(NumError::Invalid);
    }
    if tok.len() <= 19 {
        // 19 digits never overflow a u64.
        let mut acc = 0u64;
        for &b in tok {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return Err(NumError::Invalid);
            }
            acc = acc * 10 + u64::from(d);
        }
        return Ok(acc);
    }
    if !tok.iter().all(u8::is_ascii_digit) {
        return Err(NumError::Invalid);
    }
    tok.iter().try_fold(0u64, |acc, &b| acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))).ok_or(NumError::Overflow)
}

/// Parses a 0-based vertex id, which must be below [`MAX_VERTICES`].
#[inline]
pub(crate) fn parse_vertex(tok: &[u8]) -> Result<VertexId, String> {
    match parse_u64(tok) {
        Ok(v) if v < MAX_VERTICES as u64 => Ok(v as VertexId),
        Ok(_) | Err(NumError::Overflow) => Err(format!(
            "vertex id {} overflows the u32 vertex ids (the largest allowed is {}); pass --relabel to number \
             any ids densely",
            show(tok),
            MAX_VERTICES - 1
        )),
        Err(NumError::Invalid) => {
            Err(format!("expected a vertex id, found '{}' (pass --relabel for ids that are not numbers)", show(tok)))
        }
    }
}

/// Parses a 1-based index that must lie in `1..=limit`, returning it 0-based. `what` names the index
/// ("row", "column", "vertex") and `unit` what the limit counts ("rows", "vertices").
#[inline]
pub(crate) fn parse_index(tok: &[u8], what: &str, limit: u64, unit: &str) -> Result<VertexId, String> {
    match parse_u64(tok) {
        Ok(0) => Err(format!("{what} index 0 in a 1-based format (indices start at 1)")),
        // limit <= MAX_VERTICES, so i - 1 fits a u32 below u32::MAX.
        Ok(i) if i <= limit => Ok((i - 1) as VertexId),
        Ok(_) | Err(NumError::Overflow) => {
            Err(format!("{what} index {} exceeds the declared {limit} {unit}", show(tok)))
        }
        Err(NumError::Invalid) => Err(format!("expected a {what} index, found '{}'", show(tok))),
    }
}

/// Parses a header count such as a number of rows or entries.
pub(crate) fn parse_count(tok: &[u8], what: &str) -> Result<u64, String> {
    match parse_u64(tok) {
        Ok(n) => Ok(n),
        Err(NumError::Overflow) => Err(format!("the {what} {} does not fit 64 bits", show(tok))),
        Err(NumError::Invalid) => Err(format!("expected the {what}, found '{}'", show(tok))),
    }
}

/// Parses an integer weight that must fit a `u32`.
#[inline]
pub(crate) fn parse_weight_u32(tok: &[u8]) -> Result<u32, String> {
    match parse_u64(tok) {
        Ok(w) => u32::try_from(w).map_err(|_| format!("weight {w} overflows the u32 integer weights")),
        Err(NumError::Overflow) => Err(format!("weight {} overflows the u32 integer weights", show(tok))),
        Err(NumError::Invalid) => match parse_f64(tok) {
            Some(w) if w < 0.0 => Err(format!("negative weight {}; weights must be >= 0", show(tok))),
            _ => Err(format!("expected an integer weight, found '{}'", show(tok))),
        },
    }
}

/// Parses a real weight as an `f32`, which must be finite and non-negative.
#[inline]
pub(crate) fn parse_weight_f32(tok: &[u8]) -> Result<f32, String> {
    let w = std::str::from_utf8(tok)
        .ok()
        .and_then(|s| s.parse::<f32>().ok())
        .ok_or_else(|| format!("expected a weight, found '{}'", show(tok)))?;
    if w.is_nan() || w.is_infinite() {
        let what = if w.is_nan() { "is not a number" } else { "is infinite (or too large for f32)" };
        return Err(format!("weight {} {what}; weights must be finite", show(tok)));
    }
    if w < 0.0 {
        return Err(format!("negative weight {}; weights must be >= 0", show(tok)));
    }
    Ok(w)
}

fn parse_f64(tok: &[u8]) -> Option<f64> {
    std::str::from_utf8(tok).ok()?.parse().ok()
}

// ---------------------------------------------------------------------------------------------------
// Serial line reading (headers, error paths)
// ---------------------------------------------------------------------------------------------------

/// Reads lines one at a time, for headers that must be parsed before the parallel part.
pub(crate) struct LineReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    next_line: u64,
}

impl<'a> LineReader<'a> {
    /// Reads `bytes`, whose first line is line 1.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        LineReader { bytes, pos: 0, next_line: 1 }
    }

    /// The next line's 1-based number and bytes (without the newline).
    pub(crate) fn next_line(&mut self) -> Option<(u64, &'a [u8])> {
        if self.pos >= self.bytes.len() {
            return None;
        }
        let rest = &self.bytes[self.pos..];
        let len = memchr::memchr(b'\n', rest).unwrap_or(rest.len());
        self.pos += (len + 1).min(rest.len());
        self.next_line += 1;
        Some((self.next_line - 1, &rest[..len]))
    }

    /// The unread bytes and the number of their first line.
    pub(crate) fn rest(&self) -> (&'a [u8], u64) {
        (&self.bytes[self.pos..], self.next_line)
    }
}

/// The number of the `nth` (1-based) line of `bytes` for which `is_match` holds, counting lines from
/// `first_line`. A serial scan, for error paths.
pub(crate) fn nth_matching_line(
    bytes: &[u8],
    first_line: u64,
    nth: u64,
    is_match: impl Fn(&mut Line<'_>) -> bool,
) -> Option<u64> {
    let mut reader = LineReader::new(bytes);
    let mut seen = 0;
    while let Some((number, line)) = reader.next_line() {
        if is_match(&mut Line::new(line)) {
            seen += 1;
            if seen == nth {
                return Some(first_line + number - 1);
            }
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------------
// Parallel chunked parsing
// ---------------------------------------------------------------------------------------------------

/// Target size of one chunk of text parsed by one task.
const CHUNK_BYTES: usize = 4 << 20;

/// Splits `bytes` into about `max(len / chunk_bytes, min_chunks)` ranges, each ending just after a
/// newline (the last at the end of the bytes). Ranges are non-empty and cover `bytes` in order.
pub(crate) fn chunk_ranges(bytes: &[u8], chunk_bytes: usize, min_chunks: usize) -> Vec<Range<usize>> {
    let len = bytes.len();
    let count = len.div_ceil(chunk_bytes.max(1)).max(min_chunks).max(1);
    let mut ranges = Vec::with_capacity(count);
    let mut start = 0;
    for k in 1..count {
        let target = (len as u128 * k as u128 / count as u128) as usize;
        if target <= start {
            continue;
        }
        // End just after the first newline at or after byte `target - 1`.
        let end = memchr::memchr(b'\n', &bytes[target - 1..]).map_or(len, |i| target + i);
        if end >= len {
            break;
        }
        ranges.push(start..end);
        start = end;
    }
    if start < len {
        ranges.push(start..len);
    }
    ranges
}

/// What one chunk task produced.
enum ChunkOutcome<T> {
    /// The chunk parsed; it held `lines` lines.
    Done { value: T, lines: u64 },
    /// Its line `line` (0-based within the chunk) is malformed.
    Failed { line: u64, message: String },
    /// Stopped early because an earlier chunk failed.
    Aborted,
}

/// What a chunk task parses into: one per chunk, made before its first line.
pub(crate) trait Accumulator: Send {
    /// An empty accumulator for a chunk of `bytes` bytes (a hint for reserving memory).
    fn for_chunk(bytes: usize) -> Self;
}

/// Parses `bytes`, whose first line is line `first_line` of `path`, in newline-aligned chunks in
/// parallel. `parse_line` is called on every line (blank and comment lines included) with the
/// accumulator of its chunk, made by [`Accumulator::for_chunk`]. Returns the accumulators in file order,
/// or the first error in file order as a [`GraphError::Parse`] naming the line.
pub(crate) fn parse_lines<T, F>(path: &Path, bytes: &[u8], first_line: u64, parse_line: F) -> Result<Vec<T>>
where
    T: Accumulator,
    F: Fn(&mut Line<'_>, &mut T) -> Result<(), String> + Sync,
{
    parse_lines_in_chunks(path, bytes, first_line, CHUNK_BYTES, parse_line)
}

/// [`parse_lines`] with a chosen chunk size (tests use small ones).
pub(crate) fn parse_lines_in_chunks<T, F>(
    path: &Path,
    bytes: &[u8],
    first_line: u64,
    chunk_bytes: usize,
    parse_line: F,
) -> Result<Vec<T>>
where
    T: Accumulator,
    F: Fn(&mut Line<'_>, &mut T) -> Result<(), String> + Sync,
{
    let ranges = chunk_ranges(bytes, chunk_bytes, rayon::current_num_threads());
    let first_failed = AtomicUsize::new(usize::MAX);
    let outcomes: Vec<ChunkOutcome<T>> = ranges
        .into_par_iter()
        .enumerate()
        .map(|(index, range)| {
            let outcome = parse_chunk(&bytes[range], index, &first_failed, &parse_line);
            if matches!(outcome, ChunkOutcome::Failed { .. }) {
                first_failed.fetch_min(index, Ordering::Relaxed);
            }
            outcome
        })
        .collect();
    let mut line = first_line;
    let mut values = Vec::with_capacity(outcomes.len());
    for outcome in outcomes {
        match outcome {
            ChunkOutcome::Done { value, lines } => {
                values.push(value);
                line += lines;
            }
            ChunkOutcome::Failed { line: local, message } => {
                return Err(GraphError::parse(path, line + local, message))
            }
            // A chunk aborts only after an earlier one failed, and that one returned above.
            ChunkOutcome::Aborted => unreachable!("a chunk aborted without an earlier failure"),
        }
    }
    Ok(values)
}

/// Parses one chunk line by line; every 4096 lines it stops if an earlier chunk has failed.
fn parse_chunk<T, F>(chunk: &[u8], index: usize, first_failed: &AtomicUsize, parse_line: &F) -> ChunkOutcome<T>
where
    T: Accumulator,
    F: Fn(&mut Line<'_>, &mut T) -> Result<(), String>,
{
    let mut value = T::for_chunk(chunk.len());
    let mut lines = 0u64;
    let mut start = 0;
    // Every newline ends a line; the end of the chunk ends a last line that lacks one.
    for end in memchr::memchr_iter(b'\n', chunk).chain(std::iter::once(chunk.len())) {
        if start == chunk.len() {
            break;
        }
        if let Err(message) = parse_line(&mut Line::new(&chunk[start..end]), &mut value) {
            return ChunkOutcome::Failed { line: lines, message };
        }
        lines += 1;
        start = end + 1;
        if lines % 4096 == 0 && first_failed.load(Ordering::Relaxed) < index {
            return ChunkOutcome::Aborted;
        }
    }
    ChunkOutcome::Done { value, lines }
}

// ---------------------------------------------------------------------------------------------------
// Edge chunks
// ---------------------------------------------------------------------------------------------------

/// Weights of one chunk: integers until the first real weight, then reals.
#[derive(Debug)]
pub(crate) enum ChunkWeights {
    /// All weights so far were integers in `u32` range.
    U32(Vec<u32>),
    /// Some weight was real; earlier integer weights were converted.
    F32(Vec<f32>),
}

impl Default for ChunkWeights {
    fn default() -> Self {
        ChunkWeights::U32(Vec::new())
    }
}

/// The edges parsed from one chunk.
#[derive(Debug)]
pub(crate) struct EdgeChunk {
    /// Edge sources (0-based).
    pub(crate) src: Vec<VertexId>,
    /// Edge destinations (0-based).
    pub(crate) dst: Vec<VertexId>,
    /// Edge weights, empty for unweighted formats.
    pub(crate) weights: ChunkWeights,
    /// One more than the largest id seen (0 when no edge was seen).
    pub(crate) id_end: u64,
}

impl Accumulator for EdgeChunk {
    /// Reserves room for a line per 8 bytes, which edge lines rarely beat; the room is virtual memory
    /// until used.
    fn for_chunk(bytes: usize) -> Self {
        let edges = bytes / 8 + 1;
        EdgeChunk {
            src: Vec::with_capacity(edges),
            dst: Vec::with_capacity(edges),
            weights: ChunkWeights::default(),
            id_end: 0,
        }
    }
}

impl EdgeChunk {
    /// Appends the edge `u -> v`.
    #[inline]
    pub(crate) fn push_edge(&mut self, u: VertexId, v: VertexId) {
        self.src.push(u);
        self.dst.push(v);
        self.id_end = self.id_end.max(u64::from(u.max(v)) + 1);
    }

    /// Appends an integer weight.
    #[inline]
    pub(crate) fn push_u32(&mut self, w: u32) {
        match &mut self.weights {
            ChunkWeights::U32(ws) => {
                if ws.capacity() == 0 {
                    ws.reserve(self.src.capacity());
                }
                ws.push(w)
            }
            ChunkWeights::F32(ws) => ws.push(w as f32),
        }
    }

    /// Appends a real weight, turning the chunk's weights into reals if they were integers.
    #[inline]
    pub(crate) fn push_f32(&mut self, w: f32) {
        if let ChunkWeights::U32(ws) = &self.weights {
            let mut reals = Vec::with_capacity(self.src.capacity().max(ws.len() + 1));
            reals.extend(ws.iter().map(|&x| x as f32));
            self.weights = ChunkWeights::F32(reals);
        }
        if let ChunkWeights::F32(ws) = &mut self.weights {
            ws.push(w);
        }
    }

    /// Appends the weight written as `tok`: an integer in `u32` range stays an integer, anything else
    /// must be a finite non-negative real.
    #[inline]
    pub(crate) fn push_weight_token(&mut self, tok: &[u8]) -> Result<(), String> {
        match parse_u64(tok) {
            Ok(w) if w <= u64::from(u32::MAX) => self.push_u32(w as u32),
            _ => self.push_f32(parse_weight_f32(tok)?),
        }
        Ok(())
    }
}

/// The edges of all chunks, concatenated in parallel.
pub(crate) struct Edges {
    /// Edge sources.
    pub(crate) src: Vec<VertexId>,
    /// Edge destinations.
    pub(crate) dst: Vec<VertexId>,
    /// Edge weights, if asked for.
    pub(crate) weights: Option<EdgeWeights>,
    /// One more than the largest id seen (0 without edges).
    pub(crate) id_end: u64,
}

/// Concatenates the chunks in order. `weights` says what the format holds: `None` drops the weights;
/// `Some(U32)` gives integer weights unless some chunk saw a real one (then all become `f32`);
/// `Some(F32)` always gives real weights.
pub(crate) fn concat_edges(chunks: Vec<EdgeChunk>, weights: Option<WeightKind>) -> Edges {
    let id_end = chunks.iter().map(|c| c.id_end).max().unwrap_or(0);
    let mut src = Vec::with_capacity(chunks.len());
    let mut dst = Vec::with_capacity(chunks.len());
    let mut ws = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        src.push(chunk.src);
        dst.push(chunk.dst);
        ws.push(chunk.weights);
    }
    let (src, dst) = rayon::join(|| concat(src), || concat(dst));
    let weights = weights.map(|kind| {
        let real = kind == WeightKind::F32 || ws.iter().any(|w| matches!(w, ChunkWeights::F32(_)));
        if real {
            let parts = ws
                .into_par_iter()
                .map(|w| match w {
                    ChunkWeights::U32(w) => w.into_iter().map(|x| x as f32).collect(),
                    ChunkWeights::F32(w) => w,
                })
                .collect();
            EdgeWeights::F32(concat(parts))
        } else {
            let parts = ws
                .into_iter()
                .map(|w| match w {
                    ChunkWeights::U32(w) => w,
                    ChunkWeights::F32(_) => unreachable!("real weights were ruled out above"),
                })
                .collect();
            EdgeWeights::U32(concat(parts))
        }
    });
    Edges { src, dst, weights, id_end }
}

/// Concatenates `parts` in order, copying them in parallel.
pub(crate) fn concat<T: Copy + Default + Send + Sync>(mut parts: Vec<Vec<T>>) -> Vec<T> {
    if parts.len() == 1 {
        return parts.pop().unwrap_or_default();
    }
    let total = parts.iter().map(Vec::len).sum();
    let mut out = vec![T::default(); total];
    let mut slices = Vec::with_capacity(parts.len());
    let mut rest = &mut out[..];
    for part in &parts {
        let (head, tail) = rest.split_at_mut(part.len());
        slices.push(head);
        rest = tail;
    }
    parts.into_par_iter().zip(slices).for_each(|(part, slice)| slice.copy_from_slice(&part));
    out
}

// ---------------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------------

/// The weight of one edge, as stored.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Weight {
    /// An integer weight.
    U32(u32),
    /// A real weight.
    F32(f32),
}

/// Appends `x` in decimal.
#[inline]
pub(crate) fn push_u32(buf: &mut Vec<u8>, x: u32) {
    buf.extend_from_slice(itoa::Buffer::new().format(x).as_bytes());
}

/// Appends the 1-based number of vertex `v` (widened first, as `v + 1` may not fit a `u32`).
#[inline]
pub(crate) fn push_one_based(buf: &mut Vec<u8>, v: VertexId) {
    buf.extend_from_slice(itoa::Buffer::new().format(u64::from(v) + 1).as_bytes());
}

/// Appends a weight: integers in decimal, reals in the shortest form that reads back as the same `f32`.
#[inline]
pub(crate) fn push_weight(buf: &mut Vec<u8>, w: Weight) {
    match w {
        Weight::U32(x) => push_u32(buf, x),
        Weight::F32(x) => buf.extend_from_slice(ryu::Buffer::new().format(x).as_bytes()),
    }
}

/// Number of edges [`write_edges`] writes: the arcs of a directed graph, the arcs `u -> v` with
/// `u <= v` of an undirected one (as [`Graph::edges`] yields them).
pub(crate) fn count_written_edges(graph: &Graph) -> u64 {
    if graph.is_directed() {
        return graph.num_arcs();
    }
    let csr = graph.out_csr();
    (0..csr.num_vertices() as VertexId)
        .into_par_iter()
        .with_min_len(1024)
        .map(|u| csr.neighbors(u).iter().filter(|&&v| u <= v).count() as u64)
        .sum()
}

/// Arcs formatted by one task.
const WRITE_BLOCK_ARCS: u64 = 1 << 18;

/// Writes `header`, then one line per edge in the order of [`Graph::edges`], formatted by `line`
/// (which gets the buffer, the 0-based endpoints and the weight, and appends a whole line with its
/// `\n`). Blocks of edges are formatted in parallel and written in order.
pub(crate) fn write_edges<F>(graph: &Graph, path: &Path, header: &str, line: F) -> Result<()>
where
    F: Fn(&mut Vec<u8>, VertexId, VertexId, Option<Weight>) + Sync,
{
    write_atomically(path, |file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(header.as_bytes())?;
        let arcs = graph.num_arcs();
        let blocks: Vec<Range<u64>> = (0..arcs.div_ceil(WRITE_BLOCK_ARCS))
            .map(|b| b * WRITE_BLOCK_ARCS..((b + 1) * WRITE_BLOCK_ARCS).min(arcs))
            .collect();
        let group = rayon::current_num_threads() * 2;
        for blocks in blocks.chunks(group) {
            let buffers: Vec<Vec<u8>> =
                blocks.par_iter().map(|range| format_block(graph, range.clone(), &line)).collect();
            for buffer in buffers {
                out.write_all(&buffer)?;
            }
        }
        out.flush()
    })
    .map_err(|e| GraphError::io(path, e))
}

/// Formats the edges among the out-arcs `range` of `graph`.
fn format_block<F>(graph: &Graph, range: Range<u64>, line: &F) -> Vec<u8>
where
    F: Fn(&mut Vec<u8>, VertexId, VertexId, Option<Weight>),
{
    let csr = graph.out_csr();
    let (offsets, targets, weights) = (csr.offsets(), csr.targets(), csr.weights());
    let mut buf = Vec::with_capacity((range.end - range.start) as usize * 16);
    // The source of arc i is the last vertex whose offset is <= i.
    let mut u = offsets.partition_point(|&o| o <= range.start) - 1;
    for i in range {
        while offsets[u + 1] <= i {
            u += 1;
        }
        let v = targets[i as usize];
        if graph.is_directed() || u as VertexId <= v {
            let w = weights.map(|w| match w {
                Weights::U32(w) => Weight::U32(w[i as usize]),
                Weights::F32(w) => Weight::F32(w[i as usize]),
            });
            line(&mut buf, u as VertexId, v, w);
        }
    }
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_end_at_newlines_and_cover_everything() {
        let text = b"1 2\n33 44\n\n555 666\n7 8";
        for size in 1..text.len() + 2 {
            for min in 1..5 {
                let ranges = chunk_ranges(text, size, min);
                assert_eq!(ranges.first().map(|r| r.start), Some(0));
                assert_eq!(ranges.last().map(|r| r.end), Some(text.len()));
                for pair in ranges.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start);
                    assert_eq!(text[pair[0].end - 1], b'\n');
                }
                assert!(ranges.iter().all(|r| r.start < r.end));
            }
        }
    }

    impl Accumulator for u64 {
        fn for_chunk(_: usize) -> Self {
            0
        }
    }

    #[test]
    fn errors_name_the_line_in_the_whole_file_whatever_the_chunking() {
        let mut text = String::new();
        for i in 0..1000 {
            text.push_str(if i == 737 { "x\n" } else { "1\n" });
        }
        for size in [1, 7, 64, 1000, 1 << 20] {
            let err = parse_lines_in_chunks(Path::new("f"), text.as_bytes(), 5, size, |line, n: &mut u64| {
                match line.next_token() {
                    Some(b"1") => {
                        *n += 1;
                        Ok(())
                    }
                    _ => Err("bad".into()),
                }
            });
            match err {
                Err(GraphError::Parse { line, .. }) => assert_eq!(line, 5 + 737, "chunk size {size}"),
                other => panic!("unexpected {other:?}"),
            }
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_u64(b"0"), Ok(0));
        assert_eq!(parse_u64(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), Err(NumError::Overflow));
        assert_eq!(parse_u64(b"184467440737095516160x"), Err(NumError::Invalid));
        assert_eq!(parse_u64(b"-1"), Err(NumError::Invalid));
        assert_eq!(parse_u64(b""), Err(NumError::Invalid));
        assert_eq!(parse_vertex(b"4294967294"), Ok(4294967294));
        assert!(parse_vertex(b"4294967295").unwrap_err().contains("overflows"));
        assert_eq!(parse_index(b"5", "row", 5, "rows"), Ok(4));
        assert!(parse_index(b"6", "row", 5, "rows").unwrap_err().contains("exceeds the declared 5 rows"));
        assert!(parse_weight_u32(b"-3").unwrap_err().contains("negative"));
        assert!(parse_weight_f32(b"nan").unwrap_err().contains("not a number"));
        assert!(parse_weight_f32(b"-inf").unwrap_err().contains("infinite"));
        assert_eq!(parse_weight_f32(b"0.5"), Ok(0.5));
        assert_eq!(show(b"a\x00b\xff"), "a\\0b\u{fffd}");
        assert_eq!(show(&[b'7'; 50]), format!("{}...", "7".repeat(40)));
    }

    #[test]
    fn tokens() {
        let mut line = Line::new(b" \t1\t 22 \r");
        assert_eq!(line.first_byte(), Some(b'1'));
        assert_eq!(line.next_token(), Some(&b"1"[..]));
        assert_eq!(line.next_token(), Some(&b"22"[..]));
        assert_eq!(line.next_token(), None);
        assert_eq!(line.first_byte(), None);
    }

    #[test]
    fn concat_keeps_order() {
        assert_eq!(concat(vec![vec![1u32, 2], vec![], vec![3], vec![4, 5]]), vec![1, 2, 3, 4, 5]);
        assert_eq!(concat::<u32>(vec![]), Vec::<u32>::new());
    }

    /// Parse (best of three), read and write throughput on a generated ~500 MB edge list (size in MB from `SIMDX_THROUGHPUT_MB`). Run with
    /// `RAYON_NUM_THREADS=1 cargo test --release -p simdx-core --lib -- --ignored --nocapture parse_throughput`.
    #[test]
    #[ignore = "a measurement: slow, writes a large file to the temp directory"]
    fn parse_throughput() {
        use std::time::Instant;
        let mb: usize = std::env::var("SIMDX_THROUGHPUT_MB").ok().and_then(|s| s.parse().ok()).unwrap_or(500);
        for (ext, weighted) in [("el", false), ("wel", true)] {
            let path = std::env::temp_dir().join(format!("simdx_parse_throughput_{mb}mb.{ext}"));
            if std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0) < (mb as u64) << 20 {
                write_random_edge_list(&path, mb << 20, weighted);
            }
            let threads = rayon::current_num_threads();
            // The best of three, as the machine may be shared.
            let (mut parse, mut parse_cpu) = (f64::INFINITY, f64::INFINITY);
            for _ in 0..3 {
                let (start, cpu) = (Instant::now(), cpu_seconds());
                let bytes = TextFile::open(&path).unwrap();
                let parsed = crate::io::edgelist::parse(&path, &bytes, weighted).unwrap();
                parse = parse.min(start.elapsed().as_secs_f64());
                parse_cpu = parse_cpu.min(cpu_seconds() - cpu);
                drop(parsed);
            }
            let start = Instant::now();
            let graph = crate::io::read_graph(&path, &Default::default()).unwrap();
            let read = start.elapsed().as_secs_f64();
            let size = std::fs::metadata(&path).unwrap().len() as f64 / 1e6;
            let copy = path.with_extension(format!("out.{ext}"));
            let start = Instant::now();
            crate::io::write_graph(&graph, &copy, None).unwrap();
            let write = start.elapsed().as_secs_f64();
            let written = std::fs::metadata(&copy).unwrap().len() as f64 / 1e6;
            std::fs::remove_file(&copy).unwrap();
            println!(
                ".{ext}: {size:.0} MB, {} edges, {threads} thread(s): parse {parse:.2} s = {:.0} MB/s \
                 ({:.0} MB/s per thread, {:.0} MB per CPU-second); parse + build {read:.2} s = {:.0} MB/s; \
                 write {write:.2} s = {:.0} MB/s",
                graph.num_edges(),
                size / parse,
                size / parse / threads as f64,
                size / parse_cpu,
                size / read,
                written / write,
            );
        }
    }

    /// User + system CPU time of this process so far, from `/proc/self/stat` (0 where there is none).
    fn cpu_seconds() -> f64 {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let fields: Vec<&str> = stat.rsplit(") ").next().unwrap_or("").split(' ').collect();
        let ticks: f64 = fields.get(11..13).map_or(0.0, |f| f.iter().filter_map(|t| t.parse::<f64>().ok()).sum());
        ticks / 100.0
    }

    /// Writes random edges on 2^24 vertices until the file holds `bytes` bytes.
    fn write_random_edge_list(path: &Path, bytes: usize, weighted: bool) {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(path).unwrap());
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut written, mut line) = (0, Vec::new());
        out.write_all(b"# random edges for a throughput test\n").unwrap();
        while written < bytes {
            line.clear();
            let r = next();
            push_u32(&mut line, (r & 0xff_ffff) as u32);
            line.push(b' ');
            push_u32(&mut line, ((r >> 24) & 0xff_ffff) as u32);
            if weighted {
                line.push(b' ');
                push_u32(&mut line, ((r >> 48) % 1000) as u32);
            }
            line.push(b'\n');
            out.write_all(&line).unwrap();
            written += line.len();
        }
        out.flush().unwrap();
    }
}
