//! Breadth-first levels from each of many sources at once, on the multi-source traversal
//! ([`simdx_core::multi_source`]: 64 searches per pass over the graph, bitwise).

use std::sync::atomic::{AtomicU32, Ordering};

use simdx_core::multi_source::{traverse, MultiSourceError, MultiStats, Orientation, Traversal};
use simdx_core::{Graph, VertexId};

/// Levels from each source: row-major, `levels[v * sources.len() + i]` is `v`'s level from
/// `sources[i]`, `u32::MAX` where unreached.
pub fn levels_from_each(
    graph: &Graph,
    sources: &[VertexId],
    how: Traversal,
) -> Result<(Vec<u32>, MultiStats), MultiSourceError> {
    let k = sources.len();
    let levels: Vec<AtomicU32> = (0..graph.num_vertices() * k).map(|_| AtomicU32::new(u32::MAX)).collect();
    let how = Traversal { orientation: Orientation::Out, ..how };
    let (_, stats) = traverse(graph, sources, how, |search, v, level| {
        levels[v as usize * k + search].store(level, Ordering::Relaxed);
    })?;
    Ok((levels.into_iter().map(AtomicU32::into_inner).collect(), stats))
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
