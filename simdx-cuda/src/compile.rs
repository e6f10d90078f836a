//! Kernel compilation: generated source -> NVRTC for the device's own `sm_XY` -> CUBIN (not PTX, so a
//! newer NVRTC never meets an older driver) -> module. CUBINs are cached in memory and on disk under
//! the user's cache directory, keyed by a hash of the source, the architecture and NVRTC's version;
//! a file is written under a unique name and renamed into place, so racing processes are safe.
//!
//! For tuning on a device without a rebuild, `SIMDX_NVRTC_DEFINES` (e.g. `"SX_Q_CHAIN=8"`, several
//! separated by spaces) passes `-D` options to NVRTC: the kernels' tuning constants that are guarded by
//! `#ifndef` take those values instead of their defaults (part of the cache key, like the source);
//! `SIMDX_NVRTC_OPTIONS` passes other NVRTC options as they are (e.g. `-split-compile=0`), and
//! `SIMDX_TRACE_COMPILE=1` prints how long each unit NVRTC compiled took.
//!
//! A program's kernels are several units compiled on threads of their own at once; the persistent
//! kernels' units can be left to compile in the background while runs go on without them (module
//! `background`). Cold-cache times are in docs/experiments/compile.md; `CUDA_CACHE_DISABLE=1` matters
//! when measuring them, since the driver's cache under `~/.nv` also answers for NVRTC's code.

use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaContext, CudaModule};
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys, Ptx};

use crate::error::{driver, CudaError};

mod background;
pub(crate) use background::deferring;
pub use background::{defer_persistent_kernels, finish_background_compiles};

/// Options every kernel is compiled with: no fused multiply-add, so that device arithmetic rounds as
/// the CPU's does, and IEEE division and square root.
const NVRTC_OPTIONS: &[&str] = &["--fmad=false", "--prec-div=true", "--prec-sqrt=true", "-std=c++17"];

/// Where compiled kernels come from, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheHit {
    /// Compiled by NVRTC in this call.
    Compiled,
    /// Read from the on-disk cache.
    Disk,
    /// Already loaded in this process.
    Memory,
}

/// Loaded modules by device ordinal and source key.
type Modules = HashMap<(usize, u64), Arc<CudaModule>>;

/// Modules loaded in this process: a module belongs to the context of the device it was loaded on,
/// so each GPU of a multi-GPU run loads its own.
fn memory_cache() -> &'static Mutex<Modules> {
    static CACHE: OnceLock<Mutex<Modules>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// NVRTC's version as `(major, minor)`.
fn nvrtc_version() -> (i32, i32) {
    let (mut major, mut minor) = (0, 0);
    // SAFETY: nvrtcVersion writes two ints through valid pointers.
    unsafe { nvrtc_sys::nvrtcVersion(&mut major, &mut minor) };
    (major, minor)
}

/// The cache directory: `$SIMDX_CACHE_DIR`, else `$XDG_CACHE_HOME/simdx`, else `~/.cache/simdx`.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("SIMDX_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("simdx"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("simdx"))
}

/// The module for `source`, loaded in `ctx` (a device of architecture `arch`, e.g. `sm_90`), from the
/// memory cache, the disk cache or NVRTC.
pub fn module(ctx: &Arc<CudaContext>, arch: &str, source: &str) -> Result<(Arc<CudaModule>, CacheHit), CudaError> {
    let (mut modules, hit) = modules(ctx, arch, &[source])?;
    Ok((modules.remove(0), hit))
}

/// The modules for `sources`, in their order, loaded in `ctx`: each from the memory cache, the disk
/// cache or NVRTC, the ones NVRTC compiles each on a thread of its own, all at once (a program's
/// kernels are split into several units so that a cold cache costs the slowest unit rather than the
/// sum); a unit being compiled in the background is waited for. The hit is the slowest source's:
/// [`CacheHit::Compiled`] if any was compiled.
pub fn modules(
    ctx: &Arc<CudaContext>,
    arch: &str,
    sources: &[&str],
) -> Result<(Vec<Arc<CudaModule>>, CacheHit), CudaError> {
    let defines = tuning_defines();
    let keys: Vec<u64> = sources.iter().map(|source| cache_key(arch, &defines, source)).collect();
    background::wait_for(ctx.ordinal(), &keys);
    load_or_compile(ctx, arch, &defines, &keys, sources)
}

