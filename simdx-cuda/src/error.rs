//! [`CudaError`]: why the CUDA backend could not run, as one sentence a user can act on.

/// An error of the CUDA backend.
#[derive(Debug, thiserror::Error)]
pub enum CudaError {
    /// The CUDA driver library could not be loaded.
    #[error("no CUDA driver: libcuda.so.1 was not found (is an NVIDIA driver installed?)")]
    NoDriver,
    /// NVRTC could not be loaded.
    #[error("no NVRTC: libnvrtc.so was not found (install the CUDA toolkit's runtime compiler)")]
    NoNvrtc,
    /// NVML, the driver's management library, could not be loaded or could not read the energy
    /// counter of the device.
    #[error("no energy reading: {0}")]
    Energy(String),
    /// The driver has no device with this ordinal.
    #[error("no CUDA device {ordinal}: {message}")]
    NoDevice {
        /// The device asked for.
        ordinal: usize,
        /// What the driver said.
        message: String,
    },
    /// A CUDA driver call failed.
    #[error("CUDA call failed while {what}: {message}")]
    Driver {
        /// What the backend was doing.
        what: &'static str,
        /// The driver's error.
        message: String,
    },
    /// NVRTC rejected the generated source.
    #[error("NVRTC could not compile the generated kernels (source kept at {source_path}):\n{log}")]
    Compile {
        /// NVRTC's log.
        log: String,
        /// Where the generated source was written for inspection.
        source_path: String,
    },
    /// The device lacks the memory a run needs.
    #[error("out of GPU memory: {what} needs {needed} bytes, the device has {free} bytes free")]
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// Bytes asked for.
        needed: u64,
        /// Bytes free on the device.
        free: u64,
    },
    /// The graph's weights cannot serve as the program's weight type.
    #[error("{0}")]
    Weights(String),
    /// A per-vertex array of the program does not match the graph.
    #[error(transparent)]
    VertexData(#[from] simdx_core::acc::LengthMismatch),
    /// A graph too large for this backend's 32-bit worklists.
    #[error("{0}")]
    TooLarge(String),
}

/// Wraps a driver error with what the backend was doing.
pub(crate) fn driver(what: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> CudaError {
    move |e| CudaError::Driver { what, message: e.to_string() }
}
