// A generic `impl<T> Program for P<T>`.

use std::marker::PhantomData;

use simdx::acc::{Apply, CombineKind, CombineOp, Edge, Program, Vertex};
use simdx::graph_kernel;

struct P<T> {
    marker: PhantomData<T>,
}

#[graph_kernel]
impl<T: Sync> Program for P<T> {
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
        e.src + 1
    }
}

fn main() {
    let _ = P::<u8> { marker: PhantomData };
}
