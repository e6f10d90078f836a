//! Tests of the `.sxg` binary format: round trips of every graph shape (directed or not, unweighted,
//! `u32` or `f32` weights, empty, isolated vertices) that come back memory-mapped, and a catalogue of
//! damaged or crafted files that must each give a clear error and never a panic.

use std::path::{Path, PathBuf};

use simdx_core::gen::GeneratorSpec;
use simdx_core::io::binary::{self, HEADER_LEN};
use simdx_core::{EdgeList, EdgeWeights, Graph, GraphBuilder, GraphError};
use xxhash_rust::xxh3::xxh3_64;

fn edges(n: usize, pairs: &[(u32, u32)], weights: Option<EdgeWeights>) -> EdgeList {
    EdgeList {
        num_vertices: n,
        src: pairs.iter().map(|p| p.0).collect(),
        dst: pairs.iter().map(|p| p.1).collect(),
        weights,
    }
}

const PAIRS: [(u32, u32); 7] = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 3), (5, 1), (1, 5)];

/// Graphs of every shape: (name, graph).
fn sample_graphs() -> Vec<(String, Graph)> {
    let mut out = Vec::new();
    for directed in [false, true] {
        let b = GraphBuilder::new().directed(directed);
        let u32w = EdgeWeights::U32(vec![4, 8, 15, 16, 23, 42, 7]);
        let f32w = EdgeWeights::F32(vec![0.5, 1.25, 0.0, 3.5, 9.0, 2.0, 1e-3]);
        // Vertices 4, 6 and 7 are isolated.
        out.push((format!("plain directed={directed}"), b.build(edges(8, &PAIRS, None)).unwrap()));
        out.push((format!("u32 directed={directed}"), b.build(edges(8, &PAIRS, Some(u32w))).unwrap()));
        out.push((format!("f32 directed={directed}"), b.build(edges(8, &PAIRS, Some(f32w))).unwrap()));
        out.push((format!("empty directed={directed}"), b.build(edges(0, &[], None)).unwrap()));
        out.push((format!("no edges directed={directed}"), b.build(edges(5, &[], None)).unwrap()));
        out.push((
            format!("weighted, no edges, directed={directed}"),
            b.build(edges(3, &[], Some(EdgeWeights::F32(vec![])))).unwrap(),
        ));
    }
    out.push(("kron:10:w".into(), GeneratorSpec::parse("kron:10:w").unwrap().generate(1).unwrap()));
    out.push(("grid:30x20".into(), GeneratorSpec::parse("grid:30x20").unwrap().generate(1).unwrap()));
    out
}

fn assert_mapped(g: &Graph, name: &str) {
    for csr in [g.out_csr(), g.in_csr()] {
        assert_eq!(csr.heap_bytes(), 0, "{name}: arrays should be memory-mapped, not on the heap");
    }
    assert_eq!(g.heap_bytes(), 0, "{name}");
}

#[test]
fn round_trips_every_shape() {
    let dir = tempfile::tempdir().unwrap();
    for (name, g) in sample_graphs() {
        let path = dir.path().join("g.sxg");
        binary::write(&g, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let back = binary::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, g, "{name}");
        assert_eq!(back.is_directed(), g.is_directed());
        assert_eq!(back.weight_kind(), g.weight_kind());
        assert_eq!(back.num_edges(), g.num_edges());
        assert_mapped(&back, &name);
        // Also through the format-agnostic entry points.
        let path2 = dir.path().join("h.sxg");
        simdx_core::io::write_graph(&g, &path2, None).unwrap();
        let again = simdx_core::io::read_graph(&path2, &Default::default()).unwrap();
        assert_eq!(again, g, "{name} via io::read_graph");
        // No temporary files are left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 2, "{name}: {names:?}");
    }
}