/// The modules for `sources` if every one is in the memory or the disk cache; otherwise `None`, having
/// started the missing ones compiling in the background (see [`background`]).
pub fn modules_if_cached(
    ctx: &Arc<CudaContext>,
    arch: &str,
    sources: &[String],
) -> Result<Option<Vec<Arc<CudaModule>>>, CudaError> {
    let defines = tuning_defines();
    let keys: Vec<u64> = sources.iter().map(|source| cache_key(arch, &defines, source)).collect();
    let cached = |key: &u64| {
        let in_memory = memory_cache().lock().expect("cache lock").contains_key(&(ctx.ordinal(), *key));
        let on_disk = || {
            cache_dir().is_some_and(|d| {
                std::fs::metadata(d.join(format!("{key:016x}.{arch}.cubin"))).is_ok_and(|m| m.len() > 0)
            })
        };
        !background::is_pending(ctx.ordinal(), *key) && (in_memory || on_disk())
    };
    if keys.iter().all(cached) {
        let refs: Vec<&str> = sources.iter().map(String::as_str).collect();
        return load_or_compile(ctx, arch, &defines, &keys, &refs).map(|(modules, _)| Some(modules));
    }
    background::start(ctx, arch, sources, defines, &keys);
    Ok(None)
}

/// The modules for `sources` (keyed `keys`, compiled with `defines`), as [`modules`] gives them.
fn load_or_compile(
    ctx: &Arc<CudaContext>,
    arch: &str,
    defines: &[String],
    keys: &[u64],
    sources: &[&str],
) -> Result<(Vec<Arc<CudaModule>>, CacheHit), CudaError> {
    let paths: Vec<Option<PathBuf>> =
        keys.iter().map(|key| cache_dir().map(|d| d.join(format!("{key:016x}.{arch}.cubin")))).collect();
    let loaded: Vec<Option<Arc<CudaModule>>> = {
        let cache = memory_cache().lock().expect("cache lock");
        keys.iter().map(|key| cache.get(&(ctx.ordinal(), *key)).cloned()).collect()
    };
    let stored: Vec<Option<Vec<u8>>> = (0..sources.len())
        .map(|i| match (&loaded[i], &paths[i]) {
            (None, Some(p)) => std::fs::read(p).ok().filter(|bytes| !bytes.is_empty()),
            _ => None,
        })
        .collect();
    let compiled = compile_missing(sources, arch, defines, &loaded, &stored)?;
    let mut hit = CacheHit::Memory;
    let mut out = Vec::with_capacity(sources.len());
    for (i, fresh) in compiled.into_iter().enumerate() {
        if let Some(module) = &loaded[i] {
            out.push(module.clone());
            continue;
        }
        let cubin = match (fresh, &stored[i]) {
            (Some(bytes), _) => {
                if let Some(p) = &paths[i] {
                    store(p, &bytes);
                }
                hit = CacheHit::Compiled;
                bytes
            }
            (None, Some(bytes)) => {
                if hit == CacheHit::Memory {
                    hit = CacheHit::Disk;
                }
                bytes.clone()
            }
            (None, None) => unreachable!("compile_missing compiles every source found in no cache"),
        };
        let module = ctx.load_module(Ptx::from_binary(cubin)).map_err(driver("loading the compiled kernels"))?;
        memory_cache().lock().expect("cache lock").insert((ctx.ordinal(), keys[i]), module.clone());
        out.push(module);
    }
    Ok((out, hit))
}

/// A CUBIN NVRTC made and the seconds it took, or why it could not.
type Compiled = Result<(Vec<u8>, f64), CudaError>;

/// The cache key of `source` compiled for `arch` with the extra `defines` by this NVRTC.
fn cache_key(arch: &str, defines: &[String], source: &str) -> u64 {
    let version = nvrtc_version();
    xxhash_rust::xxh3::xxh3_64(format!("{arch}\0{version:?}\0{NVRTC_OPTIONS:?}\0{defines:?}\0{source}").as_bytes())
}

