// #[graph_kernel] on an inherent impl (`impl P`), not on `impl Program for P`.

use simdx::acc::{Edge, Vertex};
use simdx::graph_kernel;

struct P;

#[graph_kernel]
impl P {
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
    let _ = P.init(Vertex { id: 0, out_degree: 0, in_degree: 0, num_vertices: 1 });
    let _ = P.active(0, 1);
    let _ = P.compute(Edge { src: 0, dst: 0, weight: (), src_out_degree: 1 });
}
