//! Text files and their `simdx:` header line: files simdx wrote, then cut short or edited so that the
//! header no longer tells the truth (refused, exit 2, naming the line); headers with words simdx does
//! not know; files without a header, or with one where it does not count (read as before); isolated
//! vertices, self-loops and duplicate edges kept through every format.

use std::path::{Path, PathBuf};

use simdx_core::io::{write_graph, Format};

use super::{generated, says, Shape};
use crate::harness::Case;
use crate::{arg, Suite};

pub fn cases(s: &mut Suite) {
    cut_short(s);
    edited_headers(s);
    headers_that_do_not_count(s);
    kept_through_every_format(s);
}

/// Writes the file simdx makes of `spec` as `name` in `dir` and returns its path and text.
fn written(dir: &Path, spec: &str, name: &str) -> (PathBuf, String) {
    let path = dir.join(name);
    let format = Format::from_path(&path).expect("a text format");
    write_graph(&generated(spec), &path, Some(format)).expect("written");
    let text = std::fs::read_to_string(&path).expect("read back");
    (path, text)
}

/// A case on a file simdx wrote of `spec` as `name`, then edited by `edit`: `args` (the file is
/// appended) must exit `expect`, saying `fragment` when refused.
fn edited(
    s: &mut Suite,
    what: &str,
    spec: &str,
    name: &str,
    edit: impl Fn(&str) -> String,
    expect: i32,
    fragment: &str,
) {
    let dir = s.dir();
    let (path, text) = written(&dir, spec, name);
    std::fs::write(&path, edit(&text)).expect("edited");
    let case = Case::new(format!("reader text: {what} ({name})"), &["info", &arg(&path)], expect);
    let case = if expect == 2 { case.check(says(fragment)) } else { case };
    s.add_in(dir, case);
}

/// The text without its last `lines` lines.
fn without_last_lines(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[..all.len() - lines].iter().map(|l| format!("{l}\n")).collect()
}

/// The text cut inside its last line, just after its first `tokens` tokens and a space.
fn cut_after_tokens(text: &str, tokens: usize) -> String {
    let body = text.trim_end_matches('\n');
    let start = body.rfind('\n').map_or(0, |i| i + 1);
    let mut end = start;
    for _ in 0..tokens {
        end += body[end..].find(' ').expect("a space") + 1;
    }
    body[..end].to_string()
}

/// Files cut at a line boundary (every format's count catches it) or inside a line.
fn cut_short(s: &mut Suite) {
    for (name, spec, fragment) in [
        ("g.el", "kron:6", "is it cut short?"),
        ("g.wel", "kron:6:w", "is it cut short?"),
        ("g.gr", "kron:6:w", "arcs but the file has"),
        ("g.mtx", "kron:6:w", "entries but the file has"),
        ("d.el", "kron:6:d", "is it cut short?"),
    ] {
        edited(s, "cut after a line", spec, name, |t| without_last_lines(t, 3), 2, fragment);
    }
    for (name, spec, fragment) in
        [("g.el", "kron:6", "missing the target"), ("g.wel", "kron:6:w", "missing the weight")]
    {
        edited(
            s,
            "cut inside a line",
            spec,
            name,
            |t| cut_after_tokens(t, if name == "g.el" { 1 } else { 2 }),
            2,
            fragment,
        );
    }
}

