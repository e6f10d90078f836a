//! Crash-safe file output: [`write_atomically`] writes to a temporary file in the destination's folder,
//! syncs it, and renames it over the destination, so that a killed process or a failed write never
//! leaves a partial file under the final name (the old file, if any, stays whole). Every file simdx
//! writes (graphs, values, JSON reports) goes through it.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A temporary file that is removed when dropped unless kept.
struct TempFile {
    path: PathBuf,
    keep: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Creates a temporary file next to `path`, hands it to `write`, and on success syncs it and renames
/// it to `path`; on any error the temporary file is removed and `path` is left as it was.
pub fn write_atomically<T>(path: &Path, write: impl FnOnce(&mut File) -> io::Result<T>) -> io::Result<T> {
    let file_name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the output path names no file"))?
        .to_string_lossy()
        .into_owned();
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut temp =
        TempFile { path: dir.join(format!(".{file_name}.{}.{unique}.tmp", std::process::id())), keep: false };
    let mut file = OpenOptions::new().write(true).create_new(true).open(&temp.path)?;
    let result = write(&mut file)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&temp.path, path)?;
    temp.keep = true;
    // Make the rename itself durable where the platform allows syncing a directory.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, "old\n").unwrap();
        let failed = write_atomically(&path, |f| {
            f.write_all(b"half")?;
            Err::<(), _>(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the temporary file is removed");
        write_atomically(&path, |f| f.write_all(b"new\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_path_without_a_file_name_is_an_error() {
        assert!(write_atomically(Path::new("/"), |_| Ok(())).is_err());
    }
}
