//! A team of threads that stays awake between the fused rounds of a run (module `fused`), as an
//! OpenMP team does between the buckets of GAP's delta-stepping. A rayon region per round lets the
//! pool's workers fall asleep while the calling thread moves the frontier between rounds, and waking
//! them costs the next round: on 16 threads a short round through rayon takes well over its work's
//! time, on a team that stays awake about that time (measurements: `docs/experiments/cpu-sssp.md`,
//! "Known gaps on the Xeon").
//!
//! Between rounds a member waits [`SPIN`] yielding its core (not spinning on it: a spinning team
//! made SSSP on the grid much slower on a host whose cores other processes also used), then
//! sleeps until the next round. A round does not wait for members that were not there to join it:
//! the calling thread closes the round when its own share is done, and members that arrive later sit
//! it out. So a round's job must let any subset of the members do the work (the fused rounds take
//! batches from a shared counter). What runs between two rounds should not wake rayon's workers
//! beside the team, so the rounds' repair runs on the team too.
//!
//! A run's team has no more threads than the process has cores (`threads::round_workers`): a round
//! waits for every member that joined it, and a member without a core holds the round up. The calling
//! thread waits for them spinning, but yields its core now and then.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a member waits for the next round, yielding its core, before it sleeps.
const SPIN: Duration = Duration::from_micros(200);

/// Spins of the calling thread, waiting for the members that joined a round to finish it, between
/// two yields of its core.
const WAIT_SPINS_PER_YIELD: u32 = 256;

/// The gate's bit that says the current round is closed: no member joins it any more.
const CLOSED: u64 = 1 << 31;
/// The gate's bits that count the members that joined the current round.
const JOINED: u64 = CLOSED - 1;

/// What a round runs: called with the index of each thread that joins it (0: the calling thread).
type Job = dyn Fn(usize) + Sync;

/// A round's job with its lifetime erased; [`Team::run`] keeps it alive while members can call it.
#[derive(Clone, Copy)]
struct JobPtr(*const Job);

// SAFETY: the pointee is `Sync`, so calling it from another thread is sound; `Team::run` keeps it
// alive for as long as any member may call it.
unsafe impl Send for JobPtr {}

