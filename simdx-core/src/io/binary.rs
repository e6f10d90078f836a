//! simdx's own binary graph format (`.sxg`): the CSR arrays exactly as they lie in memory, behind a
//! versioned, checksummed header, so that a graph loads at disk speed — [`read`] memory-maps the file
//! and the graph's arrays point straight into the map, with no parsing and no copy.
//!
//! # Layout (version 2)
//!
//! Every number is little-endian. The file is a 160-byte header followed by the payload:
//!
//! | byte | size | field |
//! |---:|---:|---|
//! | 0 | 8 | magic `b"SIMDXGR\0"` |
//! | 8 | 4 | format version, `u32` = 2 (1 is still read) |
//! | 12 | 4 | flags, `u32`: bit 0 = directed; bits 1-2 = weight kind (0 none, 1 `u32`, 2 `f32`); bit 3 = multigraph (some neighbour list repeats a target: the graph was built keeping duplicate edges); other bits 0 |
//! | 16 | 8 | vertex count `n`, `u64` |
//! | 24 | 8 | edge count ([`Graph::num_edges`]), `u64` |
//! | 32 | 8 | arc count `m` (out-CSR targets), `u64` |
//! | 40 | 8 | total file size in bytes, `u64` |
//! | 48 | 96 | section table: 6 × (byte offset `u64`, byte length `u64`) |
//! | 144 | 8 | payload checksum, `u64` (below) |
//! | 152 | 8 | header checksum: xxh3-64 of bytes 0..152, `u64` |
//! | 160 | | payload: the sections, each starting at a multiple of 8, zero padding between |
//!
//! The sections, in table order: out-CSR offsets (`n + 1` × `u64`), out-CSR targets (`m` × `u32`),
//! out-CSR weights (`m` × `u32`, or `f32` bits), and for a directed graph the in-CSR offsets, targets
//! and weights likewise. A section the graph does not have (weights of an unweighted graph, the
//! in-CSR of an undirected one) is `(0, 0)` in the table. The writer places the sections in table
//! order right after the header; the reader accepts any 8-aligned placement inside the file.
//!
//! Version 1 is the same layout without the multigraph bit: a version-1 file may hold duplicate arcs
//! (it could not say whether it was built keeping duplicates), a version-2 file only when bit 3 is set.
//!
//! The payload checksum covers every byte from 160 to the end of the file: the payload is cut into
//! 4 MiB blocks (the last one shorter), each block hashed with xxh3-64, and the checksum is the
//! xxh3-64 of those hashes written one after another as little-endian `u64`s. Blocks hash in
//! parallel, so verification runs at memory speed.
//!
//! # Reading
//!
//! [`read`] checks, in order: the magic, the version (an unknown one is refused), the header
//! checksum, the flags and counts, the section table against the counts, the file size (a truncated
//! file names the byte where it ends and the section cut), the payload checksum, the offsets of each
//! CSR ([`Csr::check_offsets`]: monotone, ending at the arc count) and its real weights (finite and
//! non-negative), and last, in one parallel pass over the arcs, the structure of the whole graph
//! ([`Graph::check_structure`]): neighbour lists sorted with targets below `n` (so a crafted file that
//! passes the checksum still cannot make later code index out of bounds), no duplicate arcs unless
//! the multigraph bit says so, an edge count that agrees with the arcs, an undirected graph symmetric
//! with equal weights both ways, a directed graph whose in-edges (and their weights) are the
//! transpose of its out-edges. A file that failed that last pass would give answers that depend on
//! push or pull; what the pass costs is in BENCHMARKS.md ("Graph construction and I/O"). Big-endian
//! hosts are refused.
//!
//! Memory-mapped data is only as stable as the file: do not modify or truncate a `.sxg` file while a
//! graph read from it is alive.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Arc;

use memmap2::Mmap;
use rayon::prelude::*;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

use super::atomic_file::write_atomically;
use crate::error::{GraphError, Result};
use crate::graph::array::{Array, Element};
use crate::graph::csr::Csr;
use crate::graph::weights::{WeightKind, Weights};
use crate::Graph;

/// The first eight bytes of every simdx binary graph.
pub const MAGIC: [u8; 8] = *b"SIMDXGR\0";

/// The format version this build writes.
pub const VERSION: u32 = 2;

