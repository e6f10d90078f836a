//! NCCL, loaded at run time as the CUDA driver is, and the communicators of the GPUs one process
//! drives. The library (`libnccl.so.2`) is looked for at `SIMDX_NCCL_LIB` (a file or a folder), then
//! on the system's library path, then in the Python environment's `nvidia/nccl/lib` (NVIDIA's wheel);
//! when none has it, the error names every place looked at. cudarc's own NCCL loader is not used: it
//! tries names such as `libnccl.so` and `libnccl.so.13`, never `libnccl.so.2` or a path.
//!
//! [`Communicators`] makes one communicator per GPU from one unique id, rank by rank, as a run over
//! several hosts would (each process making its own ranks from an id passed to it): nothing here
//! assumes one process. NVLink multicast (NVLS) stays off: `NCCL_NVLS_ENABLE=0` is set before NCCL
//! first loads, whatever the environment said, because on shared hosts multicast can take the GPUs
//! out of service; nothing here calls `cuMulticastCreate`.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use libloading::{Library, Symbol};

use crate::error::{driver, CudaError};
use crate::gpu::Gpu;

/// The file name NCCL 2 is installed under.
const LIBRARY: &str = "libnccl.so.2";

/// NCCL's opaque communicator.
pub(crate) type Comm = *mut c_void;

/// NCCL's unique id: 128 bytes that every rank of one communicator is made from.
#[repr(C)]
#[derive(Clone, Copy)]
struct UniqueId {
    internal: [c_char; 128],
}

/// `ncclDataType_t` values.
#[derive(Debug, Clone, Copy)]
#[repr(i32)]
enum DataType {
    U32 = 3,
    U64 = 5,
}

/// `ncclRedOp_t` values.
#[derive(Debug, Clone, Copy)]
#[repr(i32)]
enum ReduceOp {
    Sum = 0,
}

/// NCCL loaded from one file.
pub struct Nccl {
    library: Library,
    path: PathBuf,
    version: i32,
}

/// NCCL, loaded once per process (see the module's docs for where it is looked for).
pub fn nccl() -> Result<&'static Nccl, CudaError> {
    static NCCL: OnceLock<Result<Nccl, String>> = OnceLock::new();
    NCCL.get_or_init(|| {
        // SAFETY: set before NCCL (the only reader) is loaded; no other thread of simdx reads it.
        unsafe { std::env::set_var("NCCL_NVLS_ENABLE", "0") };
        load(&candidates())
    })
    .as_ref()
    .map_err(|looked| CudaError::NoNccl(looked.clone()))
}

/// Where NCCL is looked for, in order, each with a word saying where it came from.
fn candidates() -> Vec<(String, PathBuf)> {
    let mut places = Vec::new();
    if let Some(given) = std::env::var_os("SIMDX_NCCL_LIB") {
        let given = PathBuf::from(given);
        let file = if given.is_dir() { given.join(LIBRARY) } else { given };
        places.push(("SIMDX_NCCL_LIB".to_string(), file));
    }
    places.push(("the library path".to_string(), PathBuf::from(LIBRARY)));
    if let Some(folder) = python_nccl_folder() {
        places.push(("Python's nvidia.nccl".to_string(), folder.join(LIBRARY)));
    }
    places
}

/// The `nvidia/nccl/lib` folder of the Python environment `python3` runs in, if it has one.
fn python_nccl_folder() -> Option<PathBuf> {
    let script = "import os, nvidia.nccl as n; print(os.path.join(list(n.__path__)[0], 'lib'))";
    let out = std::process::Command::new("python3").args(["-c", script]).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    out.status.success().then(|| PathBuf::from(text.trim()))
}

/// Loads NCCL from the first of `places` that has it; `Err` names every place and why it failed.
fn load(places: &[(String, PathBuf)]) -> Result<Nccl, String> {
    let mut tried = Vec::new();
    for (from, path) in places {
        // SAFETY: loading NCCL runs its initialisers, which have no preconditions.
        match unsafe { Library::new(path) } {
            Ok(library) => {
                let mut version = 0;
                // SAFETY: ncclGetVersion(int*) per nccl.h; `version` is a valid place for the result.
                unsafe {
                    let get: Symbol<unsafe extern "C" fn(*mut c_int) -> c_int> =
                        library.get(b"ncclGetVersion\0").map_err(|e| format!("{}: {e}", path.display()))?;
                    get(&mut version);
                }
                return Ok(Nccl { library, path: path.clone(), version });
            }
            Err(e) => tried.push(format!("{} ({from}): {e}", path.display())),
        }
    }
    Err(format!("NCCL ({LIBRARY}) was not found; looked at {}", tried.join("; ")))
}

