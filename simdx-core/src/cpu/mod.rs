//! The CPU backend: rayon over the active vertices, push or pull per iteration, online or ballot
//! filtering of the next frontier, priority buckets, and the per-iteration statistics.
//!
//! An iteration of the general path snapshots the frontier's values (summing its out-degrees for the
//! direction choice in the same pass; before a push of live values it only keeps the seen values, and
//! before a pull it is likely to take it also marks the frontier's membership for that pull),
//! runs a push or pull step, then applies the combined updates where the program asks for it and
//! files the vertices then active by bucket, in one pass over the vertices reached (over every
//! vertex for [`Apply::Every`], unless [`ProgramHints::IDENTITY_KEEPS_VALUE`] and a global sum of 0 let the
//! reached ones do); in-place programs, which apply nothing, select the next frontier from the
//! vertices reached. [`Apply::Every`]
//! programs take the fused dense path instead (module `dense`) while they pull: from the start when
//! every vertex is active, and as long as the active vertices' out-edges keep the direction at pull.
//! In-place min and max programs (SSSP, WCC) run bucket-fused rounds instead (module `fused`) unless
//! the options turn fusion off: a round relaxes, files and picks the next frontier in one parallel
//! region. Programs whose values are labels link their classes instead (module `link`) where
//! [`LabelPolicy::Link`] applies; when they propagate, each reached vertex follows its chain of labels
//! after every step (module `shortcut`).
//!
//! A pull of a voting program like BFS hands the frontier it reaches on as a bitmap
//! ([`Active::Marked`]), as GAP's bottom-up steps do: it marks each vertex it reaches in a second
//! bitmap and counts its out-edges while the vertex is in cache, so no list of millions of vertices
//! is copied, selected and marked again; the next step pulls from that bitmap (after preparing its
//! vertices) or lists it for a push (measurements: `docs/experiments/cpu-bfs.md`, "A BFS pull hands
//! its frontier on as a bitmap"). A large push whose bins overflowed hands its frontier on the same
//! way: the "touched" flags it set are moved into the bitmap, eight flag words to a bitmap word, and
//! tested there (module `handed`), instead of being listed, selected and marked again for the pull
//! after.

mod awake;
mod bitmap;
mod dense;
mod frontier;
mod fused;
mod handed;
mod in_order;
mod link;
mod prefetch;
mod pull;
mod push;
mod record;
pub(crate) mod senders;
mod shortcut;
pub(crate) mod state;
mod team;
pub(crate) mod threads;
mod touched;
mod uniform;

use std::time::Instant;

use rayon::prelude::*;

use self::bitmap::AtomicBitmap;
use self::dense::Dense;
use self::frontier::{Active, Frontier};
use self::record::BinPolicy;
use self::senders::{RoundSenders, Senders};
use self::state::VertexState;
use self::team::Team;
use self::threads::Threads;
use self::uniform::Uniform;
use crate::acc::program::shortcuts_labels;
use crate::acc::{convert, weights_of, Apply, AtomicCell, CombineKind, ProgramHints, Value, WeightView};
use crate::run::options::{
    DirectionPolicy, FilterPolicy, FusionPolicy, LabelPolicy, RunOptions, ASYNC_AFTER_ITERATIONS,
};
use crate::run::policy::{self, VotingRule};
use crate::run::stats::{Direction, FilterUsed, IterationStats, RunStats};
use crate::run::{EngineError, Run};
use crate::{Graph, VertexId};

/// A push hands the vertices it reached on as a bitmap (see [`Iterations::hand_on_touched`]) if its
/// arcs number at least this fraction of the vertices: a small frontier is cheaper listed than marked
/// in a bitmap that the next step scans whole, for the push and for the pull after it (measurements:
/// `docs/experiments/cpu-bfs.md`).
const HAND_ON_SHARE: u64 = 8;