/// The oldest format version this build reads.
pub const OLDEST_VERSION: u32 = 1;

/// Size of the header in bytes; the payload starts here.
pub const HEADER_LEN: usize = 160;

/// Size of the blocks the payload checksum hashes separately.
const CHECKSUM_BLOCK: usize = 4 << 20;

const FLAG_DIRECTED: u32 = 1;
const WEIGHT_SHIFT: u32 = 1;
const WEIGHT_MASK: u32 = 0b11 << WEIGHT_SHIFT;
/// Since version 2: neighbour lists may repeat a target.
const FLAG_MULTIGRAPH: u32 = 1 << 3;

/// Byte offsets of the header fields.
mod field {
    pub const VERSION: usize = 8;
    pub const FLAGS: usize = 12;
    pub const VERTICES: usize = 16;
    pub const EDGES: usize = 24;
    pub const ARCS: usize = 32;
    pub const FILE_SIZE: usize = 40;
    pub const SECTIONS: usize = 48;
    pub const PAYLOAD_CHECKSUM: usize = 144;
    pub const HEADER_CHECKSUM: usize = 152;
}

const NUM_SECTIONS: usize = 6;
const SECTION_NAMES: [&str; NUM_SECTIONS] = [
    "out-edge offsets",
    "out-edge targets",
    "out-edge weights",
    "in-edge offsets",
    "in-edge targets",
    "in-edge weights",
];

/// `(byte offset, byte length)` of a section in the file; `(0, 0)` for an absent one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Section {
    offset: u64,
    len: u64,
}

impl Section {
    fn end(self) -> u64 {
        self.offset + self.len
    }
}

/// The decoded header.
#[derive(Debug, Clone)]
struct Header {
    version: u32,
    directed: bool,
    /// Duplicate arcs are allowed: the multigraph bit (version 2), or any version-1 file.
    multigraph: bool,
    weights: Option<WeightKind>,
    num_vertices: u64,
    num_edges: u64,
    num_arcs: u64,
    file_size: u64,
    sections: [Section; NUM_SECTIONS],
    payload_checksum: u64,
}

impl Header {
    fn flags(&self) -> u32 {
        let kind = match self.weights {
            None => 0,
            Some(WeightKind::U32) => 1,
            Some(WeightKind::F32) => 2,
        };
        (u32::from(self.directed) * FLAG_DIRECTED)
            | (kind << WEIGHT_SHIFT)
            | (u32::from(self.multigraph) * FLAG_MULTIGRAPH)
    }

    /// The header bytes, with the header checksum filled in.
    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..8].copy_from_slice(&MAGIC);
        h[field::VERSION..field::VERSION + 4].copy_from_slice(&self.version.to_le_bytes());
        h[field::FLAGS..field::FLAGS + 4].copy_from_slice(&self.flags().to_le_bytes());
        put_u64(&mut h, field::VERTICES, self.num_vertices);
        put_u64(&mut h, field::EDGES, self.num_edges);
        put_u64(&mut h, field::ARCS, self.num_arcs);
        put_u64(&mut h, field::FILE_SIZE, self.file_size);
        for (i, s) in self.sections.iter().enumerate() {
            put_u64(&mut h, field::SECTIONS + 16 * i, s.offset);
            put_u64(&mut h, field::SECTIONS + 16 * i + 8, s.len);
        }
        put_u64(&mut h, field::PAYLOAD_CHECKSUM, self.payload_checksum);
        let sum = xxh3_64(&h[..field::HEADER_CHECKSUM]);
        put_u64(&mut h, field::HEADER_CHECKSUM, sum);
        h
    }
}

