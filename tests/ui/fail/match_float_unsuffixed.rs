// `match` on a float with an unsuffixed literal pattern and a float range.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx::graph_kernel;

struct P;

#[graph_kernel]
impl Program for P {
    type Value = f32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: f32 = f32::MAX;
    const UNSEEN: f32 = f32::MAX;

    fn init(&self, v: Vertex) -> f32 {
        v.id as f32
    }

    fn active(&self, now: f32, seen: f32) -> bool {
        now != seen
    }

    fn compute(&self, e: Edge<f32, ()>) -> f32 {
        match e.src {
            0.0 => 1.0,
            0.5..=1.0 => 2.0,
            _ => e.src * 0.5,
        }
    }
}

fn main() {}
