//! A share's run in a partitioned run (module `partitioned`): the host loop of [`CudaEngine::run`] on
//! one part's share of the graph, with the exchanges that keep the shares in step. A share of the arcs
//! into its vertices (`ShareLayout::ArcsIn`) pushes and pulls only into the vertices it owns, then
//! gives its owned values and frontier to the others (below); a share of its vertices' out-arcs
//! (`ShareLayout::ArcsOut`) takes the steps of module `share_sources`. Every decision (direction,
//! bucket, stopping test) is taken on counters reduced over the shares, so all take the same steps and
//! meet at the same exchanges. No fused or asynchronous kernels (they would need an exchange inside the
//! kernel) and no linking (it joins classes across the whole graph): labels propagate.
use std::ops::Range;
use std::time::Instant;

use cudarc::driver::{CudaSlice, DevicePtr};
use simdx_core::acc::device::DeviceProgram;
use simdx_core::engine::{Direction, DirectionPolicy, LabelPolicy, Run};
use simdx_core::partition::WORD_VERTICES;

use super::kernels::{launch_step, read_counters};
use super::run_state::{HostRun, ReadBack};
use super::units::{kernel_units, program_kernels};
use super::CudaEngine;
use crate::device_structs::step::{EDGES, NEXT_LEN};
use crate::error::{driver, CudaError};
use crate::graph::DeviceGraph;
use crate::partitioned::combines_in_place_by_min_or_max;
use crate::partitioned::exchange::{Exchange, Reduce};
use crate::partitioned::plan::{packet_bytes, packet_capacity, value_bytes, word_bytes, PairPlan};

/// What a share's run knows of the others: its exchange, every part's vertex range, the whole
/// graph's arcs and degrees.
pub(crate) struct ShareLink<'a> {
    pub(crate) exchange: &'a mut (dyn Exchange + 'static),
    /// Part `p` owns `ranges[p]`; each inner boundary a multiple of [`WORD_VERTICES`].
    pub(crate) ranges: &'a [Range<u32>],
    /// The whole graph's arcs, which the direction rule compares a frontier's out-edges with.
    pub(crate) arcs: u64,
    /// The whole graph's degrees on this share's GPU (`simdx_core::partition::whole_degrees`).
    pub(crate) degrees: &'a CudaSlice<u32>,
    /// Where the changed values are traded as pairs.
    pub(crate) pairs: &'a PairBuffers,
    /// The shares hold no in-arcs: every step pushes.
    pub(crate) pushes_only: bool,
    /// The shares hold their own vertices' out-arcs (module `share_sources`), not the arcs into them.
    pub(crate) from_owned: bool,
    /// Whether the next step trades its changes as packets first (module `share_packets`): true at
    /// the start and while every share's last step changed no more values than a packet holds.
    pub(crate) packets_first: bool,
}

/// A share's room for (vertex, value) pairs: a vertex id and a value (8 bytes at most) per pair; and
/// for every part's packet (kernels/shares.cu), of room for `capacity` vertices each.
pub(crate) struct PairBuffers {
    pub(crate) ids: CudaSlice<u32>,
    pub(crate) values: CudaSlice<u8>,
    pub(crate) packets: CudaSlice<u8>,
    pub(crate) capacity: u32,
}

impl PairBuffers {
    /// Room for `room` pairs (at least one) and `parts` packets for a graph of `n` vertices on `gpu`.
    pub(crate) fn new(gpu: &crate::Gpu, n: u32, parts: usize, room: u64) -> Result<PairBuffers, CudaError> {
        let what = "allocating a share's exchange buffers";
        let capacity = packet_capacity(n);
        let room = room.max(1) as usize;
        Ok(PairBuffers {
            ids: gpu.stream.alloc_zeros::<u32>(room).map_err(driver(what))?,
            values: gpu.stream.alloc_zeros::<u8>(room * 8).map_err(driver(what))?,
            packets: gpu.stream.alloc_zeros::<u8>(parts * packet_bytes(capacity, 8)).map_err(driver(what))?,
            capacity,
        })
    }

    /// The device bytes of [`PairBuffers::new`]'s buffers.
    pub(crate) fn bytes(n: u32, parts: usize, room: u64) -> u64 {
        room.max(1) * 12 + (parts * packet_bytes(packet_capacity(n), 8)) as u64
    }

