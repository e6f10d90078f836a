//! Where an output goes and whether it may: [`resolve`] follows symbolic links to the file they name,
//! [`Destination::check`] refuses what must not be replaced, each with a [`Refusal`].

use std::fs::{File, Metadata};
use std::io;
use std::path::{Path, PathBuf};

/// The most symbolic links followed from one output path (as Linux's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// Why an output is refused: one sentence, after the path the caller puts in front of it. `is` is
/// `"is "` or, for a path that is a symbolic link, `"is a symbolic link to TARGET, "`.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// The path ends in `/`, `.` or `..`, or is empty.
    #[error("names no file to write")]
    NoFileName,
    /// A chain of links that loops or is too long.
    #[error("is a symbolic link in a loop (or a chain of more than {MAX_LINKS})")]
    LinkLoop,
    /// The folder of the destination does not exist.
    #[error("{is}in the folder {}, which does not exist", folder.display())]
    NoFolder {
        /// `is ` or the link it goes through.
        is: String,
        /// The missing folder.
        folder: PathBuf,
    },
    /// What should be the folder of the destination is not one.
    #[error("{is}in {}, which is not a folder", folder.display())]
    NotAFolder {
        /// `is ` or the link it goes through.
        is: String,
        /// What is not a folder.
        folder: PathBuf,
    },
    /// This user may not create the temporary file in the destination's folder.
    #[error("{is}in the folder {}, where this user may not create files", folder.display())]
    FolderNotWritable {
        /// `is ` or the link it goes through.
        is: String,
        /// The folder.
        folder: PathBuf,
    },
    /// A folder, FIFO, device or socket.
    #[error("{is}a {kind}, not a regular file: simdx writes outputs only to regular files")]
    NotAFile {
        /// `is ` or the link it goes through.
        is: String,
        /// What it is, e.g. `named pipe (FIFO)`.
        kind: &'static str,
    },
    /// A file without write permission bits.
    #[error("{is}read-only (mode {mode:o}): make it writable or write to another file")]
    ReadOnly {
        /// `is ` or the link it goes through.
        is: String,
        /// Its permission bits.
        mode: u32,
    },
    /// A file this user may not write.
    #[error("{is}not writable by this user: write to another file")]
    NotWritable {
        /// `is ` or the link it goes through.
        is: String,
    },
    /// A file with more than one name.
    #[error(
        "{is}a file with {links} hard links: replacing it would leave the other names with the old content; \
         write to another file"
    )]
    HardLinks {
        /// `is ` or the link it goes through.
        is: String,
        /// Its number of names.
        links: u64,
    },
    /// The destination is a file the command reads.
    #[error("{is}also an input of this command ({}): write the output to another file", input.display())]
    SameAsInput {
        /// `is ` or the link it goes through.
        is: String,
        /// The input, as given.
        input: PathBuf,
    },
}

impl From<Refusal> for io::Error {
    fn from(refusal: Refusal) -> Self {
        let kind = match refusal {
            Refusal::NoFolder { .. } => io::ErrorKind::NotFound,
            Refusal::ReadOnly { .. } | Refusal::NotWritable { .. } | Refusal::FolderNotWritable { .. } => {
                io::ErrorKind::PermissionDenied
            }
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, refusal)
    }
}

/// An output path with symbolic links followed.
pub(super) struct Destination {
    /// The file that is written: the path itself, or the file its links lead to.
    pub(super) target: PathBuf,
    /// What is there now, if anything (not a link).
    existing: Option<Metadata>,
    /// `"is "`, or `"is a symbolic link to TARGET, "` when the path was a link.
    is: String,
}

/// Follows `path` through symbolic links (relative ones from the link's folder) to the file it names.
pub(super) fn resolve(path: &Path) -> io::Result<Destination> {
    let mut target = path.to_path_buf();
    for _ in 0..=MAX_LINKS {
        if target.file_name().is_none() {
            return Err(Refusal::NoFileName.into());
        }
        let is = || match target.as_path() == path {
            true => "is ".to_string(),
            false => format!("is a symbolic link to {}, ", target.display()),
        };
        let existing = match std::fs::symlink_metadata(&target) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&target)?;
                target = target.parent().unwrap_or(Path::new("")).join(link);
                continue;
            }
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        return Ok(Destination { is: is(), target, existing });
    }
    Err(Refusal::LinkLoop.into())
}

