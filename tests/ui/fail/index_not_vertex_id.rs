// Per-vertex data indexed by something that is not a vertex's id, and indexing what is not per-vertex data.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex, VertexData};
use simdx::graph_kernel;

struct P {
    x: VertexData<u32>,
    k: u32,
}

#[graph_kernel]
impl Program for P {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;

    fn init(&self, v: Vertex) -> u32 {
        self.x[v.id + 1]
    }

    fn active(&self, now: u32, _seen: u32) -> bool {
        now != self.x[3]
    }

    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        self.x[e.src]
    }

    fn can_update(&self, value: u32) -> bool {
        value == self.k[0]
    }
}

fn main() {}