impl Nccl {
    /// The file NCCL was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// NCCL's version code (e.g. 22809 for 2.28.9).
    pub fn version(&self) -> i32 {
        self.version
    }

    /// An NCCL function, by its NUL-terminated name.
    ///
    /// # Safety
    /// `F` must be the function's signature as nccl.h declares it.
    pub(crate) unsafe fn function<F>(&self, name: &[u8]) -> Result<Symbol<'_, F>, CudaError> {
        // SAFETY: the caller gives the declared signature.
        unsafe { self.library.get(name) }.map_err(|e| CudaError::NoNccl(format!("{}: {e}", self.path.display())))
    }

    /// `Err` with NCCL's own words when `result` is not `ncclSuccess`.
    pub(crate) fn check(&self, result: c_int, what: &str) -> Result<(), CudaError> {
        if result == 0 {
            return Ok(());
        }
        // SAFETY: ncclGetErrorString(ncclResult_t) returns a static NUL-terminated string.
        let message = unsafe {
            self.function::<unsafe extern "C" fn(c_int) -> *const c_char>(b"ncclGetErrorString\0")
                .map(|f| CStr::from_ptr(f(result)).to_string_lossy().into_owned())
                .unwrap_or_else(|_| format!("error {result}"))
        };
        Err(CudaError::Nccl { what: what.to_string(), message })
    }
}

/// One NCCL communicator per GPU of this process, all of one clique.
pub struct Communicators {
    nccl: &'static Nccl,
    comms: Vec<Comm>,
}

// SAFETY: NCCL communicators may be used from any thread, one operation at a time, which `&mut self`
// on every collective ensures.
unsafe impl Send for Communicators {}

impl Communicators {
    /// Communicators for `gpus` (rank `i` on `gpus[i]`), made from one unique id.
    pub fn new(gpus: &[Gpu]) -> Result<Communicators, CudaError> {
        let nccl = nccl()?;
        let ranks = c_int::try_from(gpus.len()).map_err(|_| CudaError::TooLarge("too many GPUs".into()))?;
        let mut id = UniqueId { internal: [0; 128] };
        let mut comms = vec![std::ptr::null_mut(); gpus.len()];
        // SAFETY: the signatures are nccl.h's; `id` and each `comms[rank]` are valid places for NCCL's
        // results; each rank is made with its own device current, inside one group, as NCCL asks of
        // several ranks in one thread.
        unsafe {
            let unique: Symbol<unsafe extern "C" fn(*mut UniqueId) -> c_int> = nccl.function(b"ncclGetUniqueId\0")?;
            nccl.check(unique(&mut id), "making a unique id")?;
            let init: Symbol<unsafe extern "C" fn(*mut Comm, c_int, UniqueId, c_int) -> c_int> =
                nccl.function(b"ncclCommInitRank\0")?;
            nccl.group(|| {
                for (rank, gpu) in gpus.iter().enumerate() {
                    gpu.ctx.bind_to_thread().map_err(driver("making a GPU current"))?;
                    nccl.check(init(&mut comms[rank], ranks, id, rank as c_int), "making a communicator")?;
                }
                Ok(())
            })?;
        }
        Ok(Communicators { nccl, comms })
    }

    /// Hands each rank's communicator over, in rank order, with the NCCL they belong to: the caller
    /// destroys them (`ncclCommDestroy`) when done.
    pub(crate) fn into_comms(mut self) -> (&'static Nccl, Vec<Comm>) {
        (self.nccl, std::mem::take(&mut self.comms))
    }

    /// The number of ranks.
    pub fn len(&self) -> usize {
        self.comms.len()
    }

    /// Whether there are no ranks.
    pub fn is_empty(&self) -> bool {
        self.comms.is_empty()
    }

