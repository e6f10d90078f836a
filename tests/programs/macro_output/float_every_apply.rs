//! A float program in the style of PageRank: fields of `self` of three widths, `Apply::Every`,
//! `apply`, `global` and `done`.

use simdx::acc::{Apply, CombineKind, CombineOp, DeviceProgram, Edge, Program, Vertex};
use simdx::graph_kernel;

struct Rank {
    damping: f32,
    tolerance: f64,
    max_iterations: u32,
}

#[graph_kernel]
impl Program for Rank {
    type Value = f32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f32 = 0.0;
    const UNSEEN: f32 = 0.0;
    const USES_GLOBAL: bool = true;

    fn init(&self, v: Vertex) -> f32 {
        1.0 / v.num_vertices as f32
    }

    fn active(&self, _now: f32, _seen: f32) -> bool {
        true
    }

    fn compute(&self, e: Edge<f32, ()>) -> f32 {
        e.src / e.src_out_degree as f32
    }

    fn global(&self, v: Vertex, rank: f32, _sent: f32) -> f64 {
        if v.out_degree == 0 {
            rank as f64
        } else {
            0.0
        }
    }

    fn apply(&self, v: Vertex, _old: f32, incoming: f32, dangling: f64) -> f32 {
        let n = v.num_vertices as f32;
        (1.0 - self.damping) / n + self.damping * (incoming + dangling as f32 / n)
    }

    fn done(&self, iterations: u32, change: f64) -> bool {
        change < self.tolerance || iterations >= self.max_iterations
    }
}

#[test]
fn float_every_apply() {
    let code = <Rank as DeviceProgram>::device_code();
    for needle in [
        "typedef simdx_f32 simdx_value;",
        "simdx_compute",
        "simdx_apply",
        "simdx_global",
        "simdx_done",
        "#define SIMDX_HAS_APPLY 1",
        "#define SIMDX_HAS_GLOBAL 1",
        "#define SIMDX_HAS_DONE 1",
        "simdx_f64 sx_tolerance;",
        "simdx_f32 sx_damping;",
        "simdx_u32 sx_max_iterations;",
    ] {
        assert!(code.contains(needle), "device code lacks `{needle}`:\n{code}");
    }
    // The widest field first, so that C inserts no padding: f64, f32, u32, 16 bytes in all.
    let params = Rank { damping: 0.85, tolerance: 1e-6, max_iterations: 100 }.device_params(&[]);
    let mut expected = Vec::new();
    expected.extend_from_slice(&1e-6f64.to_le_bytes());
    expected.extend_from_slice(&0.85f32.to_le_bytes());
    expected.extend_from_slice(&100u32.to_le_bytes());
    assert_eq!(params, expected);
}
