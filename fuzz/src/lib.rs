//! What every fuzz target checks: the fuzzer's bytes, written to a file of the given extension and
//! read as a graph, give a graph or an error that names the file — never a panic, an abort or an
//! allocation the file cannot justify (libFuzzer's `-rss_limit_mb` and `-malloc_limit_mb` catch those).

use std::path::PathBuf;

use simdx_core::io::{read_graph, ReadOptions};

/// Reads `bytes` as a file named `input.EXTENSION` with `options`; panics (a finding) if an error
/// does not name the file.
pub fn read_as(bytes: &[u8], extension: &str, options: ReadOptions) {
    let path = scratch_dir().join(format!("input.{extension}"));
    std::fs::write(&path, bytes).expect("the fuzzer's scratch file can be written");
    if let Err(error) = read_graph(&path, &options) {
        let message = error.to_string();
        assert!(message.contains("input."), "an error that does not name the file: {message}");
    }
}

/// A scratch folder of this process.
fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("simdx-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the fuzzer's scratch folder can be made");
    dir
}
