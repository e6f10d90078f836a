//! Where a share's time goes in a partitioned run (`SIMDX_PROFILE=1`): [`TimedExchange`] wraps a
//! share's [`Exchange`], first waits for the work queued on the share's device (the steps since the
//! last exchange) and then times the exchange itself, so that a run's time splits into steps and
//! exchanges. The wait before each exchange is one the exchange makes anyway; profiling moves it in
//! front of the clock and also waits for each call's copies to end (so they no longer overlap the next
//! step). A graph's exchanges are made at its first partitioned run, which reads `SIMDX_PROFILE`.

use std::ops::Range;
use std::time::{Duration, Instant};

use super::exchange::{Exchange, Reduce};
use crate::error::CudaError;

/// What one share's exchanges took.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct ExchangeTimes {
    /// Reductions of host counters, and their time.
    pub reductions: u64,
    /// Time in reductions.
    pub reducing: Duration,
    /// Calls giving byte ranges to the other shares.
    pub range_calls: u64,
    /// Bytes this share gave (its own ranges).
    pub bytes_given: u64,
    /// Time in those calls.
    pub giving: Duration,
    /// Time waiting, before each exchange, for the share's queued device work.
    pub waiting: Duration,
}

impl ExchangeTimes {
    /// The exchanges' whole time (reductions and ranges, not the waits before them).
    pub fn exchanging(&self) -> Duration {
        self.reducing + self.giving
    }

    /// One line for `SIMDX_PROFILE=1`: share `part` of `parts`, whose iterations took `iterations`.
    pub fn line(&self, part: usize, parts: usize, iterations: Duration) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        format!(
            "simdx profile: share {} of {parts}: iterations {:.3} ms, of which exchanges {:.3} ms ({} reductions \
             {:.3} ms, {} range copies of {:.1} MiB given {:.3} ms), waiting for the device's steps before them \
             {:.3} ms",
            part + 1,
            ms(iterations),
            ms(self.exchanging()),
            self.reductions,
            ms(self.reducing),
            self.range_calls,
            self.bytes_given as f64 / (1u64 << 20) as f64,
            ms(self.giving),
            ms(self.waiting),
        )
    }
}

/// Waits for a share's queued device work.
pub(crate) type Wait = Box<dyn FnMut() -> Result<(), CudaError> + Send>;

/// A share's exchange that times itself.
pub(crate) struct TimedExchange {
    inner: Box<dyn Exchange>,
    wait: Wait,
    times: ExchangeTimes,
}

impl TimedExchange {
    /// Times `inner`'s exchanges, calling `wait` before each.
    pub(crate) fn new(inner: Box<dyn Exchange>, wait: Wait) -> Self {
        TimedExchange { inner, wait, times: ExchangeTimes::default() }
    }

    /// Waits for the device, then returns the instant the exchange starts.
    fn start(&mut self) -> Result<Instant, CudaError> {
        let before = Instant::now();
        (self.wait)()?;
        let now = Instant::now();
        self.times.waiting += now - before;
        Ok(now)
    }
}

impl Exchange for TimedExchange {
    fn part(&self) -> usize {
        self.inner.part()
    }

    fn reduce(&mut self, values: &mut [u64], op: Reduce) -> Result<(), CudaError> {
        let start = self.start()?;
        let result = self.inner.reduce(values, op);
        self.times.reductions += 1;
        self.times.reducing += start.elapsed();
        result
    }

    unsafe fn share_ranges(&mut self, buffer: u64, ranges: &[Range<usize>]) -> Result<(), CudaError> {
        let start = self.start()?;
        // SAFETY: the caller's promise about `buffer` and `ranges`, passed on unchanged.
        let result = unsafe { self.inner.share_ranges(buffer, ranges) };
        (self.wait)()?;
        self.times.range_calls += 1;
        self.times.bytes_given += ranges.get(self.inner.part()).map_or(0, |r| r.len() as u64);
        self.times.giving += start.elapsed();
        result
    }

    fn leave(&mut self) {
        self.inner.leave();
    }

    fn take_times(&mut self) -> Option<ExchangeTimes> {
        Some(std::mem::take(&mut self.times))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An exchange of one share that sleeps a little in each call.
    struct Slow;

    impl Exchange for Slow {
        fn part(&self) -> usize {
            0
        }
        fn reduce(&mut self, values: &mut [u64], _op: Reduce) -> Result<(), CudaError> {
            std::thread::sleep(Duration::from_millis(2));
            values[0] += 1;
            Ok(())
        }
        unsafe fn share_ranges(&mut self, _buffer: u64, _ranges: &[Range<usize>]) -> Result<(), CudaError> {
            std::thread::sleep(Duration::from_millis(3));
            Ok(())
        }
        fn leave(&mut self) {}
    }

    #[test]
    fn a_timed_exchange_passes_calls_on_and_counts_their_time_and_bytes() {
        let waits = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
        let counted = waits.clone();
        let mut timed = TimedExchange::new(
            Box::new(Slow),
            Box::new(move || {
                counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(1));
                Ok(())
            }),
        );
        let mut values = [5u64];
        timed.reduce(&mut values, Reduce::SumU64).unwrap();
        // SAFETY: `Slow` touches no buffer.
        unsafe { timed.share_ranges(0, &[0..1000, 1000..1500]).unwrap() };
        let times = timed.take_times().expect("a timed exchange keeps its times");
        assert_eq!(values, [6], "the reduction reached the wrapped exchange");
        assert_eq!((times.reductions, times.range_calls, times.bytes_given), (1, 1, 1000));
        assert!(times.reducing >= Duration::from_millis(2) && times.giving >= Duration::from_millis(3));
        assert!(times.waiting >= Duration::from_millis(2), "two waits before the calls: {:?}", times.waiting);
        assert!(times
            .line(0, 2, Duration::from_millis(20))
            .starts_with("simdx profile: share 1 of 2: iterations 20.000 ms"));
        assert_eq!(
            waits.load(std::sync::atomic::Ordering::Relaxed),
            3,
            "a wait before each call, one after the copies"
        );
        assert_eq!(timed.take_times(), Some(ExchangeTimes::default()), "taking the times starts them over");
    }
}