    /// How many pairs the buffers hold.
    pub(crate) fn room(&self) -> u64 {
        self.ids.len() as u64
    }
}

impl ShareLink<'_> {
    /// The vertices this share owns.
    pub(crate) fn owned(&self) -> Range<u32> {
        self.ranges[self.exchange.part()].clone()
    }
}

impl CudaEngine {
    /// Runs `program` on `graph`, one share of a partitioned run, in step with the other shares
    /// through `link`; every share ends with every vertex's value on its GPU, which it reads back as
    /// `read` says (one share does; the others return their statistics only).
    pub(crate) fn run_share<P: DeviceProgram>(
        &self,
        program: &P,
        graph: &DeviceGraph,
        link: ShareLink<'_>,
        read: ReadBack<'_, P::Value>,
    ) -> Result<Run<P::Value>, CudaError> {
        let mut plan = self.plan_for::<P>()?.on_the_host();
        plan.opts.labels = LabelPolicy::Propagate;
        if link.pushes_only {
            plan.opts.direction = match plan.opts.direction {
                DirectionPolicy::Pull => return Err(CudaError::PullWithoutInArcs),
                _ => DirectionPolicy::Push,
            };
        }
        if link.from_owned && !combines_in_place_by_min_or_max::<P>() {
            return Err(CudaError::NeedsSharesOfTargets);
        }
        if link.from_owned && plan.opts.direction == DirectionPolicy::Pull {
            return Err(CudaError::PullOverSharesOfSources);
        }
        simdx_core::engine::promise::check_update_grows_with_weight(program)?;
        let entered = Instant::now();
        let (kernels, _) = program_kernels(&kernel_units::<P>(), &graph.gpu, plan.opts.fusion, false)?;
        simdx_core::acc::check_lengths(program, graph.num_vertices as usize)?;
        let mut slot = graph.run_workspace()?;
        let ws = slot.as_mut().expect("made by run_workspace");
        let from_owned = link.from_owned;
        let mut run = HostRun::new(self, program, graph, ws, plan, kernels, entered, Some(link))?;
        run.init()?;
        run.first_frontier()?;
        match from_owned {
            true => run.steps_from_owned()?,
            false => run.steps_into_owned()?,
        }
        run.finish_reading(read)
    }
}