    /// Sums `buffers[rank]` over the ranks, in place, on each GPU's stream (`buffers[rank]` on
    /// `gpus[rank]`, all of one length).
    pub fn all_reduce_sum(&mut self, gpus: &[Gpu], buffers: &mut [CudaSlice<u64>]) -> Result<(), CudaError> {
        self.same_shape(gpus.len(), buffers.iter().map(|b| b.len()))?;
        let nccl = self.nccl;
        // SAFETY: ncclAllReduce's signature per nccl.h; each buffer lives on its rank's device and is
        // at least `len` long; in-place (send == receive) is allowed; the stream is that device's.
        unsafe {
            type AllReduce =
                unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, c_int, Comm, *mut c_void) -> c_int;
            let reduce: Symbol<AllReduce> = nccl.function(b"ncclAllReduce\0")?;
            nccl.group(|| {
                for (rank, (gpu, buffer)) in gpus.iter().zip(buffers.iter_mut()).enumerate() {
                    let len = buffer.len();
                    let (ptr, _sync) = buffer.device_ptr_mut(&gpu.stream);
                    let (op, ty) = (ReduceOp::Sum as c_int, DataType::U64 as c_int);
                    let stream = gpu.stream.cu_stream() as *mut c_void;
                    let p = ptr as *mut c_void;
                    nccl.check(reduce(p, p, len, ty, op, self.comms[rank], stream), "summing over the GPUs")?;
                }
                Ok(())
            })
        }
    }

    /// Gathers every rank's `send` into every rank's `receive`, rank by rank (`receive` is
    /// `len() * send.len()` long).
    pub fn all_gather(
        &mut self,
        gpus: &[Gpu],
        send: &[CudaSlice<u32>],
        receive: &mut [CudaSlice<u32>],
    ) -> Result<(), CudaError> {
        self.same_shape(gpus.len(), send.iter().map(|b| b.len()))?;
        self.same_shape(gpus.len(), receive.iter().map(|b| b.len()))?;
        let nccl = self.nccl;
        // SAFETY: ncclAllGather's signature per nccl.h; buffers on their rank's device, `receive`
        // holding `ranks * count` words (checked above against `send`'s through `same_shape` and below).
        unsafe {
            type AllGather = unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, Comm, *mut c_void) -> c_int;
            let gather: Symbol<AllGather> = nccl.function(b"ncclAllGather\0")?;
            nccl.group(|| {
                for (rank, gpu) in gpus.iter().enumerate() {
                    let count = send[rank].len();
                    if receive[rank].len() != count * self.comms.len() {
                        return Err(CudaError::TooLarge(
                            "an all-gather's receive buffer must hold every rank's".into(),
                        ));
                    }
                    let (from, _a) = send[rank].device_ptr(&gpu.stream);
                    let (to, _b) = receive[rank].device_ptr_mut(&gpu.stream);
                    let stream = gpu.stream.cu_stream() as *mut c_void;
                    let ty = DataType::U32 as c_int;
                    let (from, to) = (from as *const c_void, to as *mut c_void);
                    nccl.check(gather(from, to, count, ty, self.comms[rank], stream), "gathering over the GPUs")?;
                }
                Ok(())
            })
        }
    }

    /// `Err` unless there is one buffer per rank and per GPU, all of one length.
    fn same_shape(&self, gpus: usize, lens: impl Iterator<Item = usize>) -> Result<(), CudaError> {
        let lens: Vec<usize> = lens.collect();
        let uniform = lens.windows(2).all(|w| w[0] == w[1]);
        if gpus != self.comms.len() || lens.len() != gpus || lens.is_empty() || !uniform {
            return Err(CudaError::TooLarge(format!(
                "a collective needs one buffer of one length per rank ({} ranks, {gpus} GPUs given)",
                self.comms.len()
            )));
        }
        Ok(())
    }
}

impl Nccl {
    /// Runs `calls` between `ncclGroupStart` and `ncclGroupEnd` (ending the group on error too).
    ///
    /// # Safety
    /// `calls` makes NCCL calls that may be grouped.
    pub(crate) unsafe fn group(&self, calls: impl FnOnce() -> Result<(), CudaError>) -> Result<(), CudaError> {
        // SAFETY: ncclGroupStart/End take no arguments (nccl.h).
        unsafe {
            let start: Symbol<unsafe extern "C" fn() -> c_int> = self.function(b"ncclGroupStart\0")?;
            let end: Symbol<unsafe extern "C" fn() -> c_int> = self.function(b"ncclGroupEnd\0")?;
            self.check(start(), "starting a group of NCCL calls")?;
            let done = calls();
            let ended = self.check(end(), "ending a group of NCCL calls");
            done.and(ended)
        }
    }
}

