//! Hostile cases: limits. `--memory-limit` below what each reader, the `.sxg` map, each generator and
//! a run's state need, refused before the memory is taken (the peak resident memory stays near the
//! binary's own); sizes that are not sizes; `--threads` outside 1 to 1024 refused in one sentence, and
//! far more threads than cores run quickly with the right answer.

use crate::harness::{Case, Ran};
use crate::oracle::{self, Arcs};
use crate::Suite;

/// The seed `simdx` uses for generator specs when none is given.
const DEFAULT_SEED: u64 = 27491095;
/// The most resident memory a refusal before the work may show, in KiB: the binary alone takes about
/// 12 MiB; reading any of the files below takes 28 MiB or more (kron:17 as `.sxg`, mapped and read).
const REFUSED_EARLY_KB: i64 = 20 << 10;

/// `Err` unless the run was refused for the memory limit with its resident memory still low.
fn refused_early(ran: &Ran) -> Result<(), String> {
    if !ran.stderr.contains("--memory-limit") {
        return Err(format!("the refusal does not name --memory-limit: {}", ran.stderr.trim()));
    }
    match ran.max_rss_kb {
        kb if kb > REFUSED_EARLY_KB => Err(format!("refused only after reaching {} MiB", kb / 1024)),
        _ => Ok(()),
    }
}

pub fn cases(s: &mut Suite) {
    memory_of_files(s);
    memory_of_generators(s);
    memory_sizes(s);
    threads(s);
}

/// A file of each format (made by the first run), then read under a limit far below its size.
fn memory_of_files(s: &mut Suite) {
    for (file, spec) in [
        ("k.el", "kron:16"),
        ("k.wel", "kron:16:w"),
        ("k.mtx", "kron:16"),
        ("k.gr", "kron:16:w"),
        ("k.sxg", "kron:17"),
        ("g.sxg", "grid:700x700"),
    ] {
        for (command, limit) in [("info", "4M"), ("run", "4M"), ("convert", "2M")] {
            let args: Vec<&str> = match command {
                "info" => vec!["--memory-limit", limit, "info", file],
                "run" => vec!["--memory-limit", limit, "run", "bfs", file, "--source", "0", "--backend", "cpu"],
                _ => vec!["--memory-limit", limit, "convert", file, "copy.el"],
            };
            let case =
                Case::new(format!("limits: --memory-limit {limit} {command} {file}"), &["gen", spec, "-o", file], 0)
                    .then(&args, 2)
                    .check(refused_early);
            s.add(case);
        }
    }
    // --undirected on top: still refused early.
    let case = Case::new("limits: --memory-limit 4M info k.el --undirected", &["gen", "kron:16", "-o", "k.el"], 0)
        .then(&["--memory-limit", "4M", "info", "k.el", "--undirected"], 2)
        .check(refused_early);
    s.add(case);
    // The file is within the limit, the run's state is not (a 19 MiB .sxg, 11 MiB of state).
    let case =
        Case::new("limits: --memory-limit between the .sxg and its run", &["gen", "grid:700x700", "-o", "g.sxg"], 0)
            .then(&["--memory-limit", "20M", "run", "sssp", "g.sxg", "--source", "0", "--backend", "cpu"], 2)
            .check(|ran| match ran.stderr.contains("per-vertex state") {
                true => Ok(()),
                false => Err(format!("not the run's state refused: {}", ran.stderr.trim())),
            });
    s.add(case);
    // A limit that fits: the same file reads and the answer is right.
    let want = oracle::bfs(&Arcs::generated("kron:10", DEFAULT_SEED), 3);
    let dir = s.dir();
    let out = dir.join("levels.txt");
    let case = Case::new("limits: --memory-limit that fits", &["gen", "kron:10", "-o", "k.el"], 0)
        .then(
            &["--memory-limit", "64M", "run", "bfs", "k.el", "--undirected", "--source", "3", "--output", "levels.txt"],
            0,
        )
        .check(move |_| oracle::same_integers(&std::fs::read_to_string(&out).unwrap_or_default(), &want));
    s.add_in(dir, case);
}

/// Every generator under a limit far below its graph, through each command that generates.
fn memory_of_generators(s: &mut Suite) {
    for spec in ["kron:18", "urand:18", "rmat:18", "grid:1000x1000", "kron:16:w", "mlp:1000,1000,1000"] {
        for args in [
            vec!["--memory-limit", "8M", "info", spec],
            vec!["--memory-limit", "8M", "gen", spec, "-o", "g.el"],
            vec!["--memory-limit", "8M", "run", "bfs", spec, "--backend", "cpu"],
        ] {
            let name = format!("limits: {}", args.join(" "));
            s.add(Case::new(name, &args, 2).check(refused_early));
        }
    }
    let bench = ["--memory-limit", "8M", "bench", "--algorithms", "bfs", "--graphs", "kron:18", "--trials", "1"];
    s.add(Case::new("limits: --memory-limit 8M bench kron:18", &bench, 2).check(refused_early));
}

/// Sizes that are not sizes.
fn memory_sizes(s: &mut Suite) {
    for size in ["0", "-1", "lots", "1e400", "nan", "12X", "", "-5M", "0.0G"] {
        let args = ["info", "kron:4", "--memory-limit", size];
        s.add(Case::new(format!("limits: --memory-limit {size:?}"), &args, 2));
    }
}

/// Thread counts outside 1 to 1024, and far more threads than cores.
fn threads(s: &mut Suite) {
    for threads in ["0", "-1", "abc", "1.5", "", "1025", "10000", "100000", "99999999999999999999"] {
        let args = ["run", "bfs", "kron:8", "--backend", "cpu", "--threads", threads];
        let case = Case::new(format!("limits: --threads {threads:?}"), &args, 2).check(|ran: &Ran| {
            match ran.stderr.contains("1 to 1024") {
                true => Ok(()),
                false => Err(format!("the refusal does not give the range: {}", ran.stderr.trim())),
            }
        });
        s.add(case);
    }
    // Many threads, on a machine of few cores: quick (the harness allows 10 s), and right.
    let sssp = oracle::dijkstra(&Arcs::generated("kron:12:w", DEFAULT_SEED), &[5]);
    let bfs = oracle::bfs(&Arcs::generated("grid:60x60", DEFAULT_SEED), 0);
    for threads in ["1", "3", "64", "1000", "1024"] {
        for (algorithm, spec, source, want) in
            [("sssp", "kron:12:w", "5", sssp.clone()), ("bfs", "grid:60x60", "0", bfs.clone())]
        {
            let dir = s.dir();
            let out = dir.join("values.txt");
            let args = ["run", algorithm, spec, "--source", source, "--threads", threads, "--output", "values.txt"];
            let check = move |_: &Ran| oracle::same_integers(&std::fs::read_to_string(&out).unwrap_or_default(), &want);
            s.add_in(dir, Case::new(format!("limits: {algorithm} on {threads} threads"), &args, 0).check(check));
        }
    }
    for algorithm in ["pr", "wcc", "kcore"] {
        let args = ["run", algorithm, "kron:12", "--threads", "1024", "--backend", "cpu"];
        s.add(Case::new(format!("limits: {algorithm} on 1024 threads"), &args, 0));
    }
}
