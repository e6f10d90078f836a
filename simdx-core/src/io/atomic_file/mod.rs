//! Every file simdx writes (graphs, values, JSON reports, SVG charts) goes through
//! [`write_atomically`], and [`check_output`] checks a destination before a command does its work.
//! What they promise:
//!
//! * **Whole or not at all.** The data goes to a temporary file in the folder of the file it replaces,
//!   is synced, and is renamed over it: a failed write leaves the old file (if any) as it was.
//! * **Symbolic links are written through.** A link (or a chain of them) is followed and the file it
//!   names is replaced, in that file's folder; the link stays a link. A dangling link's target is
//!   created.
//! * **The file's mode is kept.** An existing file keeps its permission bits (a 0600 file stays 0600,
//!   also while the new data is being written) and, where this user may set them, its owner and group.
//!   A new file gets the usual 0666 less the umask.
//! * **Refused, with one sentence** ([`Refusal`]): a path that names no file; a folder that does not
//!   exist or that this user may not create files in; a destination that is not a regular file (a
//!   folder, a named pipe, a device such as `/dev/null`, a socket); a read-only file (no write bit, as
//!   for `chmod a-w`, even for root; or one this user may not write); a file with other hard links
//!   (replacing it would leave the other names with the old content); a loop of links; and, through
//!   [`check_output`], a destination that is one of the command's inputs (the same file by device and
//!   inode, whatever the path or link that names it).
//! * **Temporary files** are named `.NAME.simdx-tmp-PID-N` beside the destination `NAME`. An error
//!   removes it. So does SIGINT, SIGTERM or SIGHUP once the program called
//!   [`remove_temporaries_on_signals`] (the `simdx` binary does). A process killed otherwise (SIGKILL,
//!   a crash, a power cut) leaves it behind, never the destination half-written; the next write to
//!   `NAME` removes every such file whose process no longer runs.

mod destination;
mod temporaries;

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

pub use destination::Refusal;
pub use temporaries::remove_temporaries_on_signals;

/// Checks that `path` can be written as an output and is none of `inputs` (paths that do not exist
/// are no input); returns the file that would be written: symbolic links followed, its folder
/// absolute, so that two outputs naming one file compare equal. Nothing is created. A refusal is an
/// error whose message is a [`Refusal`]; the caller names `path`.
pub fn check_output(path: &Path, inputs: &[&Path]) -> io::Result<PathBuf> {
    let destination = destination::resolve(path)?;
    destination.check(inputs)?;
    Ok(std::fs::canonicalize(destination.folder())?.join(destination.name()))
}

/// Writes the file `path` with `write`, as the [module docs](self) say: through symbolic links, into a
/// temporary file renamed over the destination once `write` succeeded and the data is synced, keeping
/// an existing file's mode. On any error the temporary file is removed and the destination is left as
/// it was. A destination that is refused gives an error whose message is a [`Refusal`].
pub fn write_atomically<T>(path: &Path, write: impl FnOnce(&mut File) -> io::Result<T>) -> io::Result<T> {
    let destination = destination::resolve(path)?;
    destination.check(&[])?;
    let folder = destination.folder();
    temporaries::remove_stale(&folder, destination.name());
    let (temporary, mut file) = temporaries::Temporary::create(&folder, destination.name(), destination.exists())?;
    let result = write(&mut file)?;
    destination.keep_mode(&file)?;
    file.sync_all()?;
    drop(file);
    temporary.rename_to(&destination.target)?;
    // Make the rename itself durable where the platform allows syncing a directory.
    if let Ok(d) = File::open(&folder) {
        let _ = d.sync_all();
    }
    Ok(result)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

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
        assert_eq!(listing(dir.path()), ["out.txt"], "the temporary file is removed");
        write_atomically(&path, |f| f.write_all(b"new\n")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
        assert_eq!(listing(dir.path()), ["out.txt"]);
    }

    #[test]
    fn a_path_without_a_file_name_is_an_error() {
        assert!(write_atomically(Path::new("/"), |_| Ok(())).is_err());
        assert!(check_output(Path::new(".."), &[]).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_written_through_and_modes_kept() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target.txt");
        std::fs::write(&target, "old\n").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.txt");
        symlink("target.txt", &link).unwrap();
        write_atomically(&link, |f| f.write_all(b"new\n")).unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o600);
        // A dangling link: its target is created.
        let dangling = dir.path().join("dangling.txt");
        symlink("made.txt", &dangling).unwrap();
        write_atomically(&dangling, |f| f.write_all(b"made\n")).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("made.txt")).unwrap(), "made\n");
        assert_eq!(listing(dir.path()), ["dangling.txt", "link.txt", "made.txt", "target.txt"]);
    }

    #[cfg(unix)]
    #[test]
    fn refusals_say_why() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let refusal = |path: &Path, inputs: &[&Path]| check_output(path, inputs).unwrap_err().to_string();
        let read_only = dir.path().join("ro.txt");
        std::fs::write(&read_only, "x").unwrap();
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert_eq!(refusal(&read_only, &[]), "is read-only (mode 444): make it writable or write to another file");
        assert!(write_atomically(&read_only, |f| f.write_all(b"y")).is_err());
        assert_eq!(std::fs::read_to_string(&read_only).unwrap(), "x");
        assert!(refusal(dir.path(), &[]).starts_with("is a folder, not a regular file"));
        let missing = dir.path().join("no/such/out.txt");
        assert!(refusal(&missing, &[]).ends_with("which does not exist"), "{}", refusal(&missing, &[]));
        let input = dir.path().join("in.txt");
        std::fs::write(&input, "x").unwrap();
        let link = dir.path().join("in-link.txt");
        symlink(&input, &link).unwrap();
        assert!(refusal(&link, &[&input]).contains("also an input"), "{}", refusal(&link, &[&input]));
        assert!(check_output(&dir.path().join("new.txt"), &[&input]).is_ok());
        let looped = dir.path().join("loop.txt");
        symlink("loop.txt", &looped).unwrap();
        assert!(refusal(&looped, &[]).contains("loop"));
    }
}
