//! Fuzzes the .el reader with relabelling (any ids, names included): a graph or an error naming the file.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    let options = simdx_core::io::ReadOptions { relabel: true, ..Default::default() };
    simdx_fuzz::read_as(bytes, "el", options);
});
