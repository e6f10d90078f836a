//! Triangle counting and Jaccard similarity on the GPU (kernels/intersect.cu): a [`DeviceGraph`]'s
//! [`Intersections`], so that `tc`, `triangles` and `jaccard` run on the device with the CPU's results
//! (simdx-core/src/intersect.rs): counts exactly, coefficients bit for bit.
//!
//! Each triangle call orients the graph on the device (each edge once, from its end of lower
//! (degree, id) rank, as the CPU's `Oriented`: a count per vertex, a scan, a fill), then intersects the
//! two oriented lists of every kept arc; Jaccard intersects the whole lists of each given pair. The
//! orientation is made anew by each call, as the CPU makes it, so that both sides time the same work;
//! the kernels, counters and the list of big items are made by the first call and kept. Every
//! allocation is checked against the free memory and `--device-memory-limit` before it is made.

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use rayon::prelude::*;
use simdx_core::intersect::{IntersectError, Intersections};
use simdx_core::VertexId;

use crate::device_structs::{self, intersect, IxState};
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::graph::DeviceGraph;
use crate::launch::{launch_with_state, Kernels};

/// The edge computations' kernels (CUDA C), compiled behind [`device_structs::intersect_header`].
const INTERSECT_KERNELS: &str = include_str!("kernels/intersect.cu");
/// Items a call may list for a block each (`ix_big`); past them a warp takes a big item.
const BIG_CAPACITY: usize = 1 << 20;
/// Vertices per tile of the orientation's scan: 8 counts for each of a block's threads
/// (`IX_PER_THREAD` times the block).
const SCAN_TILE: u64 = 8 * crate::launch::BLOCK as u64;

/// The device code of the edge computations: what NVRTC compiles (and what the syntax test checks
/// without a GPU).
pub fn intersect_source() -> String {
    format!("{}\n{INTERSECT_KERNELS}", device_structs::intersect_header())
}

/// What a graph's edge computations keep between calls: the kernels, the counters, the state and the
/// list of big items.
pub(crate) struct IntersectBuffers {
    kernels: Kernels,
    ctr: CudaSlice<u64>,
    state: CudaSlice<IxState>,
    big: CudaSlice<u64>,
}

impl IntersectBuffers {
    fn new(gpu: &Gpu) -> Result<Self, CudaError> {
        gpu.check_free("the edge computations' buffers", (BIG_CAPACITY * 8 + intersect::WORDS * 8 + 128) as u64)?;
        let (module, _) = gpu.compile(&intersect_source())?;
        let s = &gpu.stream;
        let what = "allocating the edge computations' buffers";
        Ok(IntersectBuffers {
            kernels: Kernels::one(module),
            ctr: s.alloc_zeros::<u64>(intersect::WORDS).map_err(driver(what))?,
            state: s.alloc_zeros::<IxState>(1).map_err(driver(what))?,
            big: s.alloc_zeros::<u64>(BIG_CAPACITY).map_err(driver(what))?,
        })
    }
}

/// The orientation of a graph on the device: offsets (n + 1), and each kept arc's target and source.
struct Oriented {
    ooff: CudaSlice<u64>,
    otgt: CudaSlice<u32>,
    osrc: CudaSlice<u32>,
    arcs: u64,
}

/// The device address of `slice`, or 0 for none.
fn address<T>(slice: Option<&CudaSlice<T>>, stream: &std::sync::Arc<CudaStream>) -> u64 {
    slice.map_or(0, |s| s.device_ptr(stream).0)
}

/// One call's buffers beyond the graph and the kept ones, as the state names them.
#[derive(Default)]
struct Call<'a> {
    cnt: Option<&'a CudaSlice<u32>>,
    tiles: Option<&'a CudaSlice<u64>>,
    oriented: Option<&'a Oriented>,
    ooff: Option<&'a CudaSlice<u64>>,
    tri: Option<&'a CudaSlice<u64>>,
    pairs: Option<(&'a CudaSlice<u32>, u64)>,
    out: Option<&'a CudaSlice<f64>>,
}

/// Launches kernel `$name` of `$b`'s kernels on `$blocks` blocks, with the state and the arguments.
macro_rules! launch {
    ($g:expr, $b:expr, $name:expr, $blocks:expr $(, $arg:expr)*) => {{
        let stream = $g.gpu.stream.clone();
        launch_with_state!(&$b.kernels, stream, &$b.state, "launching an edge-computation kernel", $name, $blocks $(, $arg)*);
    }};
}

