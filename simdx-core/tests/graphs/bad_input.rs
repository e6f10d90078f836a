//! Malformed text graph files: every one must give an error naming the file, the line and the
//! problem, and none may panic.

use std::path::PathBuf;

use proptest::prelude::*;
use simdx_core::io::{read_graph, write_graph, ReadOptions};
use simdx_core::GraphError;

fn write(dir: &tempfile::TempDir, name: &str, content: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// Reads `content` as the file `name` and checks that it fails at `line` with a message containing
/// `phrase`, and that the whole error text names the file and the line.
#[track_caller]
fn parse_error(name: &str, content: &str, line: u64, phrase: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, name, content.as_bytes());
    match read_graph(&path, &ReadOptions::default()) {
        Err(err @ GraphError::Parse { .. }) => {
            let GraphError::Parse { path: p, line: l, message } = &err else { unreachable!() };
            assert_eq!(p, &path);
            assert_eq!(*l, line, "wrong line for {name}: {err}");
            assert!(message.contains(phrase), "'{message}' lacks '{phrase}'");
            let text = err.to_string();
            assert!(text.contains(name) && text.contains(&format!(":{line}: ")), "{text}");
        }
        other => panic!("{name}: expected a parse error at line {line} ({phrase}), got {other:?}"),
    }
}

/// Like [`parse_error`] for problems of the file as a whole ([`GraphError::File`]).
#[track_caller]
fn file_error(name: &str, content: &[u8], phrase: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, name, content);
    match read_graph(&path, &ReadOptions::default()) {
        Err(err @ GraphError::File { .. }) => {
            let text = err.to_string();
            assert!(text.contains(name) && text.contains(phrase), "'{text}' lacks the file name or '{phrase}'");
        }
        other => panic!("{name}: expected a file error ({phrase}), got {other:?}"),
    }
}

const MTX: &str = "%%MatrixMarket matrix coordinate integer general\n";

// ----- Matrix Market header -----------------------------------------------------------------------

#[test]
fn mtx_missing_header() {
    parse_error("g.mtx", "3 3 1\n1 2 5\n", 1, "missing the Matrix Market header line");
    parse_error("g.mtx", "% just a comment\n3 3 1\n1 2\n", 1, "missing the Matrix Market header line");
}

