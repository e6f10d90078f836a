//! Strongly connected components of a directed graph, each named by its smallest vertex id: the
//! Multistep method of [`simdx_core::strong`] (trim, forward-backward from a pivot, colouring). Not a
//! single vertex program (it masks vertices between steps and searches within colour classes): [`scc`]
//! runs it on the CPU, [`scc_on`] on a backend's [`StrongComponents`] (the CPU's for a [`Graph`], the
//! GPU's for a device graph: `Runner::strong_components` in the facade), with the same labels.

use simdx_core::strong::{strongly_connected, SccError, SccStats, StrongComponents};
use simdx_core::{Graph, VertexId};

/// Each vertex's strongly connected component (its smallest vertex id), and how they were found.
/// On an undirected graph these are its connected components.
pub fn scc(graph: &Graph) -> (Vec<VertexId>, SccStats) {
    strongly_connected(graph)
}

/// Each vertex's strongly connected component (its smallest vertex id), and how they were found, on
/// the backend `on` (pass `&graph` for the CPU).
pub fn scc_on(on: &dyn StrongComponents) -> Result<(Vec<VertexId>, SccStats), SccError> {
    on.strong_components()
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::gen::GeneratorSpec;

    #[test]
    fn components_match_tarjan_on_generated_graphs() {
        for spec in ["kron:11:d", "urand:11:4:d", "rmat:10:d", "kron:9", "grid:5x5"] {
            let graph = GeneratorSpec::parse(spec).unwrap().generate(7).unwrap();
            let (components, _) = scc(&graph);
            crate::verify::scc(&graph, &components).unwrap_or_else(|e| panic!("{spec}: {e}"));
        }
    }
}