/// Runs `program` on `graph` in the current rayon pool; the fused rounds' team comes from `threads`
/// and goes back there. Where `senders` asks for it, the run keeps each vertex's sender, fused rounds as
/// it says (module `senders`; the program's labels are then propagated, neither linked nor shortcut,
/// which would change values without a sender).
pub(crate) fn run<P: ProgramHints>(
    program: &P,
    graph: &Graph,
    options: &RunOptions,
    threads: &Threads,
    senders: Option<RoundSenders>,
) -> Result<(Run<P::Value>, Option<Senders>), EngineError> {
    let keep_senders = senders.is_some();
    let out_weights = weights_of::<P::Weight>(graph.out_csr()).map_err(EngineError::Weights)?;
    let in_weights = if graph.is_directed() {
        weights_of::<P::Weight>(graph.in_csr()).map_err(EngineError::Weights)?
    } else {
        out_weights.clone()
    };
    let senders_bytes = if keep_senders { Senders::bytes(graph.num_vertices()) } else { 0 };
    let needed = VertexState::<P>::bytes(graph.num_vertices()) + senders_bytes;
    // The graph's arrays count whether on the heap or mapped from a file (whose pages a run reads).
    crate::memory::check_more(graph.data_bytes() as u64, needed, "the run's per-vertex state")
        .map_err(EngineError::Memory)?;
    let state = match senders {
        Some(rounds) => VertexState::with_senders(program, graph, rounds),
        None => VertexState::new(program, graph),
    };
    let mut stats = RunStats { graph_edges: graph.num_edges(), ..RunStats::default() };
    let start = Instant::now();
    // The engine's own pool spins between loops (module `awake`); rayon's global pool may be shared.
    let awake = if options.threads.is_some() { threads.keep_awake() } else { None };
    let shortcuts = shortcuts_labels::<P>() && !keep_senders;
    if shortcuts
        && options.labels == LabelPolicy::Link
        && options.max_iterations == u32::MAX
        && state.starts_as_singletons
    {
        stats.iterations = link::link_all(program, &state, graph, &out_weights, &in_weights);
        stats.time = start.elapsed();
        return Ok((Run { values: state.into_values(), stats }, None));
    }
    let mut engine = Iterations {
        program,
        state: &state,
        options,
        out_weights: &out_weights,
        in_weights: &in_weights,
        split: u64::from(options.classes.grid),
        frontier: Frontier::new(),
        membership: None,
        handed_on: None,
        handed: Uniform::Empty,
        hubs: None,
        pull_slots: Vec::new(),
        store_log: push::StoreLog::default(),
        dense: None,
        threads,
        awake,
        team: None,
        bucket_work: (0, 0, 0),
        direction: policy::direction_for::<P>(options.direction, &policy::CPU),
        voting: VotingRule::default(),
        steps: 0,
    };
    let n = state.len();
    let mut next_active = Some(engine.frontier.select_all(program, &state));
    let mut iterations = 0u32;
    while let Some(current) = next_active.take().filter(|a| !a.is_empty(n) && iterations < options.max_iterations) {
        // An iteration's time includes selecting the next frontier.
        let began = Instant::now();
        let (record, change, next) = engine.step(current);
        if shortcuts {
            match &next {
                Next::Reached(reached, _) => shortcut::follow(&state, reached),
                Next::Near(near) => shortcut::follow_lists(&state, near),
                Next::All | Next::Senders(..) | Next::Filed(_) | Next::Marked(..) => {}
            }
        }
        iterations += 1;
        if !program.done(iterations, change) {
            next_active = Some(match next {
                Next::All => Active::All,
                Next::Senders(count, out_edges) => Active::Senders(count, out_edges),
                Next::Reached(reached, clear) => engine.frontier.select(program, &state, reached, clear),
                Next::Filed(filed) => engine.frontier.select_filed(program, &state, filed),
                Next::Near(near) if near.is_empty() => Active::Lists(engine.frontier.advance_lists(program, &state)),
                Next::Near(near) => Active::Lists(near),
                Next::Marked(count, out_edges) => Active::Marked(count, out_edges),
            });
        }
        stats.iterations.push(IterationStats { time: began.elapsed(), ..record });
    }
    if let Some(senders) = &state.senders {
        senders.mend_by_levels(graph, |v| convert(state.now[v as usize].load()));
    }
    stats.time = start.elapsed();
    if let Some(team) = engine.team.take() {
        threads.keep_team(team);
    }
    threads.keep_slots(std::mem::take(&mut engine.pull_slots));
    drop(engine);
    let (values, senders) = state.into_values_and_senders();
    Ok((Run { values, stats }, senders))
}

