//! Strongly connected components on the GPU (kernels/strong.cu): a [`DeviceGraph`]'s
//! [`StrongComponents`], so that `scc` runs on the device with the CPU's labels
//! (simdx-core/src/strong.rs): each component named by its smallest vertex id.
//!
//! The same Multistep method as the CPU's, in topology-driven rounds (a thread per vertex over the
//! whole graph, the host reading the counters after each round until nothing changed): trim the
//! vertices without an open in- or out-neighbour, then search forward and backward from the pivot
//! (the open vertex of largest in-degree x out-degree, chosen on the device) and place what both
//! searches reach, trim again, then colour what remains (the smallest id reaching each vertex, pushed
//! along out-arcs), search backward from the roots within their colours and place what that reaches,
//! until every vertex is placed. A directed graph's in-arcs are its in-CSR on the device; an
//! undirected graph's are its out-arcs (its components are then the connected components).
//!
//! The kernels, counters and state are made by the first call and kept; the per-vertex arrays
//! (component, colour, two search stamps: 16 bytes a vertex) are made by each call, after a check
//! against the free memory and `--device-memory-limit`.

use cudarc::driver::{CudaSlice, DevicePtr};
use simdx_core::strong::{SccError, SccStats, StrongComponents};
use simdx_core::VertexId;

use crate::device_structs::{self, strong, ScState};
use crate::error::{driver, CudaError};
use crate::gpu::Gpu;
use crate::graph::DeviceGraph;
use crate::launch::{launch_with_state, Kernels};

/// The strongly connected components' kernels (CUDA C), compiled behind
/// [`device_structs::strong_header`].
const STRONG_KERNELS: &str = include_str!("kernels/strong.cu");
/// The search that [`DeviceGraph::search`] runs: forward over out-arcs into open vertices.
const FORWARD: u32 = 0;
/// Backward over in-arcs into open vertices the forward search entered.
const BACKWARD: u32 = 1;
/// Backward over in-arcs into open vertices of the same colour.
const WITHIN_COLOUR: u32 = 2;

/// The device code of the strongly connected components: what NVRTC compiles (and what the syntax
/// test checks without a GPU).
pub fn strong_source() -> String {
    format!("{}\n{STRONG_KERNELS}", device_structs::strong_header())
}

/// What a graph's strongly connected components keep between calls: the kernels, the counters and
/// the state.
pub(crate) struct StrongBuffers {
    kernels: Kernels,
    ctr: CudaSlice<u64>,
    state: CudaSlice<ScState>,
    /// Rounds run since the last [`Phases::mark`] (for `SIMDX_PROFILE=1`).
    rounds: u32,
}

/// With `SIMDX_PROFILE=1`, what each phase of a call took: its rounds and time, printed at the end.
struct Phases {
    on: bool,
    since: std::time::Instant,
    lines: Vec<String>,
}

impl Phases {
    fn new() -> Phases {
        let on = crate::profiling();
        Phases { on, since: std::time::Instant::now(), lines: Vec::new() }
    }

    /// Records phase `name` as ending now, with the rounds `b` ran in it.
    fn mark(&mut self, name: &str, b: &mut StrongBuffers) {
        if self.on {
            let ms = self.since.elapsed().as_secs_f64() * 1e3;
            self.lines.push(format!("{name} {ms:.2} ms ({} rounds)", b.rounds));
            self.since = std::time::Instant::now();
        }
        b.rounds = 0;
    }

    fn print(&self) {
        if self.on {
            eprintln!("simdx profile: scc {}", self.lines.join(", "));
        }
    }
}

impl StrongBuffers {
    fn new(gpu: &Gpu) -> Result<Self, CudaError> {
        gpu.check_free("the strongly connected components' buffers", (strong::WORDS * 8 + 128) as u64)?;
        let (module, _) = gpu.compile(&strong_source())?;
        let s = &gpu.stream;
        let what = "allocating the strongly connected components' buffers";
        Ok(StrongBuffers {
            kernels: Kernels::one(module),
            ctr: s.alloc_zeros::<u64>(strong::WORDS).map_err(driver(what))?,
            state: s.alloc_zeros::<ScState>(1).map_err(driver(what))?,
            rounds: 0,
        })
    }
}

