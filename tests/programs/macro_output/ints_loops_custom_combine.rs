//! Integer kernel code: `match` on integers, a bounded `for` loop accumulating into a `let mut`,
//! casts both ways between floats and integers, shifts, `u32::MAX` / `f32::INFINITY`, a `const` of
//! this file, and a commutative custom combine (`CombineOp::Custom`).

use simdx::acc::{Apply, CombineKind, CombineOp, DeviceProgram, Edge, Program, Vertex};
use simdx::graph_kernel;

/// Read by the kernel: its value goes into the device code as a `#define`.
const STRIDE: u32 = 3;

struct Mixed {
    rounds: u32,
}

#[graph_kernel]
impl Program for Mixed {
    type Value = u32;
    type Weight = f32;
    const OP: CombineOp = CombineOp::Custom;
    const KIND: CombineKind = CombineKind::Voting;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = u32::MAX;
    const UNSEEN: u32 = u32::MAX;

    fn init(&self, v: Vertex) -> u32 {
        match v.id % 4 {
            0 => 0,
            1 | 2 => v.id << 1,
            _ => u32::MAX,
        }
    }

    fn active(&self, now: u32, seen: u32) -> bool {
        now != seen
    }

    fn compute(&self, e: Edge<u32, f32>) -> u32 {
        let mut acc: u32 = 0;
        for i in 0..self.rounds {
            acc = acc.wrapping_add(i * STRIDE);
        }
        let w = if e.weight < f32::INFINITY { e.weight as u32 } else { 0 };
        let half = (e.src as f32 * 0.5) as u32;
        (half + w + (acc >> 2)).min(u32::MAX - 1)
    }

    fn combine(&self, a: u32, b: u32) -> u32 {
        a.min(b) | (a & b)
    }
}

#[test]
fn ints_loops_custom_combine() {
    let code = <Mixed as DeviceProgram>::device_code();
    for needle in [
        "simdx_compute",
        "simdx_combine",
        "#define SIMDX_HAS_COMBINE 1",
        "simdx_u32 sx_rounds;",
        "sx_c_STRIDE 3u",
        // The bounded loop, the shifts and the saturating float-to-int cast.
        "for (",
        "simdx_shl_u32(",
        "simdx_shr_u32(",
        "simdx_f32_to_u32(",
        "(simdx_f32)sx_e.src",
    ] {
        assert!(code.contains(needle), "device code lacks `{needle}`:\n{code}");
    }
    assert_eq!(Mixed { rounds: 5 }.device_params(&[]), 5u32.to_le_bytes().to_vec());

    // The CPU functions are the user's own.
    let m = Mixed { rounds: 5 };
    let v = |id| Vertex { id, out_degree: 0, in_degree: 0, num_vertices: 8 };
    assert_eq!([m.init(v(4)), m.init(v(5)), m.init(v(7))], [0, 10, u32::MAX]);
    assert_eq!(m.combine(6, 3), m.combine(3, 6));
}
