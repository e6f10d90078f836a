//! A team of threads that stays awake between the fused rounds of a run (module `fused`), as an
//! OpenMP team does between the buckets of GAP's delta-stepping. A rayon region per round lets the
//! pool's workers fall asleep while the calling thread moves the frontier between rounds, and waking
//! them costs the next round: on the Xeon's 16 threads a round of 50 µs of work took 86-100 µs through
//! rayon after 100-200 µs between rounds, 52 µs with members spinning (BENCHMARKS.md, "The fused
//! rounds' team"). Members spin for [`SPIN`] after a round, then sleep until the next. What runs
//! between two rounds should not wake rayon's workers beside a spinning team (16 cores held 31 busy
//! threads: SSSP on the grid took 1.8x as long), so the rounds' repair runs on the team too.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a member waits for the next round spinning before it sleeps.
const SPIN: Duration = Duration::from_micros(200);

/// What a round runs: called once with each member's index.
type Job = dyn Fn(usize) + Sync;

/// A round's job with its lifetime erased; [`Team::run`] keeps it alive while members can call it.
#[derive(Clone, Copy)]
struct JobPtr(*const Job);

// SAFETY: the pointee is `Sync`, so calling it from another thread is sound; `Team::run` keeps it
// alive for as long as any member may call it.
unsafe impl Send for JobPtr {}

/// What the calling thread and the members share.
struct Shared {
    /// The number of the current round; a member runs each round once.
    round: AtomicUsize,
    /// The current round's job (`None` between rounds).
    job: Mutex<Option<JobPtr>>,
    /// Members done with the current round.
    finished: AtomicUsize,
    /// Members asleep, waiting on `wake`.
    sleepers: AtomicUsize,
    /// Set when the team is dropped.
    stop: AtomicBool,
    sleep: Mutex<()>,
    wake: Condvar,
    /// The first panic of a member in the current round.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// Threads that run a job together with the calling thread, round after round.
pub(crate) struct Team {
    shared: Arc<Shared>,
    members: Vec<JoinHandle<()>>,
}

/// Locks `mutex`, whether or not a panicking thread held it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Team {
    /// A team of `size` threads in all: the calling thread and `size - 1` members.
    pub(crate) fn new(size: usize) -> Self {
        let shared = Arc::new(Shared {
            round: AtomicUsize::new(0),
            job: Mutex::new(None),
            finished: AtomicUsize::new(0),
            sleepers: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
            panic: Mutex::new(None),
        });
        let members = (1..size.max(1))
            .map(|index| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || member(&shared, index))
            })
            .collect();
        Team { shared, members }
    }

    /// The threads of the team, the calling thread included.
    pub(crate) fn size(&self) -> usize {
        self.members.len() + 1
    }

    /// Runs `job(i)` for every `i` in `0..self.size()`, `job(0)` on the calling thread, and returns once
    /// every call has; a panic in any call is resumed here.
    pub(crate) fn run(&self, job: &(dyn Fn(usize) + Sync + '_)) {
        let shared = &*self.shared;
        // SAFETY: only the lifetime is erased. Members call the pointer after they see this round's
        // number and before they count themselves finished; this function does not return (nor unwind)
        // before every member counted itself finished, and clears the pointer before returning, so
        // `job` outlives every call.
        let erased: *const Job = unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const Job>(job) };
        *lock(&shared.job) = Some(JobPtr(erased));
        shared.finished.store(0, Ordering::Release);
        // SeqCst here and in a member going to sleep: either this load sees the sleeper, or the sleeper
        // sees the new round before it waits.
        shared.round.fetch_add(1, Ordering::SeqCst);
        if shared.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = lock(&shared.sleep);
            shared.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| job(0)));
        while shared.finished.load(Ordering::Acquire) < self.members.len() {
            std::hint::spin_loop();
        }
        *lock(&shared.job) = None;
        if let Err(payload) = mine {
            resume_unwind(payload);
        }
        if let Some(payload) = lock(&shared.panic).take() {
            resume_unwind(payload);
        }
    }
}

impl Drop for Team {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        {
            let _guard = lock(&self.shared.sleep);
            self.shared.wake.notify_all();
        }
        for member in self.members.drain(..) {
            let _ = member.join();
        }
    }
}

/// A member's life: wait for a round, run its job with `index`, count itself finished; until stopped.
fn member(shared: &Shared, index: usize) {
    let mut seen = 0;
    loop {
        let waiting = Instant::now();
        loop {
            if shared.stop.load(Ordering::Acquire) {
                return;
            }
            let round = shared.round.load(Ordering::Acquire);
            if round != seen {
                seen = round;
                break;
            }
            if waiting.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            let guard = lock(&shared.sleep);
            shared.sleepers.fetch_add(1, Ordering::SeqCst);
            // Checked again after counting itself asleep, under the lock the calling thread notifies
            // under: no wake-up is lost. The timeout only bounds the wait should one be.
            if shared.round.load(Ordering::SeqCst) == seen && !shared.stop.load(Ordering::Acquire) {
                let _ = shared.wake.wait_timeout(guard, Duration::from_millis(5));
            }
            shared.sleepers.fetch_sub(1, Ordering::AcqRel);
        }
        let job = *lock(&shared.job);
        if let Some(JobPtr(job)) = job {
            // SAFETY: see `Team::run`: the job lives until this member counts itself finished below.
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(index) })) {
                lock(&shared.panic).get_or_insert(payload);
            }
        }
        shared.finished.fetch_add(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn every_member_runs_every_round_once() {
        let team = Team::new(4);
        assert_eq!(team.size(), 4);
        let calls: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
        for round in 0..1000u64 {
            team.run(&|i| {
                calls[i].fetch_add(round + 1, Ordering::Relaxed);
            });
            if round == 500 {
                // A pause past the spin: members sleep, and the next round must wake them.
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let expected = (1..=1000u64).sum::<u64>();
        assert!(calls.iter().all(|c| c.load(Ordering::Relaxed) == expected));
    }

    #[test]
    fn a_members_panic_reaches_the_caller_and_the_team_goes_on() {
        let team = Team::new(3);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            team.run(&|i| {
                if i == 2 {
                    panic!("member 2 fails");
                }
            })
        }));
        assert!(caught.is_err());
        let ran = AtomicUsize::new(0);
        team.run(&|_| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn a_team_of_one_is_the_calling_thread() {
        let team = Team::new(1);
        let ran = AtomicUsize::new(0);
        team.run(&|i| {
            assert_eq!(i, 0);
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 1);
    }
}
