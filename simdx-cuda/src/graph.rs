//! [`DeviceGraph`]: a graph's CSR arrays (and in-CSR for directed graphs, and weights) uploaded to the
//! GPU once and reused by every run on it.

use std::sync::OnceLock;

use cudarc::driver::CudaSlice;
use simdx_core::{Csr, Graph, Weights};

use crate::error::{driver, CudaError};
use crate::gpu::Gpu;

/// A graph on the device.
pub struct DeviceGraph {
    pub(crate) gpu: Gpu,
    pub(crate) num_vertices: u32,
    pub(crate) num_arcs: u64,
    pub(crate) num_edges: u64,
    pub(crate) directed: bool,
    pub(crate) out_offsets: CudaSlice<u64>,
    pub(crate) out_targets: CudaSlice<u32>,
    /// In-CSR of a directed graph (an undirected graph's in-arcs are its out-arcs).
    pub(crate) incoming: Option<(CudaSlice<u64>, CudaSlice<u32>)>,
    /// The graph's own weights as 32-bit words (u32 or f32 bits), out- and in-arcs.
    pub(crate) weights: Option<(WeightKind, CudaSlice<u32>, Option<CudaSlice<u32>>)>,
    /// Integer weights converted to f32 for programs that read f32 weights, made on first use.
    pub(crate) weights_as_f32: OnceLock<(CudaSlice<u32>, Option<CudaSlice<u32>>)>,
    /// The out-arcs in order of weight, for programs whose update grows with the weight, made on first
    /// use.
    pub(crate) weight_sorted: OnceLock<crate::sorted_arcs::SortedArcs>,
    /// The arrays runs work in, made by the first run and reused by later ones.
    pub(crate) workspace: std::sync::Mutex<Option<crate::workspace::Workspace>>,
    /// The buffers of many searches at once, made by the first multi-source traversal.
    pub(crate) multi_source: std::sync::Mutex<Option<crate::search_buffers::MultiSourceBuffers>>,
    /// The buffers of Brandes' dependency sweeps, made by the first call.
    pub(crate) dependencies: std::sync::Mutex<Option<crate::search_buffers::DependencyBuffers>>,
    /// The buffers of triangle counting and Jaccard similarity, made by the first call.
    pub(crate) intersect: std::sync::Mutex<Option<crate::intersect::IntersectBuffers>>,
    /// The kernels and counters of the strongly connected components, made by the first call.
    pub(crate) strong: std::sync::Mutex<Option<crate::strong::StrongBuffers>>,
}

/// The type of a graph's stored weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WeightKind {
    U32,
    F32,
}

/// The device bytes of a CSR over `n` vertices holding `arcs` arcs (offsets, targets, and 32-bit
/// weights when `weighted`), as [`DeviceGraph`] uploads it.
pub(crate) fn csr_bytes(n: u64, arcs: u64, weighted: bool) -> u64 {
    (n + 1) * 8 + arcs * if weighted { 8 } else { 4 }
}

/// The in-arcs a [`DeviceGraph`] is uploaded with.
#[derive(Clone, Copy)]
enum Incoming<'a> {
    /// A directed graph's in-CSR.
    Arcs(&'a Csr),
    /// An in-CSR without arcs (every row empty): a share that only pushes.
    OffsetsOnly,
    /// None: an undirected graph's in-arcs are its out-arcs.
    SameAsOut,
}

fn weight_bits(w: &Weights) -> (WeightKind, Vec<u32>) {
    match w {
        Weights::U32(v) => (WeightKind::U32, v.to_vec()),
        Weights::F32(v) => (WeightKind::F32, v.iter().map(|x| x.to_bits()).collect()),
    }
}

impl DeviceGraph {
    /// Uploads `graph` to `gpu`, after checking that its arrays fit in free memory.
    pub fn upload(gpu: &Gpu, graph: &Graph) -> Result<DeviceGraph, CudaError> {
        Self::upload_arcs(gpu, graph, true)
    }

    /// Uploads a directed `graph`'s out-arcs to `gpu` and, in place of its in-arcs, an in-CSR without
    /// arcs (every row empty): a share of a partitioned graph that only pushes, in about half the
    /// memory. A pull over it would find no in-arcs, so runs on it must push
    /// (`PartitionedGraph::pushes_only`).
    pub(crate) fn upload_out_arcs(gpu: &Gpu, graph: &Graph) -> Result<DeviceGraph, CudaError> {
        Self::upload_arcs(gpu, graph, false)
    }