impl DeviceGraph {
    /// Runs `job` on the graph's edge-computation buffers (made by the first call), or refuses a
    /// directed graph; a device error becomes [`IntersectError::Device`].
    fn intersecting<T>(
        &self,
        job: impl FnOnce(&Self, &mut IntersectBuffers) -> Result<T, CudaError>,
    ) -> Result<T, IntersectError> {
        if self.directed {
            return Err(IntersectError::Directed);
        }
        let device = |e: CudaError| IntersectError::Device(e.to_string());
        self.gpu.bind().map_err(device)?;
        let mut slot = self.intersect.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none() {
            *slot = Some(IntersectBuffers::new(&self.gpu).map_err(device)?);
        }
        job(self, slot.as_mut().expect("made above")).map_err(device)
    }

    /// Uploads the state of a call with `call`'s buffers and zeroes the counters.
    fn write_ix_state(&self, b: &mut IntersectBuffers, call: &Call<'_>) -> Result<(), CudaError> {
        let stream = self.gpu.stream.clone();
        let ptr = |s: Option<&CudaSlice<u32>>| address(s, &stream);
        let ooff = call.oriented.map(|o| &o.ooff).or(call.ooff);
        let state = IxState {
            off: self.out_offsets.device_ptr(&stream).0,
            tgt: self.out_targets.device_ptr(&stream).0,
            ooff: address(ooff, &stream),
            otgt: ptr(call.oriented.map(|o| &o.otgt)),
            osrc: ptr(call.oriented.map(|o| &o.osrc)),
            cnt: ptr(call.cnt),
            tiles: address(call.tiles, &stream),
            tri: address(call.tri, &stream),
            pairs: ptr(call.pairs.map(|p| p.0)),
            out: address(call.out, &stream),
            big: b.big.device_ptr(&stream).0,
            ctr: b.ctr.device_ptr(&stream).0,
            n: u64::from(self.num_vertices),
            m: call.oriented.map_or(0, |o| o.arcs),
            k: call.pairs.map_or(0, |p| p.1),
            big_cap: BIG_CAPACITY as u64,
        };
        stream.memset_zeros(&mut b.ctr).map_err(driver("clearing the edge computations' counters"))?;
        stream.memcpy_htod(&[state], &mut b.state).map_err(driver("uploading the edge computations' state"))
    }

    /// Reads the counters.
    fn ix_counters(&self, b: &IntersectBuffers) -> Result<Vec<u64>, CudaError> {
        self.gpu.stream.clone_dtoh(&b.ctr).map_err(driver("reading the edge computations' counters"))
    }

    /// The blocks of the grid-striding kernels: 8 per multiprocessor.
    fn ix_blocks(&self) -> u32 {
        self.gpu.sm_count * 8
    }

    /// Orients the graph on the device: counts, scans, fills.
    fn orient(&self, b: &mut IntersectBuffers) -> Result<Oriented, CudaError> {
        let n = self.num_vertices as usize;
        let tiles = (n as u64).div_ceil(SCAN_TILE).max(1) as usize;
        self.gpu.check_free("the orientation's offsets", (n as u64 + 1) * 12 + tiles as u64 * 8)?;
        let s = &self.gpu.stream;
        let what = "allocating the orientation";
        let cnt = s.alloc_zeros::<u32>(n.max(1)).map_err(driver(what))?;
        let tile_sums = s.alloc_zeros::<u64>(tiles).map_err(driver(what))?;
        let ooff = s.alloc_zeros::<u64>(n + 1).map_err(driver(what))?;
        let call = Call { cnt: Some(&cnt), tiles: Some(&tile_sums), ooff: Some(&ooff), ..Call::default() };
        self.write_ix_state(b, &call)?;
        let (fill, blocks) = (0u32, self.ix_blocks());
        launch!(self, b, "ix_orient", blocks, &fill);
        launch!(self, b, "ix_scan_tiles", blocks);
        launch!(self, b, "ix_scan_sums", 1);
        launch!(self, b, "ix_scan_write", blocks);
        let arcs = self.ix_counters(b)?[intersect::ARCS];
        drop(tile_sums);
        self.gpu.check_free("the oriented arcs", arcs * 8)?;
        let otgt = s.alloc_zeros::<u32>((arcs as usize).max(1)).map_err(driver(what))?;
        let osrc = s.alloc_zeros::<u32>((arcs as usize).max(1)).map_err(driver(what))?;
        let oriented = Oriented { ooff, otgt, osrc, arcs };
        self.write_ix_state(b, &Call { cnt: Some(&cnt), oriented: Some(&oriented), ..Call::default() })?;
        let fill = 1u32;
        launch!(self, b, "ix_orient", blocks, &fill);
        Ok(oriented)
    }

