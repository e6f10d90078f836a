//! What the engine compiles for a program, and what a run waits for. The kernels are split into groups,
//! each compiled as a unit of its own (the whole source with `SX_KERNELS_<GROUP>` defined, which keeps
//! that group's kernels: the `#ifdef`s of kernels/*.cu), all units at once on threads of their own, so
//! that a cold cache costs about the slowest unit rather than their sum. The groups the host loop
//! launches come first; the persistent kernels (fused, asynchronous), the slowest to compile, come
//! last, and a run under selective fusion does not wait for them: it takes every step on the host
//! while they compile in the background (module `compile::background`), and a later run fuses.

use simdx_core::acc::device::{device_unit, DeviceProgram};
use simdx_core::engine::FusionPolicy;

use crate::device_structs;
use crate::error::CudaError;
use crate::launch::{Kernels, GRID_BARRIER};

/// The step kernels (one launch per phase), one file per phase, in the order they are compiled: after
/// the prelude and the program's device code, before the grid barrier and the fused kernels.
pub(crate) const PHASES: [(&str, &str); 13] = [
    ("state.cu", include_str!("../kernels/state.cu")),
    ("online_filter.cu", include_str!("../kernels/online_filter.cu")),
    ("prepare.cu", include_str!("../kernels/prepare.cu")),
    ("push.cu", include_str!("../kernels/push.cu")),
    ("pull.cu", include_str!("../kernels/pull.cu")),
    ("tiles.cu", include_str!("../kernels/tiles.cu")),
    ("chunks.cu", include_str!("../kernels/chunks.cu")),
    ("apply.cu", include_str!("../kernels/apply.cu")),
    ("select.cu", include_str!("../kernels/select.cu")),
    ("buckets.cu", include_str!("../kernels/buckets.cu")),
    ("scan.cu", include_str!("../kernels/scan.cu")),
    ("shares.cu", include_str!("../kernels/shares.cu")),
    ("link.cu", include_str!("../kernels/link.cu")),
];
/// The fused (persistent) kernels, compiled after [`PHASES`] and [`GRID_BARRIER`].
const FUSED_KERNELS: &str = include_str!("../kernels/fused.cu");
/// The asynchronous rounds' kernel, compiled last.
const ASYNC_KERNEL: &str = include_str!("../kernels/async.cu");

/// The groups of the engine's kernels, one unit each: the step kernels but the ballot filter's, the
/// ballot filter (with a partitioned run's frontier exchange), the warp and CTA pushes, the tiled push, the thread and warp pulls, the chunked and
/// tiled pulls, linking (the first [`STEP_GROUPS`], which every run waits for); then each fused kernel
/// and the asynchronous rounds.
pub const KERNEL_GROUPS: [&str; 11] = [
    "PREPARE",
    "SCAN",
    "PUSH",
    "PUSH_TILES",
    "PULL",
    "PULL_WIDE",
    "LINK",
    "FUSED_PUSH",
    "FUSED_PULL",
    "FUSED_ALL",
    "ASYNC",
];
/// How many of [`KERNEL_GROUPS`], first, hold the kernels the host loop launches: the units a first
/// run under selective fusion waits for.
pub const STEP_GROUPS: usize = 7;

/// The full source of program `P` with every group of kernels: prelude, program, the host-device
/// structs and counter slots generated from their Rust declarations (`device_structs::engine_header`),
/// the kernel files (with `#line` directives, so that compiler messages name the kernel files rather
/// than the program's source), and the checks of the constants both sides keep
/// (`device_structs::engine_footer`).
pub fn kernel_source<P: DeviceProgram>() -> String {
    unit_source::<P>(&KERNEL_GROUPS, SenderStores::Off)
}

/// The units [`crate::CudaEngine`] compiles for program `P`: one per group of [`KERNEL_GROUPS`].
pub fn kernel_units<P: DeviceProgram>() -> Vec<String> {
    kernel_units_for::<P>(SenderStores::Off)
}

/// Which steps of a run record each update's sender (SX_SENDERS and SX_ASYNC_SENDERS, kernels/state.cu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SenderStores {
    /// None: a run that keeps no senders.
    Off,
    /// Every step, asynchronous rounds included ([`crate::CudaEngine::run_with_senders`]).
    Everywhere,
    /// Level-synchronous steps only: asynchronous rounds leave theirs for a pass after the run
    /// ([`crate::CudaEngine::run_bfs_with_senders`]).
    Synchronous,
}

/// [`kernel_units`], with the sender stores `senders`.
pub(crate) fn kernel_units_for<P: DeviceProgram>(senders: SenderStores) -> Vec<String> {
    KERNEL_GROUPS.iter().map(|group| unit_source::<P>(&[group], senders)).collect()
}

/// The source of program `P` with the kernels of `groups`, with the sender stores `senders`.
fn unit_source<P: DeviceProgram>(groups: &[&str], senders: SenderStores) -> String {
    let files = [("device_structs.rs (generated)", device_structs::engine_header())]
        .into_iter()
        .chain(PHASES.iter().copied())
        .chain([
            ("barrier.cu", GRID_BARRIER),
            ("fused.cu", FUSED_KERNELS),
            ("async.cu", ASYNC_KERNEL),
            ("device_structs.rs (generated)", device_structs::engine_footer()),
        ]);
    let mut source: String = groups.iter().map(|group| format!("#define SX_KERNELS_{group} 1\n")).collect();
    match senders {
        SenderStores::Off => {}
        SenderStores::Everywhere => source.push_str("#define SX_SENDERS 1\n"),
        SenderStores::Synchronous => source.push_str("#define SX_SENDERS 1\n#define SX_ASYNC_SENDERS 0\n"),
    }
    source.push_str(&device_unit::<P>());
    for (name, text) in files {
        let dir = if name.ends_with(".cu") { "kernels/" } else { "" };
        source.push_str(&format!("\n#line 1 \"simdx-cuda/src/{dir}{name}\"\n{text}"));
    }
    source
}

