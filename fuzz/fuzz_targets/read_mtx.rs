//! Fuzzes the .mtx reader: any bytes give a graph or an error naming the file.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    simdx_fuzz::read_as(bytes, "mtx", simdx_core::io::ReadOptions::default());
});