/// Where the next frontier comes from.
enum Next {
    /// Every vertex is active and within the current bucket.
    All,
    /// Not every vertex is: this many, with this many out-edges in all.
    Senders(usize, u64),
    /// These vertices were reached; `true`: their "touched" flags are still set.
    Reached(Vec<VertexId>, bool),
    /// The active vertices, already sorted by bucket.
    Filed(Vec<frontier::Filed>),
    /// A fused round left the vertices of these lists (possibly repeated) in the current bucket; it
    /// filed the others in the frontier.
    Near(Vec<Vec<VertexId>>),
    /// A pull handed on this many vertices with this many out-edges, marked in the membership bitmap.
    Marked(usize, u64),
}

/// The state of a run between iterations, and the buffers reused from one iteration to the next.
struct Iterations<'a, 'g, P: ProgramHints> {
    program: &'a P,
    state: &'a VertexState<'g, P>,
    options: &'a RunOptions,
    out_weights: &'a WeightView<'g, P::Weight>,
    in_weights: &'a WeightView<'g, P::Weight>,
    /// Degree from which a vertex's edges are split into parallel chunks.
    split: u64,
    frontier: Frontier,
    /// Frontier membership for pull steps (made on the first sparse pull, kept clear in between,
    /// except that it holds an [`Active::Marked`] frontier).
    membership: Option<AtomicBitmap>,
    /// Where a pull marks the frontier it hands on (made on the first such pull; kept clear).
    handed_on: Option<AtomicBitmap>,
    /// Whether the vertices of an [`Active::Marked`] frontier all send one message, and which.
    handed: Uniform<P::Message>,
    /// Vertices whose in-degree reaches `split` (found on the first dense step).
    hubs: Option<Vec<VertexId>>,
    /// One slot per vertex, where a pull step's blocks record the vertices they reach (taken from the
    /// engine's threads on the first pull, given back at the end).
    pull_slots: Vec<VertexId>,
    /// Whether push tasks log their plain stores (see [`push::StoreLog`]).
    store_log: push::StoreLog,
    /// The dense path's buffers (made on its first use).
    dense: Option<Dense<P>>,
    /// Where the fused rounds' team comes from (the engine's threads).
    threads: &'a Threads,
    /// The pool's other threads spinning for work (module `awake`) until the fused rounds' team is taken.
    awake: Option<awake::Awake<'a>>,
    /// The threads of the fused rounds (taken on the first parallel one).
    team: Option<Team>,
    /// The bucket of the last fused round, the edges its rounds relaxed, and those of the bucket before.
    bucket_work: (u32, u64, u64),
    /// The direction policy this program runs under on the CPU ([`policy::direction_for`]).
    direction: DirectionPolicy,
    /// What Beamer's rule for voting programs remembers between steps.
    voting: VotingRule,
    /// Iterations run so far.
    steps: u32,
}

impl<P: ProgramHints> Iterations<'_, '_, P> {
    /// Runs one iteration on `current`: its statistics (time unset), the change, and the next frontier.
    fn step(&mut self, current: Active) -> (IterationStats, f64, Next) {
        self.steps += 1;
        let (state, n) = (self.state, self.state.len());
        let out_edges = match current {
            Active::All => Some(state.graph.num_arcs()),
            Active::Senders(_, out_edges) => Some(out_edges),
            Active::List(_) | Active::Lists(_) | Active::Marked(..) => None,
        };
        if self.fuses() {
            match &current {
                Active::List(list) => return self.fused_step(std::slice::from_ref(list)),
                Active::Lists(lists) => return self.fused_step(lists),
                Active::Marked(..) => {
                    let list = self.take_marked();
                    return self.fused_step(std::slice::from_ref(&list));
                }
                Active::All | Active::Senders(..) => {}
            }
        }
        let frontier_len = current.len(n) as u64;
        let pulls = out_edges.is_some_and(|e| self.direction(e) == Direction::Pull);
        if pulls && P::APPLY == Apply::Every {
            return self.dense_step(frontier_len, matches!(current, Active::All));
        }
        if let Some(dense) = &mut self.dense {
            dense.invalidate();
        }
        let list = match current {
            Active::All => (0..n as VertexId).into_par_iter().collect(),
            Active::Senders(..) => self.frontier.active_list(self.program, state),
            Active::List(list) => list,
            Active::Lists(lists) => lists.concat(),
            Active::Marked(count, out_edges) => return self.general_step(Vec::new(), Some((count, out_edges))),
        };
        self.general_step(list, None)
    }

