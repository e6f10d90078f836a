//! Hostile cases: outputs. Every kind of file simdx writes (`run --output/--json/--plot`, `convert OUT`,
//! `gen -o`, `bench --json/--plot`) aimed at a symbolic link, a dangling link, a chain of links, a link
//! loop, a named pipe, a folder, a read-only file, a 0600 file, a file with two names, the command's
//! input, a missing folder, and beside stale temporary files; and a write killed halfway.

use std::os::unix::fs::{symlink, FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{Case, Ran};
use crate::{arg, Suite};

/// The input graph every kind that reads one reads: a 4-cycle.
const GRAPH: &str = "0 1\n1 2\n2 3\n3 0\n";
/// What a file holds before the command runs.
const OLD: &str = "old content\n";

/// A kind of output: its name and the arguments that write `out` (run in the case folder, where
/// `g.el` is the input).
struct Kind {
    name: &'static str,
    args: fn(&str) -> Vec<String>,
    /// Whether it reads `g.el` (`gen` reads nothing).
    reads: bool,
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// `simdx run` writing `out` with `option`.
fn run(option: &str, out: &str) -> Vec<String> {
    strings(&["run", "bfs", "g.el", "--source", "0", "--backend", "cpu", option, out])
}

/// `simdx bench` writing `out` with `option`.
fn bench(option: &str, out: &str) -> Vec<String> {
    strings(&["bench", "--algorithms", "bfs", "--graphs", "g.el", "--trials", "1", "--backends", "cpu", option, out])
}

fn kinds() -> Vec<Kind> {
    vec![
        Kind { name: "run --output", args: |o| run("--output", o), reads: true },
        Kind { name: "run --json", args: |o| run("--json", o), reads: true },
        Kind { name: "run --plot", args: |o| run("--plot", o), reads: true },
        Kind { name: "convert", args: |o| strings(&["convert", "g.el", o, "--to", "el"]), reads: true },
        Kind { name: "gen -o", args: |o| strings(&["gen", "kron:6", "-o", o, "--to", "el"]), reads: false },
        Kind { name: "bench --json", args: |o| bench("--json", o), reads: true },
        Kind { name: "bench --plot", args: |o| bench("--plot", o), reads: true },
    ]
}

/// A case folder with the input graph in it.
fn folder(s: &Suite) -> PathBuf {
    let dir = s.dir();
    std::fs::write(dir.join("g.el"), GRAPH).expect("the input graph");
    dir
}

fn mkfifo(path: &Path) {
    let c_path = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("a path without NUL");
    // SAFETY: `c_path` is a valid NUL-terminated string that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o644) }, 0, "mkfifo {}", path.display());
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).map_or(0, |m| m.permissions().mode() & 0o7777)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// `Err` naming any temporary file left in `dir`.
fn no_temporaries(dir: &Path) -> Result<(), String> {
    match listing(dir).into_iter().find(|n| n.contains(".simdx-tmp-")) {
        Some(name) => Err(format!("a temporary file was left: {name}")),
        None => Ok(()),
    }
}

/// `Err` unless `path` holds new content (not [`OLD`], not empty).
fn written(path: &Path) -> Result<(), String> {
    match read(path) {
        text if text.is_empty() || text == OLD => Err(format!("{} was not written", path.display())),
        _ => Ok(()),
    }
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn refusal_names(ran: &Ran, what: &str) -> Result<(), String> {
    match ran.stderr.contains(what) {
        true => Ok(()),
        false => Err(format!("the refusal does not name {what}: {}", ran.stderr.trim())),
    }
}

pub fn cases(s: &mut Suite) {
    for kind in kinds() {
        accepted(s, &kind);
        refused(s, &kind);
    }
    stale_temporaries(s);
    two_outputs_one_file(s);
    killed_writes(s);
}

/// Destinations a write goes through: links followed, modes kept.
fn accepted(s: &mut Suite, kind: &Kind) {
    let name = kind.name;
    // A link to a file: the file gets the data, the link stays.
    let dir = folder(s);
    std::fs::write(dir.join("target.out"), OLD).unwrap();
    symlink("target.out", dir.join("link.out")).unwrap();
    let d = dir.clone();
    let check = move |_: &Ran| {
        written(&d.join("target.out"))?;
        if !is_link(&d.join("link.out")) {
            return Err("the link was replaced by a file".into());
        }
        no_temporaries(&d)
    };
    s.add_in(dir, case(kind, format!("outputs: {name} through a symbolic link"), "link.out", 0).check(check));

    // A dangling link: its target is made.
    let dir = folder(s);
    symlink("made.out", dir.join("dangling.out")).unwrap();
    let d = dir.clone();
    let check = move |_: &Ran| {
        written(&d.join("made.out"))?;
        if !is_link(&d.join("dangling.out")) {
            return Err("the link was replaced by a file".into());
        }
        no_temporaries(&d)
    };
    s.add_in(dir, case(kind, format!("outputs: {name} through a dangling link"), "dangling.out", 0).check(check));

    // A chain of links into another folder: the temporary file goes there, and goes.
    let dir = folder(s);
    std::fs::create_dir(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/final.out"), OLD).unwrap();
    symlink("sub/final.out", dir.join("second.out")).unwrap();
    symlink(dir.join("second.out"), dir.join("first.out")).unwrap();
    let d = dir.clone();
    let check = move |_: &Ran| {
        written(&d.join("sub/final.out"))?;
        if !is_link(&d.join("first.out")) || !is_link(&d.join("second.out")) {
            return Err("a link of the chain was replaced".into());
        }
        no_temporaries(&d)?;
        no_temporaries(&d.join("sub"))
    };
    s.add_in(dir, case(kind, format!("outputs: {name} through a chain of links"), "first.out", 0).check(check));

    // A 0600 file stays 0600; a 0640 one 0640.
    for wanted in [0o600, 0o640] {
        let dir = folder(s);
        let out = dir.join("secret.out");
        std::fs::write(&out, OLD).unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(wanted)).unwrap();
        let d = dir.clone();
        let check = move |_: &Ran| {
            written(&d.join("secret.out"))?;
            match mode(&d.join("secret.out")) {
                m if m == wanted => no_temporaries(&d),
                m => Err(format!("the mode became {m:o}, was {wanted:o}")),
            }
        };
        let title = format!("outputs: {name} keeps mode {wanted:o}");
        s.add_in(dir, case(kind, title, "secret.out", 0).check(check));
    }

    // A plain existing file is replaced, and nothing else is left.
    let dir = folder(s);
    std::fs::write(dir.join("plain.out"), OLD).unwrap();
    let d = dir.clone();
    let check = move |_: &Ran| {
        written(&d.join("plain.out"))?;
        match listing(&d).iter().filter(|n| !n.starts_with("step")).collect::<Vec<_>>() {
            left if left == ["g.el", "plain.out"] => Ok(()),
            left => Err(format!("the folder holds {left:?}")),
        }
    };
    s.add_in(dir, case(kind, format!("outputs: {name} replaces a file whole"), "plain.out", 0).check(check));
}

/// The case `title` that runs `kind` writing `out` and must exit with `expect`.
fn case(kind: &Kind, title: String, out: &str, expect: i32) -> Case {
    let args = (kind.args)(out);
    Case::new(title, &args.iter().map(String::as_str).collect::<Vec<_>>(), expect)
}

/// Destinations refused with exit 2 and one sentence, everything left as it was.
fn refused(s: &mut Suite, kind: &Kind) {
    let name = kind.name;
    // A named pipe, directly and through a link: still a pipe, nothing blocks.
    for through_link in [false, true] {
        let dir = folder(s);
        mkfifo(&dir.join("pipe.out"));
        let out = if through_link {
            symlink("pipe.out", dir.join("to-pipe.out")).unwrap();
            "to-pipe.out"
        } else {
            "pipe.out"
        };
        let d = dir.clone();
        let check = move |ran: &Ran| {
            refusal_names(ran, "named pipe")?;
            match std::fs::symlink_metadata(d.join("pipe.out")) {
                Ok(m) if m.file_type().is_fifo() => no_temporaries(&d),
                _ => Err("the pipe was replaced".into()),
            }
        };
        let what = if through_link { "a link to a named pipe" } else { "a named pipe" };
        s.add_in(dir, case(kind, format!("outputs: {name} refuses {what}"), out, 2).check(check));
    }

    // A folder.
    let dir = folder(s);
    std::fs::create_dir(dir.join("folder.out")).unwrap();
    let d = dir.clone();
    let check = move |ran: &Ran| {
        refusal_names(ran, "folder.out")?;
        match listing(&d.join("folder.out")).is_empty() && d.join("folder.out").is_dir() {
            true => no_temporaries(&d),
            false => Err("the folder was changed".into()),
        }
    };
    s.add_in(dir, case(kind, format!("outputs: {name} refuses a folder"), "folder.out", 2).check(check));

    // A read-only file (even for root), directly and through a link.
    for through_link in [false, true] {
        let dir = folder(s);
        let out = dir.join("ro.out");
        std::fs::write(&out, OLD).unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
        let arg_out = if through_link {
            symlink("ro.out", dir.join("to-ro.out")).unwrap();
            "to-ro.out"
        } else {
            "ro.out"
        };
        let d = dir.clone();
        let check = move |ran: &Ran| {
            refusal_names(ran, "read-only")?;
            match (read(&d.join("ro.out")) == OLD, mode(&d.join("ro.out"))) {
                (true, 0o444) => no_temporaries(&d),
                (same, m) => Err(format!("the read-only file changed (same content: {same}, mode {m:o})")),
            }
        };
        let what = if through_link { "a link to a read-only file" } else { "a read-only file" };
        s.add_in(dir, case(kind, format!("outputs: {name} refuses {what}"), arg_out, 2).check(check));
    }

    // A file with a second name.
    let dir = folder(s);
    std::fs::write(dir.join("one.out"), OLD).unwrap();
    std::fs::hard_link(dir.join("one.out"), dir.join("two.out")).unwrap();
    let d = dir.clone();
    let check = move |ran: &Ran| {
        refusal_names(ran, "hard links")?;
        match read(&d.join("one.out")) == OLD && read(&d.join("two.out")) == OLD {
            true => no_temporaries(&d),
            false => Err("a name of the file changed".into()),
        }
    };
    s.add_in(dir, case(kind, format!("outputs: {name} refuses a file with two names"), "two.out", 2).check(check));

    // A missing folder, and a path that names no file.
    let dir = folder(s);
    let d = dir.clone();
    let check = move |ran: &Ran| {
        refusal_names(ran, "does not exist")?;
        match d.join("no").exists() {
            true => Err("the folder was made".into()),
            false => Ok(()),
        }
    };
    s.add_in(dir, case(kind, format!("outputs: {name} refuses a missing folder"), "no/such/x.out", 2).check(check));
    let dir = folder(s);
    s.add_in(dir, case(kind, format!("outputs: {name} refuses a path naming no file"), "sub/..", 2));

    // A loop of links.
    let dir = folder(s);
    symlink("b.out", dir.join("a.out")).unwrap();
    symlink("a.out", dir.join("b.out")).unwrap();
    let check = |ran: &Ran| refusal_names(ran, "loop");
    s.add_in(dir, case(kind, format!("outputs: {name} refuses a loop of links"), "a.out", 2).check(check));

    if kind.reads {
        same_as_input(s, kind);
    }
}

/// The command's own input as its output: by its name, through a link, by an absolute path.
fn same_as_input(s: &mut Suite, kind: &Kind) {
    for how in ["by name", "through a link", "by absolute path"] {
        let dir = folder(s);
        let out = match how {
            "by name" => "g.el".to_string(),
            "through a link" => {
                symlink("g.el", dir.join("alias.el")).unwrap();
                "alias.el".to_string()
            }
            _ => arg(&dir.join("g.el")),
        };
        let d = dir.clone();
        let check = move |ran: &Ran| {
            refusal_names(ran, "input")?;
            match read(&d.join("g.el")) == GRAPH {
                true => no_temporaries(&d),
                false => Err("the input was overwritten".into()),
            }
        };
        let title = format!("outputs: {name} refuses its input {how}", name = kind.name);
        s.add_in(dir, case(kind, title, &out, 2).check(check));
    }
}

/// Temporary files of a killed process (pid above any pid_max) go at the next write; one of a process
/// that runs (pid 1) and another destination's stay.
fn stale_temporaries(s: &mut Suite) {
    let dead = i32::MAX;
    for (what, args) in [
        ("convert", vec!["convert", "g.el", "out.el"]),
        ("gen", vec!["gen", "kron:6", "-o", "out.el"]),
        ("run --output", vec!["run", "bfs", "g.el", "--source", "0", "--output", "out.el"]),
    ] {
        let dir = folder(s);
        let stale = [format!(".out.el.simdx-tmp-{dead}-0"), format!(".out.el.{dead}.0.tmp")];
        let kept = [".out.el.simdx-tmp-1-0".to_string(), format!(".other.el.simdx-tmp-{dead}-0")];
        for name in stale.iter().chain(&kept) {
            std::fs::write(dir.join(name), "half").unwrap();
        }
        let d = dir.clone();
        let check = move |_: &Ran| {
            written(&d.join("out.el"))?;
            let left = listing(&d);
            if let Some(name) = stale.iter().find(|n| left.contains(n)) {
                return Err(format!("the stale {name} is still there"));
            }
            match kept.iter().find(|n| !left.contains(n)) {
                Some(name) => Err(format!("{name} was removed")),
                None => Ok(()),
            }
        };
        s.add_in(
            dir,
            Case::new(format!("outputs: {what} removes stale temporaries of dead processes"), &args, 0).check(check),
        );
    }
}

/// Two outputs of one run naming the same file (also through a link) are refused.
fn two_outputs_one_file(s: &mut Suite) {
    for (json, output) in [("same.out", "same.out"), ("same.out", "to-same.out")] {
        let dir = folder(s);
        symlink("same.out", dir.join("to-same.out")).unwrap();
        let d = dir.clone();
        let check = move |ran: &Ran| {
            refusal_names(ran, "same file")?;
            match d.join("same.out").exists() {
                true => Err("a file was written".into()),
                false => Ok(()),
            }
        };
        let args = ["run", "bfs", "g.el", "--source", "0", "--json", json, "--output", output];
        s.add_in(dir, Case::new(format!("outputs: --json {json} and --output {output}"), &args, 2).check(check));
    }
    // /dev/null is a device: refused, and left a device.
    let check = |ran: &Ran| {
        refusal_names(ran, "character device")?;
        match std::fs::metadata("/dev/null") {
            Ok(m) if m.file_type().is_char_device() => Ok(()),
            _ => Err("/dev/null is no longer a device".into()),
        }
    };
    let case = Case::new("outputs: run --output /dev/null", &["run", "bfs", "kron:6", "--output", "/dev/null"], 2);
    s.add(case.check(check));
}

/// A convert killed while it writes: SIGKILL leaves the destination absent and only a temporary file
/// (the next write removes it); SIGTERM and SIGINT leave nothing.
fn killed_writes(s: &mut Suite) {
    for signal in [libc::SIGKILL, libc::SIGTERM, libc::SIGINT] {
        let dir = s.dir();
        let d = dir.clone();
        let check = move |_: &Ran| killed_write(&d, signal);
        // The case's own run writes nothing; the check runs and kills the writes.
        let case = Case::new(format!("outputs: a convert killed by signal {signal} while writing"), &["--version"], 0);
        s.add_in(dir, case.check(check));
    }
}

/// Starts `convert` of a graph large enough to take a while to write, kills it with `signal` once its
/// temporary file appears, and checks what is left; then writes the destination again.
fn killed_write(dir: &Path, signal: libc::c_int) -> Result<(), String> {
    let binary = env!("CARGO_BIN_EXE_simdx");
    let spawn = |args: &[&str]| {
        Command::new(binary).args(args).current_dir(dir).stdout(Stdio::null()).stderr(Stdio::null()).spawn()
    };
    // The graph is read from a file first, so that the writing starts soon and lasts.
    let made = spawn(&["convert", "kron:16", "big.sxg"]).and_then(|mut c| c.wait()).map_err(|e| e.to_string())?;
    if !made.success() {
        return Err("could not make the input".into());
    }
    for _attempt in 0..5 {
        let mut child = spawn(&["convert", "big.sxg", "big.el"]).map_err(|e| e.to_string())?;
        let started = Instant::now();
        let seen = loop {
            if listing(dir).iter().any(|n| n.starts_with(".big.el.simdx-tmp-")) {
                break true;
            }
            if child.try_wait().map_err(|e| e.to_string())?.is_some() || started.elapsed() > Duration::from_secs(8) {
                break false;
            }
            std::thread::sleep(Duration::from_micros(200));
        };
        if !seen {
            let _ = child.kill();
            let _ = child.wait();
            let _ = std::fs::remove_file(dir.join("big.el"));
            continue;
        }
        // SAFETY: `child` is our own child, not yet waited for.
        unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        let status = child.wait().map_err(|e| e.to_string())?;
        if status.success() {
            // It finished before the signal came: try again.
            let _ = std::fs::remove_file(dir.join("big.el"));
            continue;
        }
        return after_kill(dir, signal);
    }
    Err("the write was never caught under way".into())
}

/// What a killed write must leave, and that the next write cleans up.
fn after_kill(dir: &Path, signal: libc::c_int) -> Result<(), String> {
    if dir.join("big.el").exists() {
        return Err("a killed write left its destination".into());
    }
    let temporaries: Vec<String> = listing(dir).into_iter().filter(|n| n.contains(".simdx-tmp-")).collect();
    match (signal == libc::SIGKILL, temporaries.len()) {
        (true, 1) | (false, 0) => {}
        (_, n) => return Err(format!("signal {signal} left {n} temporary files: {temporaries:?}")),
    }
    let again = Command::new(env!("CARGO_BIN_EXE_simdx"))
        .args(["convert", "kron:6", "big.el"])
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if !again.status.success() {
        return Err(format!("writing again failed: {}", String::from_utf8_lossy(&again.stderr)));
    }
    no_temporaries(dir)
}
