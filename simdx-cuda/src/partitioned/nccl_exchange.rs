//! The exchange of shares on several GPUs, through NCCL: one [`NcclExchange`] per share, each holding
//! its rank's communicator and driven by the share's own host thread (NCCL's one thread per rank). A
//! reduction is an `ncclAllReduce` of a few words through a small device buffer; the owned ranges
//! are one in-place `ncclBroadcast` per part, rooted at the owner, all in one group.
//!
//! A share that fails leaves ([`Exchange::leave`]): it aborts every rank's communicator
//! (`ncclCommAbort`, which NCCL allows from another thread), so that the other shares' collectives,
//! which wait on the device for the rank that left, end instead of waiting for ever; their next
//! exchange then fails with "another share failed".

use std::ffi::{c_int, c_void};
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
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

/// The communicators of one group of shares, shared by their exchanges, so that the first to leave
/// can abort them all.
struct Group {
    nccl: &'static Nccl,
    comms: Vec<Comm>,
    /// Set by the first share to leave, which aborts the communicators (they are not destroyed again).
    aborted: AtomicBool,
}

// SAFETY: the communicators are only aborted through `Group::abort` (once, by the share that sets
// `aborted` first; NCCL allows
// `ncclCommAbort` from any thread while the rank's own thread is in a call) and otherwise used by their
// own share's thread, one call at a time.
unsafe impl Send for Group {}
// SAFETY: as above.
unsafe impl Sync for Group {}

impl Group {
    /// Aborts every communicator of the group, once.
    fn abort(&self) {
        if self.aborted.swap(true, Ordering::SeqCst) {
            return;
        }
        // SAFETY: each communicator came from ncclCommInitRank and is aborted once, here, which also
        // frees it (it is not destroyed after).
        unsafe {
            if let Ok(abort) = self.nccl.function::<unsafe extern "C" fn(Comm) -> c_int>(b"ncclCommAbort\0") {
                for &comm in &self.comms {
                    abort(comm);
                }
            }
        }
    }

    /// The error of a call made after a share left.
    fn check_open(&self) -> Result<(), CudaError> {
        match self.aborted.load(Ordering::SeqCst) {
            true => {
                Err(CudaError::Nccl { what: "exchanging between GPUs".into(), message: "another share failed".into() })
            }
            false => Ok(()),
        }
    }
}

/// One share's end of an exchange between GPUs: its rank's communicator and its GPU's stream.
pub struct NcclExchange {
    group: Arc<Group>,
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
        let group = Arc::new(Group { nccl, comms: comms.clone(), aborted: AtomicBool::new(false) });
        let exchanges = gpus.iter().zip(comms).zip(scratch).enumerate();
        Ok(exchanges
            .map(|(part, ((gpu, comm), scratch))| NcclExchange {
                group: group.clone(),
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
        self.group.check_open()?;
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
            let reduce = self.group.nccl.function::<AllReduce>(b"ncclAllReduce\0")?;
            let p = at as *mut c_void;
            let stream = self.stream.cu_stream() as *mut c_void;
            self.group
                .nccl
                .check(reduce(p, p, values.len(), ty, nccl_op, self.comm, stream), "reducing over the GPUs")?;
        }
        let words = self.scratch.slice(0..values.len());
        self.stream.memcpy_dtoh(&words, values).map_err(driver("reducing over the GPUs"))?;
        self.stream.synchronize().map_err(driver("reducing over the GPUs"))?;
        // A share that left aborted the reduction: what came back is not the sum.
        self.group.check_open()
    }

    unsafe fn share_ranges(&mut self, buffer: u64, ranges: &[Range<usize>]) -> Result<(), CudaError> {
        type Broadcast =
            unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, *mut c_void) -> c_int;
        self.group.check_open()?;
        let nccl = self.group.nccl;
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

    fn leave(&mut self) {
        self.group.abort();
    }
}

impl Drop for NcclExchange {
    fn drop(&mut self) {
        if self.group.aborted.load(Ordering::SeqCst) {
            return; // aborting freed it
        }
        // SAFETY: the communicator came from ncclCommInitRank and is destroyed once, here.
        unsafe {
            if let Ok(destroy) = self.group.nccl.function::<unsafe extern "C" fn(Comm) -> c_int>(b"ncclCommDestroy\0") {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A share that leaves ends the reduction another share's device is waiting in: the waiting share
    /// gets an error instead of waiting for ever. Needs two GPUs and NCCL (SIMDX_REQUIRE_GPUS makes a
    /// skip a failure).
    #[test]
    fn a_share_that_leaves_ends_the_others_wait() {
        let gpus = match crate::gpus::open_gpus(2) {
            Ok(gpus) => gpus,
            Err(e) if std::env::var_os("SIMDX_REQUIRE_GPUS").is_some() => panic!("SIMDX_REQUIRE_GPUS is set but {e}"),
            Err(e) => return eprintln!("skipped: {e}"),
        };
        let mut exchanges = NcclExchange::group(&gpus).unwrap();
        let mut second = exchanges.pop().unwrap();
        let mut first = exchanges.pop().unwrap();
        let started = std::time::Instant::now();
        let waiting = std::thread::spawn(move || {
            gpus[0].bind().unwrap();
            first.reduce(&mut [1], Reduce::SumU64)
        });
        std::thread::sleep(std::time::Duration::from_millis(300));
        second.leave();
        let result = waiting.join().unwrap();
        assert!(result.is_err(), "the reduction completed without the share that left");
        assert!(started.elapsed().as_secs() < 30, "the waiting share took {:?} to notice", started.elapsed());
        assert!(second.reduce(&mut [1], Reduce::SumU64).is_err(), "an exchange after leaving worked");
    }
}
