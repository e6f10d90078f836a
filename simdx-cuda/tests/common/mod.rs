//! What simdx-cuda's GPU tests share: the GPU, or a printed skip, or a failure when
//! `SIMDX_REQUIRE_GPU=1`.

use simdx_cuda::Gpu;

/// The GPU, or `None` after saying why the test is skipped; panics instead when SIMDX_REQUIRE_GPU=1.
/// Runs then wait for all of their kernels, so that each takes the path its test expects (an engine's
/// `with_deferred_compile(true)` still defers).
pub fn gpu() -> Option<Gpu> {
    simdx_cuda::defer_persistent_kernels(false);
    match simdx_cuda::available() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("SIMDX_REQUIRE_GPU").is_ok_and(|v| v == "1") => panic!("SIMDX_REQUIRE_GPU=1 but {e}"),
        Err(e) => {
            eprintln!("skipped: no usable GPU ({e})");
            None
        }
    }
}
