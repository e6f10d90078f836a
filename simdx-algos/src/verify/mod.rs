//! Independent serial oracles, written without the engine, and checks of a result against them:
//! BFS Graph500-style plus exact levels, SSSP exactly against Dijkstra, PageRank within an L1
//! tolerance of a serial power iteration in `f64`.

mod bfs;
mod pagerank;
mod sssp;

pub use bfs::{bfs, serial_bfs};
pub use pagerank::{pagerank, serial_pagerank};
pub use sssp::{dijkstra, sssp};
