//! Many breadth-first searches at once on the GPU (kernels/multi_source.cu): a [`DeviceGraph`]'s
//! [`Searches`], so that the multi-search applications (all-sources levels, closeness, eccentricity)
//! run on the device as they run on the CPU (Brandes' sweeps for betweenness are in dependencies.rs).
//! Sources go in batches of [`LANES`], GroupBy orders them by the hubs a small kernel finds; each level is one round trip to the host, which reads the level's
//! counts (per search, and the next frontier's arcs) and picks the next level's direction by the CPU's
//! rule ([`pulls`]). The traversal's buffers are made by the first traversal of a graph and kept.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use rayon::prelude::*;
use simdx_core::engine::{Direction, FilterUsed, IterationStats};
use simdx_core::multi_source::{
    check_search_data, check_sources, grouped_order, pulls, Accumulated, MultiSourceError, MultiStats, Orientation,
    Searches, Summary, Traversal, LANES,
};
use simdx_core::VertexId;

use simdx_core::search_program::ErasedSearch;

use crate::device_structs::multi_source::{COUNTS, EDGES, FINISHED, LEN, OUT_ARCS};
use crate::device_structs::MsState;
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::graph::DeviceGraph;
use crate::launch::{launch_with_state, Kernels, BLOCK};
use crate::search_buffers::{multi_source_unit, MultiSourceBuffers};
/// A push whose frontier has more out-arcs than a quarter of the vertices lists nothing: the settle
/// step scans every vertex instead. A scan is cheaper than the list after a big push, but would cost
/// each of a grid's thousands of small levels more than its list (measurements:
/// `docs/experiments/many-sources.md`, "64 searches on the GPU").
const SCAN_FROM_ARCS_PER_VERTEX: u64 = 4;

impl Searches for DeviceGraph {
    fn num_vertices(&self) -> usize {
        self.num_vertices as usize
    }

    fn is_directed(&self) -> bool {
        self.directed
    }

    fn dependency_sums(&self, sources: &[VertexId]) -> Result<(Vec<f64>, MultiStats), MultiSourceError> {
        self.sum_dependencies(sources)
    }

    fn summaries(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<Summary>, MultiStats), MultiSourceError> {
        let (found, stats) = self.traverse(sources, how, None, None)?;
        Ok((found.into_iter().map(|(summary, _)| summary).collect(), stats))
    }

    fn levels(&self, sources: &[VertexId], how: Traversal) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
        // Every entry is written (each search runs in one batch, which writes every vertex's row); the
        // pages are touched by every thread rather than by the copy from the device.
        let mut levels: Vec<u32> = (0..self.num_vertices as usize * sources.len()).into_par_iter().map(|_| 0).collect();
        let (_, stats) = self.traverse(sources, how, Some(&mut levels), None)?;
        Ok((levels, stats))
    }

    fn accumulate(
        &self,
        program: &dyn ErasedSearch,
        sources: &[VertexId],
        how: Traversal,
    ) -> Result<Accumulated, MultiSourceError> {
        check_search_data(program, self.num_vertices as usize)?;
        self.traverse(sources, how, None, Some(program))
    }
}

/// The device code of the traversal with `program` compiled in: what NVRTC compiles for
/// [`Searches::accumulate`] (and what the syntax test checks without a GPU).
pub fn search_source(program: &dyn ErasedSearch) -> String {
    multi_source_unit(&program.device_unit())
}

/// The device code of the traversal without a search program: what NVRTC compiles for the
/// traversals of [`Searches::summaries`] and [`Searches::levels`] (and what the syntax test checks
/// without a GPU).
pub fn traversal_source() -> String {
    multi_source_unit("")
}

/// A search program on the device: the traversal's kernels compiled behind its code, its parameters
/// and per-vertex arrays uploaded, its accumulators (a row of one per search of a batch for each block
/// of `ms_settle`, which owns it; the first row holds the batch's results after `ms_acc_reduce`).
struct Hook<'p> {
    program: &'p dyn ErasedSearch,
    kernels: Kernels,
    params: CudaSlice<u8>,
    /// Kept alive for the kernels, which read them through `params`.
    _arrays: Vec<CudaSlice<u8>>,
    acc: CudaSlice<u8>,
    /// Rows of `acc`: the blocks `ms_settle` runs on.
    rows: u32,
}

