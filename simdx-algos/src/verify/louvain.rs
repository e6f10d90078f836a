//! Louvain oracle: the modularity of a labelling recomputed edge by edge (networkx's definition), and
//! a check of Louvain's labels: a partition numbered by smallest member, the modularity reported, and
//! no two adjacent communities that would raise the modularity by merging.

use std::collections::HashMap;

use simdx_core::Graph;

/// The modularity of `labels` at resolution `gamma`, networkx's `modularity`: the sum over
/// communities `c` of `L_c / m - gamma * (d_c / 2m)^2`, with `m` the total edge weight (1 per
/// unweighted edge), `L_c` the weight of the edges inside `c` (a self-loop once) and `d_c` its
/// vertices' weighted degrees (a self-loop twice); 0 for a graph without edges. Serial.
pub fn modularity(graph: &Graph, labels: &[u32], gamma: f64) -> f64 {
    let (inside, degree, m) = community_weights(graph, labels);
    if m <= 0.0 {
        return 0.0;
    }
    let within: f64 = inside.values().sum();
    let squares: f64 = degree.values().map(|d| d * d).sum();
    within / m - gamma * squares / (4.0 * m * m)
}

/// The weight inside each community, each community's degree sum, and the total edge weight.
fn community_weights(graph: &Graph, labels: &[u32]) -> (HashMap<u32, f64>, HashMap<u32, f64>, f64) {
    let (mut inside, mut degree, mut m) = (HashMap::new(), HashMap::new(), 0.0);
    for (u, v, w) in graph.edges() {
        let (w, cu, cv) = (w.unwrap_or(1.0), labels[u as usize], labels[v as usize]);
        m += w;
        *degree.entry(cu).or_insert(0.0) += w;
        *degree.entry(cv).or_insert(0.0) += w;
        if cu == cv {
            *inside.entry(cu).or_insert(0.0) += w;
        }
    }
    (inside, degree, m)
}

/// Checks Louvain's `labels` and reported `modularity` at resolution `gamma`: one label per vertex,
/// communities numbered `0..k` in the order of their smallest vertex, the modularity within 1e-9 of
/// [`modularity`], and (when `merged` says the run went on until a level moved nothing) no two
/// communities joined by an edge whose merger would raise the modularity by more than 1e-9 of their
/// degree sum. Returns the number of communities.
pub fn louvain(graph: &Graph, labels: &[u32], reported: f64, gamma: f64, merged: bool) -> Result<usize, String> {
    let n = graph.num_vertices();
    if labels.len() != n {
        return Err(format!("{} labels for {n} vertices", labels.len()));
    }
    let mut next = 0u32;
    for (v, &c) in labels.iter().enumerate() {
        if c > next {
            return Err(format!("vertex {v} is in community {c} before any vertex is in community {next}"));
        }
        next += u32::from(c == next);
    }
    let recomputed = modularity(graph, labels, gamma);
    if (recomputed - reported).abs() > 1e-9 {
        return Err(format!("modularity {reported} reported, {recomputed} recomputed"));
    }
    if merged {
        no_merger_gains(graph, labels, gamma)?;
    }
    Ok(next as usize)
}

/// Fails if two communities joined by an edge would raise the modularity by merging: the weight
/// between them, `w`, beats `gamma * d_a * d_b / 2m` by more than 1e-9 of `d_a + d_b`.
fn no_merger_gains(graph: &Graph, labels: &[u32], gamma: f64) -> Result<(), String> {
    let (_, degree, m) = community_weights(graph, labels);
    let mut between: HashMap<(u32, u32), f64> = HashMap::new();
    for (u, v, w) in graph.edges() {
        let (a, b) = (labels[u as usize], labels[v as usize]);
        if a != b {
            *between.entry((a.min(b), a.max(b))).or_insert(0.0) += w.unwrap_or(1.0);
        }
    }
    for (&(a, b), &w) in &between {
        let (da, db) = (degree[&a], degree[&b]);
        let gain = w - gamma * da * db / (2.0 * m);
        if gain > 1e-9 * (da + db) {
            return Err(format!("merging communities {a} and {b} would raise the modularity by {:e}", gain / m));
        }
    }
    Ok(())
}