/// One call's per-vertex arrays.
struct Arrays {
    comp: CudaSlice<u32>,
    colour: CudaSlice<u32>,
    fw: CudaSlice<u32>,
    bw: CudaSlice<u32>,
}

/// Launches kernel `$name` of `$b`'s kernels on `$blocks` blocks, with the state and the arguments.
macro_rules! launch {
    ($g:expr, $b:expr, $name:expr $(, $arg:expr)*) => {{
        let stream = $g.gpu.stream.clone();
        let blocks = $g.sc_blocks();
        launch_with_state!(&$b.kernels, stream, &$b.state, "launching a strongly-connected-components kernel", $name, blocks $(, $arg)*);
    }};
}

impl DeviceGraph {
    /// The blocks of the grid-striding kernels: 8 per multiprocessor.
    fn sc_blocks(&self) -> u32 {
        self.gpu.sm_count * 8
    }

    /// Allocates a call's per-vertex arrays (every component open) and uploads the state naming them.
    fn sc_arrays(&self, b: &mut StrongBuffers) -> Result<Arrays, CudaError> {
        let n = (self.num_vertices as usize).max(1);
        self.gpu.check_free("the strongly connected components' arrays", n as u64 * 16)?;
        let s = self.gpu.stream.clone();
        let what = "allocating the strongly connected components' arrays";
        let comp = s.clone_htod(&vec![u32::MAX; n]).map_err(driver(what))?;
        let arrays = Arrays {
            comp,
            colour: s.alloc_zeros::<u32>(n).map_err(driver(what))?,
            fw: s.alloc_zeros::<u32>(n).map_err(driver(what))?,
            bw: s.alloc_zeros::<u32>(n).map_err(driver(what))?,
        };
        let (ioff, isrc) = match &self.incoming {
            Some((offsets, sources)) => (offsets.device_ptr(&s).0, sources.device_ptr(&s).0),
            None => (self.out_offsets.device_ptr(&s).0, self.out_targets.device_ptr(&s).0),
        };
        let state = ScState {
            off: self.out_offsets.device_ptr(&s).0,
            tgt: self.out_targets.device_ptr(&s).0,
            ioff,
            isrc,
            comp: arrays.comp.device_ptr(&s).0,
            colour: arrays.colour.device_ptr(&s).0,
            fw: arrays.fw.device_ptr(&s).0,
            bw: arrays.bw.device_ptr(&s).0,
            ctr: b.ctr.device_ptr(&s).0,
            n: u64::from(self.num_vertices),
        };
        s.memcpy_htod(&[state], &mut b.state).map_err(driver("uploading the strongly connected components' state"))?;
        Ok(arrays)
    }

    /// Clears the counters (SC_NAME to its largest value, for the min-reduction).
    fn sc_clear(&self, b: &mut StrongBuffers) -> Result<(), CudaError> {
        let mut words = [0u64; strong::WORDS];
        words[strong::NAME] = u64::MAX;
        self.gpu
            .stream
            .memcpy_htod(&words, &mut b.ctr)
            .map_err(driver("clearing the strongly connected components' counters"))
    }

    /// Reads the counters.
    fn sc_counters(&self, b: &StrongBuffers) -> Result<Vec<u64>, CudaError> {
        self.gpu.stream.clone_dtoh(&b.ctr).map_err(driver("reading the strongly connected components' counters"))
    }

    /// Runs `round(r)` for r = 1, 2, ... on cleared counters until a round changes nothing; returns the
    /// vertices the rounds placed.
    fn sc_rounds(
        &self,
        b: &mut StrongBuffers,
        mut round: impl FnMut(&Self, &mut StrongBuffers, u32) -> Result<(), CudaError>,
    ) -> Result<u64, CudaError> {
        let mut placed = 0;
        for r in 1u32.. {
            b.rounds += 1;
            self.sc_clear(b)?;
            round(self, b, r)?;
            let ctr = self.sc_counters(b)?;
            placed += ctr[strong::PLACED];
            if ctr[strong::CHANGED] == 0 {
                break;
            }
        }
        Ok(placed)
    }

    /// Trims until no open vertex is without an open in- or out-neighbour; the vertices placed.
    fn sc_trim(&self, b: &mut StrongBuffers) -> Result<u64, CudaError> {
        self.sc_rounds(b, |g, b, _| {
            launch!(g, b, "sc_trim");
            Ok(())
        })
    }

