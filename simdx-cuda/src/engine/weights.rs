//! [`ProgramArcs`]: the arcs and weights a program reads on the device. The graph's own weights, or
//! its integer weights converted to f32 for a program that reads f32 (made on first use and kept with
//! the device graph), and for a program whose update grows with the weight the out-arcs in order of
//! weight ([`SortedArcs`], also kept with the graph).

use std::any::TypeId;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};
use simdx_core::acc::device::DeviceProgram;
use simdx_core::acc::Program;

use crate::error::{driver, CudaError};
use crate::graph::{DeviceGraph, WeightKind};
use crate::sorted_arcs::SortedArcs;

/// The weights a program reads on the device: out-arcs, in-arcs (`None`: uniform), uniform weight bits.
type ProgramWeights<'g> = (Option<&'g CudaSlice<u32>>, Option<&'g CudaSlice<u32>>, u32);

/// The arcs a program reads on the device, as the run state points to them.
pub(super) struct ProgramArcs<'g> {
    /// The out-CSR's offsets.
    pub(super) out_offsets: &'g CudaSlice<u64>,
    /// The out-arcs' targets (in order of weight for a program whose update grows with the weight).
    pub(super) out_targets: &'g CudaSlice<u32>,
    /// The out-arcs' weights in the same order (`None`: uniform).
    pub(super) out_weights: Option<&'g CudaSlice<u32>>,
    /// The in-CSR (an undirected graph's in-arcs are its out-arcs).
    pub(super) in_offsets: &'g CudaSlice<u64>,
    pub(super) in_targets: &'g CudaSlice<u32>,
    /// The in-arcs' weights (`None`: uniform).
    pub(super) in_weights: Option<&'g CudaSlice<u32>>,
    /// The uniform weight's bits.
    pub(super) uniform_bits: u32,
}

impl<'g> ProgramArcs<'g> {
    /// The arcs program `P` reads on `graph`; converts or sorts the graph's weights on first use.
    pub(super) fn of<P: DeviceProgram>(graph: &'g DeviceGraph) -> Result<ProgramArcs<'g>, CudaError> {
        let (out_w, in_w, uniform_bits) = weights::<P>(graph)?;
        let (out_targets, out_w) = match out_w {
            Some(w) if P::UPDATE_GROWS_WITH_WEIGHT => weight_sorted(graph, w)?,
            _ => (&graph.out_targets, out_w),
        };
        let (in_offsets, in_targets) = match &graph.incoming {
            Some((o, t)) => (o, t),
            None => (&graph.out_offsets, &graph.out_targets),
        };
        Ok(ProgramArcs {
            out_offsets: &graph.out_offsets,
            out_targets,
            out_weights: out_w,
            in_offsets,
            in_targets,
            in_weights: in_w,
            uniform_bits,
        })
    }
}

/// The out-arcs' targets and weights in order of weight ([`SortedArcs`]), for a program whose update
/// grows with the weight; `native` is the out-arcs' weights it reads in the graph's own order.
fn weight_sorted<'g>(
    graph: &'g DeviceGraph,
    native: &'g CudaSlice<u32>,
) -> Result<(&'g CudaSlice<u32>, Option<&'g CudaSlice<u32>>), CudaError> {
    let Some((kind, out, _)) = graph.weights.as_ref() else { return Ok((&graph.out_targets, Some(native))) };
    let sorted = match graph.weight_sorted.get() {
        Some(s) => s,
        None => {
            let _ = graph.weight_sorted.set(SortedArcs::build(graph, *kind, out)?);
            graph.weight_sorted.get().expect("just set")
        }
    };
    let weights = if std::ptr::eq(native, out) {
        &sorted.weights
    } else {
        // The program reads f32 weights of an integer graph: the sorted copy converted alike.
        match sorted.weights_as_f32.get() {
            Some(c) => c,
            None => {
                let _ = sorted.weights_as_f32.set(f32_bits(&graph.gpu.stream, &sorted.weights)?);
                sorted.weights_as_f32.get().expect("just set")
            }
        }
    };
    Ok((&sorted.targets, Some(weights)))
}

/// The device weights the program reads: out-arcs, in-arcs, and the uniform weight's bits.
fn weights<'g, P: Program>(graph: &'g DeviceGraph) -> Result<ProgramWeights<'g>, CudaError> {
    let w = TypeId::of::<P::Weight>();
    let native = graph.weights.as_ref();
    if w == TypeId::of::<()>() {
        return Ok((None, None, 0));
    }
    let (one_bits, want_f32) = if w == TypeId::of::<f32>() { (1.0f32.to_bits(), true) } else { (1u32, false) };
    let Some((kind, out, inw)) = native else { return Ok((None, None, one_bits)) };
    let pick = |o: &'g CudaSlice<u32>, i: Option<&'g CudaSlice<u32>>| (Some(o), Some(i.unwrap_or(o)), one_bits);
    match (kind, want_f32) {
        (WeightKind::U32, false) | (WeightKind::F32, true) => Ok(pick(out, inw.as_ref())),
        (WeightKind::F32, false) => Err(CudaError::Weights(
            "this algorithm needs integer edge weights, but the graph has real (f32) weights".into(),
        )),
        (WeightKind::U32, true) => {
            let converted = match graph.weights_as_f32.get() {
                Some(c) => c,
                None => {
                    let s = &graph.gpu.stream;
                    let o = f32_bits(s, out)?;
                    let i = match inw {
                        Some(i) => Some(f32_bits(s, i)?),
                        None => None,
                    };
                    let _ = graph.weights_as_f32.set((o, i));
                    graph.weights_as_f32.get().expect("just set")
                }
            };
            Ok(pick(&converted.0, converted.1.as_ref()))
        }
    }
}

/// Integer weights on the device converted to f32 bits (through the host), for programs that read f32
/// weights of a graph with integer ones.
fn f32_bits(s: &Arc<CudaStream>, x: &CudaSlice<u32>) -> Result<CudaSlice<u32>, CudaError> {
    let host = s.clone_dtoh(x).map_err(driver("converting weights"))?;
    let bits: Vec<u32> = host.iter().map(|&v| (v as f32).to_bits()).collect();
    s.clone_htod(&bits).map_err(driver("converting weights"))
}
