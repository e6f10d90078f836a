// A call to a function not marked `#[kernel_fn]`: rustc reports its missing kernel companion at the call.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx::graph_kernel;

fn next_level(level: u32) -> u32 {
    level + 1
}

struct P;

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
        v.id
    }

    fn active(&self, now: u32, seen: u32) -> bool {
        now != seen
    }

    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        next_level(e.src)
    }
}

fn main() {}
