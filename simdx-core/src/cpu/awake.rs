//! [`Awake`]: keeps the other threads of an engine's own pool looking for work through a run, as an
//! OpenMP team spins between parallel regions. A rayon worker that finds no job sleeps after about
//! 33 yields (tens of microseconds), and the next parallel loop wakes it again: a BFS run starts some
//! 25 loops, and on the Xeon's virtual machine each wake-up costs the loop part of its threads for a
//! while, more when other guests keep the host busy. So every other worker spins on
//! [`rayon::yield_now`], which runs any job it finds: BFS on 16 threads then runs faster and varies
//! less between calls (measurements: `docs/experiments/cpu-engine.md`, "An engine's own pool spins
//! between loops through a run").
//!
//! Only for a pool no other code shares. A spinner is a job that returns only when the run ends (or
//! after [`IDLE_LIMIT`] without work): picked up by a thread that is waiting inside another job for
//! that job's other half, it would hold that job until the run ends. So the spinners start before the
//! run's first loop, and one that starts later (its thread was busy with someone else's work past
//! [`START_WAIT`]) returns at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a run waits for its spinners to start before going on without the late ones.
const START_WAIT: Duration = Duration::from_millis(2);
/// A spinner that found no job for this long returns: its thread sleeps as rayon's do (a long serial
/// stretch of the run, or more threads than cores, is not worth a core).
const IDLE_LIMIT: Duration = Duration::from_millis(2);
/// Rounds without a job between two looks at the clock (and two yields to the OS).
const ROUNDS_PER_YIELD: u32 = 64;
/// Set in [`Shared::started`] once the run stopped waiting: a spinner that finds it set returns.
const CLOSED: usize = 1 << (usize::BITS - 1);

/// While alive, every other thread of the current pool spins on the pool's jobs; dropping it stops them.
pub(crate) struct Awake<'a> {
    shared: Arc<Shared>,
    /// The pool's "a run keeps it awake" flag, cleared on drop.
    busy: &'a AtomicBool,
}

/// What the run and its spinners share.
struct Shared {
    stop: AtomicBool,
    /// Spinners started (plus [`CLOSED`] once the run stopped waiting for more).
    started: AtomicUsize,
}

impl<'a> Awake<'a> {
    /// Starts spinners on the other threads of the current pool, which no other code may share, and
    /// waits (at most [`START_WAIT`]) for them to start. `busy` is the pool's flag: `None` while another
    /// run keeps the pool awake, outside a pool, in a pool of one thread, or in a pool of more threads
    /// than the process has cores (a spinner would hold a core a working thread needs).
    pub(crate) fn start(busy: &'a AtomicBool) -> Option<Awake<'a>> {
        let threads = rayon::current_num_threads();
        let me = rayon::current_thread_index()?;
        if threads < 2 || super::threads::oversubscribed() || busy.swap(true, Ordering::AcqRel) {
            return None;
        }
        let shared = Arc::new(Shared { stop: AtomicBool::new(false), started: AtomicUsize::new(0) });
        let theirs = Arc::clone(&shared);
        rayon::spawn_broadcast(move |context| {
            if context.index() != me {
                theirs.spin();
            }
        });
        let began = Instant::now();
        while shared.started.load(Ordering::Acquire) < threads - 1 && began.elapsed() < START_WAIT {
            std::hint::spin_loop();
        }
        shared.started.fetch_or(CLOSED, Ordering::AcqRel);
        Some(Awake { shared, busy })
    }
}

impl Drop for Awake<'_> {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        self.busy.store(false, Ordering::Release);
    }
}

impl Shared {
    /// Counts a spinner that starts; whether it may spin (the run still waits for spinners).
    fn admit(&self) -> bool {
        self.started.fetch_add(1, Ordering::AcqRel) & CLOSED == 0
    }

    /// One spinner: runs the pool's jobs until the run stops it or none comes for [`IDLE_LIMIT`];
    /// returns at once if the run stopped waiting before it started.
    fn spin(&self) {
        if !self.admit() {
            return;
        }
        let (mut rounds, mut idle_since) = (0u32, Instant::now());
        while !self.stop.load(Ordering::Acquire) {
            if rayon::yield_now() == Some(rayon::Yield::Executed) {
                rounds = 0;
                continue;
            }
            if rounds == 0 {
                idle_since = Instant::now();
            }
            rounds += 1;
            if rounds % ROUNDS_PER_YIELD == 0 {
                if idle_since.elapsed() > IDLE_LIMIT {
                    return;
                }
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn the_other_threads_spin_until_dropped_and_the_pool_still_works() {
        let size = super::super::threads::cores().clamp(2, 3);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(size).build().unwrap();
        let busy = AtomicBool::new(false);
        if size > super::super::threads::cores() {
            assert!(pool.install(|| Awake::start(&busy)).is_none(), "more threads than cores: nothing spins");
            return;
        }
        pool.install(|| {
            let awake = Awake::start(&busy).expect("a pool of two or three threads, no more than the cores");
            assert!(busy.load(Ordering::Acquire));
            assert!(Awake::start(&busy).is_none(), "one run keeps a pool awake at a time");
            let sum: u64 = (0..100_000u64).into_par_iter().map(|x| x % 7).sum();
            assert_eq!(sum, (0..100_000u64).map(|x| x % 7).sum::<u64>());
            drop(awake);
            assert!(!busy.load(Ordering::Acquire));
        });
        // The spinners have returned: the pool runs a loop on every thread again.
        let threads: std::collections::HashSet<usize> =
            pool.install(|| pool.broadcast(|context| context.index()).into_iter().collect());
        assert_eq!(threads.len(), size);
    }

    #[test]
    fn nothing_spins_in_a_pool_of_more_threads_than_cores() {
        let busy = AtomicBool::new(false);
        let many = rayon::ThreadPoolBuilder::new().num_threads(super::super::threads::cores() + 1).build().unwrap();
        assert!(many.install(|| Awake::start(&busy)).is_none());
        assert!(!busy.load(Ordering::Acquire));
    }

    #[test]
    fn nothing_spins_outside_a_pool_or_in_a_pool_of_one() {
        let busy = AtomicBool::new(false);
        assert!(Awake::start(&busy).is_none());
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        assert!(one.install(|| Awake::start(&busy)).is_none());
        assert!(!busy.load(Ordering::Acquire));
    }

    #[test]
    fn spinners_are_admitted_until_the_run_stops_waiting() {
        let shared = Shared { stop: AtomicBool::new(false), started: AtomicUsize::new(0) };
        assert!(shared.admit() && shared.admit());
        shared.started.fetch_or(CLOSED, Ordering::AcqRel);
        assert!(!shared.admit(), "a spinner that starts after the wait returns at once");
        assert_eq!(shared.started.load(Ordering::Acquire), CLOSED + 3);
    }
}
