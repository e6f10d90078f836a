//! Edge weights: integer (`u32`) or real (`f32`), stored beside the CSR targets, one per arc.

use super::array::Array;

/// The numeric type of a graph's edge weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WeightKind {
    /// Unsigned 32-bit integers.
    U32,
    /// 32-bit floats (finite, non-negative).
    F32,
}

impl std::fmt::Display for WeightKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WeightKind::U32 => "u32",
            WeightKind::F32 => "f32",
        })
    }
}

/// Per-arc weights of a CSR, parallel to its target array.
#[derive(Debug, Clone, PartialEq)]
pub enum Weights {
    /// Integer weights.
    U32(Array<u32>),
    /// Real weights.
    F32(Array<f32>),
}

impl Weights {
    /// The weights' numeric type.
    pub fn kind(&self) -> WeightKind {
        match self {
            Weights::U32(_) => WeightKind::U32,
            Weights::F32(_) => WeightKind::F32,
        }
    }

    /// Number of weights (equals the number of arcs).
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            Weights::U32(w) => w.len(),
            Weights::F32(w) => w.len(),
        }
    }

    /// Whether there are no weights.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The weight at arc index `i`, widened to `f64` (exact for both kinds).
    #[inline]
    pub fn get_f64(&self, i: usize) -> f64 {
        match self {
            Weights::U32(w) => f64::from(w[i]),
            Weights::F32(w) => f64::from(w[i]),
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Weights::U32(w) => w.heap_bytes(),
            Weights::F32(w) => w.heap_bytes(),
        }
    }
}

/// Weights of an edge list before it becomes a graph: one per edge, owned.
#[derive(Debug, Clone, PartialEq)]
pub enum EdgeWeights {
    /// Integer weights.
    U32(Vec<u32>),
    /// Real weights; must be finite and non-negative.
    F32(Vec<f32>),
}

impl EdgeWeights {
    /// Number of weights.
    #[inline]
    pub fn len(&self) -> usize {
        match self {
            EdgeWeights::U32(w) => w.len(),
            EdgeWeights::F32(w) => w.len(),
        }
    }

    /// Whether there are no weights.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The weights' numeric type.
    pub fn kind(&self) -> WeightKind {
        match self {
            EdgeWeights::U32(_) => WeightKind::U32,
            EdgeWeights::F32(_) => WeightKind::F32,
        }
    }
}