#[test]
fn arrays_are_mapped() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.sxg");
    let g = GraphBuilder::new().directed(true).build(edges(8, &PAIRS, Some(EdgeWeights::U32(vec![1; 7])))).unwrap();
    binary::write(&g, &path).unwrap();
    let back = binary::read(&path).unwrap();
    assert!(back.out_csr().data_bytes() > 0);
    assert_mapped(&back, "directed u32");
}

#[test]
fn overwrites_an_existing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("o.sxg");
    std::fs::write(&path, b"old contents").unwrap();
    let g = GraphBuilder::new().build(edges(4, &PAIRS[..3], None)).unwrap();
    binary::write(&g, &path).unwrap();
    assert_eq!(binary::read(&path).unwrap(), g);
}

#[test]
fn writing_into_a_missing_directory_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing").join("x.sxg");
    let g = GraphBuilder::new().build(edges(4, &PAIRS[..3], None)).unwrap();
    assert!(matches!(binary::write(&g, &path), Err(GraphError::Io { .. })));
}

// ---------------------------------------------------------------------------------------------
// Damaged and crafted files

/// A valid file's bytes: a directed weighted graph, so that every section is present.
fn valid_bytes(dir: &Path) -> Vec<u8> {
    let g = GraphBuilder::new().directed(true).build(edges(8, &PAIRS, Some(EdgeWeights::U32(vec![3; 7])))).unwrap();
    let path = dir.join("valid.sxg");
    binary::write(&g, &path).unwrap();
    std::fs::read(&path).unwrap()
}

fn write_bytes(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Reads `bytes` as a binary graph and returns the error message, checking it is a Binary or File
/// error that names the file.
fn read_error(dir: &Path, bytes: &[u8]) -> (u64, String) {
    let path = write_bytes(dir, "bad.sxg", bytes);
    match binary::read(&path) {
        Ok(_) => panic!("a damaged file was accepted"),
        Err(e) => {
            let text = e.to_string();
            assert!(text.contains("bad.sxg"), "the message '{text}' does not name the file");
            match e {
                GraphError::Binary { offset, message, .. } => (offset, message),
                GraphError::File { message, .. } => (u64::MAX, message),
                other => panic!("expected a Binary or File error, got {other:?}"),
            }
        }
    }
}

fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Recomputes the header checksum (bytes 152..160) after editing the header.
fn reseal_header(b: &mut [u8]) {
    let sum = xxh3_64(&b[..152]);
    put_u64(b, 152, sum);
}

/// Recomputes the payload checksum as the format defines it, then the header checksum.
fn reseal(b: &mut [u8]) {
    let hashes: Vec<u8> = b[HEADER_LEN..].chunks(4 << 20).flat_map(|c| xxh3_64(c).to_le_bytes()).collect();
    put_u64(b, 144, xxh3_64(&hashes));
    reseal_header(b);
}

#[test]
fn the_test_helpers_reproduce_the_writer() {
    let dir = tempfile::tempdir().unwrap();
    let good = valid_bytes(dir.path());
    let mut copy = good.clone();
    reseal(&mut copy);
    assert_eq!(copy, good);
}

#[test]
fn empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let (offset, message) = read_error(dir.path(), b"");
    assert_eq!(offset, 0);
    assert!(message.contains("empty"), "{message}");
}

#[test]
fn wrong_magic() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = valid_bytes(dir.path());
    b[0] = b'X';
    let (offset, message) = read_error(dir.path(), &b);
    assert_eq!(offset, 0);
    assert!(message.contains("not a simdx binary graph"), "{message}");
    // A text file is not mistaken for a graph.
    let (_, message) = read_error(dir.path(), b"%%MatrixMarket matrix coordinate pattern general\n");
    assert!(message.contains("magic"), "{message}");
    let (_, message) = read_error(dir.path(), b"SIM");
    assert!(message.contains("truncated"), "{message}");
}

