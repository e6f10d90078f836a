//! Fuzzes the .wel reader: any bytes give a graph or an error naming the file.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| {
    simdx_fuzz::read_as(bytes, "wel", simdx_core::io::ReadOptions::default());
});
