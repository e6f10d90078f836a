//! A BFS-like voting program (`min`, `CombineKind::Voting`, `Apply::InPlace`) with one field of `self`.

use simdx::acc::{Apply, CombineKind, CombineOp, DeviceProgram, Edge, Program, Vertex};
use simdx::engine::{Engine, RunOptions};
use simdx::graph_kernel;
use simdx::{EdgeList, GraphBuilder};

const UNREACHED: u32 = u32::MAX;

struct Levels {
    source: u32,
}

#[graph_kernel]
impl Program for Levels {
    type Value = u32;
    type Weight = ();
    const OP: CombineOp = CombineOp::Min;
    const KIND: CombineKind = CombineKind::Voting;
    const APPLY: Apply = Apply::InPlace;
    const IDENTITY: u32 = UNREACHED;
    const UNSEEN: u32 = UNREACHED;

    fn init(&self, v: Vertex) -> u32 {
        if v.id == self.source {
            0
        } else {
            UNREACHED
        }
    }

    fn active(&self, now: u32, seen: u32) -> bool {
        now != seen
    }

    fn compute(&self, e: Edge<u32, ()>) -> u32 {
        e.src + 1
    }

    fn can_update(&self, level: u32) -> bool {
        level == UNREACHED
    }
}

#[test]
fn bfs_voting() {
    let code = <Levels as DeviceProgram>::device_code();
    for needle in ["simdx_compute", "simdx_init", "simdx_can_update", "sx_source", "#define SIMDX_HAS_COMBINE 0"] {
        assert!(code.contains(needle), "device code lacks `{needle}`:\n{code}");
    }
    // The outside constant's value is taken from Rust.
    assert!(code.contains(&format!("{}u", u32::MAX)), "{code}");
    // The parameters: `source` alone, as a little-endian u32.
    assert_eq!(Levels { source: 7 }.device_params(&[]), 7u32.to_le_bytes().to_vec());

    // The impl itself is unchanged: the CPU engine runs it.
    let path = EdgeList { num_vertices: 4, src: vec![0, 1, 2], dst: vec![1, 2, 3], weights: None };
    let graph = GraphBuilder::new().build(path).unwrap();
    let run = Engine::new(RunOptions::default()).run(&Levels { source: 0 }, &graph).unwrap();
    assert_eq!(run.values, vec![0, 1, 2, 3]);
}
