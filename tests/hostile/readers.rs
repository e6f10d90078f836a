//! Hostile cases: readers. `.sxg` files whose checksums are right but whose graph is not (asymmetric,
//! not transposed, weights that differ between copies, duplicate arcs, wrong counts, unsorted lists,
//! real weights out of their domain), damaged and truncated files and unknown versions; every file
//! simdx writes (every generator kind, weighted or not, directed or not, in every format) read back
//! with no option and compared with the original and with the oracles; text files whose `simdx:`
//! header contradicts them.

mod round_trips;
mod sxg;
mod text;

use simdx_core::Graph;

use crate::harness::Ran;
use crate::oracle::Arcs;
use crate::Suite;

/// The seed `simdx` uses for generator specs when none is given.
pub const SEED: u64 = 27491095;

pub fn cases(s: &mut Suite) {
    sxg::cases(s);
    round_trips::cases(s);
    text::cases(s);
}

/// The graph of a generator spec, as `simdx` makes it by default.
pub fn generated(spec: &str) -> Graph {
    simdx_core::gen::GeneratorSpec::parse(spec).expect("a valid spec").generate(SEED).expect("generated")
}

/// The arcs of `graph`, weights widened (1 when unweighted; reals truncated).
pub fn arcs_of(graph: &Graph) -> Arcs {
    let csr = graph.out_csr();
    let mut arcs = Vec::with_capacity(csr.num_arcs() as usize);
    for u in 0..graph.num_vertices() as u32 {
        for i in csr.range(u) {
            let w = csr.weights().map_or(1.0, |w| w.get_f64(i));
            arcs.push((u, csr.targets()[i], w as u64));
        }
    }
    Arcs { n: graph.num_vertices(), arcs }
}

/// A check that the last run's standard error holds `fragment`.
pub fn says(fragment: impl Into<String>) -> impl Fn(&Ran) -> Result<(), String> + Send + Sync + 'static {
    let fragment = fragment.into();
    move |ran: &Ran| {
        if ran.stderr.contains(&fragment) {
            Ok(())
        } else {
            Err(format!("stderr does not say '{fragment}': {}", ran.stderr.trim()))
        }
    }
}

/// What `simdx info --json` must report of a graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    vertices: u64,
    edges: u64,
    directed: bool,
    weight_type: Option<String>,
}

impl Shape {
    /// The shape of `graph`.
    pub fn of(graph: &Graph) -> Shape {
        Shape {
            vertices: graph.num_vertices() as u64,
            edges: graph.num_edges(),
            directed: graph.is_directed(),
            weight_type: graph.weight_kind().map(|k| k.to_string()),
        }
    }

    /// A check that the last run printed `info --json` of a graph of this shape.
    pub fn check(self) -> impl Fn(&Ran) -> Result<(), String> + Send + Sync + 'static {
        move |ran: &Ran| {
            let json: serde_json::Value =
                serde_json::from_str(ran.stdout.trim()).map_err(|e| format!("info --json printed no JSON: {e}"))?;
            let got = Shape {
                vertices: json["vertices"].as_u64().unwrap_or(u64::MAX),
                edges: json["edges"].as_u64().unwrap_or(u64::MAX),
                directed: json["directed"].as_bool().unwrap_or(!self.directed),
                weight_type: json["weight_type"].as_str().map(String::from),
            };
            if got == self {
                Ok(())
            } else {
                Err(format!("read back as {got:?}, written as {self:?}"))
            }
        }
    }
}
