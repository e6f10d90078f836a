//! The one backend x policy matrix every suite runs its programs under: the backends this build and
//! machine have ([`backends`]), the run options each backend tells apart ([`policies`]: every direction,
//! filter and fusion policy, on the GPU also small degree classes and asynchronous rounds), and the
//! ways of a many-source traversal ([`traversals`]).

use simdx::engine::{DegreeClasses, DirectionPolicy, FilterPolicy, FusionPolicy, RunOptions};
use simdx::multi_source::{Orientation, Traversal};
use simdx::Backend;

/// Every direction policy: always push, always pull, and the switch at 5% of the arcs.
pub const DIRECTIONS: [DirectionPolicy; 3] =
    [DirectionPolicy::Push, DirectionPolicy::Pull, DirectionPolicy::Auto { threshold: 0.05 }];

/// Every filter policy.
pub const FILTERS: [FilterPolicy; 3] = [FilterPolicy::Online, FilterPolicy::Ballot, FilterPolicy::Jit];

/// Small degree-class thresholds: every class, the grid one included, gets vertices.
pub const SMALL_CLASSES: DegreeClasses = DegreeClasses { warp: 4, cta: 16, grid: 64 };

/// The backends to test: the CPU, and the GPU where the build and the machine have one (with
/// `SIMDX_REQUIRE_GPU=1`, a build with the `cuda` feature and no usable GPU fails instead).
pub fn backends() -> Vec<Backend> {
    #[cfg(feature = "cuda")]
    if super::gpu().is_some() {
        return vec![Backend::Cpu, Backend::Cuda];
    }
    vec![Backend::Cpu]
}

/// The fusion policies `backend` tells apart: the CPU fuses a bucket's rounds (under any policy but
/// `None`) or runs one step at a time; the GPU has its four launch modes (asynchronous rounds aside).
pub fn fusions(backend: Backend) -> &'static [FusionPolicy] {
    match backend {
        Backend::Cpu => &[FusionPolicy::All, FusionPolicy::None],
        _ => &[FusionPolicy::None, FusionPolicy::PushPull, FusionPolicy::All, FusionPolicy::Auto],
    }
}

/// Every direction, filter and fusion policy of `backend`, with a tiny bin capacity that makes the jit
/// filter overflow and fall back to ballot; on the GPU also, under each fusion policy, small degree
/// classes pushing and pulling (the thread, warp, CTA and grid kernels all run), and asynchronous rounds
/// (programs that cannot run them run as under `Auto`; they read no direction, filter or classes).
pub fn policies(backend: Backend) -> Vec<RunOptions> {
    let mut all = Vec::new();
    for &fusion in fusions(backend) {
        for direction in DIRECTIONS {
            for filter in FILTERS {
                all.push(RunOptions { direction, filter, fusion, bin_capacity: 4, ..RunOptions::default() });
            }
        }
        if backend != Backend::Cpu {
            for direction in [DirectionPolicy::Push, DirectionPolicy::Pull] {
                all.push(RunOptions { direction, classes: SMALL_CLASSES, fusion, ..RunOptions::default() });
            }
        }
    }
    if backend != Backend::Cpu {
        all.push(RunOptions { fusion: FusionPolicy::Async, ..RunOptions::default() });
    }
    all
}

/// Every way of a many-source traversal: each direction policy, both orientations, GroupBy or not.
pub fn traversals() -> Vec<Traversal> {
    let mut all = Vec::new();
    for direction in DIRECTIONS {
        for orientation in [Orientation::Out, Orientation::In] {
            for group_by in [false, true] {
                all.push(Traversal { orientation, direction, group_by });
            }
        }
    }
    all
}