/// What the calling thread and the members share.
struct Shared {
    /// The current round's number (high 32 bits), whether it is closed ([`CLOSED`]) and how many
    /// members joined it ([`JOINED`]). A member joins with a compare-and-swap that checks the number
    /// and the closed bit, so it joins only the round it saw open, and at most once.
    gate: AtomicU64,
    /// The current round's job (`None` between rounds).
    job: Mutex<Option<JobPtr>>,
    /// Members that joined the current round and are done with it.
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
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The round number in a gate value.
fn round_of(gate: u64) -> u64 {
    gate >> 32
}

impl Team {
    /// A team of `size` threads in all: the calling thread and `size - 1` members.
    pub(crate) fn new(size: usize) -> Self {
        let shared = Arc::new(Shared {
            gate: AtomicU64::new(CLOSED),
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

    /// The ids of the member threads.
    #[cfg(test)]
    pub(crate) fn member_ids(&self) -> Vec<std::thread::ThreadId> {
        self.members.iter().map(|m| m.thread().id()).collect()
    }

    /// Runs `job(i)` as [`Team::run`] does, for the threads that join with `i < count`, and returns
    /// what each returned (in no particular order).
    pub(crate) fn collect<T: Send>(&self, count: usize, job: impl Fn(usize) -> T + Sync) -> Vec<T> {
        let results: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
        self.run(&|i| {
            if let Some(slot) = results.get(i) {
                *lock(slot) = Some(job(i));
            }
        });
        results
            .into_iter()
            .filter_map(|slot| slot.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner()))
            .collect()
    }

    /// Runs `job(0)` on the calling thread and `job(i)` on each member `i` (in `1..self.size()`) that
    /// joins the round before `job(0)` returns; returns once every call has. A panic in any call is
    /// resumed here.
    pub(crate) fn run(&self, job: &(dyn Fn(usize) + Sync + '_)) {
        let shared = &*self.shared;
        // SAFETY: only the lifetime is erased. A member calls the pointer only after it joined the
        // round and before it counts itself finished; this function closes the round, then does not
        // return (nor unwind) before every member that joined counted itself finished, and clears the
        // pointer before returning, so `job` outlives every call.
        let erased: *const Job = unsafe { std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const Job>(job) };
        *lock(&shared.job) = Some(JobPtr(erased));
        shared.finished.store(0, Ordering::Release);
        // 1 to u32::MAX, then 1 again: never 0, the number a member starts from.
        let round = round_of(shared.gate.load(Ordering::Relaxed)) % u64::from(u32::MAX) + 1;
        // SeqCst here and in a member going to sleep: either the load below sees the sleeper, or the
        // sleeper sees the new round before it waits.
        shared.gate.store(round << 32, Ordering::SeqCst);
        if shared.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = lock(&shared.sleep);
            shared.wake.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| job(0)));
        let joined = (shared.gate.fetch_or(CLOSED, Ordering::AcqRel) & JOINED) as usize;
        let mut spins = 0u32;
        while shared.finished.load(Ordering::Acquire) < joined {
            // A member that joined may have lost its core: after a while, offer this one.
            spins = spins.wrapping_add(1);
            if spins % WAIT_SPINS_PER_YIELD == 0 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
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

/// Joins the round numbered `round` if it is still open; whether it did.
fn join(shared: &Shared, round: u64) -> bool {
    let mut gate = shared.gate.load(Ordering::Acquire);
    loop {
        if round_of(gate) != round || gate & CLOSED != 0 {
            return false;
        }
        match shared.gate.compare_exchange_weak(gate, gate + 1, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return true,
            Err(now) => gate = now,
        }
    }
}

/// A member's life: wait for a round, join it if still open and run its job with `index`, count
/// itself finished; until stopped.
fn member(shared: &Shared, index: usize) {
    // Round 0 is the closed gate the team starts with: a member that starts after the first round
    // began still joins it.
    let mut seen = 0;
    loop {
        let waiting = Instant::now();
        loop {
            if shared.stop.load(Ordering::Acquire) {
                return;
            }
            let round = round_of(shared.gate.load(Ordering::Acquire));
            if round != seen {
                seen = round;
                break;
            }
            if waiting.elapsed() < SPIN {
                std::thread::yield_now();
                continue;
            }
            let guard = lock(&shared.sleep);
            shared.sleepers.fetch_add(1, Ordering::SeqCst);
            // Checked again after counting itself asleep, under the lock the calling thread notifies
            // under: no wake-up is lost. The timeout only bounds the wait should one be.
            if round_of(shared.gate.load(Ordering::SeqCst)) == seen && !shared.stop.load(Ordering::Acquire) {
                let _ = shared.wake.wait_timeout(guard, Duration::from_millis(5));
            }
            shared.sleepers.fetch_sub(1, Ordering::AcqRel);
        }
        if !join(shared, seen) {
            continue;
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

    /// Runs `job` on `team` in a round whose calling thread first waits (a few seconds at most)
    /// until every member joined.
    fn run_all(team: &Team, job: &(dyn Fn(usize) + Sync)) {
        let arrived = AtomicUsize::new(0);
        team.run(&|i| {
            arrived.fetch_add(1, Ordering::AcqRel);
            if i == 0 {
                let deadline = Instant::now() + Duration::from_secs(10);
                while arrived.load(Ordering::Acquire) < team.size() && Instant::now() < deadline {
                    std::thread::yield_now();
                }
            }
            job(i);
        });
    }

    #[test]
    fn members_join_rounds_that_wait_for_them_even_after_sleeping() {
        let team = Team::new(4);
        assert_eq!(team.size(), 4);
        let calls: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
        for round in 0..300u64 {
            run_all(&team, &|i| {
                calls[i].fetch_add(round + 1, Ordering::Relaxed);
            });
            if round == 150 {
                // A pause past the spin: members sleep, and the next round must wake them.
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let expected = (1..=300u64).sum::<u64>();
        assert!(calls.iter().all(|c| c.load(Ordering::Relaxed) == expected));
    }

    #[test]
    fn a_round_runs_on_the_caller_once_and_on_each_member_at_most_once() {
        // Items taken from a shared counter, as the fused rounds take batches: each is done exactly
        // once, however many members join.
        let team = Team::new(4);
        for _ in 0..2000 {
            let next = AtomicUsize::new(0);
            let done: Vec<AtomicUsize> = (0..64).map(|_| AtomicUsize::new(0)).collect();
            let calls: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
            team.run(&|i| {
                calls[i].fetch_add(1, Ordering::Relaxed);
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = done.get(k) else { break };
                    item.fetch_add(1, Ordering::Relaxed);
                }
            });
            assert!(done.iter().all(|d| d.load(Ordering::Relaxed) == 1));
            assert_eq!(calls[0].load(Ordering::Relaxed), 1);
            assert!(calls.iter().all(|c| c.load(Ordering::Relaxed) <= 1));
        }
    }

    #[test]
    fn a_members_panic_reaches_the_caller_and_the_team_goes_on() {
        let team = Team::new(3);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            run_all(&team, &|i| {
                if i == 2 {
                    panic!("member 2 fails");
                }
            })
        }));
        assert!(caught.is_err());
        let ran = AtomicUsize::new(0);
        run_all(&team, &|_| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn collect_returns_what_each_thread_that_joined_below_count_returned() {
        let team = Team::new(4);
        for _ in 0..500 {
            let mut got = team.collect(2, |i| i);
            got.sort_unstable();
            assert!(got == [0] || got == [0, 1], "{got:?}");
        }
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