fn put_u64(buf: &mut [u8], at: usize, value: u64) {
    buf[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

fn get_u64(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(b)
}

fn get_u32(buf: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&buf[at..at + 4]);
    u32::from_le_bytes(b)
}

fn align8(x: u64) -> u64 {
    x.div_ceil(8) * 8
}

/// The byte lengths the six sections must have for these counts (`None` for an absent section), or
/// `None` overall when the sizes overflow.
fn expected_lengths(directed: bool, weighted: bool, n: u64, m: u64) -> Option<[Option<u64>; NUM_SECTIONS]> {
    let offsets = n.checked_add(1)?.checked_mul(8)?;
    let targets = m.checked_mul(4)?;
    let weights = weighted.then_some(targets);
    let inc = |x: Option<u64>| if directed { x } else { None };
    Some([Some(offsets), Some(targets), weights, inc(Some(offsets)), inc(Some(targets)), inc(weights)])
}

fn binary_err(path: &Path, offset: u64, message: impl Into<String>) -> GraphError {
    GraphError::Binary { path: path.to_path_buf(), offset, message: message.into() }
}

fn refuse_big_endian(path: &Path) -> Result<()> {
    if cfg!(target_endian = "big") {
        return Err(GraphError::file(
            path,
            "simdx binary graphs are little-endian and this host is big-endian; use a text format (.mtx, .el, .gr) instead",
        ));
    }
    Ok(())
}

// ------------------------------------------------------------------------------------------------
// Writing

/// A writer that hashes the payload in [`CHECKSUM_BLOCK`]-byte blocks as it passes through.
struct HashingWriter<W: Write> {
    inner: W,
    block: Xxh3,
    in_block: usize,
    block_hashes: Vec<u8>,
    written: u64,
}

impl<W: Write> HashingWriter<W> {
    fn new(inner: W) -> Self {
        HashingWriter { inner, block: Xxh3::new(), in_block: 0, block_hashes: Vec::new(), written: 0 }
    }

    fn hash(&mut self, mut buf: &[u8]) {
        while !buf.is_empty() {
            let take = buf.len().min(CHECKSUM_BLOCK - self.in_block);
            self.block.update(&buf[..take]);
            self.in_block += take;
            buf = &buf[take..];
            if self.in_block == CHECKSUM_BLOCK {
                self.block_hashes.extend_from_slice(&self.block.digest().to_le_bytes());
                self.block.reset();
                self.in_block = 0;
            }
        }
    }

    /// The payload checksum and the inner writer.
    fn finish(mut self) -> (u64, W) {
        if self.in_block > 0 {
            self.block_hashes.extend_from_slice(&self.block.digest().to_le_bytes());
        }
        (xxh3_64(&self.block_hashes), self.inner)
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes `data` as little-endian bytes, converting a slice of elements at a time.
fn write_le<T: Copy, const N: usize>(
    w: &mut impl Write,
    data: &[T],
    to_le: impl Fn(T) -> [u8; N],
) -> std::io::Result<()> {
    let mut buf = vec![0u8; (1 << 20).min(data.len() * N)];
    for chunk in data.chunks(buf.len() / N.max(1) + usize::from(buf.is_empty())) {
        let bytes = &mut buf[..chunk.len() * N];
        for (dst, &x) in bytes.chunks_exact_mut(N).zip(chunk) {
            dst.copy_from_slice(&to_le(x));
        }
        w.write_all(bytes)?;
    }
    Ok(())
}

/// Zero bytes up to the next multiple of 8 of the payload position.
fn pad8<W: Write>(w: &mut HashingWriter<W>) -> std::io::Result<()> {
    let pos = HEADER_LEN as u64 + w.written;
    let pad = (align8(pos) - pos) as usize;
    w.write_all(&[0u8; 8][..pad])
}

/// A temporary file beside the destination, removed on drop unless it was renamed into place.
/// Writes `graph` to `path` in the binary format. The data goes to a temporary file in the same
/// directory, is synced to disk, and is then renamed over `path`, so that a crash or an error never
/// leaves a partial file under the final name.
pub fn write(graph: &Graph, path: &Path) -> Result<()> {
    refuse_big_endian(path)?;
    let mut header = plan_layout(graph).ok_or_else(|| GraphError::file(path, "the graph is too large to write"))?;
    write_atomically(path, |file| {
        let mut out = BufWriter::with_capacity(8 << 20, &mut *file);
        out.write_all(&[0u8; HEADER_LEN])?;
        let mut w = HashingWriter::new(out);
        write_payload(graph, &mut w)?;
        debug_assert_eq!(HEADER_LEN as u64 + w.written, header.file_size);
        let (checksum, out) = w.finish();
        header.payload_checksum = checksum;
        out.into_inner().map_err(|e| e.into_error())?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header.encode())
    })
    .map_err(|e| GraphError::io(path, e))
}

/// The header of `graph`'s file, sections placed in table order after the header (checksum unset).
fn plan_layout(graph: &Graph) -> Option<Header> {
    let n = graph.num_vertices() as u64;
    let m = graph.num_arcs();
    let lengths = expected_lengths(graph.is_directed(), graph.is_weighted(), n, m)?;
    let mut sections = [Section::default(); NUM_SECTIONS];
    let mut pos = HEADER_LEN as u64;
    for (s, len) in sections.iter_mut().zip(lengths) {
        if let Some(len) = len {
            pos = align8(pos);
            *s = Section { offset: pos, len };
            pos += len;
        }
    }
    Some(Header {
        version: VERSION,
        directed: graph.is_directed(),
        multigraph: graph.has_duplicate_arcs(),
        weights: graph.weight_kind(),
        num_vertices: n,
        num_edges: graph.num_edges(),
        num_arcs: m,
        file_size: pos,
        sections,
        payload_checksum: 0,
    })
}

fn write_csr<W: Write>(csr: &Csr, w: &mut HashingWriter<W>) -> std::io::Result<()> {
    pad8(w)?;
    write_le(w, csr.offsets(), u64::to_le_bytes)?;
    pad8(w)?;
    write_le(w, csr.targets(), u32::to_le_bytes)?;
    match csr.weights() {
        None => {}
        Some(Weights::U32(x)) => {
            pad8(w)?;
            write_le(w, x, u32::to_le_bytes)?;
        }
        Some(Weights::F32(x)) => {
            pad8(w)?;
            write_le(w, x, |v: f32| v.to_bits().to_le_bytes())?;
        }
    }
    Ok(())
}

fn write_payload<W: Write>(graph: &Graph, w: &mut HashingWriter<W>) -> std::io::Result<()> {
    write_csr(graph.out_csr(), w)?;
    if graph.is_directed() {
        write_csr(graph.in_csr(), w)?;
    }
    w.flush()
}

// ------------------------------------------------------------------------------------------------
// Reading

/// Reads a binary graph, memory-mapping the file so that the graph's arrays point into the map.
/// See the [module docs](self) for what is checked; every problem is a [`GraphError::Binary`] naming
/// the byte offset, or a [`GraphError::Io`].
pub fn read(path: &Path) -> Result<Graph> {
    refuse_big_endian(path)?;
    let file = File::open(path).map_err(|e| GraphError::io(path, e))?;
    let len = file.metadata().map_err(|e| GraphError::io(path, e))?.len();
    if len == 0 {
        return Err(binary_err(path, 0, "the file is empty, not a simdx binary graph"));
    }
    // SAFETY: the map is read-only and private to this process. Its contents are only ever read as
    // plain bytes and numbers (every bit pattern valid) after the bounds checks below. Like every
    // memory-mapped reader we rely on the file not being truncated or rewritten while the graph is
    // alive (documented in the module docs); that is outside what Rust can check.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| GraphError::io(path, e))?;
    let map = Arc::new(map);
    let bytes: &[u8] = &map;
    let header = decode_header(path, bytes)?;
    check_size(path, &header, bytes.len() as u64)?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::WillNeed);
    verify_payload(path, &header, bytes)?;
    build_graph(path, &header, &map)
}

/// Checks magic, version, header checksum, flags, counts and the section table.
fn decode_header(path: &Path, bytes: &[u8]) -> Result<Header> {
    let len = bytes.len();
    let magic_len = len.min(MAGIC.len());
    if bytes[..magic_len] != MAGIC[..magic_len] {
        return Err(binary_err(
            path,
            0,
            "not a simdx binary graph: the file does not start with the magic bytes \"SIMDXGR\\0\"",
        ));
    }
    if len < field::VERSION + 4 {
        return Err(binary_err(
            path,
            len as u64,
            format!("the file is truncated: it ends at byte {len}, inside the {HEADER_LEN}-byte header"),
        ));
    }
    let version = get_u32(bytes, field::VERSION);
    if !(OLDEST_VERSION..=VERSION).contains(&version) {
        return Err(binary_err(
            path,
            field::VERSION as u64,
            format!(
                "unsupported format version {version}: this build of simdx reads versions {OLDEST_VERSION} to \
                 {VERSION} (was the file written by a newer simdx?)"
            ),
        ));
    }
    if len < HEADER_LEN {
        return Err(binary_err(
            path,
            len as u64,
            format!("the file is truncated: it ends at byte {len}, inside the {HEADER_LEN}-byte header"),
        ));
    }
    let h = &bytes[..HEADER_LEN];
    let stored = get_u64(h, field::HEADER_CHECKSUM);
    if xxh3_64(&h[..field::HEADER_CHECKSUM]) != stored {
        return Err(binary_err(
            path,
            field::HEADER_CHECKSUM as u64,
            "header checksum mismatch: the header is corrupted",
        ));
    }
    let flags = get_u32(h, field::FLAGS);
    let known = FLAG_DIRECTED | WEIGHT_MASK | if version >= 2 { FLAG_MULTIGRAPH } else { 0 };
    if flags & !known != 0 {
        return Err(binary_err(
            path,
            field::FLAGS as u64,
            format!("unknown flag bits {:#x} in the header of a version-{version} file", flags & !known),
        ));
    }
    let multigraph = version == 1 || flags & FLAG_MULTIGRAPH != 0;
    let weights = match (flags & WEIGHT_MASK) >> WEIGHT_SHIFT {
        0 => None,
        1 => Some(WeightKind::U32),
        2 => Some(WeightKind::F32),
        k => return Err(binary_err(path, field::FLAGS as u64, format!("unknown weight kind {k} in the header"))),
    };
    let directed = flags & FLAG_DIRECTED != 0;
    let num_vertices = get_u64(h, field::VERTICES);
    if num_vertices > crate::MAX_VERTICES as u64 {
        return Err(binary_err(
            path,
            field::VERTICES as u64,
            format!("{num_vertices} vertices exceed the limit of {} (vertex ids are u32)", crate::MAX_VERTICES),
        ));
    }
    let num_edges = get_u64(h, field::EDGES);
    let num_arcs = get_u64(h, field::ARCS);
    let file_size = get_u64(h, field::FILE_SIZE);
    let mut sections = [Section::default(); NUM_SECTIONS];
    for (i, s) in sections.iter_mut().enumerate() {
        *s = Section { offset: get_u64(h, field::SECTIONS + 16 * i), len: get_u64(h, field::SECTIONS + 16 * i + 8) };
    }
    let lengths = expected_lengths(directed, weights.is_some(), num_vertices, num_arcs)
        .ok_or_else(|| binary_err(path, field::ARCS as u64, format!("{num_arcs} arcs are too many for any file")))?;
    for (i, (s, expected)) in sections.iter().zip(lengths).enumerate() {
        let at = (field::SECTIONS + 16 * i) as u64;
        let name = SECTION_NAMES[i];
        match expected {
            None if *s != Section::default() => {
                return Err(binary_err(path, at, format!("the graph has no {name}, but the section table lists them")));
            }
            None => {}
            Some(expected) => {
                if s.len != expected {
                    return Err(binary_err(
                        path,
                        at,
                        format!("the {name} section is {} bytes, but the counts require {expected}", s.len),
                    ));
                }
                if s.offset % 8 != 0 || s.offset < HEADER_LEN as u64 {
                    return Err(binary_err(
                        path,
                        at,
                        format!("the {name} section starts at byte {}, not a multiple of 8 after the header", s.offset),
                    ));
                }
                if s.offset.checked_add(s.len).map_or(true, |end| end > file_size) {
                    return Err(binary_err(
                        path,
                        at,
                        format!(
                            "the {name} section (byte {}, {} bytes) extends past the declared file size {file_size}",
                            s.offset, s.len
                        ),
                    ));
                }
            }
        }
    }
    let payload_checksum = get_u64(h, field::PAYLOAD_CHECKSUM);
    Ok(Header {
        version,
        directed,
        multigraph,
        weights,
        num_vertices,
        num_edges,
        num_arcs,
        file_size,
        sections,
        payload_checksum,
    })
}

/// Checks the real file size against the declared one.
fn check_size(path: &Path, header: &Header, len: u64) -> Result<()> {
    if len < header.file_size {
        let cut = header
            .sections
            .iter()
            .zip(SECTION_NAMES)
            .find(|(s, _)| s.len > 0 && s.end() > len)
            .map(|(s, name)| format!("; the {name} (bytes {}..{}) are cut", s.offset, s.end()))
            .unwrap_or_default();
        return Err(binary_err(
            path,
            len,
            format!(
                "the file is truncated: it ends at byte {len}, but the header declares {} bytes{cut}",
                header.file_size
            ),
        ));
    }
    if len > header.file_size {
        return Err(binary_err(
            path,
            header.file_size,
            format!("{} unexpected bytes after the declared end of the file", len - header.file_size),
        ));
    }
    Ok(())
}

/// The payload checksum of `payload` (see the module docs), computed in parallel.
fn payload_checksum(payload: &[u8]) -> u64 {
    let hashes: Vec<u64> = payload.par_chunks(CHECKSUM_BLOCK).map(xxh3_64).collect();
    let bytes: Vec<u8> = hashes.iter().flat_map(|h| h.to_le_bytes()).collect();
    xxh3_64(&bytes)
}

fn verify_payload(path: &Path, header: &Header, bytes: &[u8]) -> Result<()> {
    let end = header.file_size as usize;
    if payload_checksum(&bytes[HEADER_LEN..end]) != header.payload_checksum {
        return Err(binary_err(
            path,
            HEADER_LEN as u64,
            format!(
                "checksum mismatch: the file is corrupted (bytes {HEADER_LEN}..{end} do not match the checksum stored at byte {})",
                field::PAYLOAD_CHECKSUM
            ),
        ));
    }
    Ok(())
}

fn mapped<T: Element>(path: &Path, map: &Arc<Mmap>, section: Section, name: &str) -> Result<Array<T>> {
    let len = section.len as usize / std::mem::size_of::<T>();
    Array::mapped(Arc::clone(map), section.offset as usize, len).ok_or_else(|| {
        binary_err(path, section.offset, format!("the {name} section is out of bounds or misaligned in memory"))
    })
}

/// Views the CSR whose sections start at table index `first` and validates its offsets and real weights.
fn mapped_csr(path: &Path, header: &Header, map: &Arc<Mmap>, first: usize) -> Result<Csr> {
    let s = &header.sections;
    let offsets = mapped::<u64>(path, map, s[first], SECTION_NAMES[first])?;
    let targets = mapped::<u32>(path, map, s[first + 1], SECTION_NAMES[first + 1])?;
    let weights = match header.weights {
        None => None,
        Some(WeightKind::U32) => Some(Weights::U32(mapped(path, map, s[first + 2], SECTION_NAMES[first + 2])?)),
        Some(WeightKind::F32) => {
            let w: Array<f32> = mapped(path, map, s[first + 2], SECTION_NAMES[first + 2])?;
            let bad = |x: &f32| !x.is_finite() || *x < 0.0;
            // A reduction first: `position_first` costs over ten times as much a weight (measurements:
            // BENCHMARKS.md, "Graph construction and I/O").
            let any_bad = w.par_iter().with_min_len(1 << 16).map(bad).reduce(|| false, |a, b| a | b);
            if let Some(i) = any_bad.then(|| w.iter().position(bad)).flatten() {
                return Err(binary_err(
                    path,
                    s[first + 2].offset + 4 * i as u64,
                    format!("arc {i} has weight {}; real weights must be finite and >= 0", w[i]),
                ));
            }
            Some(Weights::F32(w))
        }
    };
    let which = if first == 0 { "out-edge" } else { "in-edge" };
    // The targets are checked with the rest of the structure, in one pass ([`Graph::check_structure`]).
    let csr = Csr::new(offsets, targets, weights);
    csr.check_offsets().map_err(|e| binary_err(path, s[first].offset, format!("invalid {which} CSR: {e}")))?;
    Ok(csr)
}

fn build_graph(path: &Path, header: &Header, map: &Arc<Mmap>) -> Result<Graph> {
    let out = mapped_csr(path, header, map, 0)?;
    let incoming = if header.directed { Some(mapped_csr(path, header, map, 3)?) } else { None };
    let graph = Graph::from_csr(header.directed, header.num_edges, out, incoming)
        .map_err(|e| binary_err(path, field::EDGES as u64, format!("inconsistent graph: {e}")))?;
    graph.check_structure(header.multigraph).map_err(|e| GraphError::file(path, e.to_string()))?;
    Ok(graph)
}