/// The kernels of `units` (a program's, [`kernel_units_for`]) on `gpu` for a run under `fusion`,
/// compiled (or taken from a cache) and loaded, and whether they include the persistent kernels. A run
/// without fusion needs none of them; under selective fusion, when it may `defer` them, they come only
/// if a cache has them (otherwise they start compiling in the background); every other run waits for
/// them.
pub(super) fn program_kernels(
    units: &[String],
    gpu: &crate::Gpu,
    fusion: FusionPolicy,
    defer: bool,
) -> Result<(Kernels, bool), CudaError> {
    let sources: Vec<&str> = units.iter().map(String::as_str).collect();
    let (steps, persistent) = (&sources[..STEP_GROUPS], &units[STEP_GROUPS..]);
    match fusion {
        FusionPolicy::None => Ok((Kernels::split(gpu.compile_all(steps)?.0, unit_of), false)),
        FusionPolicy::Auto if defer => {
            // The step kernels first: units compiling in the background would slow theirs down.
            let (mut modules, _) = gpu.compile_all(steps)?;
            let ready = gpu.compile_if_cached(persistent)?;
            let with_persistent = ready.is_some();
            modules.extend(ready.into_iter().flatten());
            Ok((Kernels::split(modules, unit_of), with_persistent))
        }
        _ => Ok((Kernels::split(gpu.compile_all(&sources)?.0, unit_of), true)),
    }
}

/// A kernel of the engine's files: its name, the line declaring it, the group of [`KERNEL_GROUPS`]
/// whose `#ifdef SX_KERNELS_<GROUP>` it stands in (`None`: outside every known group), and whether its
/// file holds the persistent kernels.
struct KernelSite {
    name: String,
    group: Option<usize>,
    /// Read by the test of the groups.
    #[cfg_attr(not(test), allow(dead_code))]
    line: &'static str,
    #[cfg_attr(not(test), allow(dead_code))]
    persistent: bool,
}

/// Every kernel of the engine's files, where it stands.
fn kernel_sites() -> Vec<KernelSite> {
    let mut sites = Vec::new();
    for text in PHASES.iter().map(|(_, text)| *text).chain([FUSED_KERNELS, ASYNC_KERNEL]) {
        let persistent = text == FUSED_KERNELS || text == ASYNC_KERNEL;
        let mut open = None;
        for line in text.lines() {
            if let Some(group) = line.strip_prefix("#ifdef SX_KERNELS_") {
                open = KERNEL_GROUPS.iter().position(|g| *g == group.trim());
            } else if line.starts_with("#endif") {
                open = None;
            } else if let Some(rest) = line.split("__global__ void ").nth(1) {
                // `__launch_bounds__(...)` may stand before the name.
                let rest = rest.strip_prefix("__launch_bounds__(SX_BLOCK)").unwrap_or(rest);
                let name = rest.split('(').next().unwrap_or("").trim().to_string();
                sites.push(KernelSite { name, line, group: open, persistent });
            }
        }
    }
    sites
}

/// The index in [`KERNEL_GROUPS`] of the group that compiles kernel `name` (read from the kernel files
/// once).
pub(crate) fn unit_of(name: &str) -> Option<usize> {
    static UNITS: std::sync::OnceLock<std::collections::HashMap<String, usize>> = std::sync::OnceLock::new();
    let units =
        UNITS.get_or_init(|| kernel_sites().into_iter().filter_map(|site| Some((site.name, site.group?))).collect());
    units.get(name).copied()
}

#[cfg(test)]
mod tests {
    use super::{kernel_sites, unit_of, KERNEL_GROUPS, STEP_GROUPS};

    /// The engine's kernels are found in their groups' units.
    #[test]
    fn kernels_name_their_units() {
        let group = |name: &str| unit_of(name).map(|i| KERNEL_GROUPS[i]);
        assert_eq!(group("sx_scan_count"), Some("SCAN"));
        assert_eq!(group("sx_share_collect"), Some("SCAN"));
        assert_eq!(group("sx_snapshot"), Some("PREPARE"));
        assert_eq!(group("sx_async"), Some("ASYNC"));
        assert!(group("sx_fused_all").is_some_and(|g| g.starts_with("FUSED")));
        assert_eq!(unit_of("no_such_kernel"), None);
    }

    /// Every kernel of the engine's files sits in the `#ifdef` of one group of [`KERNEL_GROUPS`], so
    /// that exactly one unit compiles it, every group has a kernel, and the persistent kernels are in
    /// the groups after [`STEP_GROUPS`].
    #[test]
    fn every_kernel_is_in_exactly_one_group() {
        let mut per_group = vec![0; KERNEL_GROUPS.len()];
        for site in kernel_sites() {
            let line = site.line;
            let group = site.group.unwrap_or_else(|| panic!("a kernel outside every known group: `{line}`"));
            assert_eq!(group >= STEP_GROUPS, site.persistent, "`{line}` in group {}", KERNEL_GROUPS[group]);
            per_group[group] += 1;
        }
        for (group, count) in KERNEL_GROUPS.iter().zip(per_group) {
            assert!(count > 0, "group {group} has no kernel");
        }
    }
}
