//! [`GeneratorSpec`]: the short text form of a generated graph (`kron:20`, `rmat:18:8:0.45:0.15:0.15`,
//! `kron:22:d`, `grid:1024x1024:w=1-100`, `mlp:784,256,128,10`, ...) — parsing with clear errors,
//! validation, the canonical printed form, and generation. The grammar is on [`GeneratorSpec::parse`].

use std::fmt;

use super::{grid, kronecker, mlp, uniform};
use crate::error::{GraphError, Result};
use crate::graph::builder::{EdgeList, GraphBuilder};
use crate::Graph;

/// The seed used when the user gives none, so that `kron:20` names one graph everywhere. Any fixed
/// value would do.
pub const DEFAULT_SEED: u64 = 27_491_095;

/// The default edge factor (edges per vertex) of `kron`, `rmat` and `urand`, as in Graph500.
const DEFAULT_EDGE_FACTOR: u64 = 16;

/// The Graph500 initiator probabilities A, B, C (D = 0.05), also R-MAT's defaults.
const GRAPH500_ABC: (f64, f64, f64) = (0.57, 0.19, 0.19);

/// Largest scale: `2^31` vertices, the largest power of two with ids in `u32` below the "no vertex"
/// marker.
const MAX_SCALE: u32 = 31;

/// The generator names a spec may start with.
const KINDS: [&str; 5] = ["kron", "urand", "rmat", "grid", "mlp"];

/// An inclusive range `[lo, hi]` of integer edge weights, `1 <= lo <= hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WeightRange {
    /// Smallest weight (at least 1).
    pub lo: u32,
    /// Largest weight.
    pub hi: u32,
}

impl Default for WeightRange {
    /// `[1, 255]`.
    fn default() -> Self {
        WeightRange { lo: 1, hi: 255 }
    }
}

/// A graph generator and its parameters, as written on the command line. See the [module
/// docs](super) for the forms; [`GeneratorSpec::parse`] reads them and `Display` writes the canonical
/// (shortest) form back, which parses to the same spec.
///
/// ```
/// use simdx_core::gen::GeneratorSpec;
/// let spec = GeneratorSpec::parse("rmat:12:8:0.25:0.25:0.25:w=1-9").unwrap();
/// assert_eq!(spec.num_vertices(), 4096);
/// assert_eq!(spec.num_generated_edges(), 8 * 4096);
/// assert_eq!(spec.to_string(), "rmat:12:8:0.25:0.25:0.25:w=1-9");
/// assert_eq!(GeneratorSpec::parse("kron:20:16").unwrap().to_string(), "kron:20");
/// let directed = GeneratorSpec::parse("kron:20:w:d").unwrap();
/// assert!(directed.is_directed());
/// assert_eq!(directed.to_string(), "kron:20:d:w");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum GeneratorSpec {
    /// Graph500 Kronecker: `edge_factor * 2^scale` edges, A,B,C = .57,.19,.19, labels permuted.
    Kronecker {
        /// log2 of the vertex count, 1..=31.
        scale: u32,
        /// Edges generated per vertex (before duplicates and self-loops are removed), at least 1.
        edge_factor: u64,
        /// Integer weight range, or `None` for an unweighted graph.
        weights: Option<WeightRange>,
        /// Keep each edge as one arc `u -> v` (a directed graph, `:d`) instead of symmetrising it.
        directed: bool,
    },
    /// Uniform random: `edge_factor * 2^scale` edges with endpoints uniform in `0..2^scale`.
    Uniform {
        /// log2 of the vertex count, 1..=31.
        scale: u32,
        /// Edges generated per vertex, at least 1.
        edge_factor: u64,
        /// Integer weight range, or `None` for an unweighted graph.
        weights: Option<WeightRange>,
        /// Keep each edge as one arc `u -> v` (a directed graph, `:d`) instead of symmetrising it.
        directed: bool,
    },
    /// R-MAT: the Kronecker recursion with quadrant probabilities `a, b, c, 1 - a - b - c` and no
    /// relabelling.
    Rmat {
        /// log2 of the vertex count, 1..=31.
        scale: u32,
        /// Edges generated per vertex, at least 1.
        edge_factor: u64,
        /// Probability of the top-left quadrant.
        a: f64,
        /// Probability of the top-right quadrant.
        b: f64,
        /// Probability of the bottom-left quadrant.
        c: f64,
        /// Integer weight range, or `None` for an unweighted graph.
        weights: Option<WeightRange>,
        /// Keep each edge as one arc `u -> v` (a directed graph, `:d`) instead of symmetrising it.
        directed: bool,
    },
    /// A `width x height` 4-neighbour grid, always weighted.
    Grid {
        /// Vertices per row, at least 1.
        width: u32,
        /// Rows, at least 1.
        height: u32,
        /// Integer weight range.
        weights: WeightRange,
    },
    /// A random multi-layer perceptron: a directed layered graph with `f32` weights (see
    /// [`GeneratorSpec::Mlp`]'s fields and the [module docs](super)).
    Mlp {
        /// The number of neurons of each layer, inputs first; at least two layers, each at least 1.
        widths: Vec<u32>,
        /// Inputs per neuron (drawn at random from the layer before), or `None` for fully connected.
        fan_in: Option<u32>,
    },
}

