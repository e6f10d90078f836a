// An `Apply::InPlace` program whose `Message` is not its `Value`.

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx::graph_kernel;

struct P;

#[graph_kernel]
impl Program for P {
    type Value = u64;
    type Message = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u64 = u64::MAX;

    fn init(&self, v: Vertex) -> u64 {
        v.id as u64
    }

    fn active(&self, now: u64, seen: u64) -> bool {
        now != seen
    }

    fn source_value(&self, _v: Vertex, value: u64, _sent: u64) -> u32 {
        value as u32
    }

    fn compute(&self, e: Edge<u32, (), u64>) -> u32 {
        e.src + 1
    }
}

fn main() {}