#[test]
fn only_the_magic() {
    let dir = tempfile::tempdir().unwrap();
    let (offset, message) = read_error(dir.path(), b"SIMDXGR\0");
    assert_eq!(offset, 8);
    assert!(message.contains("truncated") && message.contains("header"), "{message}");
}

#[test]
fn unknown_version() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = valid_bytes(dir.path());
    b[8..12].copy_from_slice(&3u32.to_le_bytes());
    reseal_header(&mut b);
    let (offset, message) = read_error(dir.path(), &b);
    assert_eq!(offset, 8);
    assert!(message.contains("unsupported format version 3") && message.contains("versions 1 to 2"), "{message}");
    b[8..12].copy_from_slice(&0u32.to_le_bytes());
    reseal_header(&mut b);
    let (_, message) = read_error(dir.path(), &b);
    assert!(message.contains("unsupported format version 0"), "{message}");
    // Even without a valid header checksum, the version is what gets reported.
    b[8..12].copy_from_slice(&99u32.to_le_bytes());
    let (_, message) = read_error(dir.path(), &b);
    assert!(message.contains("version 99"), "{message}");
}

#[test]
fn truncated_files() {
    let dir = tempfile::tempdir().unwrap();
    let b = valid_bytes(dir.path());
    let cuts = [
        1,
        7,
        9,
        12,
        100,
        HEADER_LEN - 1,
        HEADER_LEN,
        HEADER_LEN + 1,
        HEADER_LEN + 20,
        b.len() / 2,
        b.len() - 4,
        b.len() - 1,
    ];
    for cut in cuts {
        let (offset, message) = read_error(dir.path(), &b[..cut]);
        assert!(message.contains("truncated"), "cut at {cut}: {message}");
        if cut >= HEADER_LEN {
            assert_eq!(offset, cut as u64, "cut at {cut}: {message}");
            assert!(message.contains(&format!("ends at byte {cut}")), "cut at {cut}: {message}");
            assert!(message.contains(&format!("declares {} bytes", b.len())), "cut at {cut}: {message}");
            assert!(message.contains("are cut"), "cut at {cut}: {message}");
        }
    }
    // Trailing garbage is refused too.
    let mut long = b.clone();
    long.extend_from_slice(&[0; 8]);
    let (offset, message) = read_error(dir.path(), &long);
    assert_eq!(offset, b.len() as u64);
    assert!(message.contains("unexpected bytes"), "{message}");
}

#[test]
fn flipped_payload_byte() {
    let dir = tempfile::tempdir().unwrap();
    let b = valid_bytes(dir.path());
    for at in [HEADER_LEN, HEADER_LEN + 9, b.len() / 2, b.len() - 1] {
        let mut bad = b.clone();
        bad[at] ^= 0x10;
        let (offset, message) = read_error(dir.path(), &bad);
        assert_eq!(offset, HEADER_LEN as u64);
        assert!(message.contains("checksum mismatch: the file is corrupted"), "byte {at}: {message}");
    }
}

#[test]
fn flipped_header_byte() {
    let dir = tempfile::tempdir().unwrap();
    let b = valid_bytes(dir.path());
    for at in [12, 16, 30, 40, 60, 100, 144, 150, 152, 159] {
        let mut bad = b.clone();
        bad[at] ^= 0x01;
        let (offset, message) = read_error(dir.path(), &bad);
        assert_eq!(offset, 152, "byte {at}: {message}");
        assert!(message.contains("header checksum mismatch"), "byte {at}: {message}");
    }
}