/// Whether `s` looks like a generator spec rather than a file name: it starts with `kron:`,
/// `urand:`, `rmat:`, `grid:` or `mlp:` (in any case). A cheap test; [`GeneratorSpec::parse`] does the rest.
pub fn is_spec(s: &str) -> bool {
    s.trim_start().split_once(':').is_some_and(|(kind, _)| KINDS.iter().any(|k| kind.eq_ignore_ascii_case(k)))
}

impl GeneratorSpec {
    /// Parses a spec such as `kron:20`, `urand:18:8:w`, `kron:22:d`, `rmat:16:16:0.45:0.15:0.15:d:w`,
    /// `grid:1000x1000:w=1-10` or `mlp:784,256,10:16`, checking every parameter's range; an error
    /// ([`GraphError::Spec`]) quotes the spec and says in one sentence what is wrong.
    ///
    /// The grammar (`KIND` in any case, `[...]` optional):
    ///
    /// ```text
    /// kron:SCALE[:EDGE_FACTOR][FLAGS]              Graph500 Kronecker (EDGE_FACTOR 16 by default)
    /// urand:SCALE[:EDGE_FACTOR][FLAGS]             uniform random
    /// rmat:SCALE[:EDGE_FACTOR[:A:B:C]][FLAGS]      R-MAT (A:B:C .57:.19:.19 by default)
    /// grid:WIDTHxHEIGHT[:w=LO-HI]                  undirected, always weighted ([1, 255] by default)
    /// mlp:W0,W1[,...][:FAN_IN]                     directed, f32 weights
    /// FLAGS = after the numbers, in either order, each at most once:
    ///         :d                                   directed
    ///         :w | :w=LO-HI                        integer weights in [1, 255] | [LO, HI]
    /// ```
    ///
    /// `:d` makes a directed graph (out- and in-CSR): each generated edge `(u, v)` is the one arc
    /// `u -> v` instead of being symmetrised. The edge stream is the one of the spec without `:d`, so
    /// for the same seed `kron:16:d` holds exactly the arcs whose symmetrisation is `kron:16` (and
    /// `kron:16:d:w` those of `kron:16:w`, each arc with the weight drawn for its edge, the smallest
    /// for an arc drawn more than once, on both CSRs). `grid` graphs are
    /// always undirected and `mlp` networks always directed, so neither takes `:d`. The canonical
    /// (printed) form writes `:d` before `:w`: `rmat:16:8:d:w=1-100`.
    pub fn parse(s: &str) -> Result<GeneratorSpec> {
        let err = |message: String| GraphError::Spec { spec: s.to_string(), message };
        let text = s.trim();
        let Some((kind, rest)) = text.split_once(':') else {
            return Err(err(format!("expected KIND:PARAMETERS with KIND one of {}", KINDS.join(", "))));
        };
        let kind = kind.to_ascii_lowercase();
        let mut parts: Vec<&str> = rest.split(':').map(str::trim).collect();
        // The trailing flags, in any order, each at most once: `:d` and `:w` or `:w=LO-HI`.
        let is_weights = |p: &str| p == "w" || p.starts_with("w=");
        let (mut weights, mut directed) = (None, false);
        while let Some(&last) = parts.last() {
            if last == "d" {
                if directed {
                    return Err(err("':d' is given twice".into()));
                }
                directed = true;
            } else if is_weights(last) {
                if weights.is_some() {
                    return Err(err("the weights (':w' or ':w=LO-HI') are given twice".into()));
                }
                weights = Some(parse_weights(last).map_err(err)?);
            } else {
                break;
            }
            parts.pop();
        }
        if let Some(flag) = parts.iter().find(|p| **p == "d" || is_weights(p)) {
            return Err(err(format!("':{flag}' must come after the numeric parameters, e.g. kron:16:8:d:w")));
        }
        if directed && kind == "grid" {
            return Err(err("grid graphs are always undirected; ':d' applies to kron, urand and rmat".into()));
        }
        if directed && kind == "mlp" {
            return Err(err("mlp networks are always directed; leave out ':d'".into()));
        }
        let spec = match kind.as_str() {
            "kron" | "urand" => {
                let usage = format!("expected {kind}:SCALE[:EDGE_FACTOR][:d][:w|:w=LO-HI]");
                let (scale, edge_factor) = match parts[..] {
                    [scale] => (scale, None),
                    [scale, factor] => (scale, Some(factor)),
                    _ => return Err(err(usage)),
                };
                let scale = parse_scale(scale).map_err(err)?;
                let edge_factor = edge_factor.map(parse_edge_factor).transpose().map_err(err)?;
                let edge_factor = edge_factor.unwrap_or(DEFAULT_EDGE_FACTOR);
                if kind == "kron" {
                    GeneratorSpec::Kronecker { scale, edge_factor, weights, directed }
                } else {
                    GeneratorSpec::Uniform { scale, edge_factor, weights, directed }
                }
            }
            "rmat" => {
                let usage = "expected rmat:SCALE[:EDGE_FACTOR[:A:B:C]][:d][:w|:w=LO-HI]".to_string();
                let (scale, edge_factor, abc) = match parts[..] {
                    [scale] => (scale, None, None),
                    [scale, factor] => (scale, Some(factor), None),
                    [scale, factor, a, b, c] => (scale, Some(factor), Some((a, b, c))),
                    _ => return Err(err(usage)),
                };
                let scale = parse_scale(scale).map_err(err)?;
                let edge_factor = edge_factor.map(parse_edge_factor).transpose().map_err(err)?;
                let (a, b, c) = match abc {
                    None => GRAPH500_ABC,
                    Some((a, b, c)) => (
                        parse_probability("A", a).map_err(err)?,
                        parse_probability("B", b).map_err(err)?,
                        parse_probability("C", c).map_err(err)?,
                    ),
                };
                let edge_factor = edge_factor.unwrap_or(DEFAULT_EDGE_FACTOR);
                GeneratorSpec::Rmat { scale, edge_factor, a, b, c, weights, directed }
            }
            "grid" => {
                let [size] = parts[..] else {
                    return Err(err("expected grid:WIDTHxHEIGHT[:w=LO-HI]".into()));
                };
                let Some((w, h)) = size.split_once(['x', 'X']) else {
                    return Err(err(format!("grid size '{size}' is not of the form WIDTHxHEIGHT, e.g. 1024x1024")));
                };
                let width = parse_side("width", w).map_err(err)?;
                let height = parse_side("height", h).map_err(err)?;
                GeneratorSpec::Grid { width, height, weights: weights.unwrap_or_default() }
            }
            "mlp" => {
                let usage = "expected mlp:WIDTH,WIDTH[,...][:FAN_IN], e.g. mlp:784,256,128,10";
                if weights.is_some() {
                    return Err(err("mlp networks always have real (f32) weights; leave out ':w'".into()));
                }
                let (widths, fan_in) = match parts[..] {
                    [widths] => (widths, None),
                    [widths, fan_in] => (widths, Some(fan_in)),
                    _ => return Err(err(usage.into())),
                };
                let widths: Result<Vec<u32>, String> =
                    widths.split(',').map(|w| parse_width("layer width", w.trim())).collect();
                let fan_in = fan_in.map(|f| parse_width("fan-in", f)).transpose();
                GeneratorSpec::Mlp { widths: widths.map_err(err)?, fan_in: fan_in.map_err(err)? }
            }
            _ => {
                return Err(err(format!("unknown generator '{kind}': use one of {}", KINDS.join(", "))));
            }
        };
        spec.validate().map_err(err)?;
        Ok(spec)
    }

