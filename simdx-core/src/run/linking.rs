//! What both engines' linking of label classes follows (union-find in Afforest's order for programs
//! whose values are labels: `simdx-core`'s `cpu::link` and `simdx-cuda`'s `link`), in one place so
//! that the two cannot drift apart: how many out-arcs per vertex are linked before the largest class
//! is picked, how many vertices are sampled to pick it, and how the sample decides.

use std::collections::HashMap;

/// Out-arcs per vertex linked first, one round each with a flatten after it, before the largest class
/// is picked (Afforest's neighbour rounds).
pub const SAMPLED_ARCS: u32 = 2;

/// Vertices drawn (with `WyRand`, seeded with the vertex count) whose roots pick the largest class.
pub const SAMPLES: u32 = 1024;

/// The largest class from the sampled vertices' roots: the root that occurs most often, the smallest
/// of those tied (`None` without a sample).
pub fn largest_class(roots: impl IntoIterator<Item = u64>) -> Option<u64> {
    let mut counts: HashMap<u64, u32> = HashMap::new();
    for root in roots {
        *counts.entry(root).or_default() += 1;
    }
    counts.into_iter().max_by_key(|&(root, count)| (count, std::cmp::Reverse(root))).map(|(root, _)| root)
}

#[cfg(test)]
mod tests {
    use super::largest_class;

    #[test]
    fn the_most_frequent_root_wins_and_ties_go_to_the_smallest() {
        assert_eq!(largest_class([5, 3, 5, 3, 7]), Some(3));
        assert_eq!(largest_class([9, 9, 1]), Some(9));
        assert_eq!(largest_class([]), None);
    }
}
