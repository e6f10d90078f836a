//! simdx's CPU backend against the `graph` crate (neo4j-labs), the two run alternately in one process:
//! SSSP (delta-stepping) and PageRank (20 iterations) on kron:18:w, urand:18:w and grid:512x512, each
//! pair timed back to back `ROUNDS` times, medians compared (and minimums: on a shared machine the
//! fastest round is the one least disturbed). SSSP runs twice: both sides at the same bucket width
//! (`default_delta`), and each side at the width it is fastest with (GAP lets the width be tuned per
//! graph): widths from a quarter of the default to 16 times it, powers of two apart, each timed 3
//! times per side before the rounds. Criterion (`benches/cpu.rs`) times one side
//! minutes after the other, which a shared machine turns into noise; alternating keeps both sides under
//! the same load. After the timings, each side's PageRank is compared (L1) with a serial `f64` power
//! iteration of the same 20 iterations: the graph crate keeps `f32` ranks and drops the rank of
//! dangling vertices, so the two do not compute quite the same thing. A second PageRank row runs both
//! as GAP defines the benchmark: until the ranks change by less than 1e-4 (L1) in one iteration, at
//! most 20 iterations; both libraries measure the change that way.
//! Run: `cargo bench -p simdx-benches --bench versus [-- sssp|pr] [-- --rounds N]`.

use std::time::Instant;

use simdx_benches::{baseline, source};

use graph::prelude::{delta_stepping, page_rank, DeltaSteppingConfig, DirectedCsrGraph, PageRankConfig};
use simdx::engine::Engine;
use simdx::gen::GeneratorSpec;
use simdx::Graph;
use simdx_algos::{default_delta, verify, PageRank, Sssp};

const GRAPHS: [&str; 3] = ["kron:18:w", "urand:18:w", "grid:512x512"];
const PAGERANK: PageRank = PageRank { damping: 0.85, tolerance: 0.0, max_iterations: 20 };
/// GAP's PageRank benchmark: tolerance 1e-4, at most 20 iterations.
const PAGERANK_GAP: PageRank = PageRank { damping: 0.85, tolerance: 1e-4, max_iterations: 20 };
const ROUNDS: usize = 15;

/// Milliseconds `f` takes.
fn time(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64() * 1e3
}

/// Bucket widths to try for a graph whose default width is `default`: `default / 4` to `default x 16`,
/// powers of two apart.
fn candidate_deltas(default: u32) -> Vec<u32> {
    let mut deltas: Vec<u32> =
        (0..7).map(|k| ((u64::from(default) << k) / 4).clamp(1, u64::from(u32::MAX)) as u32).collect();
    deltas.dedup();
    deltas
}

/// The width of `deltas` with which `run` is fastest (best of 3 runs each).
fn fastest_delta(deltas: &[u32], mut run: impl FnMut(u32)) -> u32 {
    let best = |&delta: &u32| (0..3).map(|_| time(|| run(delta))).fold(f64::INFINITY, f64::min);
    let times: Vec<f64> = deltas.iter().map(best).collect();
    let fastest = (0..deltas.len()).min_by(|&a, &b| times[a].total_cmp(&times[b])).unwrap_or(0);
    deltas[fastest]
}

fn minimum(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::INFINITY, f64::min)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The graph crate's configuration of `pr`.
fn their_config(pr: &PageRank) -> PageRankConfig {
    PageRankConfig::new(pr.max_iterations as usize, pr.tolerance, pr.damping as f32)
}

