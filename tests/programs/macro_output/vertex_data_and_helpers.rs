// Per-vertex data read by vertex id and a kernel helper: the device code reads the arrays through
// pointers in the parameters, in the order `vertex_arrays` gives them.

use simdx::acc::{Apply, CombineKind, CombineOp, DeviceProgram, Edge, Program, ProgramHints, Vertex, VertexData};
use simdx::{graph_kernel, kernel_fn};

#[kernel_fn]
fn halve(x: f64) -> f64 {
    x * 0.5
}

struct Weighted {
    prior: VertexData<f64>,
    mask: VertexData<bool>,
    damping: f32,
}

#[graph_kernel]
impl Program for Weighted {
    type Value = f64;
    type Weight = ();
    const OP: CombineOp = CombineOp::Sum;
    const KIND: CombineKind = CombineKind::Aggregate;
    const APPLY: Apply = Apply::Every;
    const IDENTITY: f64 = 0.0;
    const UNSEEN: f64 = 0.0;

    fn init(&self, v: Vertex) -> f64 {
        if self.mask[v.id] {
            self.prior[v.id]
        } else {
            0.0
        }
    }

    fn active(&self, _now: f64, _seen: f64) -> bool {
        true
    }

    fn compute(&self, e: Edge<f64, ()>) -> f64 {
        halve(e.src) * (self.damping * 2.0f32) as f64
    }
}

#[test]
fn vertex_data_and_helpers() {
    let p = Weighted { prior: vec![0.5, 0.25].into(), mask: vec![true, false].into(), damping: 0.5 };
    let arrays = p.vertex_arrays();
    assert_eq!(arrays.iter().map(|a| (a.name, a.len)).collect::<Vec<_>>(), [("mask", 2), ("prior", 2)]);
    let code = Weighted::device_code();
    assert!(code.contains("const bool * sx_mask;"));
    assert!(code.contains("const simdx_f64 * sx_prior;"));
    assert!(code.contains("sx_self->sx_prior[sx_v.id]"));
    assert!(code.contains("/* kernel_fn sx_fn_halve_"));
    // The pointers first (8 bytes each, by name), then the f32, padded to 8.
    let params = p.device_params(&[0x1111, 0x2222]);
    let mut expected = Vec::new();
    for word in [0x1111u64, 0x2222] {
        expected.extend_from_slice(&word.to_le_bytes());
    }
    expected.extend_from_slice(&0.5f32.to_le_bytes());
    expected.extend_from_slice(&[0; 4]);
    assert_eq!(params, expected);
}
