//! What `#[graph_kernel]` accepts, compiled through the `simdx` facade as a user's crate does (the macro
//! names the facade by the path a user's crate gives it): each file is a program of the kernel subset
//! whose test checks the device code, the parameters and the hints the macro generates, and that the
//! impl itself still runs on the CPU. What the macro rejects, and its messages, are the trybuild cases of
//! `tests/ui.rs`.

mod bfs_voting;
mod float_every_apply;
mod inferred_hints;
mod ints_loops_custom_combine;
mod source_ignores_sent;
mod vertex_data_and_helpers;
