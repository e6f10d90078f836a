//! UI tests of `#[graph_kernel]` and `#[search_kernel]` (trybuild): the programs in `tests/ui/pass/` compile through the
//! `simdx` facade and check the device code and parameters the macro generates, and every program in
//! `tests/ui/fail/` is rejected with the messages pinned in its `.stderr` file — each construct outside
//! the kernel subset reported at its own span, with a sentence saying what is allowed instead.
//!
//! Regenerate the expected output after a deliberate change of a message with
//! `TRYBUILD=overwrite cargo test --test ui`, and read the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
