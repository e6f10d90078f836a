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
    /// NCCL could not be loaded: where it was looked for.
    #[error("no NCCL: {0} (set SIMDX_NCCL_LIB to the file or its folder)")]
    NoNccl(String),
    /// An NCCL call failed.
    #[error("NCCL failed while {what}: {message}")]
    Nccl {
        /// What simdx was doing.
        what: String,
        /// NCCL's message.
        message: String,
    },
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
    /// More GPUs were asked for than this host has (or none).
    #[error("{asked} GPUs asked for, but this host has {present} (ask for 1 to {present})")]
    TooFewGpus {
        /// GPUs asked for.
        asked: usize,
        /// CUDA devices present.
        present: usize,
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
    #[error(
        "out of GPU memory: {what} needs {} but the device has {} free (use --backend cpu, or a smaller graph)",
        simdx_core::memory::show_bytes(*needed),
        simdx_core::memory::show_bytes(*free)
    )]
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// Bytes asked for.
        needed: u64,
        /// Bytes free on the device.
        free: u64,
    },
    /// A run would take more device memory than the limit set with [`crate::set_memory_limit`].
    #[error(
        "over the GPU memory limit: {what} needs {} but {} of the {} limit is left (raise --device-memory-limit, use --backend cpu, or a smaller graph)",
        simdx_core::memory::show_bytes(*needed),
        simdx_core::memory::show_bytes(*left),
        simdx_core::memory::show_bytes(*limit)
    )]
    OverLimit {
        /// What was being allocated.
        what: &'static str,
        /// Bytes asked for.
        needed: u64,
        /// Bytes of the limit not yet used by this process's device memory.
        left: u64,
        /// The limit.
        limit: u64,
    },
    /// The graph's weights cannot serve as the program's weight type.
    #[error("{0}")]
    Weights(String),
    /// A per-vertex array of the program does not match the graph.
    #[error(transparent)]
    VertexData(#[from] simdx_core::acc::LengthMismatch),
    /// Options that cannot work (checked by the execution policy both engines share).
    #[error(transparent)]
    Options(#[from] simdx_core::engine::EngineError),
    /// A graph too large for this backend's 32-bit worklists.
    #[error("{0}")]
    TooLarge(String),
    /// A kernel faulted: the device's context is lost for the rest of the process.
    #[error(
        "a GPU kernel failed while {what}: {fault}; the GPU cannot be used again in this process (run with \
         --backend cpu, or under compute-sanitizer to find the fault)"
    )]
    KernelFault {
        /// What the backend was doing.
        what: &'static str,
        /// What the driver reported, in words.
        fault: &'static str,
    },
    /// The driver could not allocate device memory.
    #[error("out of GPU memory while {what} (use --backend cpu, or a smaller graph)")]
    DeviceOutOfMemory {
        /// What the backend was doing.
        what: &'static str,
    },
    /// A computation that needs the whole graph on a GPU was asked of a graph that is only split
    /// over several (it does not fit one of them).
    #[error(
        "{what} needs the whole graph on one GPU, but this graph is only split over {gpus} GPUs: {why} \
         (run it with --gpus 1 on a GPU that holds the graph, or with --backend cpu)"
    )]
    NeedsWholeGraph {
        /// The computation.
        what: &'static str,
        /// GPUs the graph is split over.
        gpus: usize,
        /// Why no GPU holds it whole.
        why: String,
    },
    /// A run asked to pull over a graph split into shares that hold only their out-arcs.
    #[error(
        "this graph is split over GPUs in shares that hold only their out-arcs (both ways do not fit), so \
         runs on it push: drop --direction pull"
    )]
    PullWithoutInArcs,
    /// A graph split in shares of owned sources takes only programs that combine in place by min or max.
    #[error(
        "this graph is split over GPUs in shares of their vertices' out-arcs, which trade updates by the \
         program's combine, so it runs only programs that combine in place by min or max (SSSP, BFS, \
         components); split it in shares of in-arcs for this one"
    )]
    NeedsSharesOfTargets,
    /// A run asked to pull over a graph split in shares of owned sources, whose steps push.
    #[error(
        "this graph is split over GPUs in shares of their vertices' out-arcs, whose steps push (a settle \
         step may pull): drop --direction pull"
    )]
    PullOverSharesOfSources,
    /// Senders are kept only for voting min programs of `u32` values that apply in place.
    #[error(
        "a run keeps senders (BFS parents) only for a voting program of u32 values combined by min that \
         applies in place"
    )]
    SendersNeedVoting,
}

impl CudaError {
    /// Whether this is a want of device memory (free memory, the memory limit or the driver's
    /// allocator): what a smaller layout of the same data may still fit.
    pub fn is_memory(&self) -> bool {
        matches!(
            self,
            CudaError::OutOfMemory { .. } | CudaError::OverLimit { .. } | CudaError::DeviceOutOfMemory { .. }
        )
    }
}

