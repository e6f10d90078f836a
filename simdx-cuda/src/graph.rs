//! [`DeviceGraph`]: a graph's CSR arrays (and in-CSR for directed graphs, and weights) uploaded to the
//! GPU once and reused by every run on it.

use std::sync::OnceLock;

use cudarc::driver::CudaSlice;
use simdx_core::{Graph, Weights};

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

fn weight_bits(w: &Weights) -> (WeightKind, Vec<u32>) {
    match w {
        Weights::U32(v) => (WeightKind::U32, v.to_vec()),
        Weights::F32(v) => (WeightKind::F32, v.iter().map(|x| x.to_bits()).collect()),
    }
}

impl DeviceGraph {
    /// Uploads `graph` to `gpu`, after checking that its arrays fit in free memory.
    pub fn upload(gpu: &Gpu, graph: &Graph) -> Result<DeviceGraph, CudaError> {
        let n = graph.num_vertices();
        if n >= u32::MAX as usize {
            return Err(CudaError::TooLarge(format!(
                "the CUDA backend takes fewer than 2^32 - 1 vertices; this graph has {n}"
            )));
        }
        let csr_bytes = |c: &simdx_core::Csr| (c.offsets().len() * 8 + c.targets().len() * 4) as u64;
        let mut bytes = csr_bytes(graph.out_csr());
        if graph.is_directed() {
            bytes += csr_bytes(graph.in_csr());
        }
        if graph.out_csr().weights().is_some() {
            bytes += graph.num_arcs() * 4 * if graph.is_directed() { 2 } else { 1 };
        }
        gpu.check_free("the graph", bytes)?;
        let s = &gpu.stream;
        let up64 = |x: &[u64]| s.clone_htod(x).map_err(driver("uploading the graph"));
        let up32 = |x: &[u32]| s.clone_htod(x).map_err(driver("uploading the graph"));
        let out_offsets = up64(graph.out_csr().offsets())?;
        let out_targets = up32(graph.out_csr().targets())?;
        let incoming = if graph.is_directed() {
            Some((up64(graph.in_csr().offsets())?, up32(graph.in_csr().targets())?))
        } else {
            None
        };
        let weights = match graph.out_csr().weights() {
            Some(w) => {
                let (kind, bits) = weight_bits(w);
                let out = up32(&bits)?;
                let inw = match (graph.is_directed(), graph.in_csr().weights()) {
                    (true, Some(w)) => Some(up32(&weight_bits(w).1)?),
                    _ => None,
                };
                Some((kind, out, inw))
            }
            None => None,
        };
        Ok(DeviceGraph {
            gpu: gpu.clone(),
            num_vertices: n as u32,
            num_arcs: graph.num_arcs(),
            num_edges: graph.num_edges(),
            directed: graph.is_directed(),
            out_offsets,
            out_targets,
            incoming,
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
