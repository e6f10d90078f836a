//! The temporary files of [`write_atomically`](super::write_atomically): named
//! `.NAME.simdx-tmp-PID-N` so that a person and the next write recognise them, removed on error,
//! on the usual termination signals ([`remove_temporaries_on_signals`]), and, when a killed process
//! left one, by the next write to the same destination ([`remove_stale`]).

use std::ffi::{c_char, CString, OsStr};
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

/// What follows the destination's name in a temporary file's name, before `PID-N`.
const TAG: &str = ".simdx-tmp-";
/// The most characters of the destination's name a temporary file's name repeats (so that it stays
/// under the 255 bytes a file name may have).
const NAME_CHARS: usize = 160;
/// Temporary files the signal handler knows of at once (a command writes a few).
const SLOTS: usize = 32;

/// The paths of the temporary files now being written, for the signal handler (null: free slot).
/// A path put here is never freed: the handler may be reading it on another thread while it is
/// taken out (a few dozen bytes per file written).
static LIVE: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// The start of the name of every temporary file for the destination `name`.
fn prefix(name: &OsStr) -> String {
    let name: String = name.to_string_lossy().chars().take(NAME_CHARS).collect();
    format!(".{name}{TAG}")
}

/// A temporary file being written: removed when dropped unless renamed into place.
pub(super) struct Temporary {
    path: PathBuf,
    slot: Option<usize>,
    kept: bool,
}

impl Temporary {
    /// Creates a new temporary file for the destination `name` in `folder`: readable by its owner only
    /// when it will replace a file (whose mode it gets before the rename), else with the usual 0666
    /// less the umask.
    pub(super) fn create(folder: &Path, name: &OsStr, replaces: bool) -> io::Result<(Temporary, File)> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let unique = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = folder.join(format!("{}{}-{unique}", prefix(name), std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, if replaces { 0o600 } else { 0o666 });
        #[cfg(not(unix))]
        let _ = replaces;
        // Known to the signal handler before it exists, so that a signal as it is made removes it.
        let slot = register(&path);
        match options.open(&path) {
            Ok(file) => Ok((Temporary { path, slot, kept: false }, file)),
            Err(e) => {
                release(slot);
                Err(e)
            }
        }
    }

    /// Renames the file to `to`.
    pub(super) fn rename_to(mut self, to: &Path) -> io::Result<()> {
        std::fs::rename(&self.path, to)?;
        self.kept = true;
        Ok(())
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_file(&self.path);
        }
        release(self.slot);
    }
}

/// Frees a slot that [`register`] gave.
fn release(slot: Option<usize>) {
    if let Some(slot) = slot {
        LIVE[slot].store(std::ptr::null_mut(), Ordering::SeqCst);
    }
}

/// Puts `path` where the signal handler finds it; its slot, if one was free.
fn register(path: &Path) -> Option<usize> {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().into_owned().into_bytes();
    let c_path = CString::new(bytes).ok()?.into_raw();
    let slot = LIVE.iter().position(|slot| {
        slot.compare_exchange(std::ptr::null_mut(), c_path, Ordering::SeqCst, Ordering::SeqCst).is_ok()
    });
    if slot.is_none() {
        // SAFETY: `c_path` came from `CString::into_raw` above and was published nowhere.
        drop(unsafe { CString::from_raw(c_path) });
    }
    slot
}

/// Removes, from `folder`, the temporary files for the destination `name` whose process no longer
/// runs (killed before it could remove them), also those of versions before 0.2 (`.NAME.PID.N.tmp`).
/// A process is looked for in this machine's process table (its PID namespace).
pub(super) fn remove_stale(folder: &Path, name: &OsStr) {
    let prefix = prefix(name);
    let old = format!(".{}.", name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let Some(file) = file.to_str() else { continue };
        let pid = match file.strip_prefix(&prefix) {
            Some(rest) => rest.split_once('-').map(|(pid, _)| pid),
            None => file
                .strip_prefix(&old)
                .and_then(|rest| rest.strip_suffix(".tmp"))
                .and_then(|r| r.split_once('.'))
                .map(|(pid, _)| pid),
        };
        match pid.and_then(|pid| pid.parse::<u32>().ok()) {
            Some(pid) if pid != std::process::id() && !running(pid) => {
                let _ = std::fs::remove_file(entry.path());
            }
            _ => {}
        }
    }
}

/// Whether a process `pid` runs (or may: when unsure, it does).
fn running(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
        // SAFETY: signal 0 only asks whether the process exists; nothing is sent.
        if unsafe { libc::kill(pid, 0) } == 0 {
            return true;
        }
        io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Makes SIGINT, SIGTERM and SIGHUP remove the temporary files being written before the process
/// ends as the signal would end it. A signal the process ignores stays ignored. For programs (the
/// `simdx` binary); a library should not take over a process's signals. Does nothing off Unix.
pub fn remove_temporaries_on_signals() {
    #[cfg(unix)]
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction is a valid value to fill in; the handler below only makes
        // async-signal-safe calls (atomic loads, unlink, signal, raise); both pointers are to locals.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, &action, &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN {
                libc::sigaction(signal, &old, std::ptr::null_mut());
            }
        }
    }
}

/// The handler: removes every temporary file being written, then ends the process by the signal.
#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    for slot in &LIVE {
        let path = slot.load(Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: a path in a slot is a NUL-terminated string that is never freed.
            unsafe { libc::unlink(path) };
        }
    }
    // SAFETY: both are async-signal-safe; the signal is blocked until the handler returns, then ends
    // the process by its default action.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_temporaries_of_dead_processes_go_and_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let dead = i32::MAX as u32; // above any pid_max
        let names = [
            format!(".out.el.simdx-tmp-{dead}-0"),
            format!(".out.el.{dead}.3.tmp"),
            format!(".out.el.simdx-tmp-{}-9", std::process::id()),
            ".out.el.simdx-tmp-1-0".to_string(), // init runs
            format!(".other.el.simdx-tmp-{dead}-0"),
            "out.el".to_string(),
        ];
        for name in &names {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        remove_stale(dir.path(), OsStr::new("out.el"));
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want = names[2..].to_vec();
        want.sort();
        assert_eq!(left, want);
    }

    #[test]
    fn a_dropped_temporary_is_removed_and_its_slot_freed() {
        let dir = tempfile::tempdir().unwrap();
        let (temporary, _file) = Temporary::create(dir.path(), OsStr::new("x.txt"), false).unwrap();
        let slot = temporary.slot.expect("a free slot");
        assert!(!LIVE[slot].load(Ordering::SeqCst).is_null());
        let path = temporary.path.clone();
        assert!(path.file_name().unwrap().to_str().unwrap().starts_with(".x.txt.simdx-tmp-"));
        drop(temporary);
        assert!(!path.exists());
        assert!(LIVE[slot].load(Ordering::SeqCst).is_null());
    }
}