    /// The [`Active::Marked`] frontier as a list, in increasing order; the bitmap is left clear.
    fn take_marked(&mut self) -> Vec<VertexId> {
        self.membership.as_ref().map(AtomicBitmap::take_sorted_list).unwrap_or_default()
    }

    /// Whether a list frontier runs as a fused round (module `fused`): for in-place min and max
    /// programs unless the options ask for no fusion, for the ballot filter, or for a step that may
    /// pull (a voting program under the auto policy: BFS gains more from pulling, until the run has
    /// taken [`ASYNC_AFTER_ITERATIONS`] steps: a high-diameter graph, whose small frontiers a fused
    /// round carries much further per step).
    fn fuses(&self) -> bool {
        let options = self.options;
        VertexState::<P>::PUSHES_LIVE
            && options.fusion != FusionPolicy::None
            && options.filter != FilterPolicy::Ballot
            && match options.direction {
                DirectionPolicy::Push => true,
                DirectionPolicy::Pull => false,
                DirectionPolicy::Auto { .. } => {
                    P::KIND == CombineKind::Aggregate || self.steps > ASYNC_AFTER_ITERATIONS
                }
            }
    }

    /// A fused round from `current`: relaxed vertices and edges are recorded; the next frontier is
    /// what it left in the current bucket.
    fn fused_step(&mut self, current: &[Vec<VertexId>]) -> (IterationStats, f64, Next) {
        let buckets = (self.frontier.bucket, self.frontier.base());
        let (bucket, so_far, _) = self.bucket_work;
        if bucket != self.frontier.bucket {
            // The buckets just finished say how many the next move takes.
            self.frontier.adapt_span(so_far);
            self.bucket_work = (self.frontier.bucket, 0, so_far);
        }
        // A bucket whose rounds relax many edges in all runs in parallel even when each round's
        // frontier is small (the grid at wide buckets: most of a bucket's work is fused).
        let parallel = self.bucket_work.1.max(self.bucket_work.2) > fused::PARALLEL_BUCKET_EDGES;
        // A parallel round runs on the run's team, taken at the first one.
        let size = threads::round_workers();
        if parallel && size > 1 && self.team.is_none() {
            // The team's threads, not the pool's, run the rounds from now on: the pool sleeps.
            self.awake = None;
            self.team = Some(self.threads.take_team(size));
        }
        let round = fused::round(
            self.program,
            self.state,
            self.out_weights,
            current,
            buckets,
            self.split,
            parallel,
            self.team.as_ref(),
        );
        self.bucket_work.1 += round.edges;
        let record = self.record(Direction::Push, FilterUsed::Online, round.relaxed, round.edges);
        (record, 0.0, Next::Near(self.frontier.absorb(round.filed)))
    }

    /// The dense path: every vertex gathers, applies and is tested in one pass; `all_active`: every
    /// vertex is active and within the current bucket ([`Active::All`]).
    fn dense_step(&mut self, frontier_len: u64, all_active: bool) -> (IterationStats, f64, Next) {
        let (program, state, split) = (self.program, self.state, self.split);
        let hubs = self.hubs.get_or_insert_with(|| pull::hubs(state.graph.in_csr(), split));
        let dense = self.dense.get_or_insert_with(|| Dense::new(state, hubs.clone()));
        let step = dense.step(program, state, self.in_weights, self.split, self.frontier.bucket, all_active);
        let record = self.record(Direction::Pull, FilterUsed::Every, frontier_len, step.edges);
        let next =
            if step.near == state.len() as u64 { Next::All } else { Next::Senders(step.near as usize, step.out_edges) };
        (record, step.change, next)
    }

