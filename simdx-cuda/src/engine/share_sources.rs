//! A share's steps in a partitioned run of owned sources (`ShareLayout::ArcsOut`, docs/multi-gpu.md):
//! each share holds its own vertices' out-arcs and its own part of the frontier, so it snapshots,
//! classifies and pushes only its part. A push reaches any vertex; the vertices of other shares it
//! reached go to their owners with this share's values for them (a packet while they are few, pairs
//! otherwise: kernels/shares.cu), and each owner combines them into its values with the program's
//! combine, reaching those that improve as a push would. The programs combine in place by min or max,
//! so a share's copy of another's vertex is never better than the owner's value: a stale copy costs a
//! redundant update, never a wrong value. Every decision (a step, a settle step, the next bucket, the
//! end) is taken on counts reduced over the shares, so all take the same steps and meet at the same
//! exchanges. Steps from the frontier push; a settle step of a program without a `source_value` pulls
//! when its sources hold many arcs (as on one GPU), after every share has given the others its settle
//! list with the values they send. The ballot filter leaves the touched flags to select, so that the
//! remote updates combined after it do not list a vertex twice.

use cudarc::driver::DevicePtr;
use simdx_core::acc::device::DeviceProgram;
use simdx_core::engine::Direction;

use super::kernels::{launch_step, read_counters};
use super::run_state::HostRun;
use super::steps::{Sources, Step};
use crate::device_structs::far::SETTLE_LEN;
use crate::device_structs::step::{EDGES, NEXT_LEN, OUT_EDGES, PACKETS_FULL};
use crate::device_structs::SxPacket;
use crate::error::{driver, CudaError};
use crate::partitioned::exchange::Reduce;
use crate::partitioned::plan::{packet_bytes, packet_ranges, PairPlan};