#[test]
fn crafted_headers_with_valid_checksums() {
    let dir = tempfile::tempdir().unwrap();
    let b = valid_bytes(dir.path());
    let check = |edit: &dyn Fn(&mut Vec<u8>), expected: &str| {
        let mut bad = b.clone();
        edit(&mut bad);
        reseal_header(&mut bad);
        let (_, message) = read_error(dir.path(), &bad);
        assert!(message.contains(expected), "expected '{expected}' in '{message}'");
    };
    check(&|b| b[12] |= 0x80, "unknown flag bits");
    check(&|b| b[12] = 0b111, "unknown weight kind 3");
    check(&|b| b[12] = 0b010, "section table lists them"); // undirected, but in-CSR sections present
    check(&|b| put_u64(b, 16, u64::MAX), "exceed the limit");
    check(&|b| put_u64(b, 16, 9), "the counts require");
    check(&|b| put_u64(b, 32, u64::MAX), "too many");
    check(&|b| put_u64(b, 32, 1 << 40), "the counts require");
    check(&|b| put_u64(b, 48, 164), "not a multiple of 8");
    check(&|b| put_u64(b, 48, 8), "not a multiple of 8 after the header");
    check(&|b| put_u64(b, 48, u64::MAX - 7), "extends past");
    check(&|b| put_u64(b, 40, 200), "extends past");
    check(
        &|b| {
            let size = get_u64(b, 40);
            put_u64(b, 40, size + (1 << 40));
        },
        "truncated",
    );
}

/// Edits a copy of the valid file `b` with `edit`, seals its checksums again, and checks that reading
/// it is refused with a message containing `expected`.
fn refused_after(dir: &std::path::Path, b: &[u8], edit: &dyn Fn(&mut Vec<u8>), expected: &str) {
    let mut bad = b.to_vec();
    edit(&mut bad);
    reseal(&mut bad);
    let (_, message) = read_error(dir, &bad);
    assert!(message.contains(expected), "expected '{expected}' in '{message}'");
}

/// Finds the section table entry `i` as (offset, length).
fn section(b: &[u8], i: usize) -> (usize, usize) {
    (get_u64(b, 48 + 16 * i) as usize, get_u64(b, 56 + 16 * i) as usize)
}

