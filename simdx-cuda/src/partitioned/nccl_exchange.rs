//! The exchange of shares on several GPUs, through NCCL: one [`NcclExchange`] per share, each holding
//! its rank's communicator and driven by the share's own host thread (NCCL's one thread per rank). A
//! reduction is an `ncclAllReduce` of a few words through a small device buffer; the owned ranges
//! are one in-place `ncclBroadcast` per part, rooted at the owner, all in one group.

use std::ffi::{c_int, c_void};
use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::exchange::{Exchange, Reduce};
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::nccl::{Comm, Communicators, Nccl};

/// `ncclDataType_t` values used here.
const NCCL_UINT8: c_int = 1;
const NCCL_UINT64: c_int = 5;
const NCCL_FLOAT64: c_int = 8;
/// `ncclRedOp_t` values used here.
const NCCL_SUM: c_int = 0;
const NCCL_MIN: c_int = 3;
/// The most words one reduction carries.
const REDUCE_WORDS: usize = 64;

/// One share's end of an exchange between GPUs: its rank's communicator and its GPU's stream.
pub struct NcclExchange {
    nccl: &'static Nccl,
    comm: Comm,
    part: usize,
    stream: Arc<CudaStream>,
    /// Where reductions happen on the device.
    scratch: CudaSlice<u64>,
}

// SAFETY: an NCCL communicator may be used from any thread, one call at a time; `&mut self` on every
// call ensures that, and the exchange is used by one share's thread.
unsafe impl Send for NcclExchange {}

impl NcclExchange {
    /// One exchange per GPU, rank `p` on `gpus[p]`, from one unique id (module `nccl`).
    pub fn group(gpus: &[Gpu]) -> Result<Vec<NcclExchange>, CudaError> {
        let scratch: Vec<CudaSlice<u64>> = gpus
            .iter()
            .map(|gpu| gpu.stream.alloc_zeros::<u64>(REDUCE_WORDS).map_err(driver("allocating an exchange")))
            .collect::<Result<_, _>>()?;
        let (nccl, comms) = Communicators::new(gpus)?.into_comms();
        let exchanges = gpus.iter().zip(comms).zip(scratch).enumerate();
        Ok(exchanges
            .map(|(part, ((gpu, comm), scratch))| NcclExchange {
                nccl,
                comm,
                part,
                stream: gpu.stream.clone(),
                scratch,
            })
            .collect())
    }
}

impl Exchange for NcclExchange {
    fn part(&self) -> usize {
        self.part
    }

    fn reduce(&mut self, values: &mut [u64], op: Reduce) -> Result<(), CudaError> {
        if values.len() > REDUCE_WORDS {
            return Err(CudaError::TooLarge(format!("a reduction between GPUs takes at most {REDUCE_WORDS} words")));
        }
        let (ty, nccl_op) = match op {
            Reduce::SumU64 => (NCCL_UINT64, NCCL_SUM),
            Reduce::MinU64 => (NCCL_UINT64, NCCL_MIN),
            Reduce::SumF64 => (NCCL_FLOAT64, NCCL_SUM),
        };
        let mut words = self.scratch.slice_mut(0..values.len());
        self.stream.memcpy_htod(values, &mut words).map_err(driver("reducing over the GPUs"))?;
        let at = scratch_address(&self.scratch, &self.stream);
        type AllReduce =
            unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, *mut c_void) -> c_int;
        // SAFETY: ncclAllReduce's signature per nccl.h; `at` holds `values.len()` words of this rank's
        // device, reduced in place on this rank's stream.
        unsafe {
            let reduce = self.nccl.function::<AllReduce>(b"ncclAllReduce\0")?;
            let p = at as *mut c_void;
            let stream = self.stream.cu_stream() as *mut c_void;
            self.nccl.check(reduce(p, p, values.len(), ty, nccl_op, self.comm, stream), "reducing over the GPUs")?;
        }
        let words = self.scratch.slice(0..values.len());
        self.stream.memcpy_dtoh(&words, values).map_err(driver("reducing over the GPUs"))?;
        self.stream.synchronize().map_err(driver("reducing over the GPUs"))
    }

    unsafe fn share_ranges(&mut self, buffer: u64, ranges: &[Range<usize>]) -> Result<(), CudaError> {
        type Broadcast =
            unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, *mut c_void) -> c_int;
        let nccl = self.nccl;
        // SAFETY: ncclBroadcast's signature per nccl.h; each range lies in `buffer` on this rank's
        // device (the caller's promise), broadcast in place from its owner (rank p) on this rank's
        // stream; every rank makes the same calls in the same order, in one group.
        unsafe {
            let broadcast = nccl.function::<Broadcast>(b"ncclBroadcast\0")?;
            let stream = self.stream.cu_stream() as *mut c_void;
            nccl.group(|| {
                for (root, range) in ranges.iter().enumerate().filter(|(_, r)| !r.is_empty()) {
                    let p = (buffer + range.start as u64) as *mut c_void;
                    let call = broadcast(p, p, range.len(), NCCL_UINT8, root as c_int, self.comm, stream);
                    nccl.check(call, "giving a share's values to the others")?;
                }
                Ok(())
            })
        }
        // No wait here: the broadcasts are ordered on the share's stream before whatever reads them.
    }
}

impl Drop for NcclExchange {
    fn drop(&mut self) {
        // SAFETY: the communicator came from ncclCommInitRank and is destroyed once, here.
        unsafe {
            if let Ok(destroy) = self.nccl.function::<unsafe extern "C" fn(Comm) -> c_int>(b"ncclCommDestroy\0") {
                destroy(self.comm);
            }
        }
    }
}

/// The device address of `slice`.
fn scratch_address(slice: &CudaSlice<u64>, stream: &Arc<CudaStream>) -> u64 {
    use cudarc::driver::DevicePtr;
    slice.device_ptr(stream).0
}
