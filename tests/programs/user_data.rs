//! Programs that read a user's per-vertex data (spmv's `x`, ppr's personalization, the sources of
//! multi-source bfs and sssp), run through the library's [`Runner`] on the CPU backend and, built with
//! `--features cuda` on a machine with a GPU, on the CUDA backend, under the jit filter with every
//! direction and fusion policy of the backend's matrix, against their serial oracles; and a
//! per-vertex array of the wrong length, which is an error on each backend.
//! Without a GPU the CUDA half prints that it was skipped; with `SIMDX_REQUIRE_GPU=1` it fails.

use simdx::acc::VertexData;
use simdx::engine::FilterPolicy;
use simdx::{Backend, Graph, GraphBuilder, Runner};
use simdx_algos::{default_delta, meyer_sanders_delta, verify, MultiSourceBfs, MultiSourceSssp, Ppr, Spmv};

use crate::common::policies::{backends, policies};
use crate::common::{edges, generated};

fn graphs() -> Vec<(String, Graph)> {
    let mut all: Vec<(String, Graph)> =
        ["kron:11:w", "urand:10:w", "grid:30x20"].iter().map(|s| (s.to_string(), generated(s))).collect();
    let directed = edges(8, &[(0, 1), (1, 2), (2, 0), (2, 3), (5, 4), (4, 6), (6, 3)], Some(vec![4, 1, 1, 7, 2, 2, 2]));
    all.push((
        "directed, dangling and unreachable".into(),
        GraphBuilder::new().directed(true).build(directed).unwrap(),
    ));
    all.push(("no edges".into(), GraphBuilder::new().build(edges(5, &[], None)).unwrap()));
    all.push(("one vertex".into(), GraphBuilder::new().build(edges(1, &[], None)).unwrap()));
    all
}

/// Runs `check` on every graph with a runner of every backend under every policy.
fn on_every_runner(mut check: impl FnMut(&str, &Graph, &Runner<'_>)) {
    for (name, g) in graphs() {
        for backend in backends() {
            let mut runner = Runner::new(&g, backend).unwrap();
            assert_eq!(runner.backend(), backend);
            for options in policies(backend).into_iter().filter(|o| o.filter == FilterPolicy::Jit) {
                runner.set_options(options);
                check(&format!("{name}, {backend:?}, {options:?}"), &g, &runner);
            }
        }
    }
}

/// A few ids of `g`'s vertices, spread out (one for a one-vertex graph).
fn seeds(g: &Graph) -> Vec<u32> {
    let n = g.num_vertices() as u32;
    let mut s = vec![0, n / 3, n - 1, n / 3];
    s.dedup();
    s
}

#[test]
fn spmv_multiplies_the_users_vector() {
    on_every_runner(|what, g, runner| {
        let x: Vec<f32> = (0..g.num_vertices()).map(|v| ((v * 37 % 101) as f32 - 50.0) / 7.0).collect();
        let program = Spmv { x: x.into() };
        let run = runner.run(&program).unwrap();
        verify::spmv(g, program.x.as_slice(), &run.values, 1e-5).unwrap_or_else(|e| panic!("{what}: {e}"));
    });
}

#[test]
fn ppr_matches_the_serial_power_iteration() {
    on_every_runner(|what, g, runner| {
        let program = Ppr { tolerance: 1e-12, max_iterations: 500, ..Ppr::from_seeds(g.num_vertices(), &seeds(g)) };
        let run = runner.run(&program).unwrap();
        let total: f64 = run.values.iter().sum();
        assert!((total - 1.0).abs() < 1e-9, "{what}: ranks sum to {total}");
        verify::ppr(g, &program, &run.values, 1e-8).unwrap_or_else(|e| panic!("{what}: {e}"));
    });
}

#[test]
fn multi_source_bfs_and_sssp_give_the_distance_to_the_nearest_source() {
    on_every_runner(|what, g, runner| {
        let sources = seeds(g);
        let flags = VertexData::set(g.num_vertices(), &sources);
        let run = runner.run(&MultiSourceBfs { sources: flags.clone() }).unwrap();
        verify::bfs_from(g, &sources, &run.values).unwrap_or_else(|e| panic!("{what}, bfs: {e}"));
        // The CPU's bucket width, and the runner's own (on a GPU four times Meyer and Sanders' width,
        // which the CPU's widens only on sparse graphs).
        let wide = match runner.backend() {
            Backend::Cuda => meyer_sanders_delta(g) * simdx::GPU_DELTA_FACTOR,
            _ => default_delta(g),
        };
        assert_eq!(runner.sssp_delta(g), wide, "{what}");
        for delta in [default_delta(g), runner.sssp_delta(g)] {
            let program = MultiSourceSssp { sources: flags.clone(), delta };
            let run = runner.run(&program).unwrap();
            verify::sssp_from(g, &sources, &run.values).unwrap_or_else(|e| panic!("{what}, sssp delta {delta}: {e}"));
        }
    });
}

#[test]
fn per_vertex_data_of_the_wrong_length_is_an_error_on_every_backend() {
    let g = generated("grid:4x4");
    for backend in backends() {
        let runner = Runner::new(&g, backend).unwrap();
        for len in [0, 15, 17] {
            let err = runner.run(&Spmv { x: VertexData::filled(1.0, len) }).unwrap_err().to_string();
            let want = format!("the program's per-vertex data `x` has {len} values, but the graph has 16 vertices");
            assert_eq!(err, want, "{backend:?}");
        }
    }
}

#[test]
fn auto_says_which_backend_runs_and_why() {
    let g = generated("grid:4x4");
    let runner = Runner::new(&g, Backend::Auto).unwrap();
    match runner.backend() {
        Backend::Cpu => assert!(runner.fallback().is_some_and(|why| !why.is_empty())),
        _ => assert_eq!(runner.fallback(), None),
    }
    if !cfg!(feature = "cuda") {
        let err = Runner::new(&g, Backend::Cuda).err().expect("no CUDA backend in this build");
        assert!(err.to_string().contains("--features cuda"), "{err}");
    }
}
