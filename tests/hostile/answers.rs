//! Accepted inputs whose answers are checked against the independent oracles: sums that overflow
//! 32 bits, weights at the type's edge, and the algorithms on small hand-made and generated graphs.

use crate::harness::Case;
use crate::oracle::{self, Arcs};
use crate::{arg, Suite};

/// An arc `(from, to, weight)` of a hand-made graph.
type Arc = (u32, u32, u64);

/// The seed `simdx` uses for generator specs when none is given.
const DEFAULT_SEED: u64 = 27491095;

pub fn cases(s: &mut Suite) {
    sssp_sums(s);
    generated_answers(s);
    hand_made_answers(s);
}

/// BFS, SSSP, WCC and PageRank on generated graphs, under each direction, against the oracles.
fn generated_answers(s: &mut Suite) {
    let specs = ["kron:9:w", "urand:9:w", "rmat:8:w", "grid:20x15", "kron:7:4:w=1-1000000"];
    for spec in specs {
        let g = Arcs::generated(spec, DEFAULT_SEED);
        for direction in ["push", "pull", "auto"] {
            for (algorithm, want) in
                [("bfs", oracle::bfs(&g, 1)), ("sssp", oracle::dijkstra(&g, &[1])), ("wcc", oracle::components(&g))]
            {
                let dir = s.dir();
                let out = dir.join("v.txt");
                let args = ["run", algorithm, spec, "--source", "1", "--direction", direction, "--output", &arg(&out)];
                let args = if algorithm == "wcc" { [&args[..3], &args[5..]].concat() } else { args.to_vec() };
                let check =
                    move |_: &_| oracle::same_integers(&std::fs::read_to_string(&out).unwrap_or_default(), &want);
                s.add_in(dir, Case::new(format!("answers: {algorithm} on {spec}, {direction}"), &args, 0).check(check));
            }
        }
        let want = oracle::pagerank(&g, 0.85);
        let dir = s.dir();
        let out = dir.join("r.txt");
        let args = ["run", "pr", spec, "--tolerance", "1e-9", "--output", &arg(&out)];
        let check = move |_: &_| oracle::close_floats(&std::fs::read_to_string(&out).unwrap_or_default(), &want, 1e-5);
        s.add_in(dir, Case::new(format!("answers: pagerank on {spec}"), &args, 0).check(check));
    }
}

/// Hand-made files: isolated vertices, one vertex, no edges, unreachable parts, heavy weights.
fn hand_made_answers(s: &mut Suite) {
    let graphs: [(&str, usize, &[Arc]); 5] = [
        ("a path and isolated vertices", 9, &[(0, 1, 3), (1, 2, 4), (2, 3, 5)]),
        ("a star", 6, &[(0, 1, 7), (0, 2, 1), (0, 3, 2), (0, 4, 9), (0, 5, 4)]),
        ("two components", 8, &[(0, 1, 1), (1, 2, 1), (4, 5, 2), (5, 6, 2), (6, 7, 2)]),
        ("a cycle with a shortcut", 5, &[(0, 1, 10), (1, 2, 10), (2, 3, 10), (3, 4, 10), (4, 0, 10), (0, 3, 1)]),
        ("a heavy bridge", 4, &[(0, 1, 4000000000), (1, 2, 4000000000), (2, 3, 1)]),
    ];
    for (name, n, edges) in graphs {
        for directed in [true, false] {
            let g = Arcs::new(n, edges, !directed);
            for (algorithm, want) in [("bfs", oracle::bfs(&g, 0)), ("sssp", oracle::dijkstra(&g, &[0]))] {
                let dir = s.dir();
                let file = dir.join("g.mtx");
                let kind = if directed { "general" } else { "symmetric" };
                let mut text = format!("%%MatrixMarket matrix coordinate integer {kind}\n{n} {n} {}\n", edges.len());
                for &(u, v, w) in edges {
                    // A symmetric file keeps the lower triangle.
                    let (a, b) = if directed { (u, v) } else { (u.max(v), u.min(v)) };
                    text += &format!("{} {} {w}\n", a + 1, b + 1);
                }
                std::fs::write(&file, text).unwrap();
                let out = dir.join("v.txt");
                let args = ["run", algorithm, &arg(&file), "--source", "0", "--validate", "--output", &arg(&out)];
                let check =
                    move |_: &_| oracle::same_integers(&std::fs::read_to_string(&out).unwrap_or_default(), &want);
                let shown = if directed { "directed" } else { "undirected" };
                s.add_in(
                    dir,
                    Case::new(format!("answers: {algorithm} on {name}, {shown} .mtx"), &args, 0).check(check),
                );
            }
        }
    }
}

/// SSSP whose distances pass `u32::MAX`: from the generator, and from `.wel` files at the largest weight.
fn sssp_sums(s: &mut Suite) {
    for (spec, source) in [
        ("kron:10:16:w=1500000000-1500000000", 5u32),
        ("kron:8:w=4000000000-4294967295", 3),
        ("grid:20x20:w=100000000-4294967295", 0),
        ("urand:9:w=3000000000-3000000001", 7),
    ] {
        let want = oracle::dijkstra(&Arcs::generated(spec, DEFAULT_SEED), &[source]);
        let dir = s.dir();
        let out = dir.join("d.txt");
        let source = source.to_string();
        let args = ["run", "sssp", spec, "--source", &source, "--validate", "--output", &arg(&out)];
        let check = move |_: &_| oracle::same_integers(&std::fs::read_to_string(&out).unwrap_or_default(), &want);
        s.add_in(dir, Case::new(format!("sssp: distances past u32 on {spec}"), &args, 0).check(check));
    }
    // A path of heavy edges in a file: every distance but the source's passes 2^32.
    for (weight, directed) in [(4294967294u64, true), (4294967295, false), (2147483648, true)] {
        let edges: Vec<(u32, u32, u64)> = (0..6).map(|i| (i, i + 1, weight)).collect();
        let dir = s.dir();
        let file = dir.join("path.wel");
        let text: String = edges.iter().map(|(u, v, w)| format!("{u} {v} {w}\n")).collect();
        std::fs::write(&file, text).unwrap();
        let out = dir.join("d.txt");
        let want = oracle::dijkstra(&Arcs::new(7, &edges, !directed), &[0]);
        let mut args = vec!["run", "sssp", "--source", "0", "--validate", "--output"];
        let (file, out_arg) = (arg(&file), arg(&out));
        args.extend([out_arg.as_str(), file.as_str()]);
        if !directed {
            args.push("--undirected");
        }
        let check = move |_: &_| oracle::same_integers(&std::fs::read_to_string(&out).unwrap_or_default(), &want);
        s.add_in(dir, Case::new(format!("sssp: .wel path of weight {weight}"), &args, 0).check(check));
    }
}
