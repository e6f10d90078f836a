// `CombineOp::Sum` with `CombineKind::Voting`.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx::graph_kernel;

struct P;

#[graph_kernel]
impl Program for P {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Voting;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;

    fn init(&self, v: Vertex) -> u32 {
        v.id
    }

    fn active(&self, now: u32, seen: u32) -> bool {
        now != seen
    }

    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        e.src + 1
    }
}

fn main() {}
