//! Promises a program makes that an engine acts on, checked rather than trusted.
//!
//! [`Program::UPDATE_GROWS_WITH_WEIGHT`] lets the CUDA engine relax each vertex's arcs in order of
//! weight and stop at the first whose update leaves the bucket; a program that says so wrongly would
//! get wrong results. [`check_update_grows_with_weight`] runs the program's own `compute` on the host,
//! for sampled source values, destination values and increasing weights, and refuses the run when an
//! update falls as the weight grows. It is a sample, not a proof, but it catches the plain mistakes
//! (an update that subtracts the weight, or divides by it) before any kernel runs.

use crate::acc::{Edge, EdgeWeight, Program, Value, WeightView, Wide};
use crate::run::EngineError;
use crate::Weights;

/// Source and destination values tried (as `u64`, narrowed to the program's types).
const VALUES: [u64; 7] = [0, 1, 2, 5, 100, 4096, 1 << 20];
/// Weights tried, in increasing order (small enough that no sum overflows a 32-bit value).
const WEIGHTS: [u32; 10] = [0, 1, 2, 3, 7, 16, 255, 1000, 65_535, 1 << 20];

/// Checks `program`'s [`Program::UPDATE_GROWS_WITH_WEIGHT`] (nothing to check when it is `false` or
/// the program reads no weights): for every sampled source and destination value, `compute`'s update
/// must not fall as the weight grows through the sampled weights.
pub fn check_update_grows_with_weight<P: Program>(program: &P) -> Result<(), EngineError> {
    if !P::UPDATE_GROWS_WITH_WEIGHT {
        return Ok(());
    }
    let Some(weights) = sampled_weights::<P::Weight>() else { return Ok(()) };
    let destinations = VALUES.iter().map(|&x| P::Value::narrow(Wide::Unsigned(x))).chain([P::IDENTITY]);
    for dst in destinations {
        for source in VALUES {
            let src = P::Message::narrow(Wide::Unsigned(source));
            let updates = weights.iter().map(|&weight| program.compute(Edge { src, dst, weight, src_out_degree: 1 }));
            let updates: Vec<P::Value> = updates.collect();
            if let Some(i) = (1..updates.len()).find(|&i| updates[i] < updates[i - 1]) {
                return Err(EngineError::Promise(format!(
                    "the program says its update grows with the weight (UPDATE_GROWS_WITH_WEIGHT), but from a \
                     source sending {src} to a vertex holding {dst} its update falls from {} to {} as the \
                     weight grows from {} to {}",
                    updates[i - 1],
                    updates[i],
                    WEIGHTS[i - 1],
                    WEIGHTS[i]
                )));
            }
        }
    }
    Ok(())
}

/// [`WEIGHTS`] as the program's weight type, or `None` for programs without weights.
fn sampled_weights<W: EdgeWeight>() -> Option<Vec<W>> {
    let sample = Weights::U32(WEIGHTS.to_vec().into());
    match W::view(Some(&sample)) {
        Ok(WeightView::PerArc(weights)) => Some(weights.into_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acc::{Apply, CombineKind, CombineOp, Vertex};

    /// Delta-stepping whose update is `src + weight` (`grows`) or `src - weight` (the broken promise).
    struct Relax {
        falls: bool,
    }

    impl Program for Relax {
        type Value = u32;
        type Message = u32;
        type Weight = u32;
        const OP: CombineOp = CombineOp::Min;
        const KIND: CombineKind = CombineKind::Aggregate;
        const APPLY: Apply = Apply::InPlace;
        const IDENTITY: u32 = u32::MAX;
        const UNSEEN: u32 = u32::MAX;
        const UPDATE_GROWS_WITH_WEIGHT: bool = true;
        fn init(&self, _: Vertex) -> u32 {
            u32::MAX
        }
        fn active(&self, now: u32, seen: u32) -> bool {
            now < seen
        }
        fn compute(&self, e: Edge<u32, u32>) -> u32 {
            if self.falls {
                e.src.saturating_sub(e.weight)
            } else {
                e.src.saturating_add(e.weight)
            }
        }
    }

    #[test]
    fn an_update_that_falls_with_the_weight_is_refused() {
        assert!(check_update_grows_with_weight(&Relax { falls: false }).is_ok());
        let error = check_update_grows_with_weight(&Relax { falls: true }).unwrap_err().to_string();
        assert!(error.contains("falls from 1 to 0 as the weight grows from 0 to 1"), "{error}");
    }
}