    /// Runs the items (`jac` 0: the oriented arcs of `call`; 1: its pairs) and the listed big ones;
    /// the counters after them.
    fn run_items(&self, b: &mut IntersectBuffers, call: &Call<'_>, jac: u32) -> Result<Vec<u64>, CudaError> {
        self.write_ix_state(b, call)?;
        let blocks = self.ix_blocks();
        launch!(self, b, "ix_items", blocks, &jac);
        launch!(self, b, "ix_big", blocks, &jac);
        self.ix_counters(b)
    }

    /// The triangles, and with `per_vertex` each vertex's, on the device.
    fn count_triangles(&self, b: &mut IntersectBuffers, per_vertex: bool) -> Result<(u64, Vec<u64>), CudaError> {
        let n = self.num_vertices as usize;
        let oriented = self.orient(b)?;
        let tri = match per_vertex {
            true => {
                self.gpu.check_free("the triangles of each vertex", n as u64 * 8)?;
                Some(self.gpu.stream.alloc_zeros::<u64>(n.max(1)).map_err(driver("allocating triangle counts"))?)
            }
            false => None,
        };
        let call = Call { oriented: Some(&oriented), tri: tri.as_ref(), ..Call::default() };
        let total = self.run_items(b, &call, 0)?[intersect::TOTAL];
        let counts = match tri {
            Some(t) => {
                let mut got = self.gpu.stream.clone_dtoh(&t).map_err(driver("reading triangle counts"))?;
                got.truncate(n);
                got
            }
            None => Vec::new(),
        };
        Ok((total, counts))
    }

    /// The Jaccard coefficients of `pairs` (ids checked), on the device.
    fn jaccard_on_device(
        &self,
        b: &mut IntersectBuffers,
        pairs: &[(VertexId, VertexId)],
    ) -> Result<Vec<f64>, CudaError> {
        let k = pairs.len();
        self.gpu.check_free("the Jaccard pairs and coefficients", k as u64 * 16)?;
        let flat: Vec<u32> = pairs.par_iter().flat_map_iter(|&(u, v)| [u, v]).collect();
        let s = &self.gpu.stream;
        let ids = s.clone_htod(&flat).map_err(driver("uploading the Jaccard pairs"))?;
        let out = s.alloc_zeros::<f64>(k).map_err(driver("allocating the Jaccard coefficients"))?;
        let call = Call { pairs: Some((&ids, k as u64)), out: Some(&out), ..Call::default() };
        self.run_items(b, &call, 1)?;
        s.clone_dtoh(&out).map_err(driver("reading the Jaccard coefficients"))
    }
}

impl Intersections for DeviceGraph {
    fn triangle_count(&self) -> Result<u64, IntersectError> {
        self.intersecting(|g, b| Ok(g.count_triangles(b, false)?.0))
    }

    fn triangles_per_vertex(&self) -> Result<Vec<u64>, IntersectError> {
        self.intersecting(|g, b| Ok(g.count_triangles(b, true)?.1))
    }

    fn jaccard(&self, pairs: &[(VertexId, VertexId)]) -> Result<Vec<f64>, IntersectError> {
        let n = self.num_vertices as usize;
        if self.directed {
            return Err(IntersectError::Directed);
        }
        if let Some(&(u, v)) = pairs.iter().find(|&&(u, v)| u as usize >= n || v as usize >= n) {
            return Err(IntersectError::NoSuchVertex { u, v, vertices: n });
        }
        if pairs.is_empty() {
            return Ok(Vec::new());
        }
        self.intersecting(|g, b| g.jaccard_on_device(b, pairs))
    }
}
