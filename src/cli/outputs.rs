//! The files a command will write, checked before it reads, generates or runs anything: each must be
//! writable as `simdx_core::io::atomic_file` writes it (a regular file or none, in an existing folder,
//! not read-only, symbolic links followed) and none may be one of the command's inputs or another of
//! its outputs. A refusal exits 2 with one sentence naming the file.

use std::path::{Path, PathBuf};

use simdx_core::io::atomic_file::check_output;
use simdx_core::GraphError;

use super::error::CliError;

/// Checks `outputs` (each with the option that names it; `None`: not asked for) against each other and
/// against `inputs` (files the command reads; paths that are no file are ignored).
pub fn check(outputs: &[(&str, Option<&Path>)], inputs: &[&Path]) -> Result<(), CliError> {
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for &(option, path) in outputs {
        let Some(path) = path else { continue };
        let target = check_output(path, inputs).map_err(|e| GraphError::io(path, e))?;
        if let Some((first, _)) = seen.iter().find(|(_, seen)| *seen == target) {
            return Err(CliError::Usage(format!(
                "{first} and {option} name the same file {}: give each output its own",
                path.display()
            )));
        }
        seen.push((option, target));
    }
    Ok(())
}