#[test]
fn crafted_payloads_with_valid_checksums_fail_validation() {
    let dir = tempfile::tempdir().unwrap();
    let b = valid_bytes(dir.path());
    let check = |edit: &dyn Fn(&mut Vec<u8>), expected: &str| refused_after(dir.path(), &b, edit, expected);
    // A target out of range.
    check(
        &|b| {
            let (targets, _) = section(b, 1);
            b[targets..targets + 4].copy_from_slice(&1000u32.to_le_bytes());
        },
        "has neighbour 1000, but there are only 8 vertices",
    );
    // The same in the in-edge CSR.
    check(
        &|b| {
            let (targets, _) = section(b, 4);
            b[targets..targets + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        },
        "invalid in-edge CSR",
    );
    // Offsets that decrease, or point past the targets.
    check(
        &|b| {
            let (offsets, _) = section(b, 0);
            put_u64(b, offsets + 16, 0);
        },
        "offsets decrease",
    );
    check(
        &|b| {
            let (offsets, len) = section(b, 0);
            put_u64(b, offsets + len - 8, 1 << 50);
        },
        "the last offset",
    );
    check(
        &|b| {
            let (offsets, _) = section(b, 0);
            put_u64(b, offsets + 16, 1 << 50);
        },
        "invalid out-edge CSR",
    );
    // An unsorted neighbour list: vertex 1's list is [2, 5]; swap it.
    check(
        &|b| {
            let g = simdx_core::io::binary::read(&write_bytes(dir.path(), "ok.sxg", b)).unwrap();
            let start = g.out_csr().range(1).start;
            let (targets, _) = section(b, 1);
            let at = targets + 4 * start;
            b[at..at + 4].copy_from_slice(&5u32.to_le_bytes());
            b[at + 4..at + 8].copy_from_slice(&2u32.to_le_bytes());
        },
        "not sorted",
    );
    // A wrong edge count for a directed graph.
    check(&|b| put_u64(b, 24, 3), "cannot have 3 edges");
}

#[test]
fn crafted_real_weights_are_validated() {
    let dir = tempfile::tempdir().unwrap();
    let g = GraphBuilder::new().build(edges(4, &PAIRS[..3], Some(EdgeWeights::F32(vec![1.0, 2.0, 3.0])))).unwrap();
    let path = dir.path().join("f.sxg");
    binary::write(&g, &path).unwrap();
    let mut b = std::fs::read(&path).unwrap();
    let (weights, _) = section(&b, 2);
    b[weights..weights + 4].copy_from_slice(&f32::NAN.to_bits().to_le_bytes());
    reseal(&mut b);
    let (offset, message) = read_error(dir.path(), &b);
    assert_eq!(offset, weights as u64);
    assert!(message.contains("finite"), "{message}");
}

#[test]
fn missing_file_is_an_io_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = binary::read(&dir.path().join("nope.sxg")).unwrap_err();
    assert!(matches!(err, GraphError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("nope.sxg"));
}

#[test]
fn every_single_byte_truncation_and_flip_is_caught() {
    // Exhaustive over a small file: no cut or flipped bit may be accepted or panic.
    let dir = tempfile::tempdir().unwrap();
    let b = valid_bytes(dir.path());
    for cut in 0..b.len() {
        read_error(dir.path(), &b[..cut]);
    }
    for at in 0..b.len() {
        let mut bad = b.clone();
        bad[at] ^= 0x04;
        read_error(dir.path(), &bad);
    }
}

#[test]
fn multigraphs_round_trip_and_version_1_files_still_read() {
    use simdx_core::Duplicates;
    let dir = tempfile::tempdir().unwrap();
    let mut pairs = PAIRS.to_vec();
    pairs.extend([(0, 1), (2, 3)]);
    for directed in [false, true] {
        let g = GraphBuilder::new().directed(directed).duplicates(Duplicates::Keep).build(edges(8, &pairs, None));
        let g = g.unwrap();
        let path = dir.path().join("multi.sxg");
        binary::write(&g, &path).unwrap();
        let mut b = std::fs::read(&path).unwrap();
        assert_eq!(b[12] & 0b1000, 0b1000, "the multigraph bit is set");
        assert_eq!(binary::read(&path).unwrap(), g);
        // Without the bit, the duplicates are refused ...
        b[12] &= !0b1000;
        reseal_header(&mut b);
        let (_, message) = read_error(dir.path(), &b);
        assert!(message.contains("more than once"), "{message}");
        // ... except in a version-1 file, which could not say.
        b[8..12].copy_from_slice(&1u32.to_le_bytes());
        reseal_header(&mut b);
        assert_eq!(binary::read(&write_bytes(dir.path(), "v1.sxg", &b)).unwrap(), g);
        // A version-1 file knows no multigraph bit.
        b[12] |= 0b1000;
        reseal_header(&mut b);
        let (_, message) = read_error(dir.path(), &b);
        assert!(message.contains("unknown flag bits 0x8"), "{message}");
    }
}

#[test]
fn crafted_structure_with_valid_checksums_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let b = valid_bytes(dir.path());
    let check = |edit: &dyn Fn(&mut Vec<u8>), expected: &str| refused_after(dir.path(), &b, edit, expected);
    // In-edge weights that differ from the out-edge weights.
    check(
        &|b| {
            let (w, _) = section(b, 5);
            b[w..w + 4].copy_from_slice(&9u32.to_le_bytes());
        },
        "among the in-edges",
    );
    // An in-edge target changed (still sorted): no longer the transpose.
    check(
        &|b| {
            let g = binary::read(&write_bytes(dir.path(), "ok.sxg", b)).unwrap();
            let (targets, _) = section(b, 4);
            let v = (0..8).find(|&v| g.in_neighbors(v) == [1]).unwrap();
            let at = targets + 4 * g.in_csr().range(v).start;
            b[at..at + 4].copy_from_slice(&0u32.to_le_bytes());
        },
        "not the transpose",
    );
}
