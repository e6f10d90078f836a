//! A partitioned run's exchange of a step that changed few values, in one round: each share packs the
//! vertices it reached with their values, its part of the next frontier and whether a vertex of it
//! waits in a later bucket into a packet of fixed size, the shares trade their packets, and each
//! unpacks the others' into its values and frontier (kernels/shares.cu). Where a packet cannot hold
//! its share's changes, the step falls back to `share_changed` and `share_frontier` (module
//! `share_steps`): a reduction, the changed values, the frontier bitmap, each a round of its own.

use cudarc::driver::DevicePtr;
use simdx_core::acc::device::DeviceProgram;

use super::kernels::{launch_step, read_counters};
use super::run_state::HostRun;
use crate::device_structs::step::{NEXT_LEN, PACKETS_FULL, PENDING};
use crate::error::CudaError;
use crate::partitioned::plan::{packet_bytes, packet_ranges};

impl<P: DeviceProgram> HostRun<'_, P> {
    /// Trades the step's changes (its `reached` vertices in `next`, its selected part of the frontier
    /// and its waiting flag) as packets, unless the last step's did not fit in them; then this share
    /// holds every changed value and the whole next frontier. Whether it did: when not, nothing has
    /// changed, and the caller trades them the other way.
    pub(super) fn share_packets(&mut self, reached: u32) -> Result<bool, CudaError> {
        let Some(link) = self.share.as_mut() else { return Ok(true) };
        if !link.packets_first {
            return Ok(false);
        }
        let (parts, part, pairs) = (link.ranges.len(), link.exchange.part(), link.pairs);
        let (capacity, len, pending) = (pairs.capacity, self.len, u32::from(self.pending_maybe));
        let bytes = packet_bytes(capacity, std::mem::size_of::<P::Value>());
        let mine = pairs.packets.slice(part * bytes..(part + 1) * bytes);
        let cfg = self.shapes.per_thread(reached.max(len).min(capacity));
        let (frontier, next) = (&*self.frontier, &*self.next);
        launch_step!(
            self.stream,
            self.f.share_pack_packet,
            cfg,
            &self.state,
            next,
            &reached,
            frontier,
            &len,
            &pending,
            &capacity,
            &mine
        );
        let at = pairs.packets.device_ptr(&self.stream).0;
        // SAFETY: the buffer holds `parts` packets of `bytes` bytes (made for values of up to 8 bytes);
        // nothing else touches it meanwhile.
        unsafe { link.exchange.share_ranges(at, &packet_ranges(parts, bytes)) }?;
        let (parts, part, stride) = (parts as u32, part as u32, bytes as u64);
        let cfg = self.shapes.per_thread(capacity);
        launch_step!(
            self.stream,
            self.f.share_unpack_packets,
            cfg,
            &self.state,
            &pairs.packets,
            &parts,
            &part,
            &stride,
            &len,
            &*self.frontier
        );
        let c = read_counters(&self.stream, &mut *self.counters)?;
        if c[PACKETS_FULL] != 0 {
            return Ok(false);
        }
        self.len = c[NEXT_LEN] as u32;
        self.pending_maybe = c[PENDING] > 0;
        self.prepared = None;
        self.stats.exchanges.packets += 1;
        Ok(true)
    }
}
