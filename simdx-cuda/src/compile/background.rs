//! Units compiled on threads of their own while runs go on without them. A run under selective fusion
//! can take every step with one launch per phase; the persistent kernels (fused and asynchronous) only
//! make it faster, and they are the slowest units to compile. So a program's first run on a cold cache
//! waits for its step kernels alone and starts the persistent ones here; a later run finds them in the
//! cache and fuses. Runs that ask for a persistent kernel by name (fusion `all`, `push-pull`, `async`)
//! wait for it, and every compile of a unit waits while that unit is being compiled here, so no unit is
//! compiled twice at once.
//!
//! Deferring is on unless `SIMDX_DEFER_COMPILE=0` or [`defer_persistent_kernels`] turns it off (for runs
//! that must take the same path every time: tests, benchmarks). A short-lived process calls
//! [`finish_background_compiles`] before it exits, so that the cache holds the units for the next one.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

use cudarc::driver::CudaContext;

/// The units being compiled here, by device ordinal and source key, and the signal that some finished.
struct Pending {
    keys: Mutex<HashSet<(usize, u64)>>,
    finished: Condvar,
}

fn pending() -> &'static Pending {
    static PENDING: OnceLock<Pending> = OnceLock::new();
    PENDING.get_or_init(|| Pending { keys: Mutex::new(HashSet::new()), finished: Condvar::new() })
}

/// Whether runs may start before their persistent kernels are compiled: 0 not yet decided (the
/// environment decides), 1 yes, 2 no.
static DEFER: AtomicU8 = AtomicU8::new(0);

/// Lets runs under selective fusion start before their persistent kernels are compiled (`true`, the
/// default), or makes every run wait for all of its program's kernels (`false`), in this process.
pub fn defer_persistent_kernels(on: bool) {
    DEFER.store(if on { 1 } else { 2 }, Ordering::Relaxed);
}

/// Whether runs may start before their persistent kernels are compiled.
pub(crate) fn deferring() -> bool {
    match DEFER.load(Ordering::Relaxed) {
        0 => std::env::var("SIMDX_DEFER_COMPILE").map_or(true, |v| v != "0"),
        on => on == 1,
    }
}

/// Waits until no unit is being compiled in the background, so that the cache on disk holds them all.
pub fn finish_background_compiles() {
    let pending = pending();
    let mut keys = pending.keys.lock().expect("pending lock");
    while !keys.is_empty() {
        keys = pending.finished.wait(keys).expect("pending lock");
    }
}

/// Waits until none of `keys` (on device `ordinal`) is being compiled in the background.
pub(super) fn wait_for(ordinal: usize, keys: &[u64]) {
    let pending = pending();
    let mut set = pending.keys.lock().expect("pending lock");
    while keys.iter().any(|key| set.contains(&(ordinal, *key))) {
        set = pending.finished.wait(set).expect("pending lock");
    }
}

/// Whether `key` (on device `ordinal`) is being compiled in the background.
pub(super) fn is_pending(ordinal: usize, key: u64) -> bool {
    pending().keys.lock().expect("pending lock").contains(&(ordinal, key))
}

/// Compiles and loads `sources` (keyed `keys`, compiled with `defines`) on a thread of its own, each
/// into the caches; sources already being compiled are left to the thread that compiles them. A
/// failure is only reported under `SIMDX_TRACE_COMPILE`: a run that needs the unit compiles it again
/// and gets the error itself.
pub(super) fn start(ctx: &Arc<CudaContext>, arch: &str, sources: &[String], defines: Vec<String>, keys: &[u64]) {
    let ordinal = ctx.ordinal();
    let (sources, keys): (Vec<String>, Vec<u64>) = {
        let mut set = pending().keys.lock().expect("pending lock");
        sources.iter().zip(keys).filter(|(_, key)| set.insert((ordinal, **key))).map(|(s, k)| (s.clone(), *k)).unzip()
    };
    if sources.is_empty() {
        return;
    }
    let (ctx, arch) = (ctx.clone(), arch.to_string());
    std::thread::spawn(move || {
        let _unmark = Unmark { ordinal, keys: keys.clone() };
        let refs: Vec<&str> = sources.iter().map(String::as_str).collect();
        let result = super::load_or_compile(&ctx, &arch, &defines, &keys, &refs);
        if let (Err(e), Some(_)) = (result, std::env::var_os("SIMDX_TRACE_COMPILE")) {
            eprintln!("simdx: a unit compiled in the background failed: {e}");
        }
    });
}

/// Takes its keys off the pending set when dropped, even by a panic, and wakes those waiting.
struct Unmark {
    ordinal: usize,
    keys: Vec<u64>,
}

impl Drop for Unmark {
    fn drop(&mut self) {
        let pending = pending();
        let mut set = pending.keys.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for key in &self.keys {
            set.remove(&(self.ordinal, *key));
        }
        pending.finished.notify_all();
    }
}