#[test]
fn mtx_incomplete_or_unknown_header() {
    parse_error("g.mtx", "%%MatrixMarket matrix coordinate\n1 1 0\n", 1, "lacks the field");
    parse_error("g.mtx", "%%MatrixMarket matrix coordinate pattern\n1 1 0\n", 1, "lacks the symmetry");
    parse_error("g.mtx", "%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "unknown format 'sparse'");
    parse_error("g.mtx", "%%MatrixMarket matrix coordinate boolean general\n", 1, "unknown field 'boolean'");
    parse_error("g.mtx", "%%MatrixMarket vector coordinate real general\n", 1, "object 'vector' is not supported");
    parse_error("g.mtx", "%%MatrixMarket matrix coordinate real general extra\n", 1, "unexpected extra column 'extra'");
}

#[test]
fn mtx_unsupported_features() {
    parse_error(
        "g.mtx",
        "%%MatrixMarket matrix array real general\n2 2\n",
        1,
        "'array' (dense) format is not supported",
    );
    parse_error("g.mtx", "%%MatrixMarket matrix coordinate complex general\n", 1, "'complex' field is not supported");
    parse_error(
        "g.mtx",
        "%%MatrixMarket matrix coordinate real hermitian\n",
        1,
        "'hermitian' symmetry is not supported",
    );
    parse_error(
        "g.mtx",
        "%%MatrixMarket matrix coordinate real Skew-Symmetric\n",
        1,
        "'skew-symmetric' symmetry is not supported",
    );
}

#[test]
fn mtx_bad_size_line() {
    parse_error("g.mtx", &format!("{MTX}% c\n3 3\n"), 3, "missing the number of entries");
    parse_error("g.mtx", &format!("{MTX}3 x 1\n"), 2, "expected the number of columns, found 'x'");
    parse_error("g.mtx", &format!("{MTX}3 3 1 9\n"), 2, "unexpected extra column '9'");
    file_error("g.mtx", format!("{MTX}% only comments\n").as_bytes(), "ends before the size line");
    parse_error(
        "g.mtx",
        "%%MatrixMarket matrix coordinate pattern symmetric\n3 4 0\n",
        2,
        "a symmetric matrix must be square",
    );
}

#[test]
fn mtx_matrix_too_large_for_u32_ids() {
    parse_error(
        "big.mtx",
        &format!("{MTX}5000000000 2 0\n"),
        2,
        "the matrix has 5000000000 rows, more than the 4294967295 vertices simdx supports",
    );
    parse_error("big.mtx", &format!("{MTX}2 4294967296 0\n"), 2, "the matrix has 4294967296 columns");
}

// ----- Matrix Market entries ----------------------------------------------------------------------

#[test]
fn mtx_non_numeric_tokens() {
    parse_error("g.mtx", &format!("{MTX}3 3 2\n1 2 4\n2 x 4\n"), 4, "expected a column index, found 'x'");
    parse_error("g.mtx", &format!("{MTX}3 3 2\n1 2 4\n-2 1 4\n"), 4, "expected a row index, found '-2'");
    parse_error("g.mtx", &format!("{MTX}3 3 1\n1 2 heavy\n"), 3, "expected an integer weight, found 'heavy'");
    parse_error("g.mtx", &format!("{MTX}3 3 1\n1 2 1.5\n"), 3, "expected an integer weight, found '1.5'");
}

#[test]
fn mtx_index_out_of_the_declared_range() {
    parse_error("g.mtx", &format!("{MTX}5 6 2\n1 2 1\n7 1 1\n"), 4, "row index 7 exceeds the declared 5 rows");
    parse_error("g.mtx", &format!("{MTX}5 6 1\n1 7 1\n"), 3, "column index 7 exceeds the declared 6 columns");
    parse_error(
        "g.mtx",
        &format!("{MTX}5 6 1\n1 99999999999999999999999 1\n"),
        3,
        "column index 99999999999999999999999 exceeds the declared 6 columns",
    );
}

#[test]
fn mtx_zero_index_in_a_1_based_format() {
    parse_error("g.mtx", &format!("{MTX}3 3 2\n1 2 1\n0 1 1\n"), 4, "index 0 in a 1-based format");
    parse_error("g.mtx", &format!("{MTX}3 3 1\n1 0 1\n"), 3, "column index 0 in a 1-based format");
}

#[test]
fn mtx_too_few_entries() {
    parse_error(
        "g.mtx",
        &format!("{MTX}% comment\n4 4 10\n1 2 1\n2 3 1\n3 4 1\n4 1 1\n1 3 1\n2 4 1\n3 1 1\n4 2 1\n1 4 1\n"),
        3,
        "the header declares 10 entries but the file has 9",
    );
    parse_error("g.mtx", &format!("{MTX}3 3 1\n"), 2, "the header declares 1 entries but the file has 0");
}

#[test]
fn mtx_too_many_entries() {
    parse_error(
        "g.mtx",
        &format!("{MTX}3 3 2\n1 2 1\n% comment\n2 3 1\n\n3 1 1\n"),
        7,
        "the header declares 2 entries but the file has 3",
    );
    // The surplus entry comes first in the file, so it is the error reported, not the later bad line.
    parse_error(
        "g.mtx",
        &format!("{MTX}3 3 1\n1 2 1\n2 3 1\n2 x 1\n"),
        4,
        "the header declares 1 entries but the file has more",
    );
}

#[test]
fn mtx_missing_or_extra_value_column() {
    parse_error("g.mtx", &format!("{MTX}3 3 1\n1 2\n"), 3, "missing the value");
    parse_error(
        "g.mtx",
        "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 2 5\n",
        3,
        "unexpected extra column '5'",
    );
}

#[test]
fn mtx_negative_and_non_finite_weights() {
    parse_error("g.mtx", &format!("{MTX}3 3 1\n1 2 -4\n"), 3, "negative weight -4");
    let real = "%%MatrixMarket matrix coordinate real general\n3 3 1\n";
    parse_error("g.mtx", &format!("{real}1 2 -0.5\n"), 3, "negative weight -0.5");
    parse_error("g.mtx", &format!("{real}1 2 NaN\n"), 3, "weight NaN is not a number");
    parse_error("g.mtx", &format!("{real}1 2 inf\n"), 3, "weight inf is infinite");
    parse_error("g.mtx", &format!("{real}1 2 1e39\n"), 3, "weight 1e39 is infinite (or too large for f32)");
    parse_error("g.mtx", &format!("{MTX}3 3 1\n1 2 4294967296\n"), 3, "weight 4294967296 overflows the u32");
}

// ----- edge lists ---------------------------------------------------------------------------------

#[test]
fn el_non_numeric_token() {
    parse_error("g.el", "# header\n0 1\n1 abc\n", 3, "expected a vertex id, found 'abc'");
    parse_error("g.el", "0 1\n-1 2\n", 2, "expected a vertex id, found '-1'");
    parse_error("g.el", "0 1\n1.0 2\n", 2, "expected a vertex id, found '1.0'");
}

#[test]
fn el_missing_column() {
    parse_error("g.el", "0 1\n\n7\n", 3, "missing the target vertex (expected 'u v')");
}

#[test]
fn el_extra_column() {
    parse_error("g.el", "0 1\n1 2 3\n", 2, "unexpected extra column '3'");
    parse_error("g.el", "0 1\n1 2 3\n", 2, "should be named .wel");
}

#[test]
fn el_id_overflowing_u32() {
    parse_error("g.el", "0 1\n4294967295 1\n", 2, "vertex id 4294967295 overflows the u32 vertex ids");
    parse_error("g.el", "0 99999999999999999999999\n", 1, "vertex id 99999999999999999999999 overflows");
}

#[test]
fn wel_missing_extra_and_non_numeric_weight() {
    parse_error("g.wel", "0 1 2\n1 2\n", 2, "missing the weight");
    parse_error("g.wel", "0 1 2 3\n", 1, "unexpected extra column '3'");
    parse_error("g.wel", "0 1 2\n1 2 heavy\n", 2, "expected a weight, found 'heavy'");
}

#[test]
fn wel_negative_weight() {
    parse_error("g.wel", "0 1 2\n1 2 -3\n", 2, "negative weight -3");
    parse_error("g.wel", "0 1 2\n1 2 -0.25\n", 2, "negative weight -0.25");
}

#[test]
fn wel_nan_and_infinite_weight() {
    parse_error("g.wel", "0 1 nan\n", 1, "is not a number");
    parse_error("g.wel", "0 1 2\n# c\n1 2 +inf\n", 3, "weight +inf is infinite");
    parse_error("g.wel", "0 1 infinity\n", 1, "is infinite");
}

// ----- DIMACS -------------------------------------------------------------------------------------

#[test]
fn gr_arc_before_problem_line() {
    parse_error("g.gr", "c comment\na 1 2 3\np sp 3 1\n", 2, "an arc before the problem line");
}

#[test]
fn gr_missing_second_and_wrong_problem_line() {
    file_error("g.gr", b"c only comments\nc more\n", "no problem line 'p sp <vertices> <arcs>' found");
    parse_error("g.gr", "p sp 3 2\na 1 2 1\np sp 3 2\na 2 3 1\n", 3, "a second problem line (the first is line 1)");
    parse_error("g.gr", "c max flow\np max 3 2\n", 2, "the problem type 'max' is not supported");
    parse_error("g.gr", "p sp 3\n", 1, "lacks the number of arcs");
    parse_error("g.gr", "p sp 3 x\n", 1, "expected the number of arcs, found 'x'");
    parse_error("g.gr", "p sp 5000000000 0\n", 1, "5000000000 vertices, more than the 4294967295 simdx supports");
}

#[test]
fn gr_unknown_line_type() {
    parse_error("g.gr", "p sp 3 2\na 1 2 1\nx 2 3 1\n", 3, "unknown line type 'x'");
    parse_error("g.gr", "e 1 2\np sp 3 1\n", 1, "unknown line type 'e'");
    parse_error("g.gr", "p sp 3 1\narc 1 2 1\n", 2, "unknown line type 'arc'");
}

#[test]
fn gr_zero_and_out_of_range_vertices() {
    parse_error("g.gr", "p sp 4 2\na 1 2 1\na 0 2 1\n", 3, "index 0 in a 1-based format");
    parse_error("g.gr", "p sp 4 2\na 1 2 1\na 2 9 1\n", 3, "vertex index 9 exceeds the declared 4 vertices");
}

#[test]
fn gr_wrong_arc_count() {
    parse_error("g.gr", "c\np sp 4 3\na 1 2 1\na 2 3 1\n", 2, "declares 3 arcs but the file has 2");
    parse_error("g.gr", "p sp 4 2\na 1 2 1\nc\na 2 3 1\na 3 4 1\n", 5, "declares 2 arcs but the file has 3");
}

#[test]
fn gr_bad_arc_tokens_and_weights() {
    parse_error("g.gr", "p sp 4 1\na 1 x 1\n", 2, "expected a vertex index, found 'x'");
    parse_error("g.gr", "p sp 4 1\na 1 2\n", 2, "missing the arc's weight");
    parse_error("g.gr", "p sp 4 1\na 1 2 3 4\n", 2, "unexpected extra column '4'");
    parse_error("g.gr", "p sp 4 1\na 1 2 -5\n", 2, "negative weight -5");
    parse_error("g.gr", "p sp 4 1\na 1 2 1.5\n", 2, "expected an integer weight, found '1.5'");
    parse_error("g.gr", "p sp 4 1\na 1 2 5000000000\n", 2, "weight 5000000000 overflows the u32 integer weights");
}

// ----- whole files --------------------------------------------------------------------------------

#[test]
fn empty_files() {
    for name in ["e.mtx", "e.el", "e.wel", "e.gr"] {
        file_error(name, b"", "the file is empty");
    }
}

#[test]
fn a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("graphs.el");
    std::fs::create_dir(&path).unwrap();
    let err = read_graph(&path, &ReadOptions::default()).unwrap_err();
    assert!(matches!(err, GraphError::File { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("graphs.el") && text.contains("is a directory, not a graph file"), "{text}");
}

#[test]
fn a_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nowhere.mtx");
    let err = read_graph(&path, &ReadOptions::default()).unwrap_err();
    match &err {
        GraphError::Io { path: p, source } => {
            assert_eq!(p, &path);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("expected an I/O error, got {other:?}"),
    }
    assert!(err.to_string().contains("nowhere.mtx"));
}

#[test]
fn an_unknown_extension() {
    file_error("graph.txt", b"0 1\n", "unknown graph format");
}

#[test]
fn an_unwritable_path() {
    let dir = tempfile::tempdir().unwrap();
    let g = simdx_core::GraphBuilder::new()
        .build(simdx_core::EdgeList { num_vertices: 2, src: vec![0], dst: vec![1], weights: None })
        .unwrap();
    let path = dir.path().join("no-such-dir").join("g.el");
    let err = write_graph(&g, &path, None).unwrap_err();
    assert!(matches!(err, GraphError::Io { .. }) && err.to_string().contains("g.el"), "{err}");
}

// ----- errors deep in large files -----------------------------------------------------------------

/// `lines` edge lines (about 16 bytes each) with `bad` replacing line `at` (1-based, counting `header`).
fn big_file(header: &str, lines: u64, at: u64, bad: &str, line_of: impl Fn(u64) -> String) -> String {
    let header_lines = header.lines().count() as u64;
    let mut text = String::with_capacity(lines as usize * 20);
    text.push_str(header);
    for i in 0..lines {
        if header_lines + i + 1 == at {
            text.push_str(bad);
        } else {
            text.push_str(&line_of(i));
        }
        text.push('\n');
    }
    text
}

#[test]
fn an_error_deep_in_a_large_file_names_the_exact_line() {
    // ~12 MB: three or more 4 MiB chunks whatever the thread count, so the line is counted across chunks.
    let lines = 700_000;
    let el = |i: u64| format!("{} {}", 1_000_000 + i, 2_000_000 + i);
    for at in [1, 4567, 301_234, 654_321, 700_000] {
        parse_error("deep.el", &big_file("", lines, at, "12 x", el), at, "expected a vertex id, found 'x'");
    }
    let header = "%%MatrixMarket matrix coordinate pattern general\n% c\n% c\n3000000 3000000 700000\n";
    let mtx = |i: u64| format!("{} {}", 1_000_000 + i, 2_000_000 + i);
    parse_error("deep.mtx", &big_file(header, lines, 543_210, "5 0", mtx), 543_210, "index 0 in a 1-based format");
    // A surplus entry far from the size line, found through the chunks.
    let mut text = big_file(header, lines, 0, "", mtx);
    text.push_str("1 1\n");
    parse_error("deep.mtx", &text, 700_005, "declares 700000 entries but the file has 700001");
    let gr = |i: u64| format!("a {} {} 7", 1_000_000 + i, 2_000_000 + i);
    let header = "c big\np sp 3000000 700000\n";
    parse_error("deep.gr", &big_file(header, lines, 699_999, "p sp 1 1", gr), 699_999, "a second problem line");
}

// ----- nothing panics -----------------------------------------------------------------------------

fn fragments() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "0",
        "1",
        "2",
        "3",
        "17",
        "4294967295",
        "4294967296",
        "99999999999999999999",
        "-1",
        "1.5",
        "nan",
        "inf",
        "x",
        " ",
        "\t",
        "\n",
        "\r\n",
        "#",
        "%",
        "c",
        "p",
        "a",
        "sp",
        "%%MatrixMarket",
        "matrix",
        "coordinate",
        "real",
        "integer",
        "pattern",
        "general",
        "symmetric",
        "\u{feff}",
        "é",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_text_never_panics(body in fragments()) {
        let dir = tempfile::tempdir().unwrap();
        let prefixes = ["", "%%MatrixMarket matrix coordinate real general\n3 3 2\n", "p sp 3 2\n"];
        for prefix in prefixes {
            for name in ["f.mtx", "f.el", "f.wel", "f.gr"] {
                let path = write(&dir, name, format!("{prefix}{body}").as_bytes());
                let _ = read_graph(&path, &ReadOptions::default());
            }
        }
    }
}