    /// Checks the parameters' ranges (the checks [`GeneratorSpec::parse`] makes, for a spec built
    /// directly); the message says what is wrong.
    pub fn validate(&self) -> Result<(), String> {
        let check_scale = |scale: u32, edge_factor: u64| -> Result<(), String> {
            if !(1..=MAX_SCALE).contains(&scale) {
                return Err(format!("scale {scale} is out of range 1..={MAX_SCALE} (vertex ids are u32)"));
            }
            if edge_factor == 0 {
                return Err("the edge factor must be at least 1".into());
            }
            if edge_factor.checked_mul(1u64 << scale).map_or(true, |m| usize::try_from(m).is_err()) {
                return Err(format!("{edge_factor} edges per vertex at scale {scale} are too many edges"));
            }
            Ok(())
        };
        let check_weights = |w: &WeightRange| -> Result<(), String> {
            if w.lo == 0 {
                return Err("weights must be at least 1".into());
            }
            if w.lo > w.hi {
                return Err(format!("the weight range {}-{} is empty (LO > HI)", w.lo, w.hi));
            }
            Ok(())
        };
        match self {
            GeneratorSpec::Kronecker { scale, edge_factor, weights, .. }
            | GeneratorSpec::Uniform { scale, edge_factor, weights, .. } => {
                check_scale(*scale, *edge_factor)?;
                weights.as_ref().map_or(Ok(()), check_weights)
            }
            GeneratorSpec::Rmat { scale, edge_factor, a, b, c, weights, .. } => {
                check_scale(*scale, *edge_factor)?;
                for (name, p) in [("A", a), ("B", b), ("C", c)] {
                    if !(0.0..=1.0).contains(p) {
                        return Err(format!("probability {name} = {p} is not in [0, 1]"));
                    }
                }
                if a + b + c > 1.0 + 1e-9 {
                    return Err(format!("A + B + C = {} exceeds 1 (D = 1 - A - B - C)", a + b + c));
                }
                weights.as_ref().map_or(Ok(()), check_weights)
            }
            GeneratorSpec::Grid { width, height, weights } => {
                if *width == 0 || *height == 0 {
                    return Err(format!("a {width}x{height} grid has no vertices; both sides must be at least 1"));
                }
                let n = u64::from(*width) * u64::from(*height);
                if n > crate::MAX_VERTICES as u64 {
                    return Err(format!(
                        "a {width}x{height} grid has {n} vertices, more than the limit of {} (vertex ids are u32)",
                        crate::MAX_VERTICES
                    ));
                }
                check_weights(weights)
            }
            GeneratorSpec::Mlp { widths, fan_in } => {
                if widths.len() < 2 {
                    return Err(format!(
                        "a network needs at least two layers (inputs and outputs), not {}",
                        widths.len()
                    ));
                }
                if widths.contains(&0) || *fan_in == Some(0) {
                    return Err("layer widths and the fan-in must be at least 1".into());
                }
                let n = widths.iter().map(|&w| u64::from(w)).sum::<u64>();
                if n > crate::MAX_VERTICES as u64 {
                    return Err(format!(
                        "the network has {n} neurons, more than the limit of {} (vertex ids are u32)",
                        crate::MAX_VERTICES
                    ));
                }
                if mlp::num_edges(widths, *fan_in).map_or(true, |m| usize::try_from(m).is_err()) {
                    return Err("the network has too many edges".into());
                }
                Ok(())
            }
        }
    }

