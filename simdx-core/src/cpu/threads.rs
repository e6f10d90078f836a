//! [`Threads`]: the threads a CPU engine keeps from one run to the next, as an OpenMP program keeps
//! its team: the rayon pool of [`RunOptions::threads`] (none: rayon's global pool) and the team of
//! the fused rounds (module `team`), and the pull steps' slot buffer beside them. Each is made at
//! the first run that needs it. A run that made its own pool and team spent, on the Xeon's 16
//! threads, the start of 31 threads, and its first steps ran on threads whose caches and allocator
//! heaps were new. Through a run the pool's threads also keep looking for work between loops, as
//! an OpenMP team spins (module `awake`).
//!
//! [`RunOptions::threads`]: crate::run::options::RunOptions::threads

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::ThreadPool;

use super::awake::Awake;
use super::team::{lock, Team};
use crate::VertexId;

/// The cores this process may run on (`available_parallelism`, which honours CPU affinity and cgroup
/// quotas), asked once: the standard library reads the cgroup files at every call.
pub(crate) fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Whether the current rayon pool has more threads than the process has cores: then a thread that
/// spins for work holds a core another thread of the run needs, so nothing spins (module `awake`)
/// and the fused rounds run on at most [`cores`] threads ([`round_workers`]) (measurements:
/// `docs/experiments/cpu-engine.md`).
pub(crate) fn oversubscribed() -> bool {
    rayon::current_num_threads() > cores()
}

/// The most threads a fused round (and its team) uses: the pool's, but no more than [`cores`].
pub(crate) fn round_workers() -> usize {
    rayon::current_num_threads().min(cores())
}

/// The pool and the team one engine runs on; shared by the engine's clones.
#[derive(Default)]
pub(crate) struct Threads {
    /// The pool of [`RunOptions::threads`] threads, with that count (made at the first run).
    ///
    /// [`RunOptions::threads`]: crate::run::options::RunOptions::threads
    pool: Mutex<Option<(usize, Arc<ThreadPool>)>>,
    /// A team no run holds now. A run takes it and puts it back when done, so that two runs at once
    /// never share one (the second makes its own).
    team: Mutex<Option<Team>>,
    /// The pull steps' slots (a vertex id per vertex) no run holds now, taken and put back alike: made
    /// anew, their pages' faults cost each run's first pull (measurements: `docs/experiments/cpu-bfs.md`,
    /// "Pulls find their hubs in their blocks; the slots are kept").
    slots: Mutex<Vec<VertexId>>,
    /// Whether a run keeps the pool's threads awake now ([`Awake`]).
    awake: AtomicBool,
}

impl Threads {
    /// The pool of `threads` threads: the one made before, or a new one.
    pub(crate) fn pool(&self, threads: usize) -> Result<Arc<ThreadPool>, rayon::ThreadPoolBuildError> {
        let mut pool = lock(&self.pool);
        match &*pool {
            Some((count, kept)) if *count == threads => Ok(Arc::clone(kept)),
            _ => {
                let made = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build()?);
                *pool = Some((threads, Arc::clone(&made)));
                Ok(made)
            }
        }
    }

    /// Keeps the other threads of the pool of [`Threads::pool`], on which the caller runs, looking for
    /// work until the guard is dropped ([`Awake`]); `None` while another run does.
    pub(crate) fn keep_awake(&self) -> Option<Awake<'_>> {
        Awake::start(&self.awake)
    }

    /// A team of `size` threads for one run: the kept one if it has that size and no other run holds
    /// it, else a new one. Hand it back with [`Threads::keep_team`].
    pub(crate) fn take_team(&self, size: usize) -> Team {
        match lock(&self.team).take() {
            Some(team) if team.size() == size => team,
            _ => Team::new(size),
        }
    }

    /// Keeps `team` for the next run.
    pub(crate) fn keep_team(&self, team: Team) {
        *lock(&self.team) = Some(team);
    }

    /// Slots for `n` vertices (what they hold is arbitrary): the kept ones if long enough and no
    /// other run holds them, else new ones. Hand them back with [`Threads::keep_slots`].
    pub(crate) fn take_slots(&self, n: usize) -> Vec<VertexId> {
        let kept = std::mem::take(&mut *lock(&self.slots));
        if kept.len() >= n {
            kept
        } else {
            super::record::filled(n, 0)
        }
    }

    /// Keeps `slots` for the next run (unless they are empty).
    pub(crate) fn keep_slots(&self, slots: Vec<VertexId>) {
        if !slots.is_empty() {
            *lock(&self.slots) = slots;
        }
    }
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pool = lock(&self.pool).as_ref().map(|(count, _)| *count);
        let team = lock(&self.team).as_ref().map(Team::size);
        f.debug_struct("Threads").field("pool", &pool).field("team", &team).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_is_made_once_per_thread_count() {
        let threads = Threads::default();
        let two = threads.pool(2).unwrap();
        assert_eq!(two.current_num_threads(), 2);
        assert!(Arc::ptr_eq(&two, &threads.pool(2).unwrap()), "the same count: the kept pool");
        let three = threads.pool(3).unwrap();
        assert_eq!(three.current_num_threads(), 3);
        assert!(!Arc::ptr_eq(&two, &three));
    }

    #[test]
    fn kept_slots_go_to_one_run_at_a_time_if_long_enough() {
        let threads = Threads::default();
        let slots = threads.take_slots(100);
        assert_eq!(slots.len(), 100);
        let at = slots.as_ptr();
        threads.keep_slots(slots);
        let again = threads.take_slots(80);
        assert_eq!(again.as_ptr(), at, "the kept slots");
        let beside = threads.take_slots(80);
        assert_ne!(beside.as_ptr(), at, "taken meanwhile: new ones");
        threads.keep_slots(again);
        assert_eq!(threads.take_slots(200).len(), 200, "too short: new ones");
    }

    #[test]
    fn a_kept_team_goes_to_one_run_at_a_time() {
        let threads = Threads::default();
        let team = threads.take_team(3);
        assert_eq!(team.size(), 3);
        let members = team.member_ids();
        threads.keep_team(team);
        let again = threads.take_team(3);
        assert_eq!(again.member_ids(), members, "the kept team, not a new one");
        let beside = threads.take_team(3);
        assert_ne!(beside.member_ids(), members, "taken meanwhile: a new team");
        threads.keep_team(again);
        assert_eq!(threads.take_team(2).size(), 2, "another size: a new team");
    }
}