impl Destination {
    /// The destination's folder (`.` for a bare file name).
    pub(super) fn folder(&self) -> PathBuf {
        match self.target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// The destination's file name.
    pub(super) fn name(&self) -> &std::ffi::OsStr {
        self.target.file_name().expect("resolve refuses a path without a file name")
    }

    /// Whether a file is there now.
    pub(super) fn exists(&self) -> bool {
        self.existing.is_some()
    }

    /// Refuses a destination that must not be replaced (the [module docs](self)) or that is the same
    /// file as one of `inputs`.
    pub(super) fn check(&self, inputs: &[&Path]) -> io::Result<()> {
        let is = self.is.clone();
        let folder = self.folder();
        match std::fs::metadata(&folder) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Refusal::NoFolder { is, folder }.into()),
            Err(e) => return Err(e),
            Ok(meta) if !meta.is_dir() => return Err(Refusal::NotAFolder { is, folder }.into()),
            Ok(_) if !unix::may_write(&folder) => return Err(Refusal::FolderNotWritable { is, folder }.into()),
            Ok(_) => {}
        }
        let Some(meta) = &self.existing else { return Ok(()) };
        if !meta.is_file() {
            return Err(Refusal::NotAFile { is, kind: unix::kind(meta) }.into());
        }
        if let Some(input) = inputs.iter().find(|input| unix::same_file(meta, input)) {
            return Err(Refusal::SameAsInput { is, input: input.to_path_buf() }.into());
        }
        let mode = unix::mode(meta);
        if mode & 0o222 == 0 {
            return Err(Refusal::ReadOnly { is, mode: mode & 0o7777 }.into());
        }
        if !unix::may_write(&self.target) {
            return Err(Refusal::NotWritable { is }.into());
        }
        match unix::links(meta) {
            links if links > 1 => Err(Refusal::HardLinks { is, links }.into()),
            _ => Ok(()),
        }
    }

    /// Gives `file` (the new data) the existing file's owner, group (where this user may) and mode.
    pub(super) fn keep_mode(&self, file: &File) -> io::Result<()> {
        match &self.existing {
            Some(meta) => unix::copy_mode(meta, file),
            None => Ok(()),
        }
    }
}

/// The Unix parts: file kinds, modes, identities and permissions (elsewhere: what std knows).
#[cfg(unix)]
mod unix {
    use std::fs::{File, Metadata};
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
    use std::path::Path;

    /// What a file that is not a regular file is, in words.
    pub(super) fn kind(meta: &Metadata) -> &'static str {
        let t = meta.file_type();
        match () {
            _ if t.is_dir() => "folder",
            _ if t.is_fifo() => "named pipe (FIFO)",
            _ if t.is_char_device() => "character device",
            _ if t.is_block_device() => "block device",
            _ if t.is_socket() => "socket",
            _ => "special file",
        }
    }

    /// The permission bits.
    pub(super) fn mode(meta: &Metadata) -> u32 {
        meta.mode()
    }

    /// The number of names (hard links) of the file.
    pub(super) fn links(meta: &Metadata) -> u64 {
        meta.nlink()
    }

    /// Whether `input` exists and is the file of `meta` (same device and inode).
    pub(super) fn same_file(meta: &Metadata, input: &Path) -> bool {
        std::fs::metadata(input).is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
    }

    /// Whether this user may write `path` (for a folder: create files in it), as `access(2)` says.
    pub(super) fn may_write(path: &Path) -> bool {
        let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else { return false };
        // SAFETY: `c_path` is a valid NUL-terminated string that outlives the call.
        unsafe { libc::access(c_path.as_ptr(), libc::W_OK) == 0 }
    }

    /// Gives `file` the owner and group of `meta` where allowed (root; or a group of this user), then
    /// its permission bits (after the owner: changing the owner clears set-id bits).
    pub(super) fn copy_mode(meta: &Metadata, file: &File) -> std::io::Result<()> {
        let _ = std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()));
        file.set_permissions(std::fs::Permissions::from_mode(meta.mode() & 0o7777))
    }
}

/// Elsewhere: only what the standard library knows.
#[cfg(not(unix))]
mod unix {
    use std::fs::{File, Metadata};
    use std::path::Path;

    pub(super) fn kind(meta: &Metadata) -> &'static str {
        if meta.is_dir() {
            "folder"
        } else {
            "special file"
        }
    }

    pub(super) fn mode(meta: &Metadata) -> u32 {
        if meta.permissions().readonly() {
            0o444
        } else {
            0o644
        }
    }

    pub(super) fn links(_: &Metadata) -> u64 {
        1
    }

    pub(super) fn same_file(_: &Metadata, _: &Path) -> bool {
        false
    }

    pub(super) fn may_write(_: &Path) -> bool {
        true
    }

    pub(super) fn copy_mode(meta: &Metadata, file: &File) -> std::io::Result<()> {
        file.set_permissions(meta.permissions())
    }
}