impl<'p> Hook<'p> {
    fn new(gpu: &Gpu, program: &'p dyn ErasedSearch, rows: u32) -> Result<Self, CudaError> {
        let (module, _) = gpu.compile(&search_source(program))?;
        let s = &gpu.stream;
        let what = "uploading the search program's per-vertex data";
        let arrays = program
            .vertex_arrays()
            .iter()
            .map(|a| s.clone_htod(if a.bytes.is_empty() { &[0u8][..] } else { a.bytes }).map_err(driver(what)))
            .collect::<Result<Vec<_>, _>>()?;
        let addresses: Vec<u64> = arrays.iter().map(|a| a.device_ptr(s).0).collect();
        let params =
            s.clone_htod(&program.device_params(&addresses)).map_err(driver("uploading the search program"))?;
        let size = rows as usize * LANES * program.acc_bytes();
        gpu.check_free("the search program's accumulators", size as u64)?;
        let acc = s.alloc_zeros::<u8>(size).map_err(driver("allocating accumulators"))?;
        Ok(Hook { program, kernels: Kernels::one(module), params, _arrays: arrays, acc, rows })
    }

    /// The first row's accumulators (after `ms_acc_reduce`: the batch's) of the first `count`
    /// searches, as words.
    fn read(&self, stream: &Arc<CudaStream>, count: usize) -> Result<Vec<u64>, CudaError> {
        let bytes = self.program.acc_bytes();
        let got = stream.clone_dtoh(&self.acc.slice(..LANES * bytes)).map_err(driver("reading accumulators"))?;
        Ok(got
            .chunks(bytes)
            .take(count)
            .map(|c| {
                let mut word = [0u8; 8];
                word[..bytes].copy_from_slice(c);
                u64::from_le_bytes(word)
            })
            .collect())
    }
}

impl DeviceGraph {
    /// Runs the searches from `sources`, with `program` when given; writes their levels into `levels`
    /// (row-major, as [`Searches::levels`]) when given. Each search's summary and accumulator (0
    /// without a program).
    fn traverse(
        &self,
        sources: &[VertexId],
        how: Traversal,
        levels: Option<&mut [u32]>,
        program: Option<&dyn ErasedSearch>,
    ) -> Result<Accumulated, MultiSourceError> {
        check_sources(sources, self.num_vertices as usize)?;
        let device = |e: CudaError| MultiSourceError::Device(e.to_string());
        let mut slot = self.multi_source.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none() {
            *slot = Some(MultiSourceBuffers::new(&self.gpu, self.num_vertices).map_err(device)?);
        }
        let buffers = slot.as_mut().expect("made above");
        let hook = program.map(|p| Hook::new(&self.gpu, p, settle_blocks(&self.gpu))).transpose().map_err(device)?;
        Traversing { graph: self, buffers, how, hook }.run(sources, levels).map_err(device)
    }
}

/// Launches kernel `$name` of `$t`'s buffers on `$blocks` blocks, with the state and the arguments.
macro_rules! launch {
    ($t:expr, $name:expr, $blocks:expr $(, $arg:expr)*) => {{
        let (stream, what) = ($t.graph.gpu.stream.clone(), "launching a multi-source kernel");
        let kernels = $t.hook.as_ref().map_or(&$t.buffers.kernels, |h| &h.kernels);
        launch_with_state!(kernels, stream, &$t.buffers.state, what, $name, $blocks $(, $arg)*);
    }};
}

/// One traversal in progress.
struct Traversing<'a> {
    graph: &'a DeviceGraph,
    buffers: &'a mut MultiSourceBuffers,
    how: Traversal,
    /// The search program, when one runs.
    hook: Option<Hook<'a>>,
}

