//! The execution policy both engines follow, written once: which options a run accepts
//! ([`validate`]), and when a step pulls instead of pushing. A backend differs only in the named
//! constants of its [`Backend`] value ([`CPU`], [`GPU`]).
//!
//! **The direction rule.** Under [`DirectionPolicy::Push`] or [`DirectionPolicy::Pull`] every step
//! goes that way. Under [`DirectionPolicy::Auto`] a step pulls when its frontier's out-edges exceed a
//! share of all arcs: the policy's threshold (0.30 by default), raised for aggregation programs to
//! [`Backend::aggregate_pull_share`] (with no early exit, their pull reads every in-arc, which pays
//! only when nearly every arc carries an update) — on the CPU for every aggregation program, on the
//! GPU for those that do not apply every vertex (PageRank's pull there gathers as cheaply as its
//! push scatters). On the GPU an in-place program whose update grows with the weight (SSSP) never
//! pulls under `Auto`: its pushes within a delta-stepping bucket read only the arcs that stay in it,
//! which a pull cannot pick. On the CPU a voting program (BFS) also follows Beamer's rule with GAP's
//! constants ([`VotingRule`]): pull once the frontier's out-edges exceed 1/[`VOTING_ALPHA`] of the
//! arcs not yet explored, while the frontier grows or holds 1/[`VOTING_BETA`] of the vertices.
//! Many-source searches (iBFS) decide per level by [`search_pulls`].

use crate::acc::{Apply, CombineKind, Program};
use crate::run::options::{DirectionPolicy, RunOptions, MAX_THREADS};
use crate::run::stats::Direction;
use crate::run::EngineError;

/// The constants that tell one backend's policy from another's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backend {
    /// The least share of all arcs that the frontier's out-edges must exceed before an aggregation
    /// program pulls under [`DirectionPolicy::Auto`].
    pub aggregate_pull_share: f64,
    /// Whether [`Backend::aggregate_pull_share`] also holds for programs that apply every vertex
    /// ([`Apply::Every`]: PageRank).
    pub raise_for_every: bool,
    /// Whether an in-place program whose update grows with the weight
    /// ([`Program::UPDATE_GROWS_WITH_WEIGHT`]) only pushes under [`DirectionPolicy::Auto`].
    pub weight_ordered_pushes: bool,
    /// Whether voting programs follow Beamer's rule ([`VotingRule`]) besides the share.
    pub beamer_voting: bool,
}

/// The CPU backend's constants. The share: on kron:18, SSSP's pull of all 7.6M arcs cost as much as
/// pushing 6.6M of them.
pub const CPU: Backend =
    Backend { aggregate_pull_share: 0.85, raise_for_every: true, weight_ordered_pushes: false, beamer_voting: true };

/// The CUDA backend's constants. The share: on a GPU, SSSP pulling from a lower share of the arcs (30%)
/// was slower than pushing every step (measurements: `docs/experiments/gpu-traversal.md`).
pub const GPU: Backend =
    Backend { aggregate_pull_share: 0.85, raise_for_every: false, weight_ordered_pushes: true, beamer_voting: false };

/// GAP's alpha: a voting program pulls once the frontier's out-edges exceed 1 / alpha of the arcs
/// not yet explored.
pub const VOTING_ALPHA: u64 = 15;
/// GAP's beta: a frontier under 1 / beta of the vertices keeps pushing.
pub const VOTING_BETA: usize = 18;

/// Checks options both engines take: `Err` says which one cannot work.
pub fn validate(options: &RunOptions) -> Result<(), EngineError> {
    if let DirectionPolicy::Auto { threshold } = options.direction {
        if !(0.0..=1.0).contains(&threshold) {
            return Err(EngineError::Options(format!("the direction threshold {threshold} is not within 0..=1")));
        }
    }
    let c = options.classes;
    if !(1 <= c.warp && c.warp <= c.cta && c.cta <= c.grid) {
        return Err(EngineError::Options(format!(
            "degree classes must satisfy 1 <= warp <= cta <= grid, got {} / {} / {}",
            c.warp, c.cta, c.grid
        )));
    }
    if options.bin_capacity == 0 {
        return Err(EngineError::Options("the online bin capacity must be at least 1".into()));
    }
    if options.threads == Some(0) {
        return Err(EngineError::Options("the thread count must be at least 1".into()));
    }
    if let Some(threads) = options.threads.filter(|&t| t > MAX_THREADS) {
        return Err(EngineError::Options(format!("{threads} threads are more than the {MAX_THREADS} a run may use")));
    }
    Ok(())
}