    /// Number of vertices of the generated graph.
    pub fn num_vertices(&self) -> usize {
        match self {
            GeneratorSpec::Kronecker { scale, .. }
            | GeneratorSpec::Uniform { scale, .. }
            | GeneratorSpec::Rmat { scale, .. } => 1usize << scale,
            GeneratorSpec::Grid { width, height, .. } => *width as usize * *height as usize,
            GeneratorSpec::Mlp { widths, .. } => widths.iter().map(|&w| w as usize).sum(),
        }
    }

    /// Number of edges the generator draws (what [`GeneratorSpec::edge_list`] returns, before
    /// self-loops and duplicates are removed) — for sizing progress bars and buffers.
    pub fn num_generated_edges(&self) -> u64 {
        match self {
            GeneratorSpec::Kronecker { scale, edge_factor, .. }
            | GeneratorSpec::Uniform { scale, edge_factor, .. }
            | GeneratorSpec::Rmat { scale, edge_factor, .. } => edge_factor.saturating_mul(1u64 << scale),
            GeneratorSpec::Grid { width, height, .. } => grid::num_edges(u64::from(*width), u64::from(*height)),
            GeneratorSpec::Mlp { widths, fan_in } => mlp::num_edges(widths, *fan_in).unwrap_or(u64::MAX),
        }
    }