impl<P: DeviceProgram> HostRun<'_, P> {
    /// The steps of a share of the arcs into its vertices: each pushes or pulls into its own vertices,
    /// then trades its changed values and its part of the next frontier.
    fn steps_into_owned(&mut self) -> Result<(), CudaError> {
        while let Some(sources) = self.next_step()? {
            let step = self.prepare(sources)?;
            match step.direction {
                Direction::Push => self.push(&step)?,
                Direction::Pull => self.pull(&step)?,
            }
            let counters = self.relaxed(&step)?;
            let (reached, filter) = self.filter(&counters)?;
            let change = self.apply(reached, &step)?;
            if self.every {
                // The scan that selects an `Every` program's next frontier reads every vertex's value.
                self.share_step_values()?;
            }
            if self.record(&step, filter, counters[EDGES], change) {
                if !self.every {
                    // The stopping test ended the run before the step's values were shared.
                    self.share_step_values()?;
                }
                return Ok(());
            }
            self.select(reached)?;
            if !self.every && !self.share_packets(reached)? {
                self.share_changed(reached)?;
                self.share_frontier()?;
            }
        }
        Ok(())
    }

    /// Reduces `values` over the shares (unchanged outside a partitioned run).
    pub(super) fn over_shares(&mut self, values: &mut [u64], op: Reduce) -> Result<(), CudaError> {
        match self.share.as_mut() {
            Some(link) => link.exchange.reduce(values, op),
            None => Ok(()),
        }
    }

    /// Whether `mine` holds for some share (for this one outside a partitioned run).
    pub(super) fn any_share(&mut self, mine: bool) -> Result<bool, CudaError> {
        let mut v = [u64::from(mine)];
        self.over_shares(&mut v, Reduce::SumU64)?;
        Ok(v[0] > 0)
    }

    /// Every share's owned values given to the others as a step's whole exchange (counted as one).
    fn share_step_values(&mut self) -> Result<(), CudaError> {
        if self.share.is_some() {
            self.stats.exchanges.whole += 1;
        }
        self.share_values()
    }

    /// Every share's owned values given to the others.
    pub(super) fn share_values(&mut self) -> Result<(), CudaError> {
        let Some(link) = self.share.as_mut() else { return Ok(()) };
        let ranges = value_bytes(link.ranges, std::mem::size_of::<P::Value>());
        let buffer = self.now.device_ptr(&self.stream).0;
        // SAFETY: `now` holds n values, which every range lies within; nothing else touches it meanwhile.
        unsafe { link.exchange.share_ranges(buffer, &ranges) }
    }

    /// Every share's values changed by the step, given to the others: those of the vertices it reached
    /// (`next[..reached]`, the only ones a step changes; select leaves the list as it was), as pairs
    /// when they are few (under a quarter of the bytes of every value), else every owned value. Also
    /// reduces whether a vertex waits in a later bucket on some share, which select leaves to it.
    pub(super) fn share_changed(&mut self, reached: u32) -> Result<(), CudaError> {
        let Some(link) = self.share.as_mut() else { return Ok(()) };
        self.stats.exchanges.full += 1;
        let parts = link.ranges.len();
        let mut counts = vec![0u64; parts + 1];
        counts[link.exchange.part()] = u64::from(reached);
        counts[parts] = u64::from(self.pending_maybe);
        link.exchange.reduce(&mut counts, Reduce::SumU64)?;
        self.pending_maybe = counts[parts] > 0;
        link.packets_first = counts[..parts].iter().all(|&c| c <= u64::from(link.pairs.capacity));
        let size = std::mem::size_of::<P::Value>() as u64;
        let Some(plan) = PairPlan::for_counts(&counts[..parts], self.n, size) else {
            return self.share_values();
        };
        let (mine, pairs) = (plan.starts[link.exchange.part()] as usize, link.pairs);
        let ids = pairs.ids.slice(mine..mine + reached as usize);
        let values = pairs.values.slice(mine * size as usize..(mine + reached as usize) * size as usize);
        let cfg = self.shapes.per_thread(reached);
        launch_step!(self.stream, self.f.share_pack, cfg, &self.state, &*self.next, &reached, &ids, &values);
        let at = (pairs.ids.device_ptr(&self.stream).0, pairs.values.device_ptr(&self.stream).0);
        // SAFETY: the ranges lie within the first `total` pairs, which the buffers hold (room for n).
        unsafe {
            link.exchange.share_ranges(at.0, &plan.bytes(4))?;
            link.exchange.share_ranges(at.1, &plan.bytes(size))?;
        }
        let total = plan.total() as u32;
        let cfg = self.shapes.per_thread(total);
        launch_step!(self.stream, self.f.share_unpack, cfg, &self.state, &pairs.ids, &pairs.values, &total);
        Ok(())
    }

    /// The whole next frontier from every share's owned part of it: each marks its own in a bitmap
    /// (the workspace's `frontier_bits`, rebuilt before any pull that reads it), the shares trade
    /// their words, and each lists the bitmap's vertices as its frontier.
    pub(super) fn share_frontier(&mut self) -> Result<(), CudaError> {
        let Some(link) = self.share.as_mut() else { return Ok(()) };
        let ranges = word_bytes(link.ranges);
        let bits = &mut *self.frontier_bits;
        self.stream.memset_zeros(bits).map_err(driver("clearing the frontier bitmap"))?;
        let len = self.len;
        launch_step!(
            self.stream,
            self.f.share_mark,
            self.shapes.per_thread(len),
            &self.state,
            &*self.frontier,
            &len,
            &*bits
        );
        let buffer = bits.device_ptr(&self.stream).0;
        // SAFETY: the bitmap holds a bit per vertex, so every part's words; nothing else touches it.
        unsafe { link.exchange.share_ranges(buffer, &ranges) }?;
        let words = self.n.div_ceil(WORD_VERTICES);
        launch_step!(
            self.stream,
            self.f.share_collect,
            self.shapes.per_thread(words),
            &self.state,
            &*self.frontier_bits,
            &*self.frontier
        );
        self.len = read_counters(&self.stream, &mut *self.counters)?[NEXT_LEN] as u32;
        self.prepared = None;
        Ok(())
    }
}