/// The direction policy `P` runs under on `backend`: `policy`, with an automatic one's threshold
/// raised as the module's rule says (to 1, never pulling, for weight-ordered pushes).
pub fn direction_for<P: Program>(policy: DirectionPolicy, backend: &Backend) -> DirectionPolicy {
    let DirectionPolicy::Auto { threshold } = policy else { return policy };
    if backend.weight_ordered_pushes && P::UPDATE_GROWS_WITH_WEIGHT && P::APPLY == Apply::InPlace {
        return DirectionPolicy::Auto { threshold: 1.0 };
    }
    let raised = P::KIND == CombineKind::Aggregate && (backend.raise_for_every || P::APPLY != Apply::Every);
    DirectionPolicy::Auto { threshold: if raised { threshold.max(backend.aggregate_pull_share) } else { threshold } }
}

/// The direction of a step whose frontier has `out_edges` out-edges, under `policy` (as
/// [`direction_for`] gives it) on a graph of `arcs` arcs: the share rule.
pub fn by_share(policy: DirectionPolicy, out_edges: u64, arcs: u64) -> Direction {
    match policy {
        DirectionPolicy::Push => Direction::Push,
        DirectionPolicy::Pull => Direction::Pull,
        DirectionPolicy::Auto { threshold } if out_edges as f64 > threshold * arcs as f64 => Direction::Pull,
        DirectionPolicy::Auto { .. } => Direction::Push,
    }
}

/// Beamer's direction rule for voting programs (GAP's constants), with what it remembers between
/// steps: the arcs explored so far, the last frontier's size and whether the last step pulled.
#[derive(Debug, Clone, Copy, Default)]
pub struct VotingRule {
    explored: u64,
    last_frontier: usize,
    last_pulled: bool,
}

impl VotingRule {
    /// The direction of a step of a voting program from a frontier of `frontier` vertices and
    /// `out_edges` out-edges, given `by_share` ([`by_share`]'s answer), on a graph of `n` vertices and
    /// `arcs` arcs; `auto` says whether the policy is automatic. Records what the frontier explores.
    /// A small frontier that shrinks keeps pushing: at the end of a high-diameter graph few arcs are
    /// left and a pull would still visit every vertex.
    pub fn direction(
        &mut self,
        by_share: Direction,
        auto: bool,
        out_edges: u64,
        frontier: usize,
        n: usize,
        arcs: u64,
    ) -> Direction {
        let unexplored = arcs.saturating_sub(self.explored);
        self.explored += out_edges;
        let grows = frontier > self.last_frontier;
        self.last_frontier = frontier;
        if auto && (grows || frontier * VOTING_BETA >= n) && out_edges.saturating_mul(VOTING_ALPHA) > unexplored {
            self.last_pulled = true;
            return Direction::Pull;
        }
        self.last_pulled = by_share == Direction::Pull;
        by_share
    }

    /// Whether the next step from a frontier of `frontier` vertices will likely pull under the
    /// automatic policy, guessed before its out-edges are counted: when [`VotingRule::direction`]
    /// would pull a frontier of mean out-degree, or the last step pulled and the frontier still holds
    /// 1/[`VOTING_BETA`] of the vertices.
    pub fn pull_likely(&self, frontier: usize, n: usize, arcs: u64) -> bool {
        let mean_edges = frontier as u64 * arcs / n.max(1) as u64;
        let unexplored = arcs.saturating_sub(self.explored);
        let large = frontier * VOTING_BETA >= n;
        ((frontier > self.last_frontier || large) && mean_edges.saturating_mul(VOTING_ALPHA) > unexplored)
            || (self.last_pulled && large)
    }
}

