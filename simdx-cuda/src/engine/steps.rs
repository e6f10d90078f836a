//! The host's steps, one launch per phase (fusion mode `none`, and the big steps of selective fusion),
//! as [`HostRun`]'s methods in the order an iteration takes them: the bucket change (a settle step of
//! delta-stepping, or the next bucket), prepare (the sources' snapshot and the direction), push or
//! pull, filter (online list or ballot scan), apply, the record and the stopping test, select (the
//! next frontier). Each launches the same kernels with the same arguments as the fused kernels' phases
//! (kernels/fused.cu), and reads the counters where the host needs them.

use std::time::Instant;

use cudarc::driver::{DevicePtr, PushKernelArg};
use simdx_core::acc::device::DeviceProgram;
use simdx_core::engine::{policy, Direction, DirectionPolicy, FilterUsed, IterationStats};

use super::kernels::{
    launch_step, push_tile_vertices, read_counters, ARCS_BEYOND, ARCS_WITHIN, GRID_SPLIT, LIVE_STAMP, SCAN_ACTIVE,
    SCAN_REACHED,
};
use super::run_state::HostRun;
use crate::device_structs::far::SETTLE_LEN;
use crate::device_structs::step::{CHANGE, CLASS_LEN, COUNTERS, GLOBAL, NEXT_LEN, OUT_EDGES, OVERFLOW, PENDING};
use crate::error::{driver, CudaError};
use crate::launch::{BLOCK, ILP};
use crate::partitioned::exchange::Reduce;

/// What the bucket change leaves for the next step.
pub(super) enum Bucket {
    /// The new bucket's bound was stale (its vertices were relaxed in an earlier bucket): the list now
    /// has its exact one, and the loop goes round again.
    Stale,
    /// A step may run: a settle step of this many owed vertices (delta-stepping's settle list), or,
    /// with 0, a step from the frontier.
    Owed(u32),
}

/// What a step starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sources {
    /// The frontier.
    Frontier,
    /// Delta-stepping's settle list, of this many vertices (on a share of owned sources perhaps none,
    /// while another share's is not empty).
    Settle(u32),
}

impl Sources {
    /// A settle step of `owed` vertices, or with none a step from the frontier.
    fn owing(owed: u32) -> Sources {
        if owed > 0 {
            Sources::Settle(owed)
        } else {
            Sources::Frontier
        }
    }
}

/// One step as prepared.
pub(super) struct Step {
    /// When it began (its time includes selecting the next frontier).
    pub(super) began: Instant,
    /// Whether it is a settle step.
    pub(super) settle: bool,
    /// Whether its sources are in the push's degree classes already, their lengths in `counters`.
    pub(super) classified: bool,
    /// Its sources: the frontier's or the settle list's length.
    pub(super) sources: u32,
    /// The stamp of its active sources for a pull (see [`HostRun::pull_stamp`]).
    pub(super) stamp: u32,
    /// The counters of its sources' snapshot: their out-edges and the global sum, and a settle step's
    /// degree classes.
    pub(super) counters: Vec<u64>,
    pub(super) direction: Direction,
}

impl Step {
    /// Whether it is a settle step.
    pub(super) fn settle(&self) -> bool {
        self.settle
    }
}

/// Which list a ballot scan writes.
pub(super) enum List {
    Frontier,
    Next,
}