/// Both sides' `pr` against the serial power iteration of 20 iterations: "L1 / L1", and the
/// iterations each ran.
fn pagerank_accuracy(engine: &Engine, g: &Graph, plain: &DirectedCsrGraph<u32>, pr: &PageRank) -> String {
    let exact = verify::serial_pagerank(g, &PAGERANK);
    let l1 =
        |ranks: &mut dyn Iterator<Item = f64>| -> f64 { exact.iter().zip(ranks).map(|(e, r)| (e - r).abs()).sum() };
    let ours = engine.run(pr, g).expect("simdx pagerank");
    let (theirs, iterations, _) = page_rank(plain, their_config(pr));
    format!(
        "{:.1e} / {:.1e} ({} / {} iterations)",
        l1(&mut ours.values.into_iter()),
        l1(&mut theirs.into_iter().map(f64::from)),
        ours.stats.iterations.len(),
        iterations
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = args
        .iter()
        .position(|a| a == "--rounds")
        .and_then(|i| args.get(i + 1))
        .and_then(|r| r.parse().ok())
        .unwrap_or(ROUNDS);
    let picked: Vec<&str> = args.iter().map(String::as_str).filter(|a| matches!(*a, "sssp" | "pr")).collect();
    let wants = |algo: &str| picked.is_empty() || picked.contains(&algo);
    let engine = Engine::default();
    println!(
        "| graph | algorithm | simdx (ms) | graph crate (ms) | simdx / graph crate | ratio of minimums | SSSP: bucket width; PageRank: L1 from serial, simdx / graph crate |"
    );
    println!("|---|---|---|---|---|---|---|");
    for spec in GRAPHS {
        let g = GeneratorSpec::parse(spec).expect("a valid spec").generate(1).expect("a generated graph");
        let (plain, weighted) = baseline(&g);
        let source = source(&g);
        let delta = default_delta(&g);
        let ours_at = |delta: u32| drop(engine.run(&Sssp { source, delta }, &g).expect("simdx sssp"));
        let theirs_at =
            |delta: u32| drop(delta_stepping(&weighted, DeltaSteppingConfig::new(source as usize, delta as f32)));
        let mut rows: Vec<(&str, Vec<f64>, Vec<f64>)> = Vec::new();
        let (mut our_delta, mut their_delta) = (delta, delta);
        if wants("sssp") {
            let deltas = candidate_deltas(delta);
            our_delta = fastest_delta(&deltas, ours_at);
            their_delta = fastest_delta(&deltas, theirs_at);
            rows.push(("sssp", Vec::new(), Vec::new()));
            rows.push(("sssp-tuned", Vec::new(), Vec::new()));
        }
        if wants("pr") {
            rows.push(("pagerank-20", Vec::new(), Vec::new()));
            rows.push(("pagerank-gap", Vec::new(), Vec::new()));
        }
        for _ in 0..rounds {
            for (algo, ours, theirs) in &mut rows {
                match *algo {
                    "sssp" => {
                        ours.push(time(|| ours_at(delta)));
                        theirs.push(time(|| theirs_at(delta)));
                    }
                    "sssp-tuned" => {
                        ours.push(time(|| ours_at(our_delta)));
                        theirs.push(time(|| theirs_at(their_delta)));
                    }
                    _ => {
                        let pr = if *algo == "pagerank-20" { &PAGERANK } else { &PAGERANK_GAP };
                        ours.push(time(|| drop(engine.run(pr, &g).expect("simdx pagerank"))));
                        theirs.push(time(|| drop(page_rank(&plain, their_config(pr)))));
                    }
                }
            }
        }
        for (algo, ours, theirs) in rows {
            let fastest = minimum(&ours) / minimum(&theirs);
            let (a, b) = (median(ours), median(theirs));
            let accuracy = match algo {
                "sssp" => format!("delta {delta}"),
                "sssp-tuned" => format!("delta {our_delta} / {their_delta}"),
                "pagerank-20" => pagerank_accuracy(&engine, &g, &plain, &PAGERANK),
                _ => pagerank_accuracy(&engine, &g, &plain, &PAGERANK_GAP),
            };
            println!("| {spec} | {algo} | {a:.1} | {b:.1} | {:.2} | {fastest:.2} | {accuracy} |", a / b);
        }
    }
}
