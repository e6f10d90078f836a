//! UI tests of `#[graph_kernel]` and `#[search_kernel]` (trybuild): every program in `tests/ui/fail/` is
//! rejected with the messages pinned in its `.stderr` file — each construct outside the kernel subset
//! reported at its own span, with a sentence saying what is allowed instead. What the macros accept, and
//! the device code, parameters and hints they generate, are checked by ordinary tests
//! (`tests/programs/macro_output/`): with only failing cases trybuild type-checks (`cargo check`) its copy
//! of the facade and of every dependency instead of compiling and linking them.
//!
//! Regenerate the expected output after a deliberate change of a message with
//! `TRYBUILD=overwrite cargo test --test ui`, and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
}
