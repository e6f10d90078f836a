//! What simdx-cuda's GPU tests share: the GPU, or a printed skip, or a failure when
//! `SIMDX_REQUIRE_GPU=1`.

use simdx_cuda::Gpu;

/// The GPU, or `None` after saying why the test is skipped; panics instead when SIMDX_REQUIRE_GPU=1.
pub fn gpu() -> Option<Gpu> {
    match simdx_cuda::available() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("SIMDX_REQUIRE_GPU").is_ok_and(|v| v == "1") => panic!("SIMDX_REQUIRE_GPU=1 but {e}"),
        Err(e) => {
            eprintln!("skipped: no usable GPU ({e})");
            None
        }
    }
}
