//! Property test of every reader against damaged files: valid files of each format (`.mtx`, `.el`,
//! `.wel`, `.gr`, `.sxg`, and `.el` read with `--relabel`) are mutated at random (bytes flipped,
//! inserted or deleted, lines cut, repeated or swapped, numbers replaced by ids near 2^32 and 2^64,
//! negative, real or huge counts), and every read must end in a graph or in an error that names the
//! file: never a panic, an abort or an allocation the file cannot justify. proptest shrinks a failure
//! to a small mutation list, which then belongs in `bad_input.rs` as a regression test.

use std::path::Path;

use proptest::prelude::*;
use simdx_core::gen::GeneratorSpec;
use simdx_core::io::{read_graph, write_graph, Format, ReadOptions};

/// Replacement tokens that readers must survive in place of any token.
const TOKENS: [&str; 12] = [
    "4294967294",
    "4294967295",
    "18446744073709551615",
    "18446744073709551616",
    "-1",
    "0",
    "1e300",
    "nan",
    "99999999999999999999999999",
    "400000000",
    "",
    "x",
];

/// One change to a file's bytes; positions are taken modulo the length.
#[derive(Debug, Clone)]
enum Mutation {
    Flip(usize, u8),
    Insert(usize, u8),
    Delete(usize, usize),
    Truncate(usize),
    RepeatLine(usize),
    SwapLines(usize, usize),
    ReplaceToken(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), prop::sample::select(b" \t\n-.0123456789%#eEp".to_vec()))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Mutation::Delete(i, n)),
        any::<usize>().prop_map(Mutation::Truncate),
        any::<usize>().prop_map(Mutation::RepeatLine),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<usize>(), 0..TOKENS.len()).prop_map(|(i, t)| Mutation::ReplaceToken(i, t)),
    ]
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let len = bytes.len().max(1);
    let lines = |bytes: &[u8]| -> Vec<Vec<u8>> { bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect() };
    match *m {
        Mutation::Flip(i, b) if !bytes.is_empty() => bytes[i % len] ^= b | 1,
        Mutation::Insert(i, b) => bytes.insert(i % (bytes.len() + 1), b),
        Mutation::Delete(i, n) if !bytes.is_empty() => {
            let start = i % len;
            bytes.drain(start..(start + n).min(bytes.len()));
        }
        Mutation::Truncate(i) => bytes.truncate(i % len),
        Mutation::RepeatLine(i) => {
            let mut all = lines(bytes);
            let k = i % all.len();
            all.insert(k, all[k].clone());
            *bytes = all.join(&b'\n');
        }
        Mutation::SwapLines(a, b) => {
            let mut all = lines(bytes);
            let n = all.len();
            all.swap(a % n, b % n);
            *bytes = all.join(&b'\n');
        }
        Mutation::ReplaceToken(i, t) => {
            // The i-th token (modulo their count) becomes TOKENS[t].
            let starts: Vec<usize> = (0..bytes.len())
                .filter(|&k| !bytes[k].is_ascii_whitespace() && (k == 0 || bytes[k - 1].is_ascii_whitespace()))
                .collect();
            if let Some(&start) = starts.get(i % starts.len().max(1)) {
                let end = (start..bytes.len()).find(|&k| bytes[k].is_ascii_whitespace()).unwrap_or(bytes.len());
                bytes.splice(start..end, TOKENS[t].bytes());
            }
        }
        _ => {}
    }
}

/// A valid file of `format` holding a small graph, weighted where the format holds weights, as bytes.
fn valid_file(format: Format, dir: &Path) -> Vec<u8> {
    let spec = if format == Format::EdgeList { "kron:6" } else { "kron:6:w" };
    let graph = GeneratorSpec::parse(spec).unwrap().generate(3).unwrap();
    let path = dir.join(format!("valid.{}", format.extension()));
    write_graph(&graph, &path, Some(format)).unwrap();
    std::fs::read(path).unwrap()
}

/// Reads `bytes` as a file of `format` (relabelling its ids if asked): a graph, or an error naming the
/// file; no graph larger than the bytes can describe.
fn read_back(dir: &Path, format: Format, relabel: bool, bytes: &[u8]) -> Result<(), TestCaseError> {
    let path = dir.join(format!("mutated.{}", format.extension()));
    std::fs::write(&path, bytes).unwrap();
    let options = ReadOptions { relabel, ..ReadOptions::default() };
    match read_graph(&path, &options) {
        Ok(graph) => {
            // Ids above the edges' count are refused as sparse beyond 4M vertices (16M for headers).
            prop_assert!(
                graph.num_vertices() <= 1 << 24,
                "{} vertices from {} bytes",
                graph.num_vertices(),
                bytes.len()
            );
        }
        Err(e) => {
            let message = e.to_string();
            prop_assert!(message.contains("mutated."), "the error names the file: {message}");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn damaged_files_give_a_graph_or_an_error_naming_the_file(
        which in 0usize..6,
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (format, relabel) = [
            (Format::MatrixMarket, false),
            (Format::EdgeList, false),
            (Format::WeightedEdgeList, false),
            (Format::Dimacs, false),
            (Format::Binary, false),
            (Format::EdgeList, true),
        ][which];
        let mut bytes = valid_file(format, dir.path());
        for m in &mutations {
            apply(&mut bytes, m);
        }
        read_back(dir.path(), format, relabel, &bytes)?;
    }
}
