//! The forward pass of a multi-layer perceptron laid out as a layered directed graph: neurons are
//! vertices, weights are edges (`f32`; the `mlp:` generator makes such networks). Each iteration the
//! layer computed last is active and pushes `value * weight` to the next layer, whose neurons become
//! `sigmoid(sum + bias)`; the run ends after the output layer, one iteration per layer.
//! Combine: `sum`, aggregation; a neuron is computed when its inputs arrive.
//!
//! * The input layer is the vertices with no in-edges; input neuron `v` holds
//!   `((v mod 10) + 1) / 10`, i.e. 0.1, 0.2, ..., 1.0, 0.1, ...
//! * Every other neuron starts at [`NOT_COMPUTED`] (-1), which it keeps if no input reaches it.
//! * The graph must be layered: every edge goes from a layer to the next, layer `l + 1` being the
//!   out-neighbours of layer `l` (a neuron fed from two layers would be computed twice, from part of
//!   its inputs each time). `verify::mlp` checks this.

use simdx_core::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx_macros::graph_kernel;

/// The value of a neuron that no input reaches.
pub const NOT_COMPUTED: f32 = -1.0;

/// The forward pass, with one bias shared by every non-input neuron.
#[derive(Debug, Clone, Copy, Default)]
pub struct Mlp {
    /// Added to each neuron's weighted sum before the sigmoid (0 by default).
    pub bias: f32,
}

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
            ((v.id % 10) + 1) as f32 / 10.0
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

    fn apply(&self, _v: Vertex, _old: f32, sum: f32, _global: f64) -> f32 {
        1.0 / (1.0 + (-(sum + self.bias)).exp())
    }
}
