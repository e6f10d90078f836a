//! simdx-macros: home of the `#[graph_kernel]` procedural macro, which turns a program's Active,
//! Compute and Combine functions into both CPU code and CUDA C device code. The macro arrives with
//! the ACC model; until then this crate exports nothing.
