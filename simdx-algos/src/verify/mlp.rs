//! MLP oracle: the network's layers found from the graph, each layer's dense weight matrix built from
//! its in-edges, a matrix-vector product and the sigmoid per layer in `f64`; and a relative comparison.

use simdx_core::{Graph, VertexId};

use crate::mlp::NOT_COMPUTED;
use crate::Mlp;

/// The largest dense layer matrix the oracle builds (2 GiB of `f64`).
const MAX_MATRIX: usize = 1 << 28;

/// The layers of a layered network: layer 0 is the vertices without in-edges, layer `l + 1` the
/// out-neighbours of layer `l`. An error names an edge that does not go from a layer to the next
/// (an edge between vertices that no input reaches is allowed: both stay uncomputed).
pub fn mlp_layers(graph: &Graph) -> Result<Vec<Vec<VertexId>>, String> {
    let n = graph.num_vertices() as VertexId;
    let mut layer = vec![usize::MAX; n as usize];
    let mut layers = vec![(0..n).filter(|&v| graph.in_degree(v) == 0).collect::<Vec<_>>()];
    layers[0].iter().for_each(|&v| layer[v as usize] = 0);
    while let Some(last) = layers.last().filter(|l| !l.is_empty()) {
        let mut next = Vec::new();
        for &u in last {
            for &v in graph.out_neighbors(u) {
                if layer[v as usize] == usize::MAX {
                    layer[v as usize] = layers.len();
                    next.push(v);
                }
            }
        }
        next.sort_unstable();
        layers.push(next);
    }
    layers.pop();
    for u in 0..n {
        for &v in graph.out_neighbors(u) {
            let (lu, lv) = (layer[u as usize], layer[v as usize]);
            if (lu != usize::MAX || lv != usize::MAX) && lu.wrapping_add(1) != lv {
                let show = |l: usize| if l == usize::MAX { "no layer".to_string() } else { format!("layer {l}") };
                return Err(format!("not a layered network: edge {u} -> {v} goes from {} to {}", show(lu), show(lv)));
            }
        }
    }
    Ok(layers)
}

/// The forward pass: inputs `params.input` (as `f32`, as the program reads them), then per
/// layer `x' = sigmoid(W x + bias[v])` with `W[r][c]` the sum of the weights (1 if unweighted) of the
/// edges from neuron `c` of a layer to neuron `r` of the next; [`NOT_COMPUTED`] where no input reaches.
pub fn serial_mlp(graph: &Graph, params: &Mlp) -> Result<Vec<f64>, String> {
    let layers = mlp_layers(graph)?;
    let mut value = vec![f64::from(NOT_COMPUTED); graph.num_vertices()];
    for &v in layers.first().map_or(&[][..], |l| &l[..]) {
        value[v as usize] = f64::from(params.input[v]);
    }
    let incoming = graph.in_csr();
    let mut column = vec![0usize; graph.num_vertices()];
    for (l, pair) in layers.windows(2).enumerate() {
        let (from, to) = (&pair[0], &pair[1]);
        let cols = from.len();
        if to.len().saturating_mul(cols) > MAX_MATRIX {
            return Err(format!("layer {} is too large for the dense oracle ({} x {cols})", l + 1, to.len()));
        }
        from.iter().enumerate().for_each(|(c, &u)| column[u as usize] = c);
        let mut matrix = vec![0.0f64; to.len() * cols];
        for (r, &v) in to.iter().enumerate() {
            for i in incoming.range(v) {
                let w = incoming.weights().map_or(1.0, |w| f64::from(w.get_f64(i) as f32));
                matrix[r * cols + column[incoming.targets()[i] as usize]] += w;
            }
        }
        let x: Vec<f64> = from.iter().map(|&u| value[u as usize]).collect();
        for (r, &v) in to.iter().enumerate() {
            let sum: f64 = matrix[r * cols..(r + 1) * cols].iter().zip(&x).map(|(w, x)| w * x).sum();
            value[v as usize] = 1.0 / (1.0 + (-(sum + f64::from(params.bias[v]))).exp());
        }
    }
    Ok(value)
}

/// Checks `values` against [`serial_mlp`]: inputs and uncomputed neurons exactly, every other neuron
/// within a relative error of `rel` (1e-5 in the tests); an output below 1e-6 (a weighted sum under
/// -13.8) is compared absolutely against `rel * 1e-6`.
pub fn mlp(graph: &Graph, params: &Mlp, values: &[f32], rel: f64) -> Result<(), String> {
    let expected = serial_mlp(graph, params)?;
    if values.len() != expected.len() {
        return Err(format!("{} values for {} neurons", values.len(), expected.len()));
    }
    for (v, (&got, &want)) in values.iter().zip(&expected).enumerate() {
        let exact = graph.in_degree(v as VertexId) == 0 || want == f64::from(NOT_COMPUTED);
        let error = if exact && f64::from(got) == want { 0.0 } else { (f64::from(got) - want).abs() };
        let allowed = if exact { 0.0 } else { rel * want.abs().max(1e-6) };
        if error.is_nan() || error > allowed {
            return Err(format!(
                "neuron {v} holds {got:e}, the dense forward pass says {want:e} (error {error:.2e} > {allowed:.1e})"
            ));
        }
    }
    Ok(())
}
