//! The forward pass of a multi-layer perceptron laid out as a layered directed graph: neurons are
//! vertices, weights are edges (`f32`; the `mlp:` generator makes such networks). Each iteration the
//! layer computed last is active and pushes `value * weight` to the next layer, whose neurons become
//! `sigmoid(sum + bias[v])`; the run ends after the output layer, one iteration per layer.
//! Combine: `sum`, aggregation; a neuron is computed when its inputs arrive.
//!
//! * The input layer is the vertices with no in-edges; input neuron `v` holds `input[v]` (the
//!   values of other neurons in `input` are not read).
//! * Every other neuron starts at [`NOT_COMPUTED`] (minus infinity), which it keeps if no input
//!   reaches it. Inputs are finite.
//! * The graph must be layered: every edge goes from a layer to the next, layer `l + 1` being the
//!   out-neighbours of layer `l` (a neuron fed from two layers would be computed twice, from part of
//!   its inputs each time). `verify::mlp` checks this.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx_core::VertexId;
use simdx_macros::{graph_kernel, kernel_fn};

/// The value of a neuron that no input reaches (minus infinity: no input value or sigmoid is one).
pub const NOT_COMPUTED: f32 = f32::NEG_INFINITY;

/// The logistic function `1 / (1 + e^-x)`.
#[kernel_fn]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The forward pass with per-neuron input features and biases.
#[derive(Debug, Clone)]
pub struct Mlp {
    /// Each input neuron's value, one entry per vertex.
    pub input: VertexData<f32>,
    /// Added to each neuron's weighted sum before the sigmoid, one entry per vertex.
    pub bias: VertexData<f32>,
}

impl Mlp {
    /// `n` neurons with inputs `((v mod 10) + 1) / 10` (0.1, 0.2, ..., 1.0, 0.1, ...) and one bias.
    pub fn default_input(n: usize, bias: f32) -> Self {
        let input: Vec<f32> = (0..n as VertexId).map(|v| ((v % 10) + 1) as f32 / 10.0).collect();
        Mlp { input: input.into(), bias: VertexData::filled(bias, n) }
    }
}

pub use crate::inputs::check_mlp_network as check_network;

#[graph_kernel]
impl Program for Mlp {
    type Value = f32;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Received;
    const IDENTITY: f32 = 0.0;
    const UNSEEN: f32 = NOT_COMPUTED;

    fn init(&self, v: Vertex) -> f32 {
        if v.in_degree == 0 {
            self.input[v.id]
        } else {
            NOT_COMPUTED
        }
    }

    /// Inputs at the start, then each layer once, in the iteration after it was computed.
    fn active(&self, now: f32, seen: f32) -> bool {
        now != seen
    }

    fn compute(&self, e: Edge<f32, f32>) -> f32 {
        e.src * e.weight
    }

    fn apply(&self, v: Vertex, _old: f32, sum: f32, _global: f64) -> f32 {
        sigmoid(sum + self.bias[v.id])
    }
}
