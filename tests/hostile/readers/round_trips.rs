//! Every file simdx writes reads back, with no option, as the graph it wrote: every generator kind,
//! unweighted or weighted, undirected or directed, through every format — the shape compared with
//! `info --json` (vertices, edges, direction, weight type), and BFS or SSSP on the file read back
//! compared with the oracle on the generated graph. A graph a format cannot hold is refused (exit 2),
//! and no file is left.

use simdx_core::Graph;

use super::{arcs_of, generated, says, Shape};
use crate::harness::Case;
use crate::oracle;
use crate::{arg, Suite};

/// The graphs: every generator kind, each unweighted or weighted and undirected or directed where the
/// kind allows.
const SPECS: &[&str] = &[
    "kron:7",
    "kron:7:w",
    "kron:7:d",
    "kron:7:d:w",
    "urand:7",
    "urand:7:w",
    "urand:7:d",
    "urand:7:d:w",
    "rmat:7",
    "rmat:7:w",
    "rmat:7:d",
    "rmat:7:d:w",
    "grid:9x7",
    "mlp:8,6,4",
    "kron:6:w=4000000000-4294967295",
];

const FORMATS: [&str; 5] = ["mtx", "el", "wel", "gr", "sxg"];

pub fn cases(s: &mut Suite) {
    for &spec in SPECS {
        let graph = generated(spec);
        for format in FORMATS {
            match refusal(&graph, format) {
                Some(fragment) => refused(s, spec, format, fragment),
                None => {
                    shape(s, spec, format, &graph);
                    // Real weights print as reals; sums past u32 are the answers suite's.
                    if graph.weight_kind() != Some(simdx_core::WeightKind::F32) && !spec.contains("w=") {
                        answers(s, spec, format, &graph);
                    }
                }
            }
        }
    }
    // The example: kron:10:w through .wel changed 884 of 1,024 SSSP distances.
    let graph = generated("kron:10:w");
    answers(s, "kron:10:w", "wel", &graph);
}

/// What a format that cannot hold `graph` says when asked to.
fn refusal(graph: &Graph, format: &str) -> Option<&'static str> {
    match (format, graph.weight_kind()) {
        ("el", Some(_)) => Some("holds no weights"),
        ("gr", Some(simdx_core::WeightKind::F32)) => Some("integer weights"),
        _ => None,
    }
}

/// `convert` refuses, and leaves no file.
fn refused(s: &mut Suite, spec: &str, format: &str, fragment: &'static str) {
    let dir = s.dir();
    let file = dir.join(format!("g.{format}"));
    let args = ["convert", spec, &arg(&file)].map(String::from);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let says = says(fragment);
    let check = move |ran: &_| {
        says(ran)?;
        match file.exists() {
            true => Err(format!("{} was left behind", file.display())),
            false => Ok(()),
        }
    };
    s.add_in(dir, Case::new(format!("reader round trip: {spec} as .{format} is refused"), &args, 2).check(check));
}

/// `convert`, then `info --json` on the file: the same vertices, edges, direction and weight type.
fn shape(s: &mut Suite, spec: &str, format: &str, graph: &Graph) {
    let dir = s.dir();
    let file = arg(&dir.join(format!("g.{format}")));
    let case =
        Case::new(format!("reader round trip: {spec} as .{format} keeps its shape"), &["convert", spec, &file], 0)
            .then(&["info", &file, "--json"], 0)
            .check(Shape::of(graph).check());
    s.add_in(dir, case);
}

/// `convert`, then SSSP (weighted) or BFS on the file, against the oracle on the generated graph.
fn answers(s: &mut Suite, spec: &str, format: &str, graph: &Graph) {
    let arcs = arcs_of(graph);
    let source = (0..graph.num_vertices() as u32).find(|&v| graph.out_degree(v) > 0).unwrap_or(0);
    let (algorithm, want) = match graph.is_weighted() {
        true => ("sssp", oracle::dijkstra(&arcs, &[source])),
        false => ("bfs", oracle::bfs(&arcs, source)),
    };
    let dir = s.dir();
    let file = arg(&dir.join(format!("g.{format}")));
    let out = dir.join("answer.txt");
    let source = source.to_string();
    let case = Case::new(
        format!("reader round trip: {algorithm} on {spec} read back from .{format}"),
        &["convert", spec, &file],
        0,
    )
    .then(&["run", algorithm, &file, "--source", &source, "--output", &arg(&out)], 0)
    .check(move |_| oracle::same_integers(&std::fs::read_to_string(&out).unwrap_or_default(), &want));
    s.add_in(dir, case);
}