/// Replaces the word `from` of the `simdx:` line with `to`.
fn in_header(text: &str, from: &str, to: &str) -> String {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let header = lines.iter_mut().find(|l| l.contains("simdx:")).expect("a simdx line");
    let words: Vec<String> =
        header.split(' ').map(|w| if w.starts_with(from) { to.to_string() } else { w.to_string() }).collect();
    *header = words.join(" ");
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Headers that contradict their file, or hold words simdx does not know.
fn edited_headers(s: &mut Suite) {
    let contradictions: [(&str, &str, &str, &str, &str); 13] = [
        ("g.el", "kron:6", "vertices=", "vertices=3", "but an edge names vertex"),
        ("g.wel", "kron:6:w", "vertices=", "vertices=10", "but an edge names vertex"),
        ("g.gr", "kron:6:w", "vertices=", "vertices=65", "size line declares 64"),
        ("g.mtx", "kron:6", "vertices=", "vertices=63", "size line declares 64"),
        ("g.el", "kron:6", "edges=", "edges=1", "declares 1 edges"),
        ("g.wel", "kron:6:w", "edges=", "edges=100000", "declares 100000 edges"),
        ("g.gr", "kron:6:w", "edges=", "edges=0", "declares 0 edges"),
        ("g.el", "kron:6", "weights=", "weights=u32", "declares u32 weights"),
        ("g.gr", "kron:6:w", "weights=", "weights=f32", "declares f32 weights"),
        ("g.mtx", "kron:6:w", "weights=", "weights=f32", "declares f32 weights"),
        ("g.mtx", "kron:6", "undirected", "directed", "but the banner says symmetric"),
        ("g.el", "kron:6", "vertices=", "vertices=many", "is not a count"),
        ("g.wel", "kron:6:w", "weights=", "weights=f64", "weights=f64"),
    ];
    for (name, spec, from, to, fragment) in contradictions {
        let what = format!("header says {to}");
        edited(s, &what, spec, name, |t| in_header(t, from, to), 2, fragment);
    }
    for (what, line, fragment) in [
        ("an unknown word", "# simdx: directed colour=blue\n", "unknown word 'colour=blue'"),
        ("no direction", "# simdx: vertices=4 edges=1\n", "directed or undirected"),
        ("both directions", "# simdx: directed undirected\n", "both directed and undirected"),
        ("real weights declared u32", "# simdx: directed weights=u32\n", "holds f32 weights"),
    ] {
        let dir = s.dir();
        let path = dir.join("h.wel");
        std::fs::write(&path, format!("{line}0 1 2.5\n")).expect("a case file");
        let case = Case::new(format!("reader text: a header with {what}"), &["info", &arg(&path)], 2);
        s.add_in(dir, case.check(says(fragment)));
    }
}

/// An `info --json` case on a file with content `text`, optionally with extra arguments.
fn info_case(s: &mut Suite, what: &str, name: &str, text: &str, extra: &[&str], shape: Shape) {
    let dir = s.dir();
    let path = dir.join(name);
    std::fs::write(&path, text).expect("a case file");
    let path = arg(&path);
    let mut args = vec!["info", &path, "--json"];
    args.extend(extra);
    s.add_in(dir, Case::new(format!("reader text: {what}"), &args, 0).check(shape.check()));
}

/// Files without a header, with a header after the data starts, an old simdx comment, and a header
/// with `--undirected` or `--relabel`.
fn headers_that_do_not_count(s: &mut Suite) {
    let shape = |vertices, edges, directed, weight_type: Option<&str>| Shape {
        vertices,
        edges,
        directed,
        weight_type: weight_type.map(String::from),
    };
    info_case(s, "no header: directed, ids make the count", "a.el", "# SNAP\n0 1\n3 1\n", &[], shape(4, 2, true, None));
    let late = "0 1\n# simdx: undirected vertices=9 edges=2 weights=none\n1 2\n";
    info_case(s, "a header after the data is a comment", "b.el", late, &[], shape(3, 2, true, None));
    let old = "# simdx edge list: 6 vertices, 2 edges (undirected, each edge once as u <= v); 0-based ids\n0 1\n1 2\n";
    info_case(s, "an old simdx comment is a comment", "c.el", old, &[], shape(3, 2, true, None));
    let directed = "# simdx: directed vertices=5 edges=2 weights=none\n0 1\n1 0\n";
    info_case(s, "a directed header with --undirected", "d.el", directed, &["--undirected"], shape(5, 1, false, None));
    let relabelled = "# simdx: directed vertices=50 edges=2 weights=none\n7 9\n9 40\n";
    info_case(s, "a header with --relabel keeps no count", "e.el", relabelled, &["--relabel"], shape(3, 2, true, None));
    let reals = "# simdx: directed vertices=3 edges=2 weights=f32\n0 1 2\n1 2 4\n";
    info_case(s, "whole-number reals stay f32", "f.wel", reals, &[], shape(3, 2, true, Some("f32")));
    let crlf = "\u{feff}# simdx: undirected vertices=4 edges=1 weights=none\r\n0 1\r\n";
    info_case(s, "a header behind a BOM with CRLF lines", "g.el", crlf, &[], shape(4, 1, false, None));
}

/// A source file with isolated vertices, self-loops and duplicate edges, read with the options that
/// keep them, converted to every format, and read back with no option.
fn kept_through_every_format(s: &mut Suite) {
    let mtx = "%%MatrixMarket matrix coordinate pattern symmetric\n10 10 2\n2 1\n4 3\n";
    for format in ["el", "wel", "gr", "sxg"] {
        let dir = s.dir();
        let (src, out) = (dir.join("iso.mtx"), dir.join(format!("iso.{format}")));
        std::fs::write(&src, mtx).expect("a case file");
        let (src, out) = (arg(&src), arg(&out));
        let shape = Shape { vertices: 10, edges: 2, directed: false, weight_type: None };
        let case =
            Case::new(format!("reader text: .mtx with isolated vertices to .{format}"), &["convert", &src, &out], 0)
                .then(&["info", &out, "--json"], 0)
                .check(shape.check());
        s.add_in(dir, case);
    }
    for undirected in [false, true] {
        for format in ["el", "wel", "gr", "mtx", "sxg"] {
            let dir = s.dir();
            let (src, out) = (dir.join("source.el"), dir.join(format!("multi.{format}")));
            std::fs::write(&src, "0 1\n0 1\n2 2\n1 2\n2 1\n").expect("a case file");
            let (src, out) = (arg(&src), arg(&out));
            let mut convert = vec!["convert", &src, &out, "--keep-self-loops", "--keep-duplicates"];
            if undirected {
                convert.push("--undirected");
            }
            // Arcs 0 1 twice, 2 2, 1 2 and 2 1: five edges either way (undirected, 1 2 and 2 1 are two
            // copies of one edge).
            let shape = Shape { vertices: 3, edges: 5, directed: !undirected, weight_type: None };
            let shown = if undirected { "undirected" } else { "directed" };
            let case =
                Case::new(format!("reader text: {shown} self-loops and duplicates kept in .{format}"), &convert, 0)
                    .then(&["info", &out, "--json"], 0)
                    .check(shape.check());
            s.add_in(dir, case);
        }
    }
    let dir = s.dir();
    let src = dir.join("w.wel");
    std::fs::write(&src, "0 1 3\n1 2 4\n").expect("a case file");
    let (src, out) = (arg(&src), arg(&dir.join("w.el")));
    let case = Case::new("reader text: a weighted .wel to .el is refused", &["convert", &src, &out], 2);
    s.add_in(dir, case.check(says("write a .wel file")));
}