    /// The integer weight range, or `None` for an unweighted generator and for `mlp` (whose weights
    /// are real).
    pub fn weights(&self) -> Option<WeightRange> {
        match self {
            GeneratorSpec::Kronecker { weights, .. }
            | GeneratorSpec::Uniform { weights, .. }
            | GeneratorSpec::Rmat { weights, .. } => *weights,
            GeneratorSpec::Grid { weights, .. } => Some(*weights),
            GeneratorSpec::Mlp { .. } => None,
        }
    }

    /// The raw generated edges for `seed`, self-loops and duplicates included, in generation order.
    /// Directed or not, the same (`kron:16:d` and `kron:16` draw the same edges).
    /// Fails on an invalid spec or when memory for the edges cannot be allocated.
    pub fn edge_list(&self, seed: u64) -> Result<EdgeList> {
        let err = |message: String| GraphError::Spec { spec: self.to_string(), message };
        self.validate().map_err(err)?;
        match *self {
            GeneratorSpec::Mlp { ref widths, fan_in } => mlp::generate(widths, fan_in, seed),
            GeneratorSpec::Kronecker { scale, edge_factor, weights, .. } => {
                kronecker::generate(scale, edge_factor, GRAPH500_ABC, true, seed, weights)
            }
            GeneratorSpec::Rmat { scale, edge_factor, a, b, c, weights, .. } => {
                kronecker::generate(scale, edge_factor, (a, b, c), false, seed, weights)
            }
            GeneratorSpec::Uniform { scale, edge_factor, weights, .. } => {
                uniform::generate(scale, edge_factor, seed, weights)
            }
            GeneratorSpec::Grid { width, height, weights } => grid::generate(width, height, seed, weights),
        }
        .map_err(err)
    }

    /// Whether the generated graph is directed: `mlp` networks and the `:d` forms of `kron`, `urand`
    /// and `rmat` are.
    pub fn is_directed(&self) -> bool {
        match self {
            GeneratorSpec::Kronecker { directed, .. }
            | GeneratorSpec::Uniform { directed, .. }
            | GeneratorSpec::Rmat { directed, .. } => *directed,
            GeneratorSpec::Grid { .. } => false,
            GeneratorSpec::Mlp { .. } => true,
        }
    }

    /// Generates the graph for `seed`: undirected, or directed (out- and in-CSR, each generated edge
    /// `(u, v)` the arc `u -> v`) where [`GeneratorSpec::is_directed`] says so; self-loops and
    /// duplicate edges (arcs) removed, a duplicate keeping its smallest weight. The same spec and seed
    /// give the same graph on any number of threads.
    /// Refuses, before anything is allocated, a graph that would not fit in the available memory.
    pub fn generate(&self, seed: u64) -> Result<Graph> {
        let (n, m) = (self.num_vertices() as u64, self.num_generated_edges());
        crate::memory::check(
            crate::memory::graph_bytes(n, m, self.is_directed()),
            &format!("generating {n} vertices and {m} edges"),
        )
        .map_err(|message| GraphError::Spec {
            spec: self.to_string(),
            message: format!("{message}; choose a smaller scale"),
        })?;
        GraphBuilder::new().directed(self.is_directed()).build(self.edge_list(seed)?)
    }
}