    /// The general path: snapshot, push or pull, filter, apply. `handed`: the frontier is the
    /// [`Active::Marked`] one of this many vertices and out-edges (`current` is empty).
    fn general_step(&mut self, current: Vec<VertexId>, handed: Option<(usize, u64)>) -> (IterationStats, f64, Next) {
        if let Some((count, out_edges)) = handed {
            // The pull that reached these vertices counted them: a pull from them reads the bitmap
            // as it is, once they are prepared; a push lists them.
            if self.voting_direction(out_edges, count) == Direction::Pull {
                let (program, state) = (self.program, self.state);
                if let Some(membership) = &self.membership {
                    membership.for_each_set(|v| {
                        state.prepare(program, v);
                    });
                }
                let uniform = self.handed;
                return self.step_from(&[], count, out_edges, Direction::Pull, 0.0, uniform, true);
            }
            let current = self.take_marked();
            let (out_edges, global, uniform) = keep_seen(self.state, &current);
            return self.step_from(&current, current.len(), out_edges, Direction::Push, global, uniform, false);
        }
        let (program, state) = (self.program, self.state);
        // A program that pushes its live value reads it in the push itself: before a push, its
        // snapshot only keeps each seen value for `source_value` (see `VertexState::keep_seen`).
        let light = VertexState::<P>::PUSHES_LIVE && !P::USES_GLOBAL;
        // Where a pull is likely, one pass counts the out-edges, prepares every vertex and marks the
        // frontier's membership for the pull (a push after it finds them prepared, which it allows).
        let marked = light && self.pull_likely(current.len());
        let (out_edges, mut global, mut uniform) = if marked {
            let membership = self.membership.get_or_insert_with(|| AtomicBitmap::new(state.len()));
            prepare_and_mark(program, state, &current, membership)
        } else if light {
            keep_seen(state, &current)
        } else {
            snapshot(program, state, &current, true)
        };
        let direction = self.voting_direction(out_edges, current.len());
        if light && !marked && direction == Direction::Pull {
            (_, global, uniform) = snapshot(program, state, &current, false);
        }
        if marked && direction == Direction::Push {
            if let Some(membership) = &self.membership {
                membership.clear_list(&current);
            }
        }
        self.step_from(&current, current.len(), out_edges, direction, global, uniform, marked)
    }

    /// The rest of a general step, from `current` (`frontier_len` vertices with `out_edges`
    /// out-edges; empty where the membership bitmap holds the frontier) in `direction`; `global`
    /// and `uniform` as the snapshot found them, `marked`: the membership bitmap holds the frontier.
    #[allow(clippy::too_many_arguments)]
    fn step_from(
        &mut self,
        current: &[VertexId],
        frontier_len: usize,
        out_edges: u64,
        direction: Direction,
        global: f64,
        uniform: Uniform<P::Message>,
        marked: bool,
    ) -> (IterationStats, f64, Next) {
        let (program, state) = (self.program, self.state);
        // Every vertex is applied, unless the program keeps the value of a vertex that received
        // nothing while the global sum is 0: then, as for `Apply::Received`, only the reached ones.
        let every =
            P::APPLY == Apply::Every && !(P::IDENTITY_KEEPS_VALUE && global == 0.0 && idle_keeps(program, state));
        let bins =
            BinPolicy::new(if every { FilterPolicy::Ballot } else { self.options.filter }, self.options.bin_capacity);
        let step = match direction {
            Direction::Push => push::push_step(
                program,
                state,
                self.out_weights,
                current,
                out_edges,
                self.split,
                &bins,
                &mut self.store_log,
            ),
            Direction::Pull => {
                let (bin, handed) = self.pull(current, uniform.message(), &bins, marked);
                if let Some(handed) = handed {
                    let record = self.record(direction, FilterUsed::Online, frontier_len as u64, bin.edges);
                    // The handed-on bitmap becomes the membership, the membership (cleared) the next
                    // one to hand on in.
                    std::mem::swap(&mut self.membership, &mut self.handed_on);
                    self.handed = handed.uniform;
                    return (record, 0.0, Next::Marked(handed.count, handed.out_edges));
                }
                bin
            }
        };

        if every {
            // Every vertex applies its update and is tested, in one pass that files the active ones.
            state.touched.clear_all();
            let (change, filed) = apply_every(program, state, global, (self.frontier.bucket, self.frontier.base()));
            let record = self.record(direction, FilterUsed::Every, frontier_len as u64, step.edges);
            return (record, change, Next::Filed(filed));
        }
        // The vertices reached this iteration, online (from the bins) or by a ballot scan. A push
        // whose bins overflowed hands what it reached on as a bitmap where it can, if it may have
        // reached enough vertices that the next step would rather read a bitmap than a list.
        let large = step.edges.saturating_mul(HAND_ON_SHARE) >= state.len() as u64;
        if direction == Direction::Push && bins.needs_ballot() && large && Self::hands_on() {
            let record = self.record(direction, FilterUsed::Ballot, frontier_len as u64, step.edges);
            match self.hand_on_touched() {
                Ok(handed) => return (record, 0.0, Next::Marked(handed.count, handed.out_edges)),
                Err(reached) => return (record, 0.0, Next::Reached(reached, false)),
            }
        }
        let (reached, filter, clear) = if bins.needs_ballot() {
            (state.touched.take_sorted_list(), FilterUsed::Ballot, false)
        } else {
            (step.vertices, FilterUsed::Online, !step.unflagged)
        };
        let record = self.record(direction, filter, frontier_len as u64, step.edges);
        if P::APPLY == Apply::InPlace {
            return (record, 0.0, Next::Reached(reached, clear));
        }
        if clear {
            state.touched.clear_list(&reached);
        }
        // The reached vertices are applied, tested and filed in one pass.
        let buckets = (self.frontier.bucket, self.frontier.base());
        let parts = reached
            .par_chunks(APPLY_CHUNK)
            .map(|chunk| apply_and_file(program, state, chunk.iter().copied(), global, buckets));
        let (change, filed) = sum_changes(parts);
        (record, change, Next::Filed(filed))
    }