impl Traversing<'_> {
    fn stream(&self) -> &Arc<CudaStream> {
        &self.graph.gpu.stream
    }

    /// The orientation's forward and backward CSR (offsets, targets).
    fn arcs(&self) -> [(&CudaSlice<u64>, &CudaSlice<u32>); 2] {
        let g = self.graph;
        let out = (&g.out_offsets, &g.out_targets);
        let inc = g.incoming.as_ref().map_or(out, |(o, t)| (o, t));
        match self.how.orientation {
            Orientation::Out => [out, inc],
            Orientation::In => [inc, out],
        }
    }

    fn run(mut self, sources: &[VertexId], mut levels: Option<&mut [u32]>) -> Result<Accumulated, CudaError> {
        let start = Instant::now();
        let order =
            if self.how.group_by { grouped_order(&self.hubs(sources)?, sources) } else { (0..sources.len()).collect() };
        let width = sources.len().min(LANES);
        let n = self.graph.num_vertices as usize;
        let mut batch_levels = match levels {
            Some(_) => {
                self.graph.gpu.check_free("the levels of a batch of searches", (n * width * 4) as u64)?;
                Some(self.stream().alloc_zeros::<u32>((n * width).max(1)).map_err(driver("allocating levels"))?)
            }
            None => None,
        };
        let mut stats = MultiStats::default();
        let mut summaries = vec![None; sources.len()];
        for (b, searches) in order.chunks(LANES).enumerate() {
            let batch: Vec<VertexId> = searches.iter().map(|&i| sources[i]).collect();
            let found = self.batch(&batch, b as u32, width, batch_levels.as_mut(), &mut stats)?;
            for (&i, found) in searches.iter().zip(found) {
                summaries[i] = Some(found);
            }
            if let (Some(device), Some(levels)) = (&batch_levels, levels.as_deref_mut()) {
                if searches.len() == sources.len() && searches.iter().enumerate().all(|(lane, &i)| lane == i) {
                    // One batch in the order given: the device's rows are the matrix's.
                    self.stream().memcpy_dtoh(device, levels).map_err(driver("reading levels"))?;
                    levels.par_iter_mut().for_each(|x| *x = x.wrapping_sub(1));
                } else {
                    let got = self.stream().clone_dtoh(device).map_err(driver("reading levels"))?;
                    scatter(&got, width, searches, sources.len(), levels);
                }
            }
            stats.batches += 1;
        }
        stats.time = start.elapsed();
        Ok((summaries.into_iter().map(|s| s.expect("every search ran in a batch")).collect(), stats))
    }

    /// Each source's neighbour of highest degree (GroupBy's key), found on the device.
    fn hubs(&mut self, sources: &[VertexId]) -> Result<Vec<VertexId>, CudaError> {
        let mut hubs = Vec::with_capacity(sources.len());
        self.write_state(0, 0, 0)?;
        for chunk in sources.chunks(LANES) {
            self.graph.gpu.stream.memcpy_htod(chunk, &mut self.buffers.batch).map_err(driver("uploading sources"))?;
            let count = chunk.len() as u32;
            launch!(self, "ms_hubs", 1, &self.buffers.batch, &count);
            let got = self.stream().clone_dtoh(&self.buffers.batch).map_err(driver("reading hubs"))?;
            hubs.extend_from_slice(&got[..chunk.len()]);
        }
        Ok(hubs)
    }

    /// Uploads the kernels' `ms_state` for a batch of `count` searches writing `width` levels per
    /// vertex at device address `levels` (0: none).
    fn write_state(&mut self, count: usize, width: usize, levels: u64) -> Result<(), CudaError> {
        let stream = self.stream().clone();
        let [(fo, ft), (bo, bt)] = self.arcs();
        let (b, g) = (&self.buffers, self.graph);
        let state = MsState {
            fwd_off: fo.device_ptr(&stream).0,
            fwd_tgt: ft.device_ptr(&stream).0,
            bwd_off: bo.device_ptr(&stream).0,
            bwd_tgt: bt.device_ptr(&stream).0,
            seen: b.seen.device_ptr(&stream).0,
            frontier: b.frontier.device_ptr(&stream).0,
            next: b.next.device_ptr(&stream).0,
            reached: b.reached.device_ptr(&stream).0,
            queue: [b.queues[0].device_ptr(&stream).0, b.queues[1].device_ptr(&stream).0],
            ctr: b.counters.device_ptr(&stream).0,
            levels,
            n: u64::from(self.graph.num_vertices),
            width: width as u64,
            all: if count >= LANES { u64::MAX } else { (1u64 << count) - 1 },
            chunk_end: b.chunk_end.device_ptr(&stream).0,
            params: self.hook.as_ref().map_or(0, |h| h.params.device_ptr(&stream).0),
            acc: self.hook.as_ref().map_or(0, |h| h.acc.device_ptr(&stream).0),
            out_off: g.out_offsets.device_ptr(&stream).0,
            in_off: g.incoming.as_ref().map_or(&g.out_offsets, |(o, _)| o).device_ptr(&stream).0,
        };
        stream.memcpy_htod(&[state], &mut self.buffers.state).map_err(driver("uploading the traversal's state"))
    }

    /// Reads the counters and zeroes them.
    fn counters(&mut self) -> Result<Vec<u64>, CudaError> {
        let stream = self.stream().clone();
        let c = stream.clone_dtoh(&self.buffers.counters).map_err(driver("reading counters"))?;
        stream.memset_zeros(&mut self.buffers.counters).map_err(driver("resetting counters"))?;
        Ok(c)
    }

    /// Runs one batch's searches to the end (or the program's last level); their summaries and
    /// accumulators (in the batch's order).
    fn batch(
        &mut self,
        batch: &[VertexId],
        index: u32,
        width: usize,
        levels: Option<&mut CudaSlice<u32>>,
        stats: &mut MultiStats,
    ) -> Result<Vec<(Summary, u64)>, CudaError> {
        let stream = self.stream().clone();
        let b = &mut self.buffers;
        for words in [&mut b.seen, &mut b.frontier, &mut b.next, &mut b.counters] {
            stream.memset_zeros(words).map_err(driver("clearing the traversal's words"))?;
        }
        let levels_ptr = match levels {
            Some(l) => {
                stream.memset_zeros(l).map_err(driver("clearing levels"))?;
                l.device_ptr(&stream).0
            }
            None => 0,
        };
        self.write_state(batch.len(), width, levels_ptr)?;
        let (n, arcs, fill) = (self.graph.num_vertices, self.graph.num_arcs, settle_blocks(&self.graph.gpu));
        if let Some(rows) = self.hook.as_ref().map(|h| h.rows) {
            launch!(self, "ms_acc_reset", (rows * LANES as u32).div_ceil(BLOCK), &rows);
        }
        let max_level = self.hook.as_ref().map_or(u32::MAX, |h| h.program.max_level());
        stream.memcpy_htod(batch, &mut self.buffers.batch).map_err(driver("uploading sources"))?;
        let (count, mut cur) = (batch.len() as u32, 0u32);
        launch!(self, "ms_start", 1, &self.buffers.batch, &count, &cur);
        let mut c = self.counters()?;
        let mut summaries: Vec<Summary> = batch.iter().map(|&source| Summary::start(source)).collect();
        let (mut level, mut finished) = (0u32, 0u64);
        loop {
            let lens = [c[LEN] as u32, c[LEN + 1] as u32, c[LEN + 2] as u32];
            let frontier: u64 = lens.iter().map(|&l| u64::from(l)).sum();
            if frontier == 0 || level >= max_level {
                break;
            }
            let began = Instant::now();
            level += 1;
            let out_arcs = c[OUT_ARCS];
            let pull = pulls(self.how.direction, out_arcs, arcs, finished);
            let scan = !pull && out_arcs > u64::from(n) / SCAN_FROM_ARCS_PER_VERTEX;
            let list = u32::from(!scan);
            if pull {
                launch!(self, "ms_pull", n.div_ceil(BLOCK).min(fill));
            } else {
                if lens[0] > 0 {
                    launch!(self, "ms_push_thread", lens[0].div_ceil(BLOCK).min(fill), &cur, &lens[0], &list);
                }
                if lens[1] > 0 {
                    launch!(self, "ms_push_warp", lens[1].div_ceil(BLOCK / 32).min(fill), &cur, &lens[1], &list);
                }
                if lens[2] > 0 {
                    launch!(self, "ms_chunks", 1, &cur, &lens[2]);
                    launch!(self, "ms_push_block", fill, &cur, &lens[2], &list);
                }
            }
            let total = lens.iter().sum::<u32>();
            launch!(self, "ms_clear", total.div_ceil(BLOCK).min(fill), &cur, &lens[0], &lens[1], &lens[2]);
            cur ^= 1;
            let scan = u32::from(scan);
            launch!(self, "ms_settle", fill, &cur, &level, &scan);
            c = self.counters()?;
            for (summary, &count) in summaries.iter_mut().zip(&c[COUNTS..]) {
                summary.add_level(count, level);
            }
            finished += c[FINISHED];
            stats.levels.push(IterationStats {
                direction: if pull { Direction::Pull } else { Direction::Push },
                filter: FilterUsed::Online,
                frontier,
                edges: if pull { c[EDGES] } else { out_arcs },
                bucket: index,
                time: began.elapsed(),
            });
        }
        let acc = match self.hook.as_ref().map(|h| h.rows) {
            Some(rows) => {
                launch!(self, "ms_acc_reduce", 1, &rows);
                self.hook.as_ref().expect("a hook").read(&stream, batch.len())?
            }
            None => vec![0; batch.len()],
        };
        Ok(summaries.into_iter().zip(acc).collect())
    }
}

/// The blocks of the kernels that walk every vertex or every reached one (`ms_pull`, `ms_settle`, ...):
/// 8 per multiprocessor.
fn settle_blocks(gpu: &Gpu) -> u32 {
    gpu.sm_count * 8
}

/// Copies a batch's levels (`width` per vertex, level + 1, 0 where unreached) into the columns
/// `searches` of the row-major matrix `levels` of `k` columns.
fn scatter(batch: &[u32], width: usize, searches: &[usize], k: usize, levels: &mut [u32]) {
    levels.par_chunks_mut(k).zip(batch.par_chunks(width)).for_each(|(row, got)| {
        for (lane, &search) in searches.iter().enumerate() {
            row[search] = got[lane].wrapping_sub(1);
        }
    });
}
