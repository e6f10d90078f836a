//! What `simdx run` gets from an algorithm: [`Outcome`] (the values, each trial's time, the
//! statistics, the verdict of the oracle) and [`trials`], which runs a program N times on a runner.
//! Shared by the algorithm table (`algorithm.rs`) and the report (`run.rs`), which do not import
//! each other.

use std::time::Duration;

use simdx::Runner;
use simdx_core::acc::DeviceProgram;
use simdx_core::acc::Value;
use simdx_core::engine::{Run, RunStats};
use simdx_core::{Graph, VertexId};

use super::error::CliError;

/// A finished `simdx run`: the result, the timing of each trial and the last trial's statistics.
pub struct Outcome {
    /// The values of the last trial.
    pub values: Values,
    /// Each trial's run time.
    pub times: Vec<Duration>,
    /// The last trial's statistics.
    pub stats: RunStats,
    /// The source vertex, for bfs and sssp.
    pub source: Option<VertexId>,
    /// `Ok(detail)` when the oracle agrees (or was not asked), `Err(why)` otherwise.
    pub validation: Result<String, String>,
}

/// A result array as `--output` prints it.
pub enum Values {
    /// Integer values (`u32::MAX` prints as `inf`).
    U32(Vec<u32>),
    /// Wide integer values (`u64::MAX` prints as `inf`): distances that may pass `u32::MAX`.
    U64(Vec<u64>),
    /// Real values (infinity prints as `inf`).
    F32(Vec<f32>),
    /// Real values in double precision (infinity prints as `inf`).
    F64(Vec<f64>),
    /// Several integer values per vertex, row-major (`u32::MAX` prints as `inf`): one line per vertex.
    Rows {
        /// Values per vertex.
        columns: usize,
        /// `columns` values for each vertex in turn.
        values: Vec<u32>,
    },
    /// Values of some vertices only, in the order of `vertices`.
    Selected {
        /// The vertices that have a value.
        vertices: Vec<VertexId>,
        /// Their values (not `Rows` or `Selected`).
        values: Box<Values>,
    },
    /// Each vertex's parent in a search tree (`u32::MAX`, unreached, prints as `-1`).
    Parents(Vec<VertexId>),
    /// One value per vertex pair (Jaccard coefficients): a line `<u> <v> <value>` each.
    Pairs {
        /// The pairs, in order.
        pairs: Vec<(VertexId, VertexId)>,
        /// Their values.
        values: Vec<f64>,
    },
    /// A community per vertex (Louvain), written as integers, with their number and modularity,
    /// which are printed.
    Communities {
        /// Each vertex's community.
        labels: Vec<u32>,
        /// The number of communities.
        count: usize,
        /// The modularity of the labels.
        modularity: f64,
    },
    /// One number for the whole graph (the triangles of `tc`): printed, and written alone on a line.
    Count {
        /// What is counted, plural (`triangles`).
        what: &'static str,
        /// How many.
        count: u64,
    },
}

impl Values {
    /// Number of vertices with values.
    pub fn len(&self) -> usize {
        match self {
            Values::U32(v) => v.len(),
            Values::Communities { labels, .. } => labels.len(),
            Values::U64(v) => v.len(),
            Values::Parents(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Rows { columns, values } => values.len() / (*columns).max(1),
            Values::Selected { vertices, .. } => vertices.len(),
            Values::Pairs { .. } | Values::Count { .. } => 0,
        }
    }
}

impl Outcome {
    /// The edges GTEPS counts: for a `traversal` (bfs, sssp), the edges of the part it reached, as
    /// Graph500 counts them (the out-arcs of reached vertices; each undirected edge once), with the
    /// number of vertices reached; for the other algorithms, every edge and `None`.
    pub fn counted_edges(traversal: bool, graph: &Graph, values: &Values) -> (u64, Option<usize>) {
        let reached: Vec<VertexId> = match values {
            Values::U32(values) if traversal => reached(values),
            Values::U64(values) if traversal => reached(values),
            Values::Parents(values) if traversal => reached(values),
            _ => return (graph.num_edges(), None),
        };
        let arcs: u64 = reached.iter().map(|&v| graph.out_degree(v)).sum();
        let edges = if graph.is_directed() { arcs } else { arcs.div_ceil(2) };
        (edges, Some(reached.len()))
    }
}

/// The vertices whose value is not the type's largest (unreached).
fn reached<V: Value>(values: &[V]) -> Vec<VertexId> {
    (0..values.len() as VertexId).filter(|&v| !values[v as usize].is_max()).collect()
}

/// Runs `program` `count` times; returns the last run and every trial's time.
pub fn trials<P: DeviceProgram>(
    runner: &Runner<'_>,
    program: &P,
    count: u32,
) -> Result<(Run<P::Value>, Vec<Duration>), CliError> {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..count {
        let run = runner.run(program)?;
        times.push(run.stats.time);
        last = Some(run);
    }
    let run = last.ok_or_else(|| CliError::Usage("--trials must be at least 1".into()))?;
    Ok((run, times))
}