    /// A pull step from `current`; sources are tested against a membership bitmap unless every
    /// vertex is active. `uniform`: the message every vertex of `current` sends, if they all send the
    /// same (then a source found is not read). `marked`: the bitmap holds `current` already.
    ///
    /// `current` is empty where only the bitmap holds the frontier ([`Active::Marked`]). A program
    /// that may hand its next frontier on ([`Iterations::HANDS_ON`]) gets the next bitmap to mark it in.
    fn pull(
        &mut self,
        current: &[VertexId],
        uniform: Option<P::Message>,
        bins: &BinPolicy,
        marked: bool,
    ) -> (record::Bin, Option<handed::Handed<P::Message>>) {
        let (program, state, split) = (self.program, self.state, self.split);
        let n = state.len();
        if self.pull_slots.len() < n {
            self.pull_slots = self.threads.take_slots(n);
        }
        let slots = &mut self.pull_slots;
        let hand_on = match Self::hands_on() {
            true => Some((&*self.handed_on.get_or_insert_with(|| AtomicBitmap::new(n)), self.frontier.bucket)),
            false => None,
        };
        if current.len() == n {
            if marked {
                if let Some(membership) = &self.membership {
                    membership.clear_all();
                }
            }
            return pull::pull_step(program, state, self.in_weights, None, uniform, split, bins, slots, hand_on);
        }
        let membership = self.membership.get_or_insert_with(|| AtomicBitmap::new(n));
        if !marked {
            membership.insert_all(current);
        }
        let step =
            pull::pull_step(program, state, self.in_weights, Some(membership), uniform, split, bins, slots, hand_on);
        if current.is_empty() {
            membership.clear_all();
        } else {
            membership.clear_list(current);
        }
        step
    }

    /// Hands the vertices a push reached (their "touched" flags) on as a bitmap: moves the flags into
    /// the next bitmap, testing each vertex there ([`handed::Tally`]); if every one passes, that bitmap
    /// becomes the membership. Otherwise the vertices, in increasing order (the bitmap cleared again).
    /// An in-place program applies nothing after a push, so the vertices need nothing else.
    fn hand_on_touched(&mut self) -> Result<handed::Handed<P::Message>, Vec<VertexId>> {
        debug_assert!(P::APPLY == Apply::InPlace && self.membership.as_ref().map_or(true, AtomicBitmap::is_clear));
        let (program, state, bucket) = (self.program, self.state, self.frontier.bucket);
        let next = self.handed_on.get_or_insert_with(|| AtomicBitmap::new(state.len()));
        let tallies = state.touched.take_into(next, handed::Tally::new, |tally, first, bits| {
            tally.add(program, state, bitmap::set_bits(first, bits), bucket);
        });
        match tallies.into_iter().reduce(handed::Tally::merge).and_then(handed::Tally::handed) {
            Some(handed) => {
                std::mem::swap(&mut self.membership, &mut self.handed_on);
                self.handed = handed.uniform;
                Ok(handed)
            }
            None => Err(next.take_sorted_list()),
        }
    }

    /// Whether this run's steps may hand their next frontier on as a bitmap ([`Iterations::HANDS_ON`];
    /// not while labels are followed after each step, which needs the list).
    fn hands_on() -> bool {
        Self::HANDS_ON && !shortcuts_labels::<P>()
    }

