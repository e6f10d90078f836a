//! [`RunStats`]: what a run did, iteration by iteration — direction, filter, frontier size, edges
//! touched and time — with totals and edges per second, and how a partitioned run's steps exchanged.

use std::time::Duration;

/// The direction an iteration ran in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Along out-edges of active vertices, combining at destinations.
    Push,
    /// Along in-edges of candidate vertices, combining locally.
    Pull,
}

/// How an iteration's next frontier was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterUsed {
    /// Per-task bins filled while Compute ran.
    Online,
    /// A scan of the vertex status.
    Ballot,
    /// Every vertex was applied and tested (programs with [`crate::acc::Apply::Every`]).
    Every,
    /// Asynchronous rounds ([`crate::engine::FusionPolicy::Async`]): each improved vertex went into a
    /// device work queue as it improved. One such row covers all of a run's asynchronous rounds; its
    /// `frontier` counts the vertices taken from the queue.
    Queue,
}

/// One iteration.
#[derive(Debug, Clone, PartialEq)]
pub struct IterationStats {
    /// Push or pull.
    pub direction: Direction,
    /// How the next frontier was found.
    pub filter: FilterUsed,
    /// Active vertices processed.
    pub frontier: u64,
    /// Edges on which Compute ran (or, in pull mode, in-edges inspected).
    pub edges: u64,
    /// Priority bucket processed (0 without buckets).
    pub bucket: u32,
    /// Wall time of the iteration.
    pub time: Duration,
}

/// A whole run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunStats {
    /// Every iteration, in order.
    pub iterations: Vec<IterationStats>,
    /// Wall time from the start of the first iteration to the end of the last (set-up excluded).
    pub time: Duration,
    /// Edges of the graph (arcs for directed graphs, unordered pairs for undirected ones), the
    /// numerator of the conventional GTEPS figure.
    pub graph_edges: u64,
    /// How the steps of a run split over several shares (GPUs) traded their changes; zero otherwise.
    pub exchanges: StepExchanges,
}

/// How the steps of a partitioned run traded their changes between the shares: each step counts in
/// one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepExchanges {
    /// Steps whose changes (values, next frontier, waiting flag) went in one round of packets.
    pub packets: u32,
    /// Steps that traded the long way: a reduction of counts, the changed values (as pairs or whole),
    /// then the frontier bitmap; also those whose packets turned out too small.
    pub full: u32,
    /// Steps after which every share gave all its owned values: each step of a program that applies
    /// every vertex (PageRank), and the last step of a run.
    pub whole: u32,
}

impl std::ops::AddAssign for StepExchanges {
    /// Adds `other`'s steps, field by field (the exchanges of several runs together).
    fn add_assign(&mut self, other: StepExchanges) {
        self.packets += other.packets;
        self.full += other.full;
        self.whole += other.whole;
    }
}

impl RunStats {
    /// Edges touched over all iterations.
    pub fn edges_touched(&self) -> u64 {
        self.iterations.iter().map(|i| i.edges).sum()
    }

    /// Graph edges per second (the conventional TEPS figure: |E| / time).
    pub fn edges_per_second(&self) -> f64 {
        let s = self.time.as_secs_f64();
        if s > 0.0 {
            self.graph_edges as f64 / s
        } else {
            0.0
        }
    }

    /// Edges touched per second of run time.
    pub fn touched_per_second(&self) -> f64 {
        let s = self.time.as_secs_f64();
        if s > 0.0 {
            self.edges_touched() as f64 / s
        } else {
            0.0
        }
    }
}
