//! `.sxg` files that are valid bytes but not a valid graph: each is a file simdx wrote, patched, and
//! resealed (both checksums recomputed as the format defines them), so that only the structure check
//! can refuse it; and damaged, truncated or foreign files that the checksums and the header refuse.
//! Each refusal is run through `info` and through `run`, since every command loads the same way.

use simdx_core::{Csr, Duplicates, EdgeList, EdgeWeights, Graph, GraphBuilder};
use xxhash_rust::xxh3::xxh3_64;

use super::{arcs_of, generated, says};
use crate::harness::Case;
use crate::oracle::{self, Arcs};
use crate::{arg, Suite};

const HEADER_LEN: usize = 160;
/// Header byte offsets.
const VERSION: usize = 8;
const FLAGS: usize = 12;
const EDGES: usize = 24;
/// Section table indices.
const OUT_TARGETS: usize = 1;
const OUT_WEIGHTS: usize = 2;
const IN_OFFSETS: usize = 3;
const IN_TARGETS: usize = 4;
const IN_WEIGHTS: usize = 5;

pub fn cases(s: &mut Suite) {
    refused_structures(s);
    accepted_structures(s);
    damaged(s);
    truncated(s);
}

/// The bytes simdx writes for `graph`.
fn bytes_of(graph: &Graph) -> Vec<u8> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("g.sxg");
    simdx_core::io::binary::write(graph, &path).expect("written");
    std::fs::read(&path).expect("read back")
}

fn get_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// The byte offset of section `i`.
fn section(b: &[u8], i: usize) -> usize {
    get_u64(b, 48 + 16 * i) as usize
}

/// Sets element `i` of section `sec`, a `u32` array.
fn set_u32(b: &mut [u8], sec: usize, i: usize, v: u32) {
    let at = section(b, sec) + 4 * i;
    put_u32(b, at, v);
}

/// Sets element `i` of section `sec`, a `u64` array.
fn set_u64(b: &mut [u8], sec: usize, i: usize, v: u64) {
    let at = section(b, sec) + 8 * i;
    put_u64(b, at, v);
}

/// Recomputes the header checksum (bytes 152..160).
fn reseal_header(b: &mut [u8]) {
    let sum = xxh3_64(&b[..152]);
    put_u64(b, 152, sum);
}

/// Recomputes the payload checksum (xxh3 of the xxh3s of 4 MiB blocks), then the header's.
fn reseal(b: &mut [u8]) {
    let hashes: Vec<u8> = b[HEADER_LEN..].chunks(4 << 20).flat_map(|c| xxh3_64(c).to_le_bytes()).collect();
    put_u64(b, 144, xxh3_64(&hashes));
    reseal_header(b);
}

/// Writes `bytes` as `name` in a fresh case folder and adds a case per command, each expecting
/// `expect` and, for a refusal, `fragment` in the message.
fn add_file_cases(s: &mut Suite, what: &str, bytes: &[u8], expect: i32, fragment: &str) {
    for command in [&["info"][..], &["run", "bfs", "--source", "0"][..]] {
        let dir = s.dir();
        let file = dir.join("g.sxg");
        std::fs::write(&file, bytes).expect("a case file");
        let mut args = command.to_vec();
        let file = arg(&file);
        args.push(&file);
        let name = format!("reader sxg: {what} ({})", command[..command.len().min(2)].join(" "));
        let case = Case::new(name, &args, expect);
        let case = if expect == 2 { case.check(says(fragment)) } else { case };
        s.add_in(dir, case);
    }
}

/// The first arc of `csr` (its index) whose target can be raised by one without unsorting its list,
/// repeating a target or making a self-loop; with the new target.
fn raisable(csr: &Csr) -> (usize, u32) {
    let n = csr.num_vertices() as u32;
    for u in 0..n {
        let list = csr.neighbors(u);
        for (i, &t) in list.iter().enumerate() {
            let next = list.get(i + 1).copied().unwrap_or(n);
            if t + 1 < next && t + 1 != u {
                return (csr.range(u).start + i, t + 1);
            }
        }
    }
    panic!("no arc can be retargeted");
}

