//! How the shares of a partitioned run trade what a step needs ([`Exchange`]): a reduction of a few
//! host counters (frontier out-edges, the change, a lowest bucket) so that every share takes the same
//! decisions, and, per part, a byte range of a device buffer given from its owner to every other
//! share (the owned values, the owned words of the frontier bitmap). Two ways: NCCL between GPUs
//! (module `nccl_exchange`), and [`LocalExchange`] between shares on one GPU, by device-to-device
//! copies, which lets a partitioned run be tested (and developed) on a machine with a single GPU.

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex};

use cudarc::driver::CudaStream;

use crate::error::{driver, CudaError};

/// How [`Exchange::reduce`] combines each position's values over the shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduce {
    /// Sum of `u64`s.
    SumU64,
    /// Least `u64`.
    MinU64,
    /// Sum of `f64`s, carried as their bits.
    SumF64,
}

impl Reduce {
    /// `a` and `b` combined.
    pub fn of(self, a: u64, b: u64) -> u64 {
        match self {
            Reduce::SumU64 => a.wrapping_add(b),
            Reduce::MinU64 => a.min(b),
            Reduce::SumF64 => (f64::from_bits(a) + f64::from_bits(b)).to_bits(),
        }
    }
}

/// One share's end of a partitioned run's exchange. Every share calls the same methods in the same
/// order with the same shapes (the run's decisions are taken on reduced values, so they agree).
pub trait Exchange: Send {
    /// This share's part.
    fn part(&self) -> usize;

    /// Combines `values` position by position over every share, in place.
    fn reduce(&mut self, values: &mut [u64], op: Reduce) -> Result<(), CudaError>;

    /// Part `p`'s bytes `ranges[p]` of the device buffer at `buffer` (on this share's device, at least
    /// `ranges`' end long), written by its owner, copied into every other share's buffer at the same
    /// place. The copies come after the work on the share's stream before the call, and before any
    /// work on it after the call (they may still be under way when it returns).
    ///
    /// # Safety
    /// `buffer` is a live device allocation of this share's device holding every range, not accessed
    /// by anything else until the call returns.
    unsafe fn share_ranges(&mut self, buffer: u64, ranges: &[Range<usize>]) -> Result<(), CudaError>;

    /// Leaves the run early (this share failed): the others' exchanges fail rather than wait for it
    /// (shares on one GPU: their meeting breaks; on several: every communicator is aborted, which also
    /// ends the collectives the others' devices wait in).
    fn leave(&mut self);

    /// What this share's exchanges took since the last call, for an exchange that times itself
    /// (`SIMDX_PROFILE=1`); `None` for the others.
    fn take_times(&mut self) -> Option<super::ExchangeTimes> {
        None
    }
}

/// What the shares of one GPU meet at: a barrier that fails (rather than waits forever) once a share
/// has left the run, and the slots they post values and buffer addresses in.
#[derive(Debug)]
struct Meeting {
    parts: usize,
    state: Mutex<MeetingState>,
    turn: Condvar,
}

#[derive(Debug)]
struct MeetingState {
    /// How many shares have arrived in the current round.
    arrived: usize,
    /// Rounds completed.
    round: u64,
    /// A share left the run (an error): every wait fails from then on.
    broken: bool,
    /// Each share's posted values for the current exchange.
    slots: Vec<Vec<u64>>,
}

impl Meeting {
    /// Waits until every share has arrived; an error once a share left the run.
    fn wait(&self) -> Result<(), CudaError> {
        let left = || CudaError::Driver { what: "exchanging between shares", message: "another share failed".into() };
        let mut s = self.state.lock().map_err(|_| left())?;
        if s.broken {
            return Err(left());
        }
        let round = s.round;
        s.arrived += 1;
        if s.arrived == self.parts {
            s.arrived = 0;
            s.round += 1;
            self.turn.notify_all();
            return Ok(());
        }
        while s.round == round && !s.broken {
            s = self.turn.wait(s).map_err(|_| left())?;
        }
        if s.round == round {
            return Err(left());
        }
        Ok(())
    }

    /// Posts `values` in `part`'s slot.
    fn post(&self, part: usize, values: &[u64]) {
        if let Ok(mut s) = self.state.lock() {
            s.slots[part] = values.to_vec();
        }
    }

    /// Every share's slot.
    fn slots(&self) -> Vec<Vec<u64>> {
        self.state.lock().map(|s| s.slots.clone()).unwrap_or_default()
    }
}

/// The exchange of a share that lives on the same GPU as the others: reductions on the host, ranges
/// by device-to-device copies on the share's stream. For tests and development on one GPU; shares on
/// several GPUs exchange through NCCL.
pub struct LocalExchange {
    part: usize,
    meeting: Arc<Meeting>,
    stream: Arc<CudaStream>,
}