impl fmt::Display for GeneratorSpec {
    /// The canonical spec: defaults left out (`kron:20`, not `kron:20:16`), then `:d` if directed,
    /// then `:w` for the default weight range or `:w=LO-HI`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = |f: &mut fmt::Formatter<'_>, w: &Option<WeightRange>| {
            if self.is_directed() && !matches!(self, GeneratorSpec::Mlp { .. }) {
                f.write_str(":d")?;
            }
            match w {
                None => Ok(()),
                Some(w) if *w == WeightRange::default() => f.write_str(":w"),
                Some(w) => write!(f, ":w={}-{}", w.lo, w.hi),
            }
        };
        match self {
            GeneratorSpec::Kronecker { scale, edge_factor, weights, .. }
            | GeneratorSpec::Uniform { scale, edge_factor, weights, .. } => {
                let kind = if matches!(self, GeneratorSpec::Kronecker { .. }) { "kron" } else { "urand" };
                write!(f, "{kind}:{scale}")?;
                if *edge_factor != DEFAULT_EDGE_FACTOR {
                    write!(f, ":{edge_factor}")?;
                }
                suffix(f, weights)
            }
            GeneratorSpec::Rmat { scale, edge_factor, a, b, c, weights, .. } => {
                write!(f, "rmat:{scale}")?;
                let default_abc = (*a, *b, *c) == GRAPH500_ABC;
                if *edge_factor != DEFAULT_EDGE_FACTOR || !default_abc {
                    write!(f, ":{edge_factor}")?;
                }
                if !default_abc {
                    write!(f, ":{a}:{b}:{c}")?;
                }
                suffix(f, weights)
            }
            GeneratorSpec::Grid { width, height, weights } => {
                write!(f, "grid:{width}x{height}")?;
                if *weights != WeightRange::default() {
                    write!(f, ":w={}-{}", weights.lo, weights.hi)?;
                }
                Ok(())
            }
            GeneratorSpec::Mlp { widths, fan_in } => {
                let widths: Vec<String> = widths.iter().map(u32::to_string).collect();
                write!(f, "mlp:{}", widths.join(","))?;
                fan_in.map_or(Ok(()), |k| write!(f, ":{k}"))
            }
        }
    }
}

impl std::str::FromStr for GeneratorSpec {
    type Err = GraphError;

    fn from_str(s: &str) -> Result<Self> {
        GeneratorSpec::parse(s)
    }
}

fn parse_scale(s: &str) -> Result<u32, String> {
    let scale: u32 = s.parse().map_err(|_| format!("scale '{s}' is not a whole number (e.g. kron:20)"))?;
    if !(1..=MAX_SCALE).contains(&scale) {
        return Err(format!("scale {scale} is out of range 1..={MAX_SCALE} (2^scale vertices; ids are u32)"));
    }
    Ok(scale)
}

fn parse_edge_factor(s: &str) -> Result<u64, String> {
    let f: u64 = s.parse().map_err(|_| format!("edge factor '{s}' is not a whole number"))?;
    if f == 0 {
        return Err("the edge factor must be at least 1".into());
    }
    Ok(f)
}

fn parse_probability(name: &str, s: &str) -> Result<f64, String> {
    let p: f64 = s.parse().map_err(|_| format!("probability {name} = '{s}' is not a number"))?;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("probability {name} = {s} is not in [0, 1]"));
    }
    Ok(p)
}

/// A layer width or fan-in: a whole number from 1 to `u32::MAX`.
fn parse_width(name: &str, s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(w) if w >= 1 => Ok(w),
        _ => Err(format!("{name} '{s}' is not a whole number from 1 to {}", u32::MAX)),
    }
}

fn parse_side(name: &str, s: &str) -> Result<u32, String> {
    let v: u64 = s.trim().parse().map_err(|_| format!("grid {name} '{s}' is not a whole number"))?;
    if v == 0 {
        return Err(format!("the grid {name} must be at least 1"));
    }
    u32::try_from(v).map_err(|_| format!("grid {name} {v} is too large (vertex ids are u32)"))
}

/// `w` or `w=LO-HI`.
fn parse_weights(s: &str) -> Result<WeightRange, String> {
    if s == "w" {
        return Ok(WeightRange::default());
    }
    let range = &s[2..];
    let Some((lo, hi)) = range.split_once('-') else {
        return Err(format!("weight range '{range}' is not of the form LO-HI, e.g. w=1-255"));
    };
    let parse = |x: &str| -> Result<u32, String> {
        x.trim().parse().map_err(|_| format!("weight bound '{x}' is not a whole number from 1 to {}", u32::MAX))
    };
    let (lo, hi) = (parse(lo)?, parse(hi)?);
    if lo == 0 {
        return Err("weights must be at least 1 (w=LO-HI with LO >= 1)".into());
    }
    if lo > hi {
        return Err(format!("the weight range {lo}-{hi} is empty (LO > HI)"));
    }
    Ok(WeightRange { lo, hi })
}
