//! [`Gpu`]: one CUDA device opened through the dynamically loaded driver — its context, stream,
//! architecture and multiprocessor count — or a clear error when there is no usable GPU.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaModule, CudaStream};

use crate::error::{driver, CudaError};

/// An opened CUDA device.
#[derive(Debug, Clone)]
pub struct Gpu {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) stream: Arc<CudaStream>,
    /// Compute capability as `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// The device's name.
    pub name: String,
    /// Free device memory when the device was opened: what this process has allocated since is the
    /// difference with what is free now (other processes aside).
    free_at_open: u64,
}

/// The most device memory simdx may allocate in this process (0: what the device has free).
static MEMORY_LIMIT: AtomicU64 = AtomicU64::new(0);

/// Limits the device memory simdx allocates in this process (graphs, run buffers, queues) to `limit`
/// bytes, or lifts the limit (`None`): an allocation beyond it fails with [`CudaError::OverLimit`]
/// before it is made, as one beyond the free memory fails with [`CudaError::OutOfMemory`]. The CLI's
/// `--device-memory-limit`. What counts is the memory the device has lost since this process opened
/// it, as the driver reports its free memory: another process allocating on the same GPU meanwhile
/// counts too.
pub fn set_memory_limit(limit: Option<u64>) {
    MEMORY_LIMIT.store(limit.unwrap_or(0), Ordering::Relaxed);
}

impl Gpu {
    /// Opens device `ordinal`, or says why there is none.
    pub fn open(ordinal: usize) -> Result<Gpu, CudaError> {
        // SAFETY: only probes whether the shared library can be loaded; no CUDA call is made.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(CudaError::NoDriver);
        }
        // SAFETY: as above, for NVRTC.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err(CudaError::NoNvrtc);
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| CudaError::NoDevice { ordinal, message: e.to_string() })?;
        let compute_capability = ctx.compute_capability().map_err(driver("reading the compute capability"))?;
        let sm_count = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(driver("reading the multiprocessor count"))? as u32;
        let name = ctx.name().unwrap_or_else(|_| "CUDA device".to_string());
        let stream = ctx.default_stream();
        let (free_at_open, _) = ctx.mem_get_info().map_err(driver("reading free memory"))?;
        Ok(Gpu { ctx, stream, compute_capability, sm_count, name, free_at_open: free_at_open as u64 })
    }

    /// Compiles CUDA C `source` for this device (NVRTC, `sm_XY`, CUBIN) through the kernel cache
    /// (memory, then disk, then NVRTC), says where it came from, and loads it. A compile failure
    /// carries NVRTC's log and the path of a file holding the source.
    pub fn compile(&self, source: &str) -> Result<(Arc<CudaModule>, crate::CacheHit), CudaError> {
        crate::compile::module(&self.ctx, &self.arch(), source)
    }

    /// Compiles the CUDA C units `sources` for this device as [`Gpu::compile`] does each, those found
    /// in no cache at once on threads of their own, and loads them; the modules in the sources' order.
    pub fn compile_all(&self, sources: &[&str]) -> Result<(Vec<Arc<CudaModule>>, crate::CacheHit), CudaError> {
        crate::compile::modules(&self.ctx, &self.arch(), sources)
    }

    /// The modules of `sources` if a cache has them all; otherwise `None`, and they start compiling in
    /// the background.
    pub(crate) fn compile_if_cached(&self, sources: &[String]) -> Result<Option<Vec<Arc<CudaModule>>>, CudaError> {
        crate::compile::modules_if_cached(&self.ctx, &self.arch(), sources)
    }

    /// The same GPU with a stream of its own, so that work on it (a share of a partitioned graph) runs
    /// beside the other streams' rather than after it.
    pub fn with_own_stream(&self) -> Result<Gpu, CudaError> {
        let stream = self.ctx.new_stream().map_err(driver("making a stream"))?;
        Ok(Gpu { stream, ..self.clone() })
    }

    /// Makes this device's context the calling thread's current one (the driver calls of a run on one
    /// of several GPUs go to the device they name).
    pub fn bind(&self) -> Result<(), CudaError> {
        self.ctx.bind_to_thread().map_err(driver("making a GPU current"))
    }

    /// The stream every simdx launch and copy on this device goes through (for custom kernels).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The `sm_XY` architecture NVRTC compiles for.
    pub fn arch(&self) -> String {
        format!("sm_{}{}", self.compute_capability.0, self.compute_capability.1)
    }

    /// Free and total device memory in bytes.
    pub fn memory(&self) -> Result<(u64, u64), CudaError> {
        let (free, total) = self.ctx.mem_get_info().map_err(driver("reading free memory"))?;
        Ok((free as u64, total as u64))
    }

    /// Device-to-device copy bandwidth in GB/s (bytes read + written), measured with a 256 MiB copy
    /// (the best of 5 after a warm-up): the ceiling against which `simdx bench` reports its floors.
    pub fn copy_bandwidth(&self) -> Result<f64, CudaError> {
        let words = 32 << 20;
        let src = self.stream.alloc_zeros::<u64>(words).map_err(driver("allocating a bandwidth probe"))?;
        let mut dst = self.stream.alloc_zeros::<u64>(words).map_err(driver("allocating a bandwidth probe"))?;
        let mut best = f64::MAX;
        for round in 0..6 {
            self.stream.synchronize().map_err(driver("synchronising"))?;
            let t = std::time::Instant::now();
            self.stream.memcpy_dtod(&src, &mut dst).map_err(driver("copying on the device"))?;
            self.stream.synchronize().map_err(driver("synchronising"))?;
            if round > 0 {
                best = best.min(t.elapsed().as_secs_f64());
            }
        }
        Ok(2.0 * (words * 8) as f64 / best / 1e9)
    }

    /// Fails with [`CudaError::OutOfMemory`] unless `bytes` (plus a margin) are free, and with
    /// [`CudaError::OverLimit`] if they would take this process past [`set_memory_limit`]'s limit.
    pub(crate) fn check_free(&self, what: &'static str, bytes: u64) -> Result<(), CudaError> {
        let (free, _) = self.memory()?;
        let margin = 64 << 20;
        if bytes + margin > free {
            return Err(CudaError::OutOfMemory { what, needed: bytes, free });
        }
        let limit = MEMORY_LIMIT.load(Ordering::Relaxed);
        let used = self.free_at_open.saturating_sub(free);
        if limit > 0 && used + bytes > limit {
            return Err(CudaError::OverLimit { what, needed: bytes, left: limit.saturating_sub(used), limit });
        }
        Ok(())
    }
}

/// Whether a CUDA device can be opened here (for tests and the CLI's fallback).
pub fn available() -> Result<Gpu, CudaError> {
    Gpu::open(0)
}