impl<P: DeviceProgram> HostRun<'_, P> {
    /// The steps of a share of owned sources, then every share's owned values given to the others, so
    /// that each ends with every value.
    pub(super) fn steps_from_owned(&mut self) -> Result<(), CudaError> {
        while let Some(sources) = self.next_step_from_owned()? {
            let step = self.prepare(sources)?;
            match step.direction {
                Direction::Push => self.push(&step)?,
                Direction::Pull => {
                    self.share_settle_sources(&step)?;
                    self.pull(&step)?;
                }
            }
            let counters = self.relaxed(&step)?;
            let (reached, filter) = self.filter(&counters)?;
            let reached = self.trade_remote(reached)?;
            if self.record(&step, filter, counters[EDGES], 0.0) {
                break;
            }
            self.select(reached)?;
        }
        self.stats.exchanges.whole += 1;
        self.share_values()
    }

    /// What every share takes next: a step from the frontier while some share has one, else a settle
    /// step while some share owes deferred arcs (this share's settle list may be empty), else the
    /// lowest bucket still waiting on some share becomes current and the question is asked again;
    /// `None` when nothing waits anywhere or the run has taken its steps.
    fn next_step_from_owned(&mut self) -> Result<Option<Sources>, CudaError> {
        loop {
            if self.capped() {
                return Ok(None);
            }
            let (mut owed, mut waiting, mut lowest) = (0, 0, u64::MAX);
            if self.len == 0 {
                let lists = self.stream.clone_dtoh(&*self.far_len).map_err(driver("reading the waiting lists"))?;
                let current = self.fcur as usize;
                (owed, waiting, lowest) = (lists[SETTLE_LEN], lists[current], lists[2 + current]);
            }
            // "None" is u64::MAX in each place, so that one least-value reduction answers all three.
            let mut some = [u64::MAX - u64::from(self.len), u64::MAX - owed, lowest];
            self.over_shares(&mut some, Reduce::MinU64)?;
            if some[0] != u64::MAX {
                return Ok(Some(Sources::Frontier));
            }
            self.prepared = None;
            if some[1] != u64::MAX {
                return Ok(Some(Sources::Settle(owed as u32)));
            }
            if some[2] == u64::MAX {
                return Ok(None);
            }
            self.take_bucket(some[2] as u32, waiting)?;
        }
    }

    /// Before a settle step: in a run of owned sources, the settle lists' lengths (each share's in
    /// `counts`, kept for [`HostRun::share_settle_sources`]) and out-edges reduced over the shares, so
    /// that every share takes the step in the same direction; the sum replaces this share's
    /// out-edges in `c`. Nothing in other runs.
    pub(super) fn settle_over_shares(&mut self, owed: u32, c: &mut [u64]) -> Result<(), CudaError> {
        let Some(link) = self.share.as_mut().filter(|link| link.from_owned) else { return Ok(()) };
        let (parts, part) = (link.ranges.len(), link.exchange.part());
        let mut counts = vec![0u64; parts + 1];
        (counts[part], counts[parts]) = (u64::from(owed), c[OUT_EDGES]);
        link.exchange.reduce(&mut counts, Reduce::SumU64)?;
        c[OUT_EDGES] = counts.pop().expect("parts + 1 counts");
        self.settle_counts = counts;
        Ok(())
    }

    /// Before a settle step that pulls, in a run of owned sources: every share's settle list with its
    /// vertices' values as they last sent them (`seen`), given to the others as pairs, which each
    /// stamps as the pull's sources. The pull then finds every source on every share.
    fn share_settle_sources(&mut self, step: &Step) -> Result<(), CudaError> {
        let Some(link) = self.share.as_mut() else { return Ok(()) };
        let (part, pairs) = (link.exchange.part(), link.pairs);
        let plan = PairPlan::placed(&self.settle_counts);
        let size = std::mem::size_of::<P::Value>();
        let (mine, count) = (plan.starts[part] as usize, plan.counts[part] as usize);
        let ids = pairs.ids.slice(mine..mine + count);
        let values = pairs.values.slice(mine * size..(mine + count) * size);
        let owed = count as u32;
        launch_step!(
            self.stream,
            self.f.share_pack_settle,
            self.shapes.per_thread(owed),
            &self.state,
            &owed,
            &ids,
            &values
        );
        let at = (pairs.ids.device_ptr(&self.stream).0, pairs.values.device_ptr(&self.stream).0);
        // SAFETY: the settle lists are of disjoint owned vertices, so their pairs (at most n) fit the
        // buffers (room for n at least); nothing else touches them meanwhile.
        unsafe {
            link.exchange.share_ranges(at.0, &plan.bytes(4))?;
            link.exchange.share_ranges(at.1, &plan.bytes(size as u64))?;
        }
        let total = plan.total() as u32;
        let (ids, values) = (&pairs.ids, &pairs.values);
        let cfg = self.shapes.per_thread(total);
        launch_step!(self.stream, self.f.share_unpack_settle, cfg, &self.state, ids, values, &total, &step.stamp);
        Ok(())
    }

    /// The step's updates of other shares' vertices (among its `reached` vertices in `next`) sent to
    /// their owners, and theirs combined here: returns the reached vertices in `next` now, those the
    /// others' updates improved appended. One round of packets; when some share's did not hold its
    /// updates, their counts (in every packet's head) place them as pairs, traded in two more.
    fn trade_remote(&mut self, reached: u32) -> Result<u32, CudaError> {
        let Some(link) = self.share.as_mut() else { return Ok(reached) };
        let (parts, part, pairs) = (link.ranges.len(), link.exchange.part(), link.pairs);
        let capacity = pairs.capacity;
        let bytes = packet_bytes(capacity, std::mem::size_of::<P::Value>());
        let at = pairs.packets.device_ptr(&self.stream).0;
        let head = std::mem::size_of::<SxPacket>();
        // SAFETY: this share's packet's head lies within the buffer of `parts` packets of `bytes` bytes;
        // the memset is ordered on the stream before the kernel that counts into it.
        unsafe {
            cudarc::driver::result::memset_d8_async(at + (part * bytes) as u64, 0, head, self.stream.cu_stream())
        }
        .map_err(driver("clearing a packet's head"))?;
        let mine = pairs.packets.slice(part * bytes..(part + 1) * bytes);
        let (list, cfg) = (&*self.next, self.shapes.per_thread(reached));
        launch_step!(self.stream, self.f.share_pack_remote, cfg, &self.state, list, &reached, &capacity, &mine);
        // SAFETY: the buffer holds `parts` packets of `bytes` bytes; nothing else touches it meanwhile.
        unsafe { link.exchange.share_ranges(at, &packet_ranges(parts, bytes)) }?;
        let (count, index, stride) = (parts as u32, part as u32, bytes as u64);
        let cfg = self.shapes.per_thread(capacity);
        let (packets, next) = (&pairs.packets, &*self.next);
        launch_step!(
            self.stream,
            self.f.share_combine_packets,
            cfg,
            &self.state,
            packets,
            &count,
            &index,
            &stride,
            next,
            &reached
        );
        let c = read_counters(&self.stream, &mut *self.counters)?;
        if c[PACKETS_FULL] == 0 {
            self.stats.exchanges.packets += 1;
            return Ok(reached + c[NEXT_LEN] as u32);
        }
        self.stats.exchanges.full += 1;
        let counts = (0..parts)
            .map(|q| {
                let head = self.stream.clone_dtoh(&pairs.packets.slice(q * bytes..q * bytes + 4));
                head.map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
            })
            .collect::<Result<Vec<u64>, _>>()
            .map_err(driver("reading the packets' counts"))?;
        self.trade_remote_pairs(reached, &counts)
    }

    /// [`HostRun::trade_remote`] as pairs: each share's updates of others' vertices (`counts[p]` for
    /// share `p`) packed after those of the shares before it, traded, and combined by their owners.
    fn trade_remote_pairs(&mut self, reached: u32, counts: &[u64]) -> Result<u32, CudaError> {
        let Some(link) = self.share.as_mut() else { return Ok(reached) };
        let (part, pairs) = (link.exchange.part(), link.pairs);
        let plan = PairPlan::placed(counts);
        if plan.total() > pairs.room() {
            return Err(CudaError::TooLarge(format!(
                "a step's {} updates of other shares' vertices exceed the room for {} pairs",
                plan.total(),
                pairs.room()
            )));
        }
        let size = std::mem::size_of::<P::Value>();
        let (mine, count) = (plan.starts[part] as usize, counts[part] as usize);
        let ids = pairs.ids.slice(mine..mine + count);
        let values = pairs.values.slice(mine * size..(mine + count) * size);
        let (list, cfg) = (&*self.next, self.shapes.per_thread(reached));
        launch_step!(self.stream, self.f.share_pack_remote_pairs, cfg, &self.state, list, &reached, &ids, &values);
        // The packing counted its pairs where the combining counts the vertices it appends.
        self.stream.memset_zeros(&mut *self.counters).map_err(driver("resetting counters"))?;
        let at = (pairs.ids.device_ptr(&self.stream).0, pairs.values.device_ptr(&self.stream).0);
        // SAFETY: the ranges lie within the first `total` pairs, which the buffers hold (checked above).
        unsafe {
            link.exchange.share_ranges(at.0, &plan.bytes(4))?;
            link.exchange.share_ranges(at.1, &plan.bytes(size as u64))?;
        }
        let total = plan.total() as u32;
        let (cfg, next) = (self.shapes.per_thread(total), &*self.next);
        let (ids, values) = (&pairs.ids, &pairs.values);
        launch_step!(self.stream, self.f.share_combine_pairs, cfg, &self.state, ids, values, &total, next, &reached);
        Ok(reached + read_counters(&self.stream, &mut *self.counters)?[NEXT_LEN] as u32)
    }
}
