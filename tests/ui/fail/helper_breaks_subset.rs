// Kernel helper functions that break the kernel subset.

use simdx::kernel_fn;

#[kernel_fn]
fn with_heap(x: f32) -> f32 {
    let v = vec![x];
    v[0]
}

#[kernel_fn]
fn unbounded(mut x: u32) -> u32 {
    while x > 1 {
        x /= 2;
    }
    x
}

#[kernel_fn]
fn takes_a_reference(x: &u32) -> u32 {
    *x
}

#[kernel_fn]
fn returns_nothing(x: u32) {
    let _ = x;
}

#[kernel_fn]
fn recurses(x: u32) -> u32 {
    if x == 0 {
        0
    } else {
        recurses(x - 1)
    }
}

fn main() {}
