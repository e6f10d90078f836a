// A search program whose float accumulator combines with `Or`, and one whose `discovered` takes a
// parameter too many.

use simdx::acc::{CombineOp, Vertex};
use simdx::search_kernel;
use simdx::search_program::SearchProgram;

struct Reach;

#[search_kernel]
impl SearchProgram for Reach {
    type Acc = f64;
    const OP: CombineOp = CombineOp::Or;
    const IDENTITY: f64 = 0.0;

    fn discovered(&self, _v: Vertex, level: u32) -> f64 {
        level as f64
    }
}

struct Deep;

#[search_kernel]
impl SearchProgram for Deep {
    type Acc = u64;
    const OP: CombineOp = CombineOp::Sum;
    const IDENTITY: u64 = 0;

    fn discovered(&self, v: Vertex, level: u32, extra: u32) -> u64 {
        v.id as u64 + level as u64 + extra as u64
    }
}

fn main() {}
