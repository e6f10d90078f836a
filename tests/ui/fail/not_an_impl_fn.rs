// #[graph_kernel] on a plain function instead of an `impl Program for ...` block.

use simdx::graph_kernel;

#[graph_kernel]
fn compute(src: u32) -> u32 {
    src + 1
}

fn main() {
    let _ = compute(1);
}