impl CudaError {
    /// The error for a failed driver call made while `what` (for custom kernels launched on
    /// [`Gpu::stream`](crate::Gpu::stream)): a kernel fault or an allocation failure as its own
    /// sentence, as simdx's own launches report them, any other error with the driver's words.
    pub fn from_driver(what: &'static str, error: cudarc::driver::DriverError) -> CudaError {
        driver(what)(error)
    }
}

/// Wraps a driver error with what the backend was doing: a kernel fault or an allocation failure as
/// its own sentence, any other error with the driver's words.
pub(crate) fn driver(what: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> CudaError {
    move |e| classify(what, e.0).unwrap_or_else(|| CudaError::Driver { what, message: e.to_string() })
}

/// The error for a driver result code that has a sentence of its own (read without the driver, which
/// a faulted context may no longer answer).
pub(crate) fn classify(what: &'static str, code: cudarc::driver::sys::CUresult) -> Option<CudaError> {
    use cudarc::driver::sys::CUresult as R;
    let fault = match code {
        R::CUDA_ERROR_OUT_OF_MEMORY => return Some(CudaError::DeviceOutOfMemory { what }),
        R::CUDA_ERROR_ILLEGAL_ADDRESS => "a memory access out of bounds (CUDA_ERROR_ILLEGAL_ADDRESS)",
        R::CUDA_ERROR_MISALIGNED_ADDRESS => "a misaligned memory access (CUDA_ERROR_MISALIGNED_ADDRESS)",
        R::CUDA_ERROR_ILLEGAL_INSTRUCTION => {
            "an illegal instruction or a trap, such as the grid barrier's watchdog, which stops a fused kernel \
             whose blocks waited 10 s for one another (CUDA_ERROR_ILLEGAL_INSTRUCTION)"
        }
        R::CUDA_ERROR_LAUNCH_FAILED => {
            "the kernel stopped, as on a trap such as the grid barrier's watchdog, which stops a fused kernel \
             whose blocks waited 10 s for one another (CUDA_ERROR_LAUNCH_FAILED)"
        }
        R::CUDA_ERROR_ASSERT => "a device-side assertion (CUDA_ERROR_ASSERT)",
        R::CUDA_ERROR_HARDWARE_STACK_ERROR => "a stack overflow (CUDA_ERROR_HARDWARE_STACK_ERROR)",
        R::CUDA_ERROR_INVALID_PC => "a jump to an invalid address (CUDA_ERROR_INVALID_PC)",
        R::CUDA_ERROR_LAUNCH_TIMEOUT => "the kernel ran past the display watchdog's limit (CUDA_ERROR_LAUNCH_TIMEOUT)",
        _ => return None,
    };
    Some(CudaError::KernelFault { what, fault })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cudarc::driver::sys::CUresult as R;

    #[test]
    fn faults_and_allocation_failures_read_as_one_sentence_without_a_driver() {
        let trap = classify("running the fused kernel", R::CUDA_ERROR_LAUNCH_FAILED).unwrap().to_string();
        assert!(trap.starts_with("a GPU kernel failed while running the fused kernel: the kernel stopped"), "{trap}");
        assert!(trap.contains("watchdog") && trap.contains("--backend cpu") && !trap.contains('\n'), "{trap}");
        let oob = classify("running a step", R::CUDA_ERROR_ILLEGAL_ADDRESS).unwrap().to_string();
        assert!(oob.contains("out of bounds (CUDA_ERROR_ILLEGAL_ADDRESS)"), "{oob}");
        let oom = classify("uploading the graph", R::CUDA_ERROR_OUT_OF_MEMORY).unwrap().to_string();
        assert_eq!(oom, "out of GPU memory while uploading the graph (use --backend cpu, or a smaller graph)");
        assert!(classify("synchronising", R::CUDA_ERROR_INVALID_VALUE).is_none());
        let estimate = CudaError::OutOfMemory { what: "the graph", needed: 3 << 30, free: 1 << 30 }.to_string();
        assert_eq!(
            estimate,
            "out of GPU memory: the graph needs 3.0 GiB but the device has 1.0 GiB free (use --backend cpu, or a smaller graph)"
        );
        let over =
            CudaError::OverLimit { what: "the graph", needed: 3 << 20, left: 1 << 20, limit: 2 << 20 }.to_string();
        assert_eq!(
            over,
            "over the GPU memory limit: the graph needs 3.0 MiB but 1.0 MiB of the 2.0 MiB limit is left (raise --device-memory-limit, use --backend cpu, or a smaller graph)"
        );
    }
}
