//! What `#[graph_kernel]` accepts, compiled through the `simdx` facade as a user's crate does (the macro
//! names the facade by the path a user's crate gives it): each file is a program of the kernel subset
//! whose test checks the device code, the parameters and the hints the macro generates, and that the
//! impl itself still runs on the CPU. What the macro rejects, and its messages, are the trybuild cases of
//! `tests/ui.rs`.

// The hints are constants the macro generates; each test asserts them one by one at run time, so that a
// failure names the program (a `const` block would stop the whole executable from compiling).
#![allow(clippy::assertions_on_constants)]

mod bfs_voting;
mod float_every_apply;
mod inferred_hints;
mod ints_loops_custom_combine;
mod source_ignores_sent;
mod vertex_data_and_helpers;
