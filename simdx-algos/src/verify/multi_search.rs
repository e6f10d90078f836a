//! Oracles of the multi-search applications (msbfs, closeness, eccentricity): one serial
//! breadth-first search per source.

use simdx_core::{Graph, VertexId};

use super::bfs::{serial_bfs, serial_bfs_to};

const UNREACHED: u32 = u32::MAX;

/// Checks row-major levels (`levels[v * k + i]`: from `sources[i]`) exactly.
pub fn levels_from_each(graph: &Graph, sources: &[VertexId], levels: &[u32]) -> Result<(), String> {
    let (n, k) = (graph.num_vertices(), sources.len());
    if levels.len() != n * k {
        return Err(format!("{} levels for {n} vertices and {k} sources", levels.len()));
    }
    for (i, &s) in sources.iter().enumerate() {
        let expected = serial_bfs(graph, s);
        if let Some(v) = (0..n).find(|&v| levels[v * k + i] != expected[v]) {
            return Err(format!("vertex {v} is at level {} from source {s}, not {}", levels[v * k + i], expected[v]));
        }
    }
    Ok(())
}

/// Checks the closeness of each of `vertices` within `tolerance` (relative) of networkx's formula.
pub fn closeness(graph: &Graph, vertices: &[VertexId], values: &[f64], tolerance: f64) -> Result<(), String> {
    if values.len() != vertices.len() {
        return Err(format!("{} values for {} vertices", values.len(), vertices.len()));
    }
    let n = graph.num_vertices();
    for (&u, &got) in vertices.iter().zip(values) {
        let reach: Vec<u64> = serial_bfs_to(graph, u).into_iter().filter(|&l| l != UNREACHED).map(u64::from).collect();
        let total: u64 = reach.iter().sum();
        let expected = if total == 0 || n < 2 {
            0.0
        } else {
            let others = (reach.len() - 1) as f64;
            others / total as f64 * (others / (n - 1) as f64)
        };
        if got != expected && (got - expected).abs() > tolerance * expected.abs() {
            return Err(format!("the closeness of vertex {u} is {got}, not {expected}"));
        }
    }
    Ok(())
}

/// Checks each of `vertices`' eccentricity within what it reaches, exactly.
pub fn eccentricity(graph: &Graph, vertices: &[VertexId], values: &[u32]) -> Result<(), String> {
    if values.len() != vertices.len() {
        return Err(format!("{} values for {} vertices", values.len(), vertices.len()));
    }
    for (&u, &got) in vertices.iter().zip(values) {
        let expected = serial_bfs(graph, u).into_iter().filter(|&l| l != UNREACHED).max().unwrap_or(0);
        if got != expected {
            return Err(format!("the eccentricity of vertex {u} is {got}, not {expected}"));
        }
    }
    Ok(())
}
