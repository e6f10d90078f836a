//! SpMV oracle: a direct loop over the edges in `f64`, and a relative comparison.

use simdx_core::Graph;

/// `y = A x` by a loop over every edge in `f64`: an arc `u -> v` of weight `w` (1 if unweighted)
/// adds `w * x[u]` to `y[v]`; an undirected edge `{u, v}` is both arcs (a self-loop once).
/// Also returns, per vertex, the sum of the terms' magnitudes, the scale of its rounding error.
pub fn serial_spmv(graph: &Graph, x: &[f32]) -> (Vec<f64>, Vec<f64>) {
    let n = graph.num_vertices();
    let (mut y, mut scale) = (vec![0.0f64; n], vec![0.0f64; n]);
    let mut add = |u: u32, v: u32, w: f64| {
        let term = w * f64::from(x[u as usize]);
        y[v as usize] += term;
        scale[v as usize] += term.abs();
    };
    for (u, v, w) in graph.edges() {
        let w = w.unwrap_or(1.0);
        add(u, v, w);
        if !graph.is_directed() && u != v {
            add(v, u, w);
        }
    }
    (y, scale)
}

/// Checks `y` against [`serial_spmv`] of `x`: every entry within `rel` of the exact sum, relative to
/// the sum of its terms' magnitudes (which is `|y[v]|` itself for non-negative weights); returns the
/// largest relative error.
pub fn spmv(graph: &Graph, x: &[f32], y: &[f32], rel: f64) -> Result<f64, String> {
    let n = graph.num_vertices();
    if x.len() != n || y.len() != n {
        return Err(format!("x has {} and y {} entries for {n} vertices", x.len(), y.len()));
    }
    let (expected, scale) = serial_spmv(graph, x);
    let mut worst = 0.0f64;
    for v in 0..n {
        let error = (f64::from(y[v]) - expected[v]).abs();
        let relative = if scale[v] > 0.0 { error / scale[v] } else { error };
        if relative.is_nan() || relative > rel {
            return Err(format!(
                "y[{v}] = {:e}, the serial product says {:e} (relative error {relative:.2e} > {rel:.0e})",
                y[v], expected[v]
            ));
        }
        worst = worst.max(relative);
    }
    Ok(worst)
}