    /// Whether a pull may hand the frontier it reaches on as a bitmap ([`handed::Handed`]): for
    /// voting programs that push their live value, with no global sum, whose message depends on
    /// the value alone (what the next step needs of a vertex is then its bit and its value; BFS).
    const HANDS_ON: bool = matches!(P::KIND, CombineKind::Voting)
        && VertexState::<P>::PUSHES_LIVE
        && !P::USES_GLOBAL
        && P::SOURCE_IGNORES_SENT;

    /// The direction of a step from a frontier of `frontier` vertices and `out_edges` out-edges: the
    /// share rule, and for a voting program under the auto policy Beamer's (see [`policy`]).
    fn voting_direction(&mut self, out_edges: u64, frontier: usize) -> Direction {
        let by_share = self.direction(out_edges);
        let auto = P::KIND == CombineKind::Voting && matches!(self.direction, DirectionPolicy::Auto { .. });
        let (n, arcs) = (self.state.len(), self.state.graph.num_arcs());
        self.voting.direction(by_share, auto, out_edges, frontier, n, arcs)
    }

    /// Whether the next step from a frontier of `frontier` vertices will likely pull, guessed before
    /// its out-edges are counted (see [`VotingRule::pull_likely`]). A wrong guess costs a pass (a push
    /// clears the membership marked for nothing; a missed pull prepares again).
    fn pull_likely(&self, frontier: usize) -> bool {
        match self.direction {
            DirectionPolicy::Push => false,
            DirectionPolicy::Pull => true,
            DirectionPolicy::Auto { .. } if P::KIND == CombineKind::Voting => {
                self.voting.pull_likely(frontier, self.state.len(), self.state.graph.num_arcs())
            }
            DirectionPolicy::Auto { .. } => false,
        }
    }

    /// The share rule for a frontier of `out_edges` out-edges ([`policy::by_share`]).
    fn direction(&self, out_edges: u64) -> Direction {
        policy::by_share(self.direction, out_edges, self.state.graph.num_arcs())
    }

    /// An iteration's statistics, time unset.
    fn record(&self, direction: Direction, filter: FilterUsed, frontier: u64, edges: u64) -> IterationStats {
        IterationStats { direction, filter, frontier, edges, bucket: self.frontier.bucket, time: Default::default() }
    }
}

/// Snapshot: a processed vertex's seen value becomes its value, and what it sends is prepared
/// ([`VertexState::prepare`]). Returns the frontier's out-edges (for the direction choice and the push
/// step's task sizes; 0 unless `count_edges`), the sum of [`Program::global`] over it, and whether
/// every frontier vertex sends the same message.
fn snapshot<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    frontier: &[VertexId],
    count_edges: bool,
) -> (u64, f64, Uniform<P::Message>) {
    let degree = |u| if count_edges { state.graph.out_degree(u) } else { 0 };
    frontier
        .par_iter()
        .with_min_len(4096)
        .map(|&u| {
            let (global, message) = state.prepare(program, u);
            (degree(u), global, Uniform::One(message))
        })
        .reduce(|| (0, 0.0, Uniform::Empty), |a, b| (a.0 + b.0, a.1 + b.1, a.2.merge(b.2)))
}

/// The snapshot before a likely pull of a program that pushes live values, in one pass: each frontier
/// vertex is prepared ([`VertexState::prepare`]) and marked in `membership`. Returns the frontier's
/// out-edges, 0 (no global sum) and whether every vertex sends the same message.
fn prepare_and_mark<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    frontier: &[VertexId],
    membership: &AtomicBitmap,
) -> (u64, f64, Uniform<P::Message>) {
    let (edges, uniform) = frontier
        .par_chunks(bitmap::INSERT_CHUNK)
        .map(|chunk| {
            membership.insert_chunk(chunk);
            let (mut edges, mut uniform) = (0, Uniform::Empty);
            for &u in chunk {
                edges += state.graph.out_degree(u);
                let (_, message) = state.prepare(program, u);
                uniform = uniform.merge(Uniform::One(message));
            }
            (edges, uniform)
        })
        .reduce(|| (0, Uniform::Empty), |a, b| (a.0 + b.0, a.1.merge(b.1)));
    (edges, 0.0, uniform)
}