impl<P: DeviceProgram> HostRun<'_, P> {
    /// Bucket change, when the frontier is empty: the vertices of an exhausted bucket that may owe
    /// deferred arcs (delta-stepping's settle list, kernels/state.cu) push them first, in a settle
    /// step; without any, the lowest bucket still waiting becomes current.
    pub(super) fn change_bucket(&mut self) -> Result<Bucket, CudaError> {
        let mut owed = 0u32;
        if self.len == 0 {
            self.prepared = None;
            let lists = self.stream.clone_dtoh(&*self.far_len).map_err(driver("reading the waiting lists"))?;
            owed = lists[SETTLE_LEN] as u32;
            if owed == 0 && self.pending_maybe {
                self.pending_maybe = false;
                // The current bucket is exhausted: the lowest bucket still waiting becomes current, from
                // the waiting list's bound (kernels/buckets.cu).
                let (waiting, mut lowest) = (lists[self.fcur as usize], [lists[2 + self.fcur as usize]]);
                self.over_shares(&mut lowest, Reduce::MinU64)?;
                let lowest = lowest[0];
                if lowest != u64::MAX {
                    let c = self.take_bucket(lowest as u32, waiting)?;
                    self.pending_maybe = self.any_share(c[PENDING] > 0)?;
                    self.share_frontier()?;
                    if self.len == 0 && self.pending_maybe {
                        return Ok(Bucket::Stale);
                    }
                }
            }
        }
        Ok(Bucket::Owed(owed))
    }

    /// The lowest waiting bucket, `bucket`, becomes current: its vertices of the current list of
    /// `waiting` ones become the frontier, the others move to the other list (kernels/buckets.cu), whose
    /// turn it is; returns the counters.
    pub(super) fn take_bucket(&mut self, bucket: u32, waiting: u64) -> Result<Vec<u64>, CudaError> {
        self.bucket = bucket;
        let cfg = self.shapes.per_thread(waiting as u32);
        launch_step!(self.stream, self.f.far_take, cfg, &self.state, &self.fcur, &self.bucket, &*self.frontier);
        let c = read_counters(&self.stream, &mut *self.counters)?;
        self.len = c[NEXT_LEN] as u32;
        self.fcur ^= 1;
        // The list just emptied is the next change's to fill: its length and bound start over.
        let emptied = (self.fcur ^ 1) as usize;
        let mut slot = self.far_len.slice_mut(emptied..emptied + 1);
        self.stream.memcpy_htod(&[0u64], &mut slot).map_err(driver("resetting the waiting lists"))?;
        let mut slot = self.far_len.slice_mut(2 + emptied..3 + emptied);
        self.stream.memcpy_htod(&[u64::MAX], &mut slot).map_err(driver("resetting the waiting lists"))?;
        Ok(c)
    }

    /// The sources of the next step, after the bucket changes it needs; `None` when the run is over.
    pub(super) fn next_step(&mut self) -> Result<Option<Sources>, CudaError> {
        loop {
            if let Bucket::Owed(owed) = self.change_bucket()? {
                return Ok((!self.ended(owed)).then_some(Sources::owing(owed)));
            }
        }
    }

    /// Whether the run is over before a step with `owed` settle sources: nothing to run, or the
    /// iteration cap reached.
    fn ended(&self, owed: u32) -> bool {
        (self.len == 0 && owed == 0) || self.capped()
    }

    /// Whether the run has taken as many steps as its options allow.
    pub(super) fn capped(&self) -> bool {
        self.iterations >= self.opts.max_iterations
    }

    /// Prepare: the step's sources snapshotted (what each sends saved, stamped for a pull, their
    /// out-edges counted), unless the last select already did, and the direction the step takes.
    pub(super) fn prepare(&mut self, sources: Sources) -> Result<Step, CudaError> {
        let (settle, owed) = match sources {
            Sources::Frontier => (false, 0),
            Sources::Settle(owed) => (true, owed),
        };
        let began = Instant::now();
        let all_active = self.every && self.len == self.n;
        // A settle step's sources are its list, stamped when it is classified (never live values).
        let stamp = match settle {
            true if self.pull_possible() => self.iterations + 1,
            true => 0,
            false => self.pull_stamp(self.iterations, all_active),
        };
        let c = match self.prepared.take() {
            Some(c) => c,
            None if settle => {
                // The settle step's sources: the settle list, by degree class and stamped for a pull.
                let classes = self.push_classes;
                launch_step!(
                    self.stream,
                    self.f.settle_classify,
                    self.shapes.per_thread(owed),
                    &self.state,
                    &owed,
                    &stamp,
                    &classes[0],
                    &classes[1],
                    &classes[2],
                    &classes[3]
                );
                read_counters(&self.stream, &mut *self.counters)?
            }
            // A session that never hands a step back (a voting program under selective fusion) takes
            // every step, and prepares the frontier itself: zeroed counters stand in for the host's
            // snapshot, which would only cost a launch and a read (measurements:
            // docs/experiments/gpu-fusion.md).
            None if self.session.is_some() && self.host_above == u64::MAX => vec![0; COUNTERS],
            None => {
                let (len, tag, classes) = (self.len, self.iterations + 1, self.classes_ahead());
                let cfg = self.shapes.per_thread(len);
                launch_step!(
                    self.stream,
                    self.f.snapshot,
                    cfg,
                    &self.state,
                    &*self.frontier,
                    &len,
                    &self.bucket,
                    &tag,
                    &stamp,
                    &classes[0],
                    &classes[1],
                    &classes[2],
                    &classes[3]
                );
                read_counters(&self.stream, &mut *self.counters)?
            }
        };
        // Settle steps were classified by their snapshot, frontier steps by theirs when it classifies.
        let classified = settle || self.shares_sources();
        let mut c = c;
        if settle {
            // A share of owned sources counted its own settle list's out-edges: the sum decides.
            self.settle_over_shares(owed, &mut c)?;
        }
        self.all_sent |= self.len == self.n;
        // A share of the arcs into its vertices holds the whole frontier and counts its out-edges in
        // the whole graph (`sx_counted_out_edges`): every share decides on the same sum without a
        // reduction.
        let direction = self.direction(settle, &c);
        let sources = if settle { owed } else { self.len };
        Ok(Step { began, settle, classified, sources, stamp, counters: c, direction })
    }

    /// The step's direction: the policy's rule ([`policy::by_share`]) on the sources' out-edges; a
    /// settle step pushes, or pulls (aggregation programs) when its sources' arcs are many, as the
    /// fused kernel's `settle_pulls` decides; a share of owned sources pushes its other steps.
    fn direction(&self, settle: bool, c: &[u64]) -> Direction {
        let settle_pulls = self.aggregate
            && match self.opts.direction {
                DirectionPolicy::Push => false,
                DirectionPolicy::Pull => true,
                DirectionPolicy::Auto { .. } => c[OUT_EDGES] > self.arcs_total >> crate::fused::SETTLE_PULL_SHIFT,
            };
        match self.opts.direction {
            _ if settle && settle_pulls && self.settle_pull_possible() => Direction::Pull,
            _ if settle => Direction::Push,
            // A share of owned sources holds only its part of the frontier: its steps push.
            _ if self.shares_sources() => Direction::Push,
            policy => policy::by_share(policy, c[OUT_EDGES], self.arcs_total),
        }
    }

    /// Whether this run is a share of owned sources (module `share_sources`).
    fn shares_sources(&self) -> bool {
        self.share.as_ref().is_some_and(|link| link.from_owned)
    }

    /// The device addresses of the push's degree class lists where a frontier's snapshot (or the
    /// select that prepares it) splits it into them, saving the push a launch and a read: on a share of
    /// owned sources, whose frontier steps push; zeros (no split) in other runs, whose steps may pull.
    fn classes_ahead(&self) -> [u64; 4] {
        match self.shares_sources() {
            true => std::array::from_fn(|i| self.push_classes[i].device_ptr(&self.stream).0),
            false => [0; 4],
        }
    }

    /// Whether a settle step may pull: on a share of owned sources only for programs without a
    /// `source_value`, whose sources send their values (which the shares trade before the pull).
    fn settle_pull_possible(&self) -> bool {
        !self.shares_sources() || !P::FEATURES.source_value
    }

    /// Push: the sources by out-degree class (a settle step's were classified by its snapshot), then a
    /// launch per class that has vertices: threads in tiles, warps, CTAs, and [`GRID_SPLIT`] CTAs a
    /// vertex for the grid class.
    pub(super) fn push(&mut self, step: &Step) -> Result<(), CudaError> {
        let (sms, zero, len, bucket, classes) = (self.shapes.sms, 0u32, self.len, self.bucket, self.push_classes);
        let lens: Vec<u32> = if step.classified {
            (0..4).map(|i| step.counters[CLASS_LEN + i] as u32).collect()
        } else {
            launch_step!(
                self.stream,
                self.f.classify,
                self.shapes.per_thread(len),
                &self.state,
                &*self.frontier,
                &len,
                &zero,
                &zero,
                &classes[0],
                &classes[1],
                &classes[2],
                &classes[3]
            );
            let c = read_counters(&self.stream, &mut *self.counters)?;
            (0..4).map(|i| c[CLASS_LEN + i] as u32).collect()
        };
        let (stream, f, state, next) = (&self.stream, &self.f, &self.state, &*self.next);
        let arcs = if step.settle() { ARCS_BEYOND } else { ARCS_WITHIN };
        if lens[0] > 0 {
            let per_tile = push_tile_vertices(lens[0], sms * 4);
            let blocks = lens[0].div_ceil(per_tile).min(sms * 32);
            launch_step!(
                stream,
                f.push[0],
                self.shapes.cfg(blocks),
                state,
                &classes[0],
                &lens[0],
                next,
                &per_tile,
                &arcs,
                &bucket
            );
        }
        if lens[1] > 0 {
            launch_step!(
                stream,
                f.push[1],
                self.shapes.per_warp(lens[1]),
                state,
                &classes[1],
                &lens[1],
                next,
                &arcs,
                &bucket
            );
        }
        let one_split = 1u32;
        if lens[2] > 0 {
            let (list, len) = (&classes[2], &lens[2]);
            launch_step!(
                stream,
                f.push[2],
                self.shapes.per_block(lens[2]),
                state,
                list,
                len,
                next,
                &one_split,
                &arcs,
                &bucket
            );
        }
        if lens[3] > 0 {
            let blocks = lens[3].min((sms * 16).div_ceil(GRID_SPLIT)) * GRID_SPLIT;
            let (list, len) = (&classes[3], &lens[3]);
            launch_step!(
                stream,
                f.push[2],
                self.shapes.cfg(blocks),
                state,
                list,
                len,
                next,
                &GRID_SPLIT,
                &arcs,
                &bucket
            );
        }
        Ok(())
    }

    /// Pull: aggregation programs over edge-balanced tiles, voting programs by the thread and warp
    /// classes (which stop early); the CTA and grid classes in chunks.
    pub(super) fn pull(&mut self, step: &Step) -> Result<(), CudaError> {
        // When the frontier holds every vertex with out-edges, every in-arc's source is active.
        let stamp =
            if step.counters[OUT_EDGES] == self.arcs_total && step.stamp != LIVE_STAMP { 0 } else { step.stamp };
        let (stream, f, shapes, state, next, plan) =
            (&self.stream, &self.f, self.shapes, &self.state, &*self.next, self.plan);
        let (classes, lens, sms) = (self.pull_classes, plan.lens, shapes.sms);
        // A settle step's pull skips the vertices already settled (kernels/state.cu).
        let settled = if step.settle() { self.bucket + 1 } else { 0 };
        if stamp != 0 && stamp != LIVE_STAMP {
            launch_step!(stream, f.frontier_bits, shapes.per_thread(self.n), state, &stamp);
        }
        if self.aggregate {
            launch_step!(stream, f.pull_tiles, shapes.per_thread(self.n), state, &stamp, &settled, next);
        } else {
            if lens[0] > 0 {
                // SX_ILP candidates per thread (kernels/pull.cu).
                let blocks = lens[0].div_ceil(BLOCK * ILP).min(sms * 32);
                launch_step!(stream, f.pull[0], shapes.cfg(blocks), state, &classes[0], &lens[0], &stamp, next);
            }
            if lens[1] > 0 {
                launch_step!(stream, f.pull[1], shapes.per_warp(lens[1]), state, &classes[1], &lens[1], &stamp, next);
            }
        }
        if plan.chunk_count > 0 {
            let count = plan.chunk_count;
            launch_step!(
                stream,
                f.pull_chunks,
                shapes.per_block(count),
                state,
                &plan.chunks,
                &count,
                &stamp,
                &settled,
                next
            );
        }
        Ok(())
    }

    /// After a push or pull: the counters it left (the arcs it relaxed, the vertices it reached, whether
    /// the online filter's bins overflowed); a settle step's list is spent.
    pub(super) fn relaxed(&mut self, step: &Step) -> Result<Vec<u64>, CudaError> {
        let c = read_counters(&self.stream, &mut *self.counters)?;
        if step.settle() {
            // The settle list is spent; the next prepare starts it over.
            let mut slot = self.far_len.slice_mut(SETTLE_LEN..SETTLE_LEN + 1);
            self.stream.memcpy_htod(&[0u64], &mut slot).map_err(driver("resetting the settle list"))?;
        }
        Ok(c)
    }

    /// Filter: the reached vertices (in `next`) and how they were found: the online list, or a ballot
    /// scan when the bins overflowed; every vertex for an `Every` program.
    pub(super) fn filter(&mut self, c: &[u64]) -> Result<(u32, FilterUsed), CudaError> {
        Ok(if self.every {
            // Apply clears the reached flags of every vertex.
            (self.n, FilterUsed::Every)
        } else if self.capacity == 0 || c[OVERFLOW] != 0 {
            (self.scan(SCAN_REACHED, 0, List::Next)?, FilterUsed::Ballot)
        } else {
            // The online list; select clears its vertices' touched flags.
            (c[NEXT_LEN] as u32, FilterUsed::Online)
        })
    }

    /// Apply (programs that do not combine in place): the `reached` vertices' combined updates, with the
    /// snapshot's global sum; returns the change the program's stopping test reads.
    pub(super) fn apply(&mut self, reached: u32, step: &Step) -> Result<f64, CudaError> {
        let global = f64::from_bits(step.counters[GLOBAL]);
        let mut change = 0.0;
        if !self.in_place {
            let all = u32::from(self.every);
            let cfg = self.shapes.per_thread(if self.every { self.n } else { reached });
            launch_step!(self.stream, self.f.apply, cfg, &self.state, &*self.next, &reached, &all, &global);
            let mut sum = [read_counters(&self.stream, &mut *self.counters)?[CHANGE]];
            self.over_shares(&mut sum, Reduce::SumF64)?;
            change = f64::from_bits(sum[0]);
        }
        Ok(change)
    }

    /// Records the step (`edges`: the arcs it relaxed) and counts it; whether the program's stopping
    /// test ends the run.
    pub(super) fn record(&mut self, step: &Step, filter: FilterUsed, edges: u64, change: f64) -> bool {
        self.stats.iterations.push(IterationStats {
            direction: step.direction,
            filter,
            frontier: step.sources as u64,
            edges,
            bucket: self.bucket,
            time: step.began.elapsed(),
        });
        self.iterations += 1;
        self.program.done(self.iterations, change)
    }

    /// Select: the next frontier, the active reached vertices of the current bucket (the rest wait), from
    /// the `reached` vertices, or by a ballot scan of every vertex for an `Every` program.
    pub(super) fn select(&mut self, reached: u32) -> Result<(), CudaError> {
        if self.every {
            self.len = self.scan(SCAN_ACTIVE, self.bucket, List::Frontier)?;
            return Ok(());
        }
        // Select prepares the next frontier as the next iteration's snapshot would (the same tag
        // and stamp: a selected frontier is never every vertex of an `Every` program).
        let (tag, stamp) = (self.iterations + 1, self.pull_stamp(self.iterations, false));
        let classes = self.classes_ahead();
        launch_step!(
            self.stream,
            self.f.select,
            self.shapes.per_thread(reached),
            &self.state,
            &*self.next,
            &reached,
            &self.bucket,
            &*self.frontier,
            &self.fcur,
            &tag,
            &stamp,
            &classes[0],
            &classes[1],
            &classes[2],
            &classes[3]
        );
        let c = read_counters(&self.stream, &mut *self.counters)?;
        self.len = c[NEXT_LEN] as u32;
        // A share's `pending_maybe` is reduced with its changed values (`share_changed`), and a share of
        // the arcs into its vertices selects its own part of the frontier: the whole one is prepared anew.
        self.pending_maybe |= c[PENDING] > 0;
        // A share of owned sources selects its whole frontier, which its select prepared.
        self.prepared = if self.share.is_some() && !self.shares_sources() { None } else { Some(c) };
        Ok(())
    }

    /// The ballot filter: a coalesced scan of every vertex's status with predicate `mode` (as
    /// kernels/scan.cu) for `bucket`, into list `out`, sorted and duplicate-free; returns its length.
    pub(super) fn scan(&mut self, mode: u32, bucket: u32, out: List) -> Result<u32, CudaError> {
        let out = match out {
            List::Frontier => &mut *self.frontier,
            List::Next => &mut *self.next,
        };
        let (stream, f, state, tile_counts, tiles, fcur) =
            (&self.stream, &self.f.scan, &self.state, self.tile_counts, self.tiles, self.fcur);
        let mut b = stream.launch_builder(&f[0]);
        b.arg(state).arg(&mode).arg(&bucket).arg(&fcur).arg(tile_counts);
        // SAFETY: as for `launch_step!`.
        unsafe { b.launch(self.shapes.cfg(tiles)) }.map_err(driver("launching the ballot filter"))?;
        let mut b = stream.launch_builder(&f[1]);
        b.arg(state).arg(tile_counts).arg(&tiles);
        // SAFETY: as above.
        unsafe { b.launch(self.shapes.cfg(1)) }.map_err(driver("launching the ballot filter"))?;
        let mut b = stream.launch_builder(&f[2]);
        b.arg(state).arg(&mode).arg(&bucket).arg(&fcur).arg(tile_counts).arg(out);
        // SAFETY: as above.
        unsafe { b.launch(self.shapes.cfg(tiles)) }.map_err(driver("launching the ballot filter"))?;
        Ok(read_counters(stream, &mut *self.counters)?[NEXT_LEN] as u32)
    }
}
