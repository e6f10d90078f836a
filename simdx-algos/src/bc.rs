//! Betweenness centrality by Brandes' algorithm (unweighted shortest paths), exact or from a sample
//! of sources, scaled as networkx's `betweenness_centrality`, on the engine's dependency
//! accumulation ([`simdx_core::dependencies`]).

use simdx_core::multi_source::{MultiSourceError, MultiStats, Searches};
use simdx_core::VertexId;

/// Betweenness of every vertex from the shortest paths that start at `sources` (every vertex: exact;
/// fewer: an estimate, as networkx's `k`), along out-arcs, scaled by [`networkx_scale`].
pub fn betweenness(
    searches: &(impl Searches + ?Sized),
    sources: &[VertexId],
    normalized: bool,
) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
    let (sums, stats) = searches.dependency_sums(sources)?;
    let (n, directed) = (searches.num_vertices(), searches.is_directed());
    let mut is_source = vec![false; n];
    sources.iter().for_each(|&s| is_source[s as usize] = true);
    let scale = |v: usize| networkx_scale(n, directed, sources.len(), is_source[v], normalized);
    Ok((sums.into_iter().enumerate().map(|(v, x)| x * scale(v)).collect(), stats))
}

/// What networkx (3.5 and later) multiplies a vertex's sum of dependencies by on a graph of `n` vertices
/// (`directed` or not), from `k` sources,
/// `source` saying whether the vertex is one: `1 / (k' (n - 2))` normalized, `(n - 1) / (k' c)`
/// otherwise (`c` = 2 on an undirected graph, whose paths are found from both ends), where `k'` is
/// `k - 1` for a source (its own paths are not counted) and `k` for the others (NaN for a lone
/// source); 1 when `n <= 2`.
pub fn networkx_scale(n: usize, directed: bool, k: usize, source: bool, normalized: bool) -> f64 {
    let (n, k) = (n as f64, k as f64);
    let samples = if source { k - 1.0 } else { k };
    let correction = if directed { 1.0 } else { 2.0 };
    match (n > 2.0, samples > 0.0, normalized) {
        (false, _, _) => 1.0,
        (true, false, _) => f64::NAN,
        (true, true, true) => 1.0 / (samples * (n - 2.0)),
        (true, true, false) => (n - 1.0) / (samples * correction),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn betweenness_follows_networkx_on_a_kronecker_graph() {
        let graph = simdx_core::gen::GeneratorSpec::parse("kron:8").unwrap().generate(3).unwrap();
        let all: Vec<VertexId> = (0..graph.num_vertices() as VertexId).collect();
        for normalized in [true, false] {
            let (values, _) = betweenness(&graph, &all, normalized).unwrap();
            crate::verify::betweenness(&graph, &all, normalized, &values, 1e-9).unwrap();
        }
        let (values, _) = betweenness(&graph, &all[..40], true).unwrap();
        crate::verify::betweenness(&graph, &all[..40], true, &values, 1e-9).unwrap();
    }
}