    /// Runs search `which` from the vertices entered at stamp 1 until it enters no more.
    fn search(&self, b: &mut StrongBuffers, which: u32) -> Result<(), CudaError> {
        self.sc_rounds(b, |g, b, r| {
            launch!(g, b, "sc_expand", &which, &r);
            Ok(())
        })?;
        Ok(())
    }

    /// Forward-backward from the pivot, if a vertex is open: places the pivot's component (named by
    /// its smallest id) and returns its size.
    fn sc_forward_backward(&self, b: &mut StrongBuffers, arrays: &mut Arrays) -> Result<Option<u64>, CudaError> {
        self.sc_clear(b)?;
        launch!(self, b, "sc_pivot");
        let packed = self.sc_counters(b)?[strong::PIVOT];
        if packed == 0 {
            return Ok(None);
        }
        let pivot = u32::MAX - (packed & u64::from(u32::MAX)) as u32;
        let s = self.gpu.stream.clone();
        let what = "clearing the strongly connected components' searches";
        s.memset_zeros(&mut arrays.fw).map_err(driver(what))?;
        s.memset_zeros(&mut arrays.bw).map_err(driver(what))?;
        launch!(self, b, "sc_seed", &pivot);
        self.search(b, FORWARD)?;
        self.search(b, BACKWARD)?;
        self.sc_clear(b)?;
        launch!(self, b, "sc_fb_name");
        launch!(self, b, "sc_fb_place");
        Ok(Some(self.sc_counters(b)?[strong::PLACED]))
    }

    /// One colouring round over the open vertices: colours pushed until they settle, then the roots'
    /// components found backwards within their colours and placed; the vertices placed.
    fn sc_colour_round(&self, b: &mut StrongBuffers) -> Result<u64, CudaError> {
        launch!(self, b, "sc_colour_init");
        self.sc_rounds(b, |g, b, r| {
            launch!(g, b, "sc_colour", &r);
            Ok(())
        })?;
        launch!(self, b, "sc_roots");
        self.search(b, WITHIN_COLOUR)?;
        self.sc_clear(b)?;
        launch!(self, b, "sc_colour_place");
        Ok(self.sc_counters(b)?[strong::PLACED])
    }

    /// The components and how they were found, on the device.
    fn strong_on_device(&self, b: &mut StrongBuffers) -> Result<(Vec<VertexId>, SccStats), CudaError> {
        let n = u64::from(self.num_vertices);
        if n == 0 {
            return Ok((Vec::new(), SccStats::default()));
        }
        let mut phases = Phases::new();
        let mut arrays = self.sc_arrays(b)?;
        phases.mark("arrays", b);
        let mut stats = SccStats { trimmed: self.sc_trim(b)?, ..SccStats::default() };
        phases.mark("trim", b);
        let mut placed = stats.trimmed;
        if let Some(size) = self.sc_forward_backward(b, &mut arrays)? {
            phases.mark("forward-backward", b);
            stats.pivot_component = size;
            let trimmed = self.sc_trim(b)?;
            phases.mark("trim", b);
            stats.trimmed += trimmed;
            placed += size + trimmed;
        }
        while placed < n {
            let found = self.sc_colour_round(b)?;
            phases.mark(&format!("colour ({found} placed)"), b);
            if found == 0 {
                let what = "colouring the strongly connected components";
                return Err(CudaError::Driver { what, message: "a colouring round placed no vertex".into() });
            }
            placed += found;
            stats.colour_rounds += 1;
        }
        let mut components = self.gpu.stream.clone_dtoh(&arrays.comp).map_err(driver("reading the components"))?;
        components.truncate(n as usize);
        phases.mark("read", b);
        phases.print();
        Ok((components, stats))
    }
}

impl StrongComponents for DeviceGraph {
    fn strong_components(&self) -> Result<(Vec<VertexId>, SccStats), SccError> {
        let device = |e: CudaError| SccError::Device(e.to_string());
        self.gpu.bind().map_err(device)?;
        let mut slot = self.strong.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if slot.is_none() {
            *slot = Some(StrongBuffers::new(&self.gpu).map_err(device)?);
        }
        self.strong_on_device(slot.as_mut().expect("made above")).map_err(device)
    }
}
