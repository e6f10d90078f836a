//! Breadth-first levels from each of many sources at once, on the multi-source traversal
//! ([`simdx_core::multi_source`]: 64 searches per pass over the graph, bitwise).

use simdx_core::multi_source::{MultiSourceError, MultiStats, Orientation, Searches, Traversal};
use simdx_core::VertexId;

/// Levels from each source, on the CPU (a [`Graph`](simdx_core::Graph)) or a GPU (a device graph):
/// row-major, `levels[v * sources.len() + i]` is `v`'s level from `sources[i]`, `u32::MAX` where
/// unreached.
pub fn levels_from_each(
    searches: &(impl Searches + ?Sized),
    sources: &[VertexId],
    how: Traversal,
) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
    searches.levels(sources, Traversal { orientation: Orientation::Out, ..how })
}

#[cfg(test)]
mod tests {
    use super::*;
    use simdx_core::gen::GeneratorSpec;

    #[test]
    fn every_column_matches_a_serial_search() {
        let graph = GeneratorSpec::parse("kron:9").unwrap().generate(2).unwrap();
        let sources: Vec<VertexId> = (0..100).collect();
        let (levels, _) = levels_from_each(&graph, &sources, Traversal::default()).unwrap();
        crate::verify::levels_from_each(&graph, &sources, &levels).unwrap();
    }
}