/// The light snapshot before a push of live values: each frontier vertex's seen value is kept
/// ([`VertexState::keep_seen`]). Returns the frontier's out-edges and 0 (no global sum). The vertices
/// are scattered, so what a vertex a few places ahead reads is prefetched (measurements:
/// `docs/experiments/cpu-bfs.md`).
fn keep_seen<P: ProgramHints>(state: &VertexState<'_, P>, frontier: &[VertexId]) -> (u64, f64, Uniform<P::Message>) {
    let out_edges = frontier
        .par_chunks(4096)
        .map(|chunk| {
            let mut sum = 0;
            for (k, &u) in chunk.iter().enumerate() {
                if let Some(&ahead) = chunk.get(k + prefetch::AHEAD) {
                    state.prefetch(ahead);
                }
                state.keep_seen(u);
                sum += state.graph.out_degree(u);
            }
            sum
        })
        .sum();
    (out_edges, 0.0, Uniform::Mixed)
}

/// Applies the combined update of every vertex and files the vertices then active by bucket (`current`
/// and the window's `base`), in one parallel pass; returns the sum of `|new - old|` and the filed
/// lists, in vertex order.
fn apply_every<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    global: f64,
    buckets: (u32, u32),
) -> (f64, Vec<frontier::Filed>) {
    let n = state.len();
    sum_changes((0..n.div_ceil(APPLY_CHUNK)).into_par_iter().map(|chunk| {
        let start = chunk * APPLY_CHUNK;
        let vertices = start as VertexId..(start + APPLY_CHUNK).min(n) as VertexId;
        apply_and_file(program, state, vertices, global, buckets)
    }))
}

/// The total change and the filed lists, in order, of the chunks of an apply pass.
fn sum_changes(parts: impl IndexedParallelIterator<Item = (f64, frontier::Filed)>) -> (f64, Vec<frontier::Filed>) {
    let parts: Vec<(f64, frontier::Filed)> = parts.collect();
    let change = parts.iter().map(|(c, _)| c).sum();
    (change, parts.into_iter().map(|(_, filed)| filed).collect())
}

/// Vertices one task of an apply pass takes.
const APPLY_CHUNK: usize = 4096;

/// Applies the combined update of each of `vertices` and files those then active by bucket (`current`
/// and the window's `base`); returns the sum of `|new - old|` and the filed lists.
#[inline]
fn apply_and_file<P: ProgramHints>(
    program: &P,
    state: &VertexState<'_, P>,
    vertices: impl Iterator<Item = VertexId>,
    global: f64,
    (current, base): (u32, u32),
) -> (f64, frontier::Filed) {
    let (mut change, mut filed) = (0.0, frontier::Filed::default());
    for v in vertices {
        change += apply_one(program, state, v, global);
        if state.is_active(program, v) {
            let bucket = state.bucket(program, v);
            if bucket <= current {
                filed.near.push(v);
            } else {
                filed.file(base, v, bucket);
            }
        }
    }
    (change, filed)
}

/// Applies the combined update of vertex `v`; returns `|new - old|`.
#[inline]
fn apply_one<P: ProgramHints>(program: &P, state: &VertexState<'_, P>, v: VertexId, global: f64) -> f64 {
    let i = v as usize;
    let old = state.now[i].load();
    let combined = state.acc[i].load();
    state.acc[i].store(P::IDENTITY);
    let new = program.apply(state.vertex(v), old, combined, global);
    state.now[i].store(new);
    if new == old {
        0.0
    } else {
        (new.to_f64() - old.to_f64()).abs()
    }
}

/// True; in debug builds, first checks [`ProgramHints::IDENTITY_KEEPS_VALUE`]'s promise on the first 64
/// vertices and their current values.
fn idle_keeps<P: ProgramHints>(program: &P, state: &VertexState<'_, P>) -> bool {
    if cfg!(debug_assertions) {
        for v in 0..state.len().min(64) as VertexId {
            let old = state.now[v as usize].load();
            let new = program.apply(state.vertex(v), old, P::IDENTITY, 0.0);
            assert!(
                new == old,
                "ProgramHints::IDENTITY_KEEPS_VALUE promises apply(v, old, IDENTITY, 0.0) == old, but vertex {v} went from {old:?} to {new:?}"
            );
        }
    }
    true
}