    /// The device bytes of `graph`'s arrays on a GPU: its out-arcs, its in-arcs if it is directed
    /// (none but the offsets when `in_arcs` does not hold), and their weights.
    pub fn bytes_needed(graph: &Graph, in_arcs: bool) -> u64 {
        let (n, arcs, weighted) = (graph.num_vertices() as u64, graph.num_arcs(), graph.is_weighted());
        let incoming = match (graph.is_directed(), in_arcs) {
            (true, true) => csr_bytes(n, arcs, weighted),
            (true, false) => csr_bytes(n, 1, weighted),
            (false, _) => 0,
        };
        csr_bytes(n, arcs, weighted) + incoming
    }

    fn upload_arcs(gpu: &Gpu, graph: &Graph, in_arcs: bool) -> Result<DeviceGraph, CudaError> {
        let incoming = match (graph.is_directed(), in_arcs) {
            (true, true) => Incoming::Arcs(graph.in_csr()),
            (true, false) => Incoming::OffsetsOnly,
            (false, _) => Incoming::SameAsOut,
        };
        gpu.check_free("the graph", Self::bytes_needed(graph, in_arcs))?;
        Self::upload_csrs(gpu, graph.out_csr(), incoming, graph.num_edges())
    }

    /// Uploads a share in the layout of owned sources (over every vertex, of a graph of `num_edges`
    /// edges): its out-rows `out` and, of a directed graph, its in-rows `in_rows` (an undirected
    /// graph's in-rows are its out-rows).
    pub(crate) fn upload_rows(
        gpu: &Gpu,
        out: &Csr,
        in_rows: Option<&Csr>,
        num_edges: u64,
    ) -> Result<DeviceGraph, CudaError> {
        let (n, weighted) = (out.num_vertices() as u64, out.weights().is_some());
        let incoming = in_rows.map_or(0, |r| csr_bytes(n, r.num_arcs(), weighted));
        gpu.check_free("a share of the graph", csr_bytes(n, out.num_arcs(), weighted) + incoming)?;
        Self::upload_csrs(gpu, out, in_rows.map_or(Incoming::SameAsOut, Incoming::Arcs), num_edges)
    }

    /// Uploads the out-CSR `out` and the in-arcs as `incoming` says.
    fn upload_csrs(gpu: &Gpu, out: &Csr, incoming: Incoming, num_edges: u64) -> Result<DeviceGraph, CudaError> {
        let n = out.num_vertices();
        if n >= u32::MAX as usize {
            return Err(CudaError::TooLarge(format!(
                "the CUDA backend takes fewer than 2^32 - 1 vertices; this graph has {n}"
            )));
        }
        let s = &gpu.stream;
        let up64 = |x: &[u64]| s.clone_htod(x).map_err(driver("uploading the graph"));
        let up32 = |x: &[u32]| s.clone_htod(x).map_err(driver("uploading the graph"));
        let none64 = |len: usize| s.alloc_zeros::<u64>(len).map_err(driver("uploading the graph"));
        let none32 = || s.alloc_zeros::<u32>(1).map_err(driver("uploading the graph"));
        let out_offsets = up64(out.offsets())?;
        let out_targets = up32(out.targets())?;
        let arcs = match incoming {
            Incoming::Arcs(csr) => Some((up64(csr.offsets())?, up32(csr.targets())?)),
            Incoming::OffsetsOnly => Some((none64(n + 1)?, none32()?)),
            Incoming::SameAsOut => None,
        };
        let weights = match out.weights() {
            Some(w) => {
                let (kind, bits) = weight_bits(w);
                let out = up32(&bits)?;
                let inw = match incoming {
                    Incoming::Arcs(csr) => csr.weights().map(|w| up32(&weight_bits(w).1)).transpose()?,
                    Incoming::OffsetsOnly => Some(none32()?),
                    Incoming::SameAsOut => None,
                };
                Some((kind, out, inw))
            }
            None => None,
        };
        Ok(DeviceGraph {
            gpu: gpu.clone(),
            num_vertices: n as u32,
            num_arcs: out.num_arcs(),
            num_edges,
            directed: arcs.is_some(),
            out_offsets,
            out_targets,
            incoming: arcs,
            weights,
            weights_as_f32: OnceLock::new(),
            weight_sorted: OnceLock::new(),
            workspace: std::sync::Mutex::new(None),
            multi_source: std::sync::Mutex::new(None),
            dependencies: std::sync::Mutex::new(None),
            intersect: std::sync::Mutex::new(None),
            strong: std::sync::Mutex::new(None),
        })
    }

    /// Vertices.
    pub fn num_vertices(&self) -> u32 {
        self.num_vertices
    }

    /// Whether the graph is directed (its in-CSR was uploaded too).
    pub fn is_directed(&self) -> bool {
        self.directed
    }

    /// The GPU it lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }
}