impl LocalExchange {
    /// One exchange per stream, part `p` on `streams[p]` (all of one GPU).
    pub fn group(streams: &[Arc<CudaStream>]) -> Vec<LocalExchange> {
        let parts = streams.len();
        let meeting = Arc::new(Meeting {
            parts,
            state: Mutex::new(MeetingState { arrived: 0, round: 0, broken: false, slots: vec![Vec::new(); parts] }),
            turn: Condvar::new(),
        });
        streams
            .iter()
            .enumerate()
            .map(|(part, stream)| LocalExchange { part, meeting: meeting.clone(), stream: stream.clone() })
            .collect()
    }
}

impl Exchange for LocalExchange {
    fn part(&self) -> usize {
        self.part
    }

    fn reduce(&mut self, values: &mut [u64], op: Reduce) -> Result<(), CudaError> {
        self.meeting.post(self.part, values);
        self.meeting.wait()?;
        let slots = self.meeting.slots();
        for (i, v) in values.iter_mut().enumerate() {
            *v = slots.iter().map(|s| s[i]).reduce(|a, b| op.of(a, b)).unwrap_or(*v);
        }
        // Nobody posts again before everyone has read.
        self.meeting.wait()
    }

    unsafe fn share_ranges(&mut self, buffer: u64, ranges: &[Range<usize>]) -> Result<(), CudaError> {
        self.stream.synchronize().map_err(driver("finishing a step before an exchange"))?;
        self.meeting.post(self.part, &[buffer]);
        self.meeting.wait()?;
        let slots = self.meeting.slots();
        for (p, range) in ranges.iter().enumerate() {
            if p == self.part || range.is_empty() {
                continue;
            }
            let (to, from) = (buffer + range.start as u64, slots[p][0] + range.start as u64);
            // SAFETY: both buffers are live allocations of this GPU holding `range` (the caller's
            // promise, and every share's for its own), and their owners wait at the meeting below
            // until every copy is done.
            unsafe { cudarc::driver::result::memcpy_dtod_async(to, from, range.len(), self.stream.cu_stream()) }
                .map_err(driver("copying between shares"))?;
        }
        self.stream.synchronize().map_err(driver("copying between shares"))?;
        self.meeting.wait()
    }

    fn leave(&mut self) {
        self.break_meeting();
    }
}

impl LocalExchange {
    /// Breaks the meeting: every share's wait fails from now on.
    fn break_meeting(&self) {
        if let Ok(mut s) = self.meeting.state.lock() {
            s.broken = true;
            self.meeting.turn.notify_all();
        }
    }
}

impl Drop for LocalExchange {
    /// A share whose exchange goes away cannot meet the others any more.
    fn drop(&mut self) {
        self.break_meeting();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meeting(parts: usize) -> Arc<Meeting> {
        Arc::new(Meeting {
            parts,
            state: Mutex::new(MeetingState { arrived: 0, round: 0, broken: false, slots: vec![Vec::new(); parts] }),
            turn: Condvar::new(),
        })
    }

    #[test]
    fn reductions_combine_each_position() {
        assert_eq!(Reduce::SumU64.of(3, 4), 7);
        assert_eq!(Reduce::MinU64.of(3, 4), 3);
        assert_eq!(f64::from_bits(Reduce::SumF64.of(1.5f64.to_bits(), 2.25f64.to_bits())), 3.75);
    }

    /// Three threads post, meet, and each reads every slot, round after round.
    #[test]
    fn shares_meet_and_read_every_post() {
        let m = meeting(3);
        std::thread::scope(|scope| {
            for part in 0..3u64 {
                let m = m.clone();
                scope.spawn(move || {
                    for round in 0..50u64 {
                        m.post(part as usize, &[part * 100 + round]);
                        m.wait().unwrap();
                        let seen: Vec<u64> = m.slots().iter().map(|s| s[0]).collect();
                        assert_eq!(seen, vec![round, 100 + round, 200 + round]);
                        m.wait().unwrap();
                    }
                });
            }
        });
    }

    /// A share that leaves releases the others' waits with an error.
    #[test]
    fn a_broken_meeting_fails_the_waits() {
        let m = meeting(2);
        let waiting = {
            let m = m.clone();
            std::thread::spawn(move || m.wait())
        };
        std::thread::sleep(std::time::Duration::from_millis(20));
        if let Ok(mut s) = m.state.lock() {
            s.broken = true;
            m.turn.notify_all();
        }
        assert!(waiting.join().unwrap().is_err());
        assert!(m.wait().is_err());
    }
}