/// Whether a level of many-source searches runs bottom-up: under [`DirectionPolicy::Auto`], when
/// the joint frontier's `frontier_arcs` exceed the policy's share of all `arcs` and a quarter of the
/// arcs of the vertices some search has not reached (`arcs - finished_arcs`). A bottom-up level reads
/// the in-arcs of every such vertex, stopping early only once it has every search's bit. (Measured on
/// 2 cores, 64 searches: the quarter keeps kron and urand pulling as early as the share alone does,
/// and saves grids, where vertices rarely get all bits at once, a quarter of their time.)
pub fn search_pulls(direction: DirectionPolicy, frontier_arcs: u64, arcs: u64, finished_arcs: u64) -> bool {
    let by_share = by_share(direction, frontier_arcs, arcs) == Direction::Pull;
    match direction {
        DirectionPolicy::Auto { .. } => by_share && frontier_arcs > arcs.saturating_sub(finished_arcs) / 4,
        _ => by_share,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::acc::{CombineOp, Edge, Vertex};

    macro_rules! program {
        ($name:ident, $kind:expr, $apply:expr, $grows:expr) => {
            struct $name;
            impl Program for $name {
                type Value = u32;
                type Message = u32;
                type Weight = ();
                const OP: CombineOp = CombineOp::Min;
                const KIND: CombineKind = $kind;
                const APPLY: Apply = $apply;
                const IDENTITY: u32 = u32::MAX;
                const UNSEEN: u32 = u32::MAX;
                const UPDATE_GROWS_WITH_WEIGHT: bool = $grows;
                fn init(&self, _: Vertex) -> u32 {
                    0
                }
                fn active(&self, now: u32, seen: u32) -> bool {
                    now != seen
                }
                fn compute(&self, e: Edge<u32, ()>) -> u32 {
                    e.src
                }
            }
        };
    }
    program!(Voting, CombineKind::Voting, Apply::InPlace, false);
    program!(Aggregate, CombineKind::Aggregate, Apply::InPlace, false);
    program!(Every, CombineKind::Aggregate, Apply::Every, false);
    program!(WeightOrdered, CombineKind::Aggregate, Apply::InPlace, true);

    fn share<P: Program>(backend: &Backend) -> f64 {
        match direction_for::<P>(DirectionPolicy::default(), backend) {
            DirectionPolicy::Auto { threshold } => threshold,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_backend_raises_the_share_as_the_rule_says() {
        assert_eq!(share::<Voting>(&CPU), 0.30);
        assert_eq!(share::<Voting>(&GPU), 0.30);
        assert_eq!(share::<Aggregate>(&CPU), 0.85);
        assert_eq!(share::<Aggregate>(&GPU), 0.85);
        assert_eq!(share::<Every>(&CPU), 0.85);
        assert_eq!(share::<Every>(&GPU), 0.30);
        assert_eq!(share::<WeightOrdered>(&CPU), 0.85);
        assert_eq!(share::<WeightOrdered>(&GPU), 1.0);
        assert_eq!(direction_for::<Aggregate>(DirectionPolicy::Pull, &GPU), DirectionPolicy::Pull);
    }

    #[test]
    fn the_share_rule_pulls_only_above_the_share() {
        let auto = DirectionPolicy::Auto { threshold: 0.5 };
        assert_eq!(by_share(auto, 50, 100), Direction::Push);
        assert_eq!(by_share(auto, 51, 100), Direction::Pull);
        assert_eq!(by_share(DirectionPolicy::Auto { threshold: 1.0 }, 100, 100), Direction::Push);
        assert_eq!(by_share(DirectionPolicy::Push, 100, 100), Direction::Push);
        assert_eq!(by_share(DirectionPolicy::Pull, 0, 100), Direction::Pull);
    }

    #[test]
    fn beamers_rule_pulls_a_growing_frontier_and_keeps_pushing_a_small_shrinking_one() {
        let mut rule = VotingRule::default();
        // 1000 vertices, 10000 arcs: a frontier of 10 with 100 out-edges pushes.
        assert_eq!(rule.direction(Direction::Push, true, 100, 10, 1000, 10_000), Direction::Push);
        // It grows to 100 with 1000 out-edges: 1000 * 15 > 9900 unexplored, so it pulls.
        assert_eq!(rule.direction(Direction::Push, true, 1000, 100, 1000, 10_000), Direction::Pull);
        assert!(rule.pull_likely(100, 1000, 10_000));
        // It shrinks to 20 (under 1000 / 18): pushes again.
        assert_eq!(rule.direction(Direction::Push, true, 700, 20, 1000, 10_000), Direction::Push);
        // Not automatic: the share's answer stands.
        assert_eq!(VotingRule::default().direction(Direction::Push, false, 1000, 100, 1000, 10_000), Direction::Push);
    }

    #[test]
    fn searches_pull_above_the_share_and_a_quarter_of_the_unfinished_arcs() {
        let auto = DirectionPolicy::Auto { threshold: 0.3 };
        assert!(search_pulls(auto, 40, 100, 0));
        assert!(!search_pulls(auto, 20, 100, 0));
        assert!(!search_pulls(auto, 31, 200, 0));
        assert!(search_pulls(DirectionPolicy::Pull, 0, 100, 0));
        assert!(!search_pulls(DirectionPolicy::Push, 100, 100, 0));
    }
}