/// Compiles, all at once on threads of their own, the sources found in neither cache; `Some(cubin)`
/// for those, `None` for the others. The first failure (in the sources' order) is the error.
fn compile_missing(
    sources: &[&str],
    arch: &str,
    defines: &[String],
    loaded: &[Option<Arc<CudaModule>>],
    stored: &[Option<Vec<u8>>],
) -> Result<Vec<Option<Vec<u8>>>, CudaError> {
    let started = std::time::Instant::now();
    let results: Vec<Option<Compiled>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..sources.len())
            .map(|i| {
                let missing = loaded[i].is_none() && stored[i].is_none();
                missing.then(|| {
                    scope.spawn(move || {
                        let t = std::time::Instant::now();
                        compile_cubin(sources[i], arch, defines).map(|c| (c, t.elapsed().as_secs_f64()))
                    })
                })
            })
            .collect();
        handles.into_iter().map(|h| h.map(|h| h.join().expect("an NVRTC thread panicked"))).collect()
    });
    let trace = std::env::var_os("SIMDX_TRACE_COMPILE").is_some();
    let mut out = Vec::with_capacity(results.len());
    for (i, result) in results.into_iter().enumerate() {
        match result {
            None => out.push(None),
            Some(Ok((cubin, seconds))) => {
                if trace {
                    eprintln!("simdx: compiled unit {i} of {} in {seconds:.3} s", sources.len());
                }
                out.push(Some(cubin));
            }
            Some(Err(e)) => return Err(e),
        }
    }
    if trace && out.iter().any(Option::is_some) {
        eprintln!("simdx: compiled {} units in {:.3} s", out.iter().flatten().count(), started.elapsed().as_secs_f64());
    }
    Ok(out)
}

/// Writes `bytes` to `path` atomically (through a temporary file of its own per process and call, as
/// the threads of several GPUs may store the same module at once); a failure only costs a
/// recompilation later.
fn store(path: &std::path::Path, bytes: &[u8]) {
    static STORES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let call = STORES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{}.{call}.tmp", std::process::id()));
    if std::fs::write(&tmp, bytes).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// The `-D` options that `SIMDX_NVRTC_DEFINES` asks for, then the options of `SIMDX_NVRTC_OPTIONS`
/// (none when they are unset or empty).
fn tuning_defines() -> Vec<String> {
    let listed = |name: &str| std::env::var(name).unwrap_or_default();
    let defines = listed("SIMDX_NVRTC_DEFINES");
    let options = listed("SIMDX_NVRTC_OPTIONS");
    let defines = defines.split_whitespace().map(|d| format!("-D{d}"));
    defines.chain(options.split_whitespace().map(str::to_string)).collect()
}

/// Compiles `source` to a CUBIN for `arch` with NVRTC and the extra `defines`; on failure returns the
/// log and keeps the source in a file for inspection.
fn compile_cubin(source: &str, arch: &str, defines: &[String]) -> Result<Vec<u8>, CudaError> {
    let src = CString::new(source).map_err(|_| CudaError::Compile {
        log: "the generated source contains a NUL byte".into(),
        source_path: String::new(),
    })?;
    let name = CString::new("simdx_kernels.cu").expect("no NUL");
    let prog = nvrtc::create_program(&src, Some(&name)).map_err(|e| CudaError::Compile {
        log: format!("nvrtcCreateProgram failed: {e:?}"),
        source_path: String::new(),
    })?;
    let mut options: Vec<String> = NVRTC_OPTIONS.iter().map(|s| s.to_string()).collect();
    options.push(format!("--gpu-architecture={arch}"));
    options.extend(defines.iter().cloned());
    // SAFETY: `prog` is a live program; the options are valid strings.
    let compiled = unsafe { nvrtc::compile_program(prog, &options) };
    let result = match compiled {
        Ok(()) => cubin_of(prog),
        Err(e) => {
            // SAFETY: `prog` is live; the log is a NUL-terminated buffer NVRTC filled.
            let log = unsafe { nvrtc::get_program_log(prog) }
                .map(|raw| unsafe { CStr::from_ptr(raw.as_ptr() as *const c_char) }.to_string_lossy().into_owned())
                .unwrap_or_else(|_| format!("{e:?}"));
            let path = std::env::temp_dir().join(format!("simdx-failed-{}.cu", std::process::id()));
            let _ = std::fs::write(&path, source);
            Err(CudaError::Compile { log, source_path: path.display().to_string() })
        }
    };
    // SAFETY: `prog` is destroyed once, after its last use.
    let _ = unsafe { nvrtc::destroy_program(prog) };
    result
}

fn cubin_of(prog: nvrtc_sys::nvrtcProgram) -> Result<Vec<u8>, CudaError> {
    let mut size = 0usize;
    let fail = |what: &str| CudaError::Compile { log: format!("{what} failed"), source_path: String::new() };
    // SAFETY: `prog` compiled successfully; NVRTC writes the size through a valid pointer.
    if unsafe { nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size) } != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcGetCUBINSize"));
    }
    let mut bytes = vec![0u8; size];
    // SAFETY: `bytes` has exactly the size NVRTC reported.
    if unsafe { nvrtc_sys::nvrtcGetCUBIN(prog, bytes.as_mut_ptr() as *mut c_char) }
        != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS
    {
        return Err(fail("nvrtcGetCUBIN"));
    }
    Ok(bytes)
}
