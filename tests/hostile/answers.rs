//! Accepted inputs whose answers are checked against the independent oracles: sums that overflow
//! 32 bits, weights at the type's edge, and the algorithms on small hand-made and generated graphs.

use crate::harness::Case;
use crate::oracle::{self, Arcs};
use crate::{arg, Suite};

/// The seed `simdx` uses for generator specs when none is given.
const DEFAULT_SEED: u64 = 27491095;

pub fn cases(s: &mut Suite) {
    sssp_sums(s);
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