impl Drop for Communicators {
    fn drop(&mut self) {
        // SAFETY: each communicator came from ncclCommInitRank and is destroyed once.
        unsafe {
            if let Ok(destroy) = self.nccl.function::<unsafe extern "C" fn(Comm) -> c_int>(b"ncclCommDestroy\0") {
                for &comm in &self.comms {
                    destroy(comm);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_nccl_names_every_place_looked_at() {
        let places = vec![
            ("SIMDX_NCCL_LIB".to_string(), PathBuf::from("/nonexistent/libnccl.so.2")),
            ("the library path".to_string(), PathBuf::from("libnccl-not-here.so.2")),
        ];
        let Err(why) = load(&places) else { panic!("loaded a library that does not exist") };
        assert!(why.contains("/nonexistent/libnccl.so.2 (SIMDX_NCCL_LIB)"), "{why}");
        assert!(why.contains("libnccl-not-here.so.2 (the library path)"), "{why}");
    }

    #[test]
    fn simdx_nccl_lib_comes_first_and_a_folder_names_the_library_in_it() {
        // Only this test sets the variable; `candidates` reads it at once.
        // SAFETY: no other test of this crate reads or writes SIMDX_NCCL_LIB.
        unsafe { std::env::set_var("SIMDX_NCCL_LIB", "/") };
        let places = candidates();
        unsafe { std::env::remove_var("SIMDX_NCCL_LIB") };
        assert_eq!(places[0], ("SIMDX_NCCL_LIB".to_string(), PathBuf::from("/libnccl.so.2")));
        assert_eq!(places[1].1, PathBuf::from(LIBRARY));
    }

    /// Two GPUs (where the machine has them): a sum and a gather through NCCL give what the host
    /// computes. Skipped with fewer; `SIMDX_REQUIRE_GPUS=2` makes a skip a failure.
    #[test]
    fn two_gpus_sum_and_gather_through_nccl() {
        let gpus: Vec<Gpu> = match (0..2).map(Gpu::open).collect::<Result<_, _>>() {
            Ok(gpus) => gpus,
            Err(why) => {
                assert!(std::env::var("SIMDX_REQUIRE_GPUS").is_err(), "SIMDX_REQUIRE_GPUS is set but: {why}");
                eprintln!("skipped: two GPUs are needed ({why})");
                return;
            }
        };
        let mut comms = Communicators::new(&gpus).expect("NCCL communicators");
        let words = 1 << 20;
        let mut sums: Vec<CudaSlice<u64>> = gpus
            .iter()
            .enumerate()
            .map(|(r, g)| {
                g.stream.clone_htod(&(0..words as u64).map(|i| i * (r as u64 + 1)).collect::<Vec<_>>()).unwrap()
            })
            .collect();
        comms.all_reduce_sum(&gpus, &mut sums).expect("all-reduce");
        let sends: Vec<CudaSlice<u32>> =
            gpus.iter().enumerate().map(|(r, g)| g.stream.clone_htod(&vec![r as u32 + 7; 1000]).unwrap()).collect();
        let mut gathered: Vec<CudaSlice<u32>> =
            gpus.iter().map(|g| g.stream.alloc_zeros::<u32>(2000).unwrap()).collect();
        comms.all_gather(&gpus, &sends, &mut gathered).expect("all-gather");
        for (r, g) in gpus.iter().enumerate() {
            let sum = g.stream.clone_dtoh(&sums[r]).unwrap();
            assert!(sum.iter().enumerate().all(|(i, &x)| x == 3 * i as u64), "rank {r}'s sum");
            let all = g.stream.clone_dtoh(&gathered[r]).unwrap();
            assert!(all[..1000].iter().all(|&x| x == 7) && all[1000..].iter().all(|&x| x == 8), "rank {r}'s gather");
        }
        let nccl = nccl().unwrap();
        eprintln!("NCCL {} from {}", nccl.version(), nccl.path().display());
    }
}