/// The first vertex with at least two neighbours, and the index of its first arc.
fn pair_start(csr: &Csr) -> usize {
    let v = (0..csr.num_vertices() as u32).find(|&v| csr.degree(v) >= 2).expect("a vertex of degree 2");
    csr.range(v).start
}

/// The index of the arc `v -> u` in an undirected graph's lists.
fn mirror(graph: &Graph, u: u32, v: u32) -> usize {
    let csr = graph.out_csr();
    csr.range(v).start + csr.neighbors(v).binary_search(&u).expect("the mirror arc")
}

/// The source of arc `i`.
fn source(csr: &Csr, i: usize) -> u32 {
    (csr.offsets().partition_point(|&o| o <= i as u64) - 1) as u32
}

type Edit = Box<dyn Fn(&mut Vec<u8>, &Graph)>;

/// Boxes an edit, giving the closure its argument types.
fn edit(f: impl Fn(&mut Vec<u8>, &Graph) + 'static) -> Edit {
    Box::new(f)
}

/// A corruption: what it does, the generator spec of the graph it edits, the edit, and a fragment of the
/// message that refuses it.
type Corruption = (&'static str, &'static str, Edit, &'static str);

/// Corruptions that keep the checksums right and must be refused.
fn corruptions() -> Vec<Corruption> {
    [undirected_corruptions(), directed_corruptions(), other_corruptions()].into_iter().flatten().collect()
}

/// Corruptions of an undirected graph's lists and weights.
fn undirected_corruptions() -> Vec<Corruption> {
    vec![
        (
            "an undirected arc retargeted",
            "kron:6",
            edit(|b, g| {
                let (i, t) = raisable(g.out_csr());
                set_u32(b, OUT_TARGETS, i, t);
            }),
            "not symmetric",
        ),
        (
            "an undirected edge count one too many",
            "kron:6",
            edit(|b, g| put_u64(b, EDGES, g.num_edges() + 1)),
            "but its arcs make",
        ),
        (
            "an undirected edge count one too few",
            "kron:6:w",
            edit(|b, g| put_u64(b, EDGES, g.num_edges() - 1)),
            "cannot have",
        ),
        (
            "a duplicate arc in an undirected list",
            "kron:6",
            edit(|b, g| {
                let i = pair_start(g.out_csr());
                let t = g.out_csr().targets()[i];
                set_u32(b, OUT_TARGETS, i + 1, t);
            }),
            "more than once",
        ),
        (
            "an unsorted undirected list",
            "kron:6",
            edit(|b, g| {
                let i = pair_start(g.out_csr());
                let (x, y) = (g.out_csr().targets()[i], g.out_csr().targets()[i + 1]);
                set_u32(b, OUT_TARGETS, i, y);
                set_u32(b, OUT_TARGETS, i + 1, x);
            }),
            "is not sorted",
        ),
        (
            "a neighbour past the last vertex",
            "kron:6",
            edit(|b, g| {
                let last = g.num_arcs() as usize - 1;
                set_u32(b, OUT_TARGETS, last, g.num_vertices() as u32);
            }),
            "but there are only",
        ),
        (
            "a neighbour id of u32::MAX",
            "kron:6:d",
            edit(|b, g| {
                let last = g.num_arcs() as usize - 1;
                set_u32(b, OUT_TARGETS, last, u32::MAX);
            }),
            "but there are only",
        ),
        (
            "one end of an undirected edge reweighted",
            "kron:6:w",
            edit(|b, g| {
                let w = g.out_csr().weights().expect("weights").get_f64(0) as u32;
                set_u32(b, OUT_WEIGHTS, 0, w + 1);
            }),
            "weighs",
        ),
        (
            "two weights of one list swapped",
            "grid:6x6",
            edit(|b, g| {
                let csr = g.out_csr();
                let i = (0..csr.num_arcs() as usize - 1)
                    .find(|&i| {
                        source(csr, i) == source(csr, i + 1)
                            && csr.weights().map(|w| w.get_f64(i) != w.get_f64(i + 1)) == Some(true)
                    })
                    .expect("two different weights");
                let w = csr.weights().expect("weights");
                set_u32(b, OUT_WEIGHTS, i, w.get_f64(i + 1) as u32);
                set_u32(b, OUT_WEIGHTS, i + 1, w.get_f64(i) as u32);
            }),
            "weighs",
        ),
    ]
}

/// Corruptions of a directed graph's two CSRs and their agreement.
fn directed_corruptions() -> Vec<Corruption> {
    vec![
        (
            "an out-arc retargeted",
            "kron:6:d",
            edit(|b, g| {
                let (i, t) = raisable(g.out_csr());
                set_u32(b, OUT_TARGETS, i, t);
            }),
            "not the transpose",
        ),
        (
            "an in-arc retargeted",
            "kron:6:d:w",
            edit(|b, g| {
                let (i, t) = raisable(g.in_csr());
                set_u32(b, IN_TARGETS, i, t);
            }),
            "not the transpose",
        ),
        (
            "an in-weight unlike its out-weight",
            "kron:6:d:w",
            edit(|b, _| {
                let at = section(b, IN_WEIGHTS);
                let w = u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"));
                put_u32(b, at, w + 95);
            }),
            "among the in-edges",
        ),
        (
            "an out-weight unlike its in-weight",
            "kron:6:d:w",
            edit(|b, _| set_u32(b, OUT_WEIGHTS, 0, 4_000_000_000)),
            "among the out-edges",
        ),
        (
            "a directed edge count unlike the arcs",
            "kron:6:d",
            edit(|b, g| put_u64(b, EDGES, g.num_edges() - 3)),
            "cannot have",
        ),
        (
            "a duplicate arc in an out-list",
            "kron:6:d",
            edit(|b, g| {
                let i = pair_start(g.out_csr());
                let t = g.out_csr().targets()[i];
                set_u32(b, OUT_TARGETS, i + 1, t);
            }),
            "more than once",
        ),
        (
            "an unsorted in-list",
            "kron:6:d",
            edit(|b, g| {
                let i = pair_start(g.in_csr());
                let (x, y) = (g.in_csr().targets()[i], g.in_csr().targets()[i + 1]);
                set_u32(b, IN_TARGETS, i, y);
                set_u32(b, IN_TARGETS, i + 1, x);
            }),
            "invalid in-edge CSR",
        ),
        (
            "in-offsets that decrease",
            "kron:6:d",
            edit(|b, _| set_u64(b, IN_OFFSETS, 1, u64::MAX / 2)),
            "offsets decrease",
        ),
    ]
}

/// Self-loops and real weights that are not finite numbers.
fn other_corruptions() -> Vec<Corruption> {
    vec![
        (
            "a self-loop in place of an edge",
            "kron:6",
            edit(|b, g| {
                let csr = g.out_csr();
                let (u, i) = (0..csr.num_vertices() as u32)
                    .find_map(|u| csr.neighbors(u).iter().position(|&t| t > u).filter(|&i| i > 0).map(|i| (u, i - 1)))
                    .expect("a vertex with neighbours on both sides");
                set_u32(b, OUT_TARGETS, csr.range(u).start + i, u);
            }),
            "self-loops",
        ),
        (
            "a real weight that is not a number",
            "mlp:8,6,4",
            edit(|b, _| set_u32(b, OUT_WEIGHTS, 0, f32::NAN.to_bits())),
            "finite",
        ),
        (
            "an infinite real weight",
            "mlp:8,6,4",
            edit(|b, _| set_u32(b, IN_WEIGHTS, 1, f32::INFINITY.to_bits())),
            "finite",
        ),
        ("a negative real weight", "mlp:8,6,4", edit(|b, _| set_u32(b, OUT_WEIGHTS, 2, (-1.5f32).to_bits())), ">= 0"),
        (
            "a real in-weight unlike its out-weight",
            "mlp:8,6,4",
            edit(|b, _| set_u32(b, IN_WEIGHTS, 0, 0.25f32.to_bits())),
            "weighs",
        ),
    ]
}

/// Each corruption, resealed, through `info` and `run`.
fn refused_structures(s: &mut Suite) {
    for (what, spec, edit, fragment) in corruptions() {
        let graph = generated(spec);
        let mut bytes = bytes_of(&graph);
        edit(&mut bytes, &graph);
        reseal(&mut bytes);
        add_file_cases(s, &format!("{what} ({spec})"), &bytes, 2, fragment);
    }
    // The example: in-weights unlike out-weights made SSSP answer by direction.
    let graph = generated("kron:6:d:w");
    let mut bytes = bytes_of(&graph);
    set_u32(&mut bytes, IN_WEIGHTS, 0, 100);
    reseal(&mut bytes);
    for direction in ["push", "pull", "auto"] {
        let dir = s.dir();
        let file = dir.join("g.sxg");
        std::fs::write(&file, &bytes).expect("a case file");
        let args = ["run", "sssp", &arg(&file), "--source", "0", "--direction", direction].map(String::from);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let case = Case::new(format!("reader sxg: sssp --direction {direction} on unlike in-weights"), &args, 2);
        s.add_in(dir, case.check(says("weighs")));
    }
    multigraph_bits(s);
}

/// A multigraph's bit, cleared or set where it does not belong, and version-1 files.
fn multigraph_bits(s: &mut Suite) {
    for directed in [false, true] {
        let shape = if directed { "directed" } else { "undirected" };
        let edges = EdgeList {
            num_vertices: 5,
            src: vec![0, 0, 1, 2, 3, 3],
            dst: vec![1, 1, 2, 3, 4, 4],
            weights: Some(EdgeWeights::U32(vec![4, 2, 7, 1, 9, 9])),
        };
        let graph = GraphBuilder::new().directed(directed).duplicates(Duplicates::Keep).build(edges).expect("built");
        let bytes = bytes_of(&graph);
        add_file_cases(s, &format!("a {shape} multigraph"), &bytes, 0, "");
        let mut cleared = bytes.clone();
        cleared[FLAGS] &= !0b1000;
        reseal_header(&mut cleared);
        add_file_cases(s, &format!("a {shape} multigraph without its bit"), &cleared, 2, "more than once");
        let mut old = cleared.clone();
        put_u32(&mut old, VERSION, 1);
        reseal_header(&mut old);
        add_file_cases(s, &format!("a {shape} version-1 multigraph"), &old, 0, "");
        old[FLAGS] |= 0b1000;
        reseal_header(&mut old);
        add_file_cases(s, &format!("a {shape} version-1 file with the multigraph bit"), &old, 2, "unknown flag bits");
    }
}

/// Changes that leave a valid graph: accepted, and the answers are those of the changed graph.
fn accepted_structures(s: &mut Suite) {
    // Both ends of one undirected edge reweighted alike.
    let graph = generated("kron:7:w");
    let mut bytes = bytes_of(&graph);
    let csr = graph.out_csr();
    let (u, v) = (source(csr, 0), csr.targets()[0]);
    let j = mirror(&graph, u, v);
    set_u32(&mut bytes, OUT_WEIGHTS, 0, 1);
    set_u32(&mut bytes, OUT_WEIGHTS, j, 1);
    reseal(&mut bytes);
    let mut arcs = arcs_of(&graph);
    arcs.arcs[0].2 = 1;
    arcs.arcs[j].2 = 1;
    add_answer_case(s, "both ends of an edge reweighted alike", &bytes, "sssp", oracle::dijkstra(&arcs, &[u]), u);
    // Out- and in-sections swapped in the table: the reversed graph, which is valid.
    let graph = generated("kron:7:d");
    let mut bytes = bytes_of(&graph);
    for i in 0..3 {
        let (a, b) = (48 + 16 * i, 48 + 16 * (i + 3));
        for k in 0..16 {
            bytes.swap(a + k, b + k);
        }
    }
    reseal_header(&mut bytes);
    let reversed =
        Arcs { n: graph.num_vertices(), arcs: arcs_of(&graph).arcs.iter().map(|&(a, b, w)| (b, a, w)).collect() };
    let source = (0..graph.num_vertices() as u32).find(|&v| graph.in_degree(v) > 0).expect("a vertex with in-arcs");
    add_answer_case(
        s,
        "out- and in-sections swapped (the reversed graph)",
        &bytes,
        "bfs",
        oracle::bfs(&reversed, source),
        source,
    );
    // A real weight of -0 on both copies is a weight of 0.
    let graph = generated("mlp:8,6,4");
    let mut bytes = bytes_of(&graph);
    set_u32(&mut bytes, OUT_WEIGHTS, 0, (-0.0f32).to_bits());
    set_u32(&mut bytes, IN_WEIGHTS, in_index(&graph, 0), (-0.0f32).to_bits());
    reseal(&mut bytes);
    add_file_cases(s, "a real weight of -0 on both copies", &bytes, 0, "");
}

/// The index among the in-arcs of out-arc `i`.
fn in_index(graph: &Graph, i: usize) -> usize {
    let (u, v) = (source(graph.out_csr(), i), graph.out_csr().targets()[i]);
    graph.in_csr().range(v).start + graph.in_csr().neighbors(v).binary_search(&u).expect("the in-arc")
}

/// A file that must be accepted, with `algorithm`'s answers from `source` equal to `want`.
fn add_answer_case(s: &mut Suite, what: &str, bytes: &[u8], algorithm: &str, want: Vec<Option<u64>>, source: u32) {
    let dir = s.dir();
    let file = dir.join("g.sxg");
    std::fs::write(&file, bytes).expect("a case file");
    let out = dir.join("answer.txt");
    let source = source.to_string();
    let args = ["run", algorithm, &arg(&file), "--source", &source, "--output", &arg(&out)].map(String::from);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let check = move |_: &_| oracle::same_integers(&std::fs::read_to_string(&out).unwrap_or_default(), &want);
    s.add_in(dir, Case::new(format!("reader sxg: {what} is accepted ({algorithm})"), &args, 0).check(check));
}

/// Damage the checksums or the header catch.
fn damaged(s: &mut Suite) {
    let bytes = bytes_of(&generated("kron:6:d:w"));
    let edited = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut b = bytes.clone();
        f(&mut b);
        b
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("wrong magic", edited(&|b| b[0] = b'X'), "not a simdx binary graph"),
        ("a text file named .sxg", b"0 1\n1 2\n".to_vec(), "not a simdx binary graph"),
        (
            "version 3",
            edited(&|b| {
                put_u32(b, VERSION, 3);
                reseal_header(b)
            }),
            "unsupported format version 3",
        ),
        (
            "version 0",
            edited(&|b| {
                put_u32(b, VERSION, 0);
                reseal_header(b)
            }),
            "unsupported format version 0",
        ),
        (
            "version u32::MAX",
            edited(&|b| {
                put_u32(b, VERSION, u32::MAX);
                reseal_header(b)
            }),
            "unsupported format version",
        ),
        ("a flipped header byte", edited(&|b| b[20] ^= 1), "header checksum mismatch"),
        (
            "a flipped payload byte",
            edited(&|b| {
                let at = b.len() - 3;
                b[at] ^= 0x10
            }),
            "checksum mismatch",
        ),
        (
            "an unknown flag bit",
            edited(&|b| {
                b[FLAGS] |= 0x20;
                reseal_header(b)
            }),
            "unknown flag bits",
        ),
        (
            "weight kind 3",
            edited(&|b| {
                b[FLAGS] |= 0b110;
                reseal_header(b)
            }),
            "unknown weight kind 3",
        ),
        (
            "undirected flags over directed sections",
            edited(&|b| {
                b[FLAGS] &= !1;
                reseal_header(b)
            }),
            "section table lists them",
        ),
        ("bytes after the end", edited(&|b| b.extend_from_slice(&[0; 8])), "unexpected bytes after"),
    ];
    for (what, b, fragment) in cases {
        add_file_cases(s, what, &b, 2, fragment);
    }
}

/// The file cut at every kind of place.
fn truncated(s: &mut Suite) {
    let bytes = bytes_of(&generated("kron:6:w"));
    let len = bytes.len();
    let targets = section(&bytes, OUT_TARGETS);
    for (what, cut) in [
        ("empty", 0),
        ("five bytes", 5),
        ("inside the header", 100),
        ("one byte short of the header", HEADER_LEN - 1),
        ("the header alone", HEADER_LEN),
        ("inside the offsets", HEADER_LEN + 12),
        ("inside the targets", targets + 10),
        ("one byte short", len - 1),
    ] {
        let fragment = if cut == 0 { "empty" } else { "truncated" };
        add_file_cases(s, &format!("cut: {what}"), &bytes[..cut], 2, fragment);
    }
}
